package pricewatch

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// Hours in commitment terms, as clouds bill them: a year is 8,760 hours
// (365 days; leap days are not billed differently) and a month 730.
const (
	HoursPerYear  = 8760
	HoursPerMonth = 730
	// HoursPerDay counts a capacity block's days ("7d"): a block is sold
	// in whole days of 24 hours, from 11:30 UTC to 11:30 UTC.
	HoursPerDay = 24
)

// RateDecimals is the precision of derived hourly rates (effective hourly,
// per-GPU-hour). Ten places is what AWS itself publishes, so a derived rate
// is never less precise than a quoted one.
const RateDecimals = 10

// TermHours returns the number of billed hours in a term such as "1m",
// "6m", "1y" or "3y", or a capacity block's "1d" or "7d".
func TermHours(term string) (int64, error) {
	if len(term) < 2 {
		return 0, fmt.Errorf("term %q: want a number followed by d, m or y (e.g. 1y, 3y, 1m, 7d)", term)
	}
	n, err := strconv.ParseInt(term[:len(term)-1], 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("term %q: want a positive number followed by d, m or y", term)
	}
	var unit int64
	switch term[len(term)-1] {
	case 'y':
		unit = HoursPerYear
	case 'm':
		unit = HoursPerMonth
	case 'd':
		unit = HoursPerDay
	default:
		return 0, fmt.Errorf("term %q: unit must be d (days), m (months) or y (years)", term)
	}
	// A count whose hours overflow int64 would come out negative and spread
	// an upfront payment into a negative effective price (found by
	// FuzzTermHours): no commitment is that long.
	if n > math.MaxInt64/unit {
		return 0, fmt.Errorf("term %q: longer than any commitment", term)
	}
	return n * unit, nil
}

// EffectiveHourly spreads upfront over the term's hours and adds the hourly
// price. With no term (on-demand, spot) it is the hourly price itself.
func EffectiveHourly(hourly, upfront decimal.Decimal, term string) (decimal.Decimal, error) {
	if term == "" {
		if !upfront.IsZero() {
			return decimal.Decimal{}, fmt.Errorf("upfront payment %s without a term", upfront)
		}
		return hourly, nil
	}
	hours, err := TermHours(term)
	if err != nil {
		return decimal.Decimal{}, err
	}
	if upfront.IsZero() {
		return hourly, nil
	}
	spread := DivRound(upfront, decimal.NewFromInt(hours), RateDecimals+4)
	return hourly.Add(spread).Round(RateDecimals), nil
}

// ParsePrice reads a price as the clouds publish it: a decimal string,
// possibly in scientific notation ("9.0E-4"), with surrounding spaces.
// Placeholders such as "N/A*" or "" are an error, never zero.
func ParsePrice(s string) (decimal.Decimal, error) {
	d, err := ParseAmount(s)
	if err != nil {
		return decimal.Decimal{}, err
	}
	if d.IsNegative() {
		return decimal.Decimal{}, fmt.Errorf("price %q is negative", s)
	}
	return d, nil
}

// Bounds of a plausible amount. A 3-year all-upfront reservation of the
// largest GPU machine is a few million, in any currency pricewatch meets
// (CNY, JPY and IDR included) well under 10^12; a price below 10^-12 per
// hour is no price. The text bound keeps a hostile 10,001-digit number
// from being parsed at all.
const (
	MaxAmountText      = 64
	maxAmountOrder     = 12  // |amount| < 10^12
	minAmountOrder     = -12 // a non-zero |amount| ≥ 10^-12 (roughly)
	maxAmountSignifDig = 34
)

// ParseAmount reads an exact decimal as the clouds publish amounts (plain
// or scientific notation, surrounding spaces), refusing text that is not a
// number or whose magnitude no price can have (1e9999, a 10,001-digit
// number): such a value fails the run at parse time instead of reaching
// storage and every analysis.
func ParseAmount(s string) (decimal.Decimal, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return decimal.Decimal{}, fmt.Errorf("empty price")
	}
	if len(t) > MaxAmountText {
		return decimal.Decimal{}, fmt.Errorf("number %.20q… is %d characters long: no price is", t, len(t))
	}
	d, err := decimal.NewFromString(t)
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("price %q is not a number", s)
	}
	if err := CheckMagnitude(d); err != nil {
		return decimal.Decimal{}, fmt.Errorf("price %q: %w", t, err)
	}
	return d, nil
}

// CheckMagnitude refuses an amount outside the plausible range (see
// ParseAmount). It never rescales the value, so a huge exponent costs
// nothing to refuse.
func CheckMagnitude(d decimal.Decimal) error {
	if d.IsZero() {
		return nil
	}
	coef := d.Coefficient()
	digits := len(coef.Abs(coef).String())
	order := int64(digits) + int64(d.Exponent()) // |d| < 10^order
	switch {
	case digits > maxAmountSignifDig:
		return fmt.Errorf("%d significant digits: more than any price has", digits)
	case order > maxAmountOrder:
		return fmt.Errorf("magnitude 10^%d: no price is that large", order)
	case order < minAmountOrder:
		return fmt.Errorf("magnitude 10^%d: no price is that small", order)
	}
	return nil
}

// FormatPrice prints a price without float rounding and without trailing
// zeros beyond two decimals, so 98.32 prints "98.32" and 0.397031963 prints
// in full.
func FormatPrice(d decimal.Decimal) string {
	s := d.String()
	if !strings.Contains(s, ".") {
		return s + ".00"
	}
	if i := strings.IndexByte(s, '.'); len(s)-i-1 < 2 {
		return s + strings.Repeat("0", 2-(len(s)-i-1))
	}
	return s
}

// PerGPUHour divides an instance price by its GPU count. Fractional counts
// (vGPU slices) scale the price up to a whole GPU.
func PerGPUHour(hourly decimal.Decimal, gpuCount float64) (decimal.Decimal, bool) {
	if gpuCount <= 0 {
		return decimal.Decimal{}, false
	}
	return DivRound(hourly, gpuCountDecimal(gpuCount), RateDecimals), true
}

// gpuCounts are the whole GPU counts instances have, as decimals made
// once: a new decimal (a big.Int) per offer rated was a fiftieth of
// what a refresh round allocated.
var gpuCounts = func() (c [17]decimal.Decimal) {
	for i := range c {
		c[i] = decimal.NewFromFloat(float64(i))
	}
	return c
}()

// gpuCountDecimal is n as a decimal, exactly as decimal.NewFromFloat
// gives it.
func gpuCountDecimal(n float64) decimal.Decimal {
	if i := int(n); float64(i) == n && i >= 0 && i < len(gpuCounts) {
		return gpuCounts[i]
	}
	return decimal.NewFromFloat(n)
}

// FormatAmount prints an amount for people: two decimals and thousands
// separators (1,446,955.00). Stored and JSON values never go through it.
func FormatAmount(d decimal.Decimal) string { return GroupThousands(d.StringFixed(2)) }

// GroupThousands puts thousands separators into the integer part of a
// decimal number as text ("-1234567.5" → "-1,234,567.5"), for the figures
// people read; stored and JSON values never go through it.
func GroupThousands(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	intPart, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if hasFrac {
		return sign + b.String() + "." + frac
	}
	return sign + b.String()
}
