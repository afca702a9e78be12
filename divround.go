package pricewatch

import (
	"math"
	"math/bits"

	"github.com/shopspring/decimal"
)

// DivRound is a.DivRound(b, precision), the same value in the same
// representation (coefficient and exponent), computed in 64- and 128-bit
// integers when both coefficients fit in an int64 and the quotient does:
// every price a cloud publishes and every GPU count, memory size or term
// in hours. decimal's own DivRound goes through big.Int for each one;
// per-GPU-hour rates of every current offer, taken again for each view of
// a new data version, made it a tenth of a refresh round's allocations at
// 45k offers (issue 30, docs/scale.md). Anything else, division by zero
// included, is decimal's.
func DivRound(a, b decimal.Decimal, precision int32) decimal.Decimal {
	if q, ok := divRoundInt(a, b, precision); ok {
		return q
	}
	return a.DivRound(b, precision)
}

// pow10 are the powers of ten an uint64 holds.
var pow10 = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

func divRoundInt(a, b decimal.Decimal, precision int32) (decimal.Decimal, bool) {
	if a.NumDigits() > 18 || b.NumDigits() > 18 {
		return decimal.Decimal{}, false
	}
	ac, bc := a.CoefficientInt64(), b.CoefficientInt64()
	if bc == 0 {
		return decimal.Decimal{}, false
	}
	neg := (ac < 0) != (bc < 0)
	ua, ub := absUint(ac), absUint(bc)
	// a / b = ua·10^ea / (ub·10^eb); the quotient's coefficient at
	// exponent −precision is ua·10^(ea−eb+precision) / ub, rounded.
	shift := int64(a.Exponent()) - int64(b.Exponent()) + int64(precision)
	hi, lo, den := uint64(0), ua, ub
	if shift >= 0 {
		for shift > 0 {
			step := min(shift, 19)
			var ok bool
			if hi, lo, ok = mul128(hi, lo, pow10[step]); !ok {
				return decimal.Decimal{}, false
			}
			shift -= step
		}
	} else {
		if -shift >= int64(len(pow10)) {
			return decimal.Decimal{}, false
		}
		h, l := bits.Mul64(ub, pow10[-shift])
		if h != 0 {
			return decimal.Decimal{}, false
		}
		den = l
	}
	if hi >= den {
		return decimal.Decimal{}, false // the quotient is past 64 bits
	}
	q, r := bits.Div64(hi, lo, den)
	if q >= math.MaxInt64 {
		return decimal.Decimal{}, false
	}
	// Half away from zero, as decimal's DivRound: 2r ≥ den.
	if r >= den-r {
		q++
	}
	v := int64(q)
	if neg {
		v = -v
	}
	return decimal.New(v, -precision), true
}

// mul128 is (hi, lo) × m, and whether it fits in 128 bits.
func mul128(hi, lo, m uint64) (uint64, uint64, bool) {
	h1, l1 := bits.Mul64(hi, m)
	if h1 != 0 {
		return 0, 0, false
	}
	h2, l2 := bits.Mul64(lo, m)
	sum, carry := bits.Add64(l1, h2, 0)
	if carry != 0 {
		return 0, 0, false
	}
	return sum, l2, true
}

func absUint(v int64) uint64 {
	if v < 0 {
		return uint64(-v) // MinInt64 has 19 digits: NumDigits kept it out
	}
	return uint64(v)
}
