package azure

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
)

// Reasons a row is left out, counted per region for the run summary.
const (
	skipNotVM        = "not a virtual machine meter"
	skipDevTest      = "DevTestConsumption (dev/test subscriptions only)"
	skipLowPriority  = "Low Priority (Batch/scale-set only)"
	skipCloudService = "legacy Cloud Services product"
	skipUnit         = "unit cannot be converted to per hour (stored price kept)"
	skipUnreadable   = "row is not valid UTF-8 (stored prices kept)"
	skipTiered       = "tiered price"
	skipType         = "unknown price type"
	skipNotGPU       = "not a GPU family size"
	skipRegion       = "outside the configured regions"
	skipWindows      = "Windows (providers.azure.windows is off)"
	skipNoPrice      = "price is zero"
	skipPlaceholder  = "effectiveEndDate before effectiveStartDate (placeholder row)"
	skipEnded        = "effectiveEndDate already past (superseded price)"
	skipNotYet       = "effectiveStartDate in the future (not in effect yet)"
)

// inEffect says why a row is not the price in effect at now, or "" when
// it is. Azure lists a price that has been replaced beside its successor
// (the old row gets an effectiveEndDate, the new one a later
// effectiveStartDate), publishes some rows before they start, and carries
// placeholder rows (0.01 for a 106.0 H200) whose end lies before their
// start: none of them is what a user pays now. A row without dates is in
// effect; a date that does not parse is a malformed row.
func inEffect(it item, now time.Time) (string, error) {
	start, err := parseDate(it.EffectiveStartDate)
	if err != nil {
		return "", fmt.Errorf("effectiveStartDate: %w", err)
	}
	end, err := parseDate(it.EffectiveEndDate)
	if err != nil {
		return "", fmt.Errorf("effectiveEndDate: %w", err)
	}
	switch {
	case !start.IsZero() && !end.IsZero() && end.Before(start):
		return skipPlaceholder, nil
	case !end.IsZero() && now.After(end):
		return skipEnded, nil
	case !start.IsZero() && start.After(now):
		return skipNotYet, nil
	}
	return "", nil
}

// parseDate reads an ISO 8601 date-time as the API writes it
// ("2025-05-01T00:00:00Z"); empty is the zero time.
func parseDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not an ISO 8601 date-time", s)
	}
	return t, nil
}

// classify says what a row sells, or why it is not a VM price our users
// can buy. It looks only at the row's labels, not at its price.
func classify(it item) (pt pricewatch.PriceType, os, skip string) {
	meter, skuName, product := strings.TrimSpace(it.MeterName), strings.TrimSpace(it.SkuName), strings.TrimSpace(it.ProductName)
	// A field a row leaves out (trimmed mirrors, as in the published H100
	// rows) is not a reason to drop it: the request asked for VM rows, and
	// only a field that says otherwise rules a row out.
	service := strings.TrimSpace(it.ServiceName)
	switch {
	case service != "" && service != "Virtual Machines":
		return "", "", skipNotVM
	case strings.TrimSpace(it.Type) == "DevTestConsumption":
		return "", "", skipDevTest
	case strings.HasSuffix(meter, " Low Priority") || strings.HasSuffix(skuName, " Low Priority"):
		return "", "", skipLowPriority
	case strings.Contains(product, "Cloud Services"):
		return "", "", skipCloudService
	}
	if t := strings.TrimSpace(string(it.TierMinimumUnits)); t != "" {
		if d, err := decimal.NewFromString(t); err == nil && d.IsPositive() {
			return "", "", skipTiered
		}
	}
	os = pricewatch.Linux
	// Windows rows share meter and SKU names with Linux ones; only the
	// product name tells the licensed price apart.
	if strings.HasSuffix(product, " Windows") {
		os = pricewatch.Windows
	}
	switch strings.TrimSpace(it.Type) {
	case "Consumption":
		if strings.HasSuffix(meter, " Spot") || strings.HasSuffix(skuName, " Spot") {
			return pricewatch.Spot, os, ""
		}
		return pricewatch.OnDemand, os, ""
	case "Reservation":
		return pricewatch.Reserved, os, ""
	case "SavingsPlanConsumption":
		// The China price sheet lists a savings plan's rate as a row of
		// its own (the global API nests it in the consumption row's
		// savingsPlan); no plan covers spot.
		if strings.HasSuffix(meter, " Spot") || strings.HasSuffix(skuName, " Spot") {
			return "", "", skipType
		}
		return pricewatch.SavingsPlan, os, ""
	}
	return "", "", skipType
}

