package storage

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
)

// blockPrice is a capacity block stored as a price (issue 23 item 3): one
// p5.48xlarge for days in zone, its fee all upfront.
func blockPrice(zone, term, fee string) pricewatch.Offer {
	o := offer("p5.48xlarge", "us-east-2", pricewatch.CapacityBlockPrice, "0")
	o.Provider, o.Zone, o.Term, o.Payment, o.Hourly, o.Upfront = "aws", zone, term, pricewatch.AllUpfront, decimal.Zero, decimal.RequireFromString(fee)
	return o
}

// blockRun is one AWS run of us-east-2: the price file's on-demand price
// under its scope (on_demand and reserved, never capacity_block), and,
// when the block fetch answered in full, the blocks under a scope of
// capacity_block alone.
func blockRun(fetched bool, blocks ...pricewatch.Offer) *pricewatch.Snapshot {
	od := offer("p5.48xlarge", "us-east-2", pricewatch.OnDemand, "55.04")
	od.Provider = "aws"
	s := &pricewatch.Snapshot{Provider: "aws", Offers: []pricewatch.Offer{od},
		Coverage: []pricewatch.Scope{{Region: "us-east-2", PriceTypes: []pricewatch.PriceType{pricewatch.OnDemand, pricewatch.Reserved}, Availability: true}}}
	if fetched {
		s.Offers = append(s.Offers, blocks...)
		s.Coverage = append(s.Coverage, pricewatch.Scope{Region: "us-east-2", PriceTypes: []pricewatch.PriceType{pricewatch.CapacityBlockPrice}})
	}
	return s
}

// Block prices are intervals like any price: an unchanged answer writes
// nothing, a skipped or failed block fetch (no capacity_block scope)
// closes nothing, and a block missing from a complete answer closes as
// gone (price_gone, which no alert event reads). The effective hourly is
// the fee over the window's hours, exactly.
func TestCapacityBlockPriceIntervals(t *testing.T) {
	backends(t, func(t *testing.T) {
		_, db, clk := openTestDB(t)
		b2 := blockPrice("us-east-2b", "7d", "5285.952")
		a1 := blockPrice("us-east-2a", "1d", "786.60")
		steps := []struct {
			name    string
			snap    *pricewatch.Snapshot
			changes string // kind and zone of each price change
			current []string
		}{
			{"blocks appear", blockRun(true, b2, a1), "[price_new on_demand price_new us-east-2a price_new us-east-2b]",
				[]string{"on_demand  55.04", "capacity_block us-east-2a 32.775", "capacity_block us-east-2b 31.464"}},
			{"the same answer writes nothing", blockRun(true, b2, a1), "[]",
				[]string{"on_demand  55.04", "capacity_block us-east-2a 32.775", "capacity_block us-east-2b 31.464"}},
			{"block fetch skipped: nothing closes", blockRun(false), "[]",
				[]string{"on_demand  55.04", "capacity_block us-east-2a 32.775", "capacity_block us-east-2b 31.464"}},
			{"a block gone from a complete answer closes", blockRun(true, b2), "[price_gone us-east-2a]",
				[]string{"on_demand  55.04", "capacity_block us-east-2b 31.464"}},
		}
		for _, st := range steps {
			clk.tick()
			res := mustSave(t, db, st.snap)
			var got []string
			for _, c := range res.Changes {
				got = append(got, string(c.Kind)+" "+cmp.Or(c.Offer.Zone, string(c.Offer.PriceType)))
			}
			slices.Sort(got)
			if fmt.Sprint(got) != st.changes && !(st.changes == "[]" && len(got) == 0) {
				t.Errorf("%s: changes %v, want %s", st.name, got, st.changes)
			}
			var cur []string
			for _, p := range allPrices(t, db) {
				if p.ValidTo == nil {
					cur = append(cur, fmt.Sprintf("%s %s %s", p.PriceType, p.Zone, p.EffectiveHourly))
				}
			}
			want := slices.Clone(st.current)
			slices.Sort(cur)
			slices.Sort(want)
			if !slices.Equal(cur, want) {
				t.Errorf("%s: current %v, want %v", st.name, cur, want)
			}
		}
		// The closed block keeps its term and fee.
		for _, p := range allPrices(t, db) {
			if p.Zone == "us-east-2a" && (p.ValidTo == nil || p.Term != "1d" || p.Upfront.String() != "786.6" || !p.Hourly.IsZero()) {
				t.Errorf("closed block %+v", p)
			}
		}
	})
}

// Blocks sell out and pass their start all at once: a complete block
// answer with none left, in a run whose price file was unchanged (so the
// blocks are all its coverage holds), or that lost most blocks, is no
// suspicious drop; the blocks close and the run stores. A price file
// that comes back empty still fails the run.
func TestCapacityBlocksVanishingIsNoSuspiciousDrop(t *testing.T) {
	backends(t, func(t *testing.T) {
		_, db, clk := openTestDB(t)
		opts := SaveOptions{MinOfferRatio: 0.5}
		blocks := []pricewatch.Offer{blockPrice("us-east-2a", "1d", "786.60"), blockPrice("us-east-2b", "1d", "755.136"),
			blockPrice("us-east-2c", "1d", "755.136"), blockPrice("us-east-2b", "7d", "5285.952")}
		clk.tick()
		mustSaveWith(t, db, blockRun(true, blocks...), opts)
		// The price file unchanged (its scope in Unchanged), every block gone.
		unchanged := blockRun(true)
		unchanged.Offers = nil
		unchanged.Unchanged, unchanged.Coverage = unchanged.Coverage[:1], unchanged.Coverage[1:]
		clk.tick()
		res, err := save(t, db, unchanged, opts)
		if err != nil {
			t.Fatalf("every block gone from a complete answer failed the run: %v", err)
		}
		if res.Closed != len(blocks) {
			t.Errorf("%d closed, want the %d blocks", res.Closed, len(blocks))
		}
		// The price file now empty: still a suspicious drop.
		empty := blockRun(true)
		empty.Offers = nil
		clk.tick()
		if _, err := save(t, db, empty, opts); !errors.Is(err, ErrSuspiciousDrop) {
			t.Errorf("an empty price file: %v, want ErrSuspiciousDrop", err)
		}
	})
}
