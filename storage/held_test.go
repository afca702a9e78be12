package storage

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
)

// TestHeldPriceStaysOutAndCurrentStays: a held price is not stored, the
// stored one stays current (not closed), nothing changes, the run record
// counts it, its streak grows over consecutive runs, breaks after a run
// without it, and an accepted hold is stored.
func TestHeldPriceStaysOutAndCurrentStays(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		real := offer("Standard_ND96isr_H200_v5", "usgovvirginia", pricewatch.OnDemand, "106.0")
		placeholder := real
		placeholder.Hourly = decimal.RequireFromString("0.01")
		mustSave(t, db, snapshot(real))
		hold := func(accepted bool) SaveOptions {
			return SaveOptions{Held: []HeldPrice{{Offer: placeholder, Reason: HeldBelowFloor, Detail: "0.00125 USD per GPU-hour is below the floor",
				Stored: decimal.NewNullDecimal(real.Hourly), Accepted: accepted}}}
		}
		current := func() string {
			t.Helper()
			ps, err := db.Prices(ctx, PriceFilter{CurrentOnly: true})
			if err != nil || len(ps) != 1 {
				t.Fatalf("current prices %v, %v", ps, err)
			}
			return ps[0].Hourly.String()
		}
		streak := func() int {
			t.Helper()
			s, err := db.HeldStreaks(ctx, "azure")
			if err != nil {
				t.Fatal(err)
			}
			return s[placeholder.Key()].Runs
		}

		for run := 1; run <= 2; run++ {
			clk.tick()
			res := mustSaveWith(t, db, snapshot(placeholder), hold(false))
			if res.Held != 1 || res.HeldReasons[HeldBelowFloor] != 1 || len(res.Changes) != 0 || res.Closed != 0 {
				t.Errorf("held run %d: %+v, want 1 held, no change, nothing closed", run, res)
			}
			if current() != "106" {
				t.Errorf("held run %d: current price %s, want 106 to stay", run, current())
			}
			if streak() != run {
				t.Errorf("held run %d: streak %d", run, streak())
			}
			var n int
			if err := db.read.QueryRowContext(ctx, `SELECT offers_held FROM fetch_runs WHERE id = ?`, res.RunID).Scan(&n); err != nil || n != 1 {
				t.Errorf("run record offers_held %d (%v), want 1", n, err)
			}
			// `runs` reads the count back through LastRuns.
			if runs, err := db.LastRuns(ctx); err != nil || len(runs) != 1 || runs[0].Held != 1 {
				t.Errorf("LastRuns: %+v (%v), want one run with Held 1", runs, err)
			}
		}
		// A complete run without the held price breaks the streak.
		clk.tick()
		mustSave(t, db, snapshot(real))
		if s := streak(); s != 0 {
			t.Errorf("streak after a run without the held price: %d, want 0", s)
		}
		clk.tick()
		mustSaveWith(t, db, snapshot(placeholder), hold(false))
		if s := streak(); s != 1 {
			t.Errorf("streak after a gap: %d, want to start again at 1", s)
		}
		// Accepted: stored as the new price.
		clk.tick()
		res := mustSaveWith(t, db, snapshot(placeholder), hold(true))
		if res.Accepted != 1 || res.Held != 0 || res.Changed != 1 || current() != "0.01" {
			t.Errorf("accepted run: %+v, current %s", res, current())
		}
		recs, err := db.HeldPrices(ctx, HeldFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 2 {
			t.Fatalf("held records %+v, want 2 (one per streak)", recs)
		}
		newest, oldest := recs[0], recs[1]
		if newest.Runs != 2 || newest.AcceptedAt == nil || oldest.Runs != 2 || oldest.AcceptedAt != nil ||
			!oldest.Stored.Valid || oldest.Stored.Decimal.String() != "106" || oldest.Hourly.String() != "0.01" || oldest.Reason != HeldBelowFloor {
			t.Errorf("held records: newest %+v\noldest %+v", newest, oldest)
		}
		if !oldest.LastSeen.After(oldest.FirstSeen) {
			t.Errorf("oldest hold first %s last %s", oldest.FirstSeen, oldest.LastSeen)
		}
	})
}

func TestHeldReasonsText(t *testing.T) {
	got := HeldReasonsText(map[string]int{HeldBelowFloor: 2, HeldFractionOfPrice: 1})
	if got != "2 below the floor per GPU-hour, 1 a tiny fraction of comparable prices" {
		t.Errorf("got %q", got)
	}
}

// TestHeldStreakCarriesThroughUnchangedScope: a run that leaves the held
// price's region unchanged (its file was not downloaded again) still lists
// that price, so the streak goes on; a run covering the region without it
// ends the streak.
func TestHeldStreakCarriesThroughUnchangedScope(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		low := offer("p5.48xlarge", "us-east-1", pricewatch.OnDemand, "0.05504")
		low.Provider = "aws"
		real := low
		real.Hourly = decimal.RequireFromString("55.04")
		scope := []pricewatch.Scope{{Region: "us-east-1"}}
		run := func(snap *pricewatch.Snapshot, held []HeldPrice) {
			t.Helper()
			clk.tick()
			mustSaveWith(t, db, snap, SaveOptions{Held: held})
		}
		run(&pricewatch.Snapshot{Provider: "aws", Offers: []pricewatch.Offer{real}, Coverage: scope}, nil)
		run(&pricewatch.Snapshot{Provider: "aws", Offers: []pricewatch.Offer{low}, Coverage: scope}, []HeldPrice{{Offer: low, Reason: HeldFractionOfPrice}})
		run(&pricewatch.Snapshot{Provider: "aws", Unchanged: scope, Skipped: 1}, nil)
		streaks, err := db.HeldStreaks(ctx, "aws")
		if err != nil {
			t.Fatal(err)
		}
		if got := streaks[low.Key()].Runs; got != 2 {
			t.Errorf("streak after an unchanged run: %d, want 2", got)
		}
		run(&pricewatch.Snapshot{Provider: "aws", Offers: []pricewatch.Offer{real}, Coverage: scope}, nil)
		if streaks, _ = db.HeldStreaks(ctx, "aws"); streaks[low.Key()].Runs != 0 {
			t.Errorf("streak after a run without the price: %d, want 0", streaks[low.Key()].Runs)
		}
	})
}
