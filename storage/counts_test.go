package storage

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
)

// Issue 20 item 11: a run's counts add up, Seen = New + Changed +
// Unchanged. The stored offers of a scope the run found unchanged (an AWS
// price file whose version did not move) are seen as well as unchanged,
// and a price the guard holds is counted as held, not seen.
func TestResultCountsAddUp(t *testing.T) {
	backends(t, func(t *testing.T) {
		_, db, clk := openTestDB(t)
		east := offer("p5.48xlarge", "us-east-1", pricewatch.OnDemand, "55.04")
		west := offer("p5.48xlarge", "us-west-2", pricewatch.OnDemand, "55.04")
		westP4 := offer("p4d.24xlarge", "us-west-2", pricewatch.OnDemand, "21.96")
		spot := offer("p5.48xlarge", "us-east-1", pricewatch.Spot, "20.1")
		for _, o := range []*pricewatch.Offer{&east, &west, &westP4, &spot} {
			o.Provider = "aws"
		}
		mustSave(t, db, &pricewatch.Snapshot{Provider: "aws", Offers: []pricewatch.Offer{east, west, westP4, spot},
			Coverage: []pricewatch.Scope{{Region: pricewatch.AllRegions}}})
		clk.tick()
		cheaper, newSpot, held := east, offer("p4d.24xlarge", "us-east-1", pricewatch.Spot, "8.2"), spot
		cheaper.Hourly = decimal.RequireFromString("54.04")
		newSpot.Provider = "aws"
		held.Hourly = decimal.RequireFromString("0.0201") // a thousandth

		res, err := save(t, db, &pricewatch.Snapshot{
			Provider: "aws", Offers: []pricewatch.Offer{cheaper, newSpot, held},
			Coverage:  []pricewatch.Scope{{Region: "us-east-1"}},
			Unchanged: []pricewatch.Scope{{Region: "us-west-2"}},
			Skipped:   1,
		}, SaveOptions{Held: []HeldPrice{{Offer: held, Reason: HeldFractionOfPrice}}})
		if err != nil {
			t.Fatal(err)
		}
		// Listed: one changed, one new, one held; unchanged: us-west-2's two.
		if res.New != 1 || res.Changed != 1 || res.Unchanged != 2 || res.Held != 1 || res.Closed != 0 || res.Seen != 4 {
			t.Errorf("result: %d seen, %d new, %d changed, %d unchanged, %d held, %d closed; want 4, 1, 1, 2, 1, 0",
				res.Seen, res.New, res.Changed, res.Unchanged, res.Held, res.Closed)
		}
		if res.Seen != res.New+res.Changed+res.Unchanged {
			t.Errorf("%d seen ≠ %d new + %d changed + %d unchanged", res.Seen, res.New, res.Changed, res.Unchanged)
		}
	})
}
