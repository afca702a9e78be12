package storage

import (
	"testing"

	"github.com/pricewatch/pricewatch"
)

// The choices count the current prices only, per provider, price type,
// GPU model and currency, for the OS asked.
func TestCurrentOfferChoices(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		win := offer("ND96_H100", "eastus", pricewatch.OnDemand, "98")
		win.OS = pricewatch.Windows
		mustSave(t, db, snapshot(offer("ND96_H100", "eastus", pricewatch.OnDemand, "90"), offer("ND96_H100", "westus", pricewatch.OnDemand, "91"),
			offer("ND96_H100", "eastus", pricewatch.Spot, "30"), win))
		clk.tick()
		// The spot price changes: still one current spot offer.
		mustSave(t, db, snapshot(offer("ND96_H100", "eastus", pricewatch.OnDemand, "90"), offer("ND96_H100", "westus", pricewatch.OnDemand, "91"),
			offer("ND96_H100", "eastus", pricewatch.Spot, "25"), win))
		for _, c := range []struct {
			os   string
			want []OfferChoice
		}{
			{pricewatch.Linux, []OfferChoice{{"azure", pricewatch.OnDemand, "H100", "USD", 2}, {"azure", pricewatch.Spot, "H100", "USD", 1}}},
			{"", []OfferChoice{{"azure", pricewatch.OnDemand, "H100", "USD", 3}, {"azure", pricewatch.Spot, "H100", "USD", 1}}},
		} {
			got, err := db.CurrentOfferChoices(ctx, c.os)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("os %q: %+v, want %+v", c.os, got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("os %q: %+v, want %+v", c.os, got[i], c.want[i])
				}
			}
		}
	})
}
