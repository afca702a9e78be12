package storage

import (
	"fmt"
	"slices"
	"testing"

	"github.com/pricewatch/pricewatch"
)

// ClosedOnly with Since reads the Since read's closed intervals, none of
// its current ones; without Since alone it is refused, never read as
// something else.
func TestClosedOnlySince(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		start := clk.t
		for i := 0; i < 5; i++ {
			a := offer("Standard_NC24ads_A100_v4", "eastus", pricewatch.Spot, fmt.Sprintf("1.%d", i))
			b := offer("Standard_ND96isr_H100_v5", "westus", pricewatch.OnDemand, "90")
			mustSave(t, db, snapshot(a, b))
			clk.tick()
		}
		since := clk.t.Add(-clk.t.Sub(start) / 2)
		all, err := db.Prices(ctx, PriceFilter{Since: since})
		if err != nil {
			t.Fatal(err)
		}
		var want []int64
		for _, p := range all {
			if p.ValidTo != nil {
				want = append(want, p.ID)
			}
		}
		if len(want) == 0 || len(want) == len(all) {
			t.Fatalf("the fixture's window holds %d closed of %d intervals: want some of each", len(want), len(all))
		}
		var got []int64
		if err := db.EachPrice(ctx, PriceFilter{Since: since, ClosedOnly: true}, func(p *PriceInterval) error {
			got = append(got, p.ID)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("closed since %s: %v, want %v", since, got, want)
		}
		for _, f := range []PriceFilter{{ClosedOnly: true}, {ClosedOnly: true, Since: since, CurrentOnly: true}, {ClosedOnly: true, Since: since, ByOffer: true}} {
			if err := db.EachPrice(ctx, f, func(*PriceInterval) error { return nil }); err == nil {
				t.Errorf("%+v: read, want refused", f)
			}
		}
	})
}