// candidate is an offer with what is needed to choose between two rows
// that describe the same offer.
type candidate struct {
	offer   pricewatch.Offer
	primary bool   // isPrimaryMeterRegion
	start   string // effectiveStartDate, ISO 8601 (sorts as text)
	id      string // skuId, the row's own identity
	// rival is set when another row of the same rank lists a different
	// price for the offer: then neither is kept.
	rival *candidate
}

// offersFor maps a classified row of a tracked size to offers: one for the
// row itself and, for on-demand rows, one per savings-plan term. An error
// means the row is malformed (no currency, a price that is not a number,
// an unreadable term); skip means a price of zero, left out rather than
// stored as free.
func offersFor(provider string, it item, pt pricewatch.PriceType, os string, s sku) ([]candidate, string, error) {
	price, err := parseAmount(it.RetailPrice)
	if err != nil {
		return nil, "", fmt.Errorf("retailPrice: %w", err)
	}
	currency := strings.TrimSpace(it.CurrencyCode)
	if currency == "" {
		return nil, "", fmt.Errorf("no currencyCode")
	}
	if !price.IsPositive() {
		return nil, skipNoPrice, nil
	}
	// A reservation's retailPrice is a term total under "1 Hour"; in any
	// other unit what it totals is not documented.
	hours, ok := unitHours(it.UnitOfMeasure)
	if !ok || (pt == pricewatch.Reserved && !hours.Equal(decimal.NewFromInt(1))) {
		return nil, skipUnit, nil
	}
	price = perHour(price, hours)
	base := pricewatch.Offer{
		Provider:     provider,
		Region:       regionOf(it),
		InstanceType: s.name,
		PriceType:    pt,
		OS:           os,
		Currency:     currency,
		Hardware:     s.hw,
		// Savings-plan prices come inside the consumption row and are
		// billed on its meter, so they carry its identifiers.
		CloudIDs: pricewatch.CloudIDs{
			SkuID: strings.TrimSpace(it.SkuID), SkuPriceID: strings.TrimSpace(it.MeterID),
			ProductID: strings.TrimSpace(it.ProductID), RegionName: strings.TrimSpace(it.Location),
		},
	}
	c := candidate{primary: it.IsPrimaryMeterRegion == nil || *it.IsPrimaryMeterRegion, start: strings.TrimSpace(it.EffectiveStartDate), id: strings.TrimSpace(it.SkuID)}

	var out []candidate
	switch pt {
	case pricewatch.Reserved:
		term, err := parseTerm(it.ReservationTerm)
		if err != nil {
			return nil, "", fmt.Errorf("reservationTerm: %w", err)
		}
		// A reservation row's retailPrice is the price of the whole term,
		// although its unit says "1 Hour": it is the upfront payment, and
		// the root package spreads it over the term's hours.
		o := base
		o.Term, o.Payment, o.Upfront = term, pricewatch.AllUpfront, price
		c.offer = o
		out = append(out, c)
	case pricewatch.OnDemand:
		c.offer = base
		c.offer.Hourly = price
		out = append(out, c)
		for _, sp := range it.SavingsPlan {
			hourly, err := parseAmount(sp.RetailPrice)
			if err != nil {
				return nil, "", fmt.Errorf("savingsPlan retailPrice: %w", err)
			}
			// The plan's rate is quoted in the row's unit, as its
			// retailPrice is.
			hourly = perHour(hourly, hours)
			if !hourly.IsPositive() {
				continue
			}
			term, err := parseTerm(sp.Term)
			if err != nil {
				return nil, "", fmt.Errorf("savingsPlan term: %w", err)
			}
			// Savings-plan prices are genuinely hourly and billed as used.
			o := base
			o.PriceType, o.Term, o.Payment, o.Hourly = pricewatch.SavingsPlan, term, pricewatch.NoUpfront, hourly
			spc := c
			spc.offer = o
			out = append(out, spc)
		}
	case pricewatch.SavingsPlan:
		// A SavingsPlanConsumption row: its rate per unit, billed as used,
		// for the row's term.
		term, err := parseTerm(it.ReservationTerm)
		if err != nil {
			return nil, "", fmt.Errorf("savings plan term: %w", err)
		}
		o := base
		o.Term, o.Payment, o.Hourly = term, pricewatch.NoUpfront, price
		c.offer = o
		out = append(out, c)
	default: // spot
		c.offer = base
		c.offer.Hourly = price
		out = append(out, c)
	}
	return out, "", nil
}

// unitPattern is a count of hours, days, months or years as Azure writes
// a unitOfMeasure: "1 Hour", "100 Hours", "1/Hour", "1/Day", "1/Month".
var unitPattern = regexp.MustCompile(`^([1-9][0-9]{0,5}) ?(?:/ ?)?(Hour|Hours|Day|Days|Month|Months|Year|Years)$`)

