package storage

import (
	"cmp"
	"fmt"
	"slices"
	"testing"

	"github.com/pricewatch/pricewatch"
)

// The keys of the current prices are the current read's ids, offer ids
// and stored last_seen, for the providers asked and no other, on both
// backends: after changed, unchanged and closed prices.
func TestEachCurrentPriceKey(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		for i := range 3 {
			offers := []pricewatch.Offer{
				offer("Standard_NC24ads_A100_v4", "eastus", pricewatch.Spot, fmt.Sprintf("1.%d", i)),
				offer("Standard_ND96isr_H100_v5", "westus", pricewatch.OnDemand, "90"),
			}
			if i < 2 {
				offers = append(offers, offer("Standard_NC40ads_H100_v5", "eastus", pricewatch.OnDemand, "7")) // then closed
			}
			mustSave(t, db, snapshot(offers...))
			clk.tick()
		}
		other := snapshot(offer("p5.48xlarge", "us-east-1", pricewatch.OnDemand, "98.32"))
		other.Provider = pricewatch.AWS
		other.Offers[0].Provider = pricewatch.AWS
		mustSave(t, db, other)
		for _, providers := range [][]string{{pricewatch.Azure}, {pricewatch.AWS, pricewatch.Azure}, {"nowhere"}, nil} {
			want, err := db.Prices(ctx, PriceFilter{CurrentOnly: true, Providers: providers, PricesOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			if providers == nil {
				want = nil // none asked, none read
			}
			var got []CurrentPriceKey
			if err := db.EachCurrentPriceKey(ctx, providers, func(k CurrentPriceKey) error {
				got = append(got, k)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			slices.SortFunc(got, func(a, b CurrentPriceKey) int { return cmp.Compare(a.ID, b.ID) })
			slices.SortFunc(want, func(a, b PriceInterval) int { return cmp.Compare(a.ID, b.ID) })
			if len(got) != len(want) {
				t.Fatalf("%q: %d keys, want %d: %+v", providers, len(got), len(want), got)
			}
			for i, k := range got {
				w := CurrentPriceKey{ID: want[i].ID, OfferID: want[i].OfferID, LastSeen: want[i].LastSeen}
				if k != w {
					t.Errorf("%q: key %+v, want %+v", providers, k, w)
				}
			}
			if slices.Equal(providers, []string{pricewatch.Azure}) && len(got) != 2 {
				t.Errorf("azure: %d current keys, want 2 (the third offer was closed)", len(got))
			}
		}
	})
}
