// Package focustest holds the rules a FOCUS dataset that pricewatch
// writes is checked against (issue 27's audit): the tests of focus and of
// the export command hold the written sheets to them. Nothing in the
// binary validates its own output at run time.
package focustest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/shopspring/decimal"
)

// Rules the validator needs from outside the sheet.
type Rules struct {
	// BillingCurrency is the configured fx.currency every row must bill in.
	BillingCurrency string
	// InternalIDs are pricewatch's provider ids, which no name column may
	// hold (readable names only).
	InternalIDs []string
}

// required are the columns a price list must have (FOCUS 1.2 mandatory
// columns and the conditional ones that apply to a price list), each
// never null on a Usage or Purchase row.
var required = []string{
	"BillingCurrency", "ChargeCategory", "ChargeDescription", "ChargeFrequency", "ContractedUnitPrice",
	"InvoiceIssuerName", "ListUnitPrice", "PricingCategory", "PricingCurrency",
	"PricingCurrencyContractedUnitPrice", "PricingCurrencyListUnitPrice", "PricingQuantity", "PricingUnit",
	"ProviderName", "PublisherName", "ServiceCategory", "ServiceName", "ServiceProviderName", "ServiceSubcategory",
	"SkuId", "SkuMeter", "SkuPriceDetails", "SkuPriceId",
}

// present are the columns that must exist though they may be null.
var present = []string{"CommitmentDiscountCategory", "CommitmentDiscountType", "HostProviderName", "RegionId", "RegionName", "AvailabilityZone",
	"x_Location", "x_InstanceType", "x_OperatingSystem", "x_ExchangeRate", "x_ExchangeRateSource"}

var allowed = map[string][]string{
	"ChargeCategory":  {"Usage", "Purchase", "Tax", "Credit", "Adjustment"},
	"ChargeFrequency": {"One-Time", "Recurring", "Usage-Based"},
	"PricingCategory": {"Standard", "Dynamic", "Committed", "Other"},
	"ServiceCategory": {"AI and Machine Learning", "Analytics", "Business Applications", "Compute", "Databases",
		"Developer Tools", "Multicloud", "Identity", "Integration", "Internet of Things", "Management and Governance",
		"Media", "Migration", "Mobile", "Networking", "Security", "Storage", "Web", "Other"},
	"ServiceSubcategory": {"Bare Metal", "Containers", "End User Computing", "Quantum Compute", "Serverless Compute",
		"Virtual Machines", "Other (Compute)"},
}

var (
	currencyCode = regexp.MustCompile(`^[A-Z]{3}$`)
	// pricingUnit: FOCUS's unit format, a plural unit with an optional
	// count before it ("Hours", "3 Years").
	pricingUnit = regexp.MustCompile(`^([1-9][0-9]* )?[A-Z][A-Za-z]*s$`)
	columnID    = regexp.MustCompile(`^[A-Z][A-Za-z]*$`)
	detailKey   = regexp.MustCompile(`^(x_[A-Za-z0-9]+|[A-Z][A-Za-z0-9]*)$`)
)