// unitHours returns how many hours one unitOfMeasure holds, or false for
// a unit that is not a length of time ("10K", "1 GB/Month", "1 Second"
// is left out too: no VM is billed so). A missing unit is a trimmed row
// of an hourly price (the published H100 rows lack the field).
func unitHours(unit string) (decimal.Decimal, bool) {
	unit = strings.TrimSpace(unit)
	if unit == "" {
		return decimal.NewFromInt(1), true
	}
	m := unitPattern.FindStringSubmatch(unit)
	if m == nil {
		return decimal.Decimal{}, false
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return decimal.Decimal{}, false
	}
	per := int64(1)
	switch strings.TrimSuffix(m[2], "s") {
	case "Day":
		per = 24
	case "Month":
		per = pricewatch.HoursPerMonth // Azure's own 730-hour month
	case "Year":
		per = pricewatch.HoursPerYear
	}
	return decimal.NewFromInt(n * per), true
}

// perHour spreads a price over the hours of its unit: exact when the
// quotient ends (734.6 per 100 hours is 7.346), else at the precision of
// every derived rate (pricewatch.RateDecimals), as an effective hourly is.
func perHour(price, hours decimal.Decimal) decimal.Decimal {
	if hours.Equal(decimal.NewFromInt(1)) {
		return price
	}
	return price.DivRound(hours, pricewatch.RateDecimals)
}

// regionOf is the row's region code, case-folded: Azure's region codes are
// lower case in every capture, and a row spelling one "EastUS" is the same
// region (as armSkuName is matched without regard to case).
func regionOf(it item) string { return foldRegion(it.ArmRegionName) }

// foldRegion is a region code as the fetcher compares it: trimmed and
// lower case, as the API's own codes are (its filter compares exactly).
func foldRegion(r string) string { return strings.ToLower(strings.TrimSpace(r)) }

// regionCodes cleans a configured list of region codes (foldRegion),
// without repeats; key names the list in the error for an entry that is
// not a region code (it would be pasted into an OData string literal or
// a URL).
func regionCodes(list []string, key string) ([]string, error) {
	return fetchers.Distinct(list, foldRegion, func(_ int, r string) error {
		if !regionCode.MatchString(r) {
			return fmt.Errorf("azure: providers.azure.%s: %q is not an Azure region code such as eastus", key, r)
		}
		return nil
	})
}

// parseAmount reads a JSON number exactly.
func parseAmount(n interface{ String() string }) (decimal.Decimal, error) {
	s := strings.TrimSpace(n.String())
	if s == "" {
		return decimal.Decimal{}, fmt.Errorf("missing")
	}
	d, err := pricewatch.ParseAmount(s)
	if err != nil {
		return decimal.Decimal{}, err
	}
	if d.IsNegative() {
		return decimal.Decimal{}, fmt.Errorf("%q is negative", s)
	}
	return d, nil
}

// parseTerm turns Azure's "1 Year" / "3 Years" into pricewatch's "1y" / "3y".
func parseTerm(t string) (string, error) {
	f := strings.Fields(t)
	if len(f) == 2 {
		n, err := strconv.Atoi(f[0])
		if err == nil && n > 0 {
			switch strings.ToLower(f[1]) {
			case "year", "years":
				return strconv.Itoa(n) + "y", nil
			case "month", "months":
				return strconv.Itoa(n) + "m", nil
			}
		}
	}
	return "", fmt.Errorf("%q is not a term like \"1 Year\"", t)
}

// outranks reports whether a supersedes b when both describe the same
// offer and both are in effect: the primary meter region's row first, then
// the row that took effect later (it replaced the other). Rows of equal
// rank that disagree on the price are a conflict the API gives no field to
// settle (see accumulator.add); the price itself never decides.
func outranks(a, b candidate) bool {
	if a.primary != b.primary {
		return a.primary
	}
	return a.start > b.start
}

// samePrice reports whether two candidates sell at the same price.
func samePrice(a, b candidate) bool {
	return a.offer.Currency == b.offer.Currency && a.offer.Hourly.Equal(b.offer.Hourly) && a.offer.Upfront.Equal(b.offer.Upfront)
}

// malformed wraps a row error as an incomplete page.
func malformed(where string, pageNo, index int, it item, err error) error {
	return fmt.Errorf("%w: azure %s page %d item %d (%s %s %s): %v", fetchers.ErrIncomplete, where, pageNo, index,
		strings.TrimSpace(it.ArmSkuName), strings.TrimSpace(it.ArmRegionName), strings.TrimSpace(it.Type), err)
}
