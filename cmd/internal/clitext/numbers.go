package clitext

import (
	"strconv"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
)

// Money prints an amount with two decimals and thousands separators.
func Money(d decimal.Decimal) string { return pricewatch.FormatAmount(d) }

// Percent prints a 0–100 percentage with one decimal: "39.5%".
func Percent(pct decimal.Decimal) string { return pct.StringFixed(1) + "%" }

// Share prints a 0–1 share as a percentage: 0.3945 → "39.5%".
func Share(share decimal.Decimal) string { return Percent(share.Mul(decimal.NewFromInt(100))) }

// Rate shows a derived rate (effective hourly, per GPU-hour) to four
// decimals for a table; JSON and CSV carry every stored digit.
func Rate(d decimal.Decimal) string {
	if d.Equal(d.Round(4)) {
		return pricewatch.FormatPrice(d)
	}
	return d.StringFixed(4)
}

// Float prints a count or size without trailing zeros: 8, 0.5, 80.
func Float(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