// Validate checks a FOCUS price sheet (header first) against the column
// rules docs/focus.md quotes, returning every breach found.
func Validate(recs [][]string, rules Rules) []error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if len(recs) == 0 {
		return []error{fmt.Errorf("no header")}
	}
	col := map[string]int{}
	sawCustom := false
	for i, h := range recs[0] {
		col[h] = i
		switch {
		case strings.HasPrefix(h, "x_"):
			sawCustom = true
		case !columnID.MatchString(h):
			add("column %q: neither a FOCUS column id nor x_-prefixed", h)
		case sawCustom:
			add("FOCUS column %s after x_ columns", h)
		}
	}
	for _, h := range append(slices.Clone(required), present...) {
		if _, ok := col[h]; !ok {
			add("column %s missing", h)
		}
	}
	// A missing column reads as null, so that the rows are still checked.
	cell := func(r []string, c string) string {
		if i, ok := col[c]; ok {
			return r[i]
		}
		return ""
	}
	internal := map[string]bool{}
	for _, id := range rules.InternalIDs {
		internal[id] = true
	}
	// A commitment's list price is the on-demand price of the same SKU.
	type skuPlace struct{ provider, region, location, instance, os string }
	placeOf := func(r []string) skuPlace {
		return skuPlace{cell(r, "ProviderName"), cell(r, "RegionId"), cell(r, "x_Location"), cell(r, "x_InstanceType"), cell(r, "x_OperatingSystem")}
	}
	// The list price is the standard on-demand one, as SkuPriceDetails
	// says of the row (not a DWS flex-start or calendar-mode price, nor a
	// monthly plan, which are Standard usage too), and not a marketplace
	// host's.
	onDemand := map[skuPlace]string{}
	for _, r := range recs[1:] {
		if len(r) == len(recs[0]) && cell(r, "PricingCategory") == "Standard" && cell(r, "ChargeCategory") == "Usage" &&
			PurchaseOption(cell(r, "SkuPriceDetails")) == "On-Demand" && cell(r, "x_Marketplace") != "true" {
			onDemand[placeOf(r)] = cell(r, "PricingCurrencyListUnitPrice")
		}
	}
	priceOf := map[string]string{}
	skuOf := map[string]string{}
	for n, r := range recs[1:] {
		line := n + 2
		if len(r) != len(recs[0]) {
			add("row %d: %d cells for %d columns", line, len(r), len(recs[0]))
			continue
		}
		get := func(c string) string { return cell(r, c) }
		where := fmt.Sprintf("row %d (%s)", line, get("SkuPriceId"))
		if get("PricingCategory") == "Committed" {
			if od, ok := onDemand[placeOf(r)]; ok && od != get("PricingCurrencyListUnitPrice") {
				add("%s: a commitment's list price %s, but the same SKU's on-demand price is %s", where, get("PricingCurrencyListUnitPrice"), od)
			}
		}
		for _, c := range required {
			if _, ok := col[c]; ok && get(c) == "" { // a missing column is reported once, above
				add("%s: %s is null", where, c)
			}
		}
		for c, vals := range allowed {
			if v := get(c); v != "" && !slices.Contains(vals, v) {
				add("%s: %s %q is not an allowed value", where, c, v)
			}
		}
		cat, freq := get("ChargeCategory"), get("ChargeFrequency")
		if cat == "Purchase" && freq == "Usage-Based" {
			add("%s: a Purchase is not Usage-Based", where)
		}
		if cat == "Purchase" && get("PricingCategory") == "Committed" {
			add("%s: buying a commitment is Standard, not Committed", where)
		}
		if freq == "Usage-Based" && get("PricingUnit") != "Hours" {
			add("%s: an hourly price with PricingUnit %q", where, get("PricingUnit"))
		}
		if u := get("PricingUnit"); u != "" && !pricingUnit.MatchString(u) {
			add("%s: PricingUnit %q is not in FOCUS's unit format", where, u)
		}
		// No commitment is bought in a price list, so there is no
		// CommitmentDiscountId and the columns keyed on it stay null.
		for _, c := range []string{"CommitmentDiscountCategory", "CommitmentDiscountType"} {
			if get(c) != "" {
				add("%s: %s %q without a CommitmentDiscountId", where, c, get(c))
			}
		}
		if get("RegionId") != "" && get("RegionName") == "" {
			add("%s: RegionId %s without a RegionName", where, get("RegionId"))
		}
		if get("RegionId") == "" && get("RegionName") != "" {
			add("%s: RegionName %s without a RegionId", where, get("RegionName"))
		}
		if v := strings.ToLower(get("RegionId")); v == "global" || v == "*" {
			add("%s: RegionId %q is not a region one provisions in", where, get("RegionId"))
		}
		for _, c := range []string{"ProviderName", "PublisherName", "InvoiceIssuerName", "ServiceProviderName", "HostProviderName"} {
			if internal[get(c)] {
				add("%s: %s %q is an internal id, not a readable name", where, c, get(c))
			}
		}
		if b := get("BillingCurrency"); b != rules.BillingCurrency {
			add("%s: BillingCurrency %q, want the configured %s", where, b, rules.BillingCurrency)
		}
		for _, c := range []string{"BillingCurrency", "PricingCurrency"} {
			if v := get(c); v != "" && !currencyCode.MatchString(v) {
				add("%s: %s %q is not an ISO 4217 code", where, c, v)
			}
		}
		num := map[string]decimal.Decimal{}
		for _, c := range []string{"ListUnitPrice", "ContractedUnitPrice", "PricingCurrencyListUnitPrice", "PricingCurrencyContractedUnitPrice", "PricingQuantity"} {
			v := get(c)
			if v == "" {
				continue
			}
			d, err := decimal.NewFromString(v)
			if err != nil || d.IsNegative() {
				add("%s: %s %q is not a non-negative decimal", where, c, v)
				continue
			}
			num[c] = d
		}
		if q, ok := num["PricingQuantity"]; ok && !q.IsPositive() {
			add("%s: PricingQuantity %s", where, q)
		}
		// A list price of 0 is a placeholder (an all-upfront commitment's
		// own hourly rate), never a price a cloud publishes for a GPU.
		for _, c := range []string{"ListUnitPrice", "PricingCurrencyListUnitPrice"} {
			if l, ok := num[c]; ok && l.IsZero() {
				add("%s: %s 0 is a placeholder, not a list price", where, c)
			}
		}
		for _, pair := range [][2]string{{"ListUnitPrice", "ContractedUnitPrice"}, {"PricingCurrencyListUnitPrice", "PricingCurrencyContractedUnitPrice"}} {
			l, okL := num[pair[0]]
			c, okC := num[pair[1]]
			if okL && okC && l.LessThan(c) {
				add("%s: %s %s below %s %s", where, pair[0], l, pair[1], c)
			}
		}
		if get("PricingCurrency") == get("BillingCurrency") && get("PricingCurrencyListUnitPrice") != "" &&
			!num["PricingCurrencyListUnitPrice"].Equal(num["ListUnitPrice"]) {
			add("%s: same currency, but ListUnitPrice %s differs from PricingCurrencyListUnitPrice %s", where, num["ListUnitPrice"], num["PricingCurrencyListUnitPrice"])
		}
		if get("PricingCurrency") != get("BillingCurrency") && (get("x_ExchangeRate") == "" || get("x_ExchangeRateSource") == "") {
			add("%s: converted from %s without x_ExchangeRate and its source", where, get("PricingCurrency"))
		}
		if v := get("SkuPriceDetails"); v != "" {
			var m map[string]any
			if err := json.Unmarshal([]byte(v), &m); err != nil {
				add("%s: SkuPriceDetails is not a JSON object: %v", where, err)
			}
			for k := range m {
				if !detailKey.MatchString(k) {
					add("%s: SkuPriceDetails key %q is neither PascalCase nor x_", where, k)
				}
			}
		}
		// One price per price id, and one parent SKU.
		id := get("SkuPriceId")
		if id == "" {
			continue
		}
		price := get("ListUnitPrice") + "/" + get("ContractedUnitPrice") + "/" + get("PricingUnit") + "/" + freq
		if prev, ok := priceOf[id]; ok {
			add("%s: SkuPriceId on more than one row (%s, then %s)", where, prev, price)
		}
		priceOf[id] = price
		if prev, ok := skuOf[id]; ok && prev != get("SkuId") {
			add("%s: SkuPriceId with two SkuIds %s and %s", where, prev, get("SkuId"))
		}
		skuOf[id] = get("SkuId")
	}
	return errs
}

// PurchaseOption is SkuPriceDetails' x_PurchaseOption, empty when the
// details are not a JSON object (reported on its own).
func PurchaseOption(details string) string {
	var m map[string]any
	if json.Unmarshal([]byte(details), &m) != nil {
		return ""
	}
	v, _ := m["x_PurchaseOption"].(string)
	return v
}

// Columns maps each column name of header to its index.
func Columns(header []string) map[string]int {
	m := make(map[string]int, len(header))
	for i, h := range header {
		m[h] = i
	}
	return m
}
