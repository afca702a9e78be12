package pricewatch_test

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
)

// sameDecimal: equal value, coefficient and exponent, so that every
// printed form (String, StringFixed, JSON) is the same too.
func sameDecimal(t *testing.T, what string, got, want decimal.Decimal) {
	t.Helper()
	if got.Exponent() != want.Exponent() || got.Coefficient().Cmp(want.Coefficient()) != 0 {
		t.Errorf("%s = %s (exp %d), want %s (exp %d)", what, got, got.Exponent(), want, want.Exponent())
	}
}

func TestDivRoundIsDecimals(t *testing.T) {
	for _, c := range []struct {
		a, b      string
		precision int32
	}{
		{"98.32", "8", 10},                    // a p5's on-demand per GPU-hour
		{"-98.32", "8", 10},                   // a price drop
		{"0.5", "3", 2},                       // half rounds away from zero
		{"-0.5", "3", 2},                      // and away from zero below it
		{"1", "3", 10},                        // never exact
		{"0.000123", "0.5", 14},               // a fractional GPU
		{"12345678901234567", "0.0001", 10},   // the quotient past 64 bits
		{"123456789012345678901234", "7", 10}, // a coefficient past int64
		{"0", "8", 10},
		{"7", "1e-30", 2},
		{"7", "1e30", 2},
		{"989.4", "8", 4},
		{"6.25", "2.5", 0},
	} {
		a, b := decimal.RequireFromString(c.a), decimal.RequireFromString(c.b)
		sameDecimal(t, c.a+" / "+c.b, pricewatch.DivRound(a, b, c.precision), a.DivRound(b, c.precision))
	}
}

func FuzzDivRound(f *testing.F) {
	f.Add(int64(9832), int32(-2), int64(8), int32(0), int32(10))
	f.Add(int64(-5), int32(-1), int64(3), int32(0), int32(0))
	f.Add(int64(1), int32(0), int64(3), int32(0), int32(10))
	f.Add(int64(999999999999999999), int32(5), int64(7), int32(-9), int32(14))
	f.Fuzz(func(t *testing.T, ac int64, ae int32, bc int64, be int32, precision int32) {
		if bc == 0 || ae < -40 || ae > 40 || be < -40 || be > 40 || precision < -20 || precision > 40 {
			return
		}
		a, b := decimal.New(ac, ae), decimal.New(bc, be)
		sameDecimal(t, a.String()+" / "+b.String(), pricewatch.DivRound(a, b, precision), a.DivRound(b, precision))
	})
}
