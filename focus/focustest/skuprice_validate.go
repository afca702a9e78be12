package focustest

import (
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch/focus"
)

// skuPriceRequired are the SKU Price dataset's columns never null on any
// row (the draft's identity, validity and price columns, and the FOCUS
// ones the price sheet requires too).
var skuPriceRequired = []string{
	"SkuPriceEffectiveStart", "SkuId", "SkuPriceId", "ListUnitPrice", "ContractedUnitPrice",
	"PricingUnit", "PricingCurrency", "PricingQuantity", "PricingCategory", "ChargeCategory",
	"ProviderName", "ServiceName", "SkuMeter", "SkuPriceDetails",
}

var (
	skuPriceCurrency = regexp.MustCompile(`^[A-Z]{3}$`)
	skuPriceUnit     = regexp.MustCompile(`^([1-9][0-9]* )?[A-Z][A-Za-z]*s$`)
	// skuPriceCommitments are the commitment columns' pairs (FOCUS's
	// CommitmentDiscountCategory of each CommitmentDiscountType written).
	skuPriceCommitments = map[string]string{"Reservation": "Usage", "Committed Use Discount": "Usage", "Savings Plan": "Spend"}
)

// ValidateSKUPrice checks a SKU Price dataset (header first): every column
// present, the required ones non-null, dates RFC 3339 and ordered (start
// before end), prices decimals with the contracted at most the list,
// commitment columns paired and present on every Committed row, and per
// SkuPriceId the intervals contiguous or gapped but never overlapping,
// at most one still current. It is kept apart from Validate (the price
// sheet's rules, of one moment) as the two datasets' rules differ.
func ValidateSKUPrice(recs [][]string) []error {
	if len(recs) == 0 {
		return []error{fmt.Errorf("no header")}
	}
	col := Columns(recs[0])
	var errs []error
	for _, c := range focus.SKUPriceHeader {
		if _, ok := col[c]; !ok {
			errs = append(errs, fmt.Errorf("column %s missing", c))
		}
	}
	if len(errs) > 0 {
		return errs
	}
	type span struct {
		row        int
		start, end time.Time // end zero while current
	}
	spans := map[string][]span{}
	for i, r := range recs[1:] {
		row := i + 2 // the line of the file
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("line %d (%s): %s", row, r[col["SkuPriceId"]], fmt.Sprintf(format, args...)))
		}
		if len(r) != len(recs[0]) {
			bad("%d fields, the header has %d", len(r), len(recs[0]))
			continue
		}
		for _, c := range skuPriceRequired {
			if r[col[c]] == "" {
				bad("%s is null", c)
			}
		}
		start, err := time.Parse(time.RFC3339, r[col["SkuPriceEffectiveStart"]])
		if err != nil {
			bad("SkuPriceEffectiveStart %q is not an RFC 3339 time", r[col["SkuPriceEffectiveStart"]])
			continue
		}
		var end time.Time
		if e := r[col["SkuPriceEffectiveEnd"]]; e != "" {
			if end, err = time.Parse(time.RFC3339, e); err != nil {
				bad("SkuPriceEffectiveEnd %q is not an RFC 3339 time", e)
				continue
			}
			if !end.After(start) {
				bad("SkuPriceEffectiveEnd %s is not after SkuPriceEffectiveStart %s", e, r[col["SkuPriceEffectiveStart"]])
			}
		}
		list, errL := decimal.NewFromString(r[col["ListUnitPrice"]])
		contracted, errC := decimal.NewFromString(r[col["ContractedUnitPrice"]])
		switch {
		case errL != nil || errC != nil:
			bad("ListUnitPrice %q or ContractedUnitPrice %q is not a decimal", r[col["ListUnitPrice"]], r[col["ContractedUnitPrice"]])
		case contracted.GreaterThan(list):
			bad("ContractedUnitPrice %s above ListUnitPrice %s", contracted, list)
		}
		if v := r[col["PricingCurrency"]]; v != "" && !skuPriceCurrency.MatchString(v) {
			bad("PricingCurrency %q is not an ISO 4217 code", v)
		}
		if v := r[col["PricingUnit"]]; v != "" && !skuPriceUnit.MatchString(v) {
			bad("PricingUnit %q is not a FOCUS unit", v)
		}
		typ, category := r[col["CommitmentDiscountType"]], r[col["CommitmentDiscountCategory"]]
		if want, ok := skuPriceCommitments[typ]; typ != "" && (!ok || category != want) {
			bad("CommitmentDiscountType %q with CommitmentDiscountCategory %q", typ, category)
		}
		if typ == "" && category != "" {
			bad("CommitmentDiscountCategory %q without a CommitmentDiscountType", category)
		}
		if r[col["PricingCategory"]] == "Committed" && typ == "" {
			bad("a Committed price without its commitment columns")
		}
		if !slices.Contains([]string{"Standard", "Dynamic", "Committed", "Other"}, r[col["PricingCategory"]]) {
			bad("PricingCategory %q is not an allowed value", r[col["PricingCategory"]])
		}
		id := r[col["SkuPriceId"]]
		spans[id] = append(spans[id], span{row, start, end})
	}
	for id, ss := range spans {
		slices.SortFunc(ss, func(a, b span) int { return a.start.Compare(b.start) })
		for i := 1; i < len(ss); i++ {
			prev, cur := ss[i-1], ss[i]
			if prev.end.IsZero() || prev.end.After(cur.start) {
				errs = append(errs, fmt.Errorf("lines %d and %d (%s): intervals overlap (the first ends %v, the second starts %v)",
					prev.row, cur.row, id, prev.end, cur.start))
			}
		}
	}
	return errs
}
