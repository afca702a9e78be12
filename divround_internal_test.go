package pricewatch

import (
	"testing"

	"github.com/shopspring/decimal"
)

// The integer path takes what clouds publish and leaves the rest to
// decimal (DivRound's equality with it is divround_test.go's).
func TestDivRoundIntegerPath(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"98.32", "8", true},
		{"0.0000123", "0.5", true},
		{"123456789012345678901234", "7", false}, // a coefficient past int64
		{"12345678901234567", "0.0001", false},   // the quotient past 64 bits
		{"1", "0", false},                        // decimal's panic, not ours
	} {
		if _, ok := divRoundInt(decimal.RequireFromString(c.a), decimal.RequireFromString(c.b), RateDecimals); ok != c.want {
			t.Errorf("%s / %s: integer path %v, want %v", c.a, c.b, ok, c.want)
		}
	}
}

// The GPU counts made once are what decimal.NewFromFloat gives, in
// coefficient and exponent, so a per-GPU-hour figure is the same either
// way.
func TestGPUCountDecimal(t *testing.T) {
	for _, n := range []float64{0, 0.25, 0.5, 1, 2, 3, 4, 8, 10, 16, 17, 72, 1.5} {
		got, want := gpuCountDecimal(n), decimal.NewFromFloat(n)
		if got.Coefficient().Cmp(want.Coefficient()) != 0 || got.Exponent() != want.Exponent() {
			t.Errorf("%v: %s (coefficient %s, exponent %d), want %s (%s, %d)", n, got, got.Coefficient(), got.Exponent(), want, want.Coefficient(), want.Exponent())
		}
	}
}
