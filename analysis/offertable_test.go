package analysis

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
)

// SortByPrice applies its order in place, cycle by cycle: the result is
// the stable sort by (with a price first, price, key) of the rows, every
// row kept once, for any permutation of them.
func TestSortedByPriceInPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	type row struct {
		perGPU bool
		price  decimal.Decimal
		o      pricewatch.OfferKeyJSON
		seq    int // the row's place before the sort
	}
	of := func(r *row) (bool, decimal.Decimal, *pricewatch.OfferKeyJSON) { return r.perGPU, r.price, &r.o }
	for n := range 40 {
		rows := make([]row, n)
		for i := range rows {
			rows[i] = row{
				perGPU: rng.IntN(5) > 0,
				// Few prices and regions, so that ties and equal keys occur.
				price: decimal.New(int64(rng.IntN(4)), -int32(rng.IntN(2))),
				o:     pricewatch.OfferKeyJSON{Provider: "aws", Region: []string{"a", "b", "c"}[rng.IntN(3)]},
				seq:   i,
			}
		}
		want := slices.Clone(rows)
		slices.SortStableFunc(want, func(a, b row) int {
			if a.perGPU != b.perGPU {
				if a.perGPU {
					return -1
				}
				return 1
			}
			if a.perGPU {
				if c := a.price.Cmp(b.price); c != 0 {
					return c
				}
			}
			return keyCompare((*pricewatch.OfferKey)(&a.o), (*pricewatch.OfferKey)(&b.o))
		})
		got := rows
		SortByPrice(got, of)
		for i := range want {
			if got[i].seq != want[i].seq {
				t.Fatalf("%d rows: place %d holds row %d, want %d", n, i, got[i].seq, want[i].seq)
			}
		}
	}
}
