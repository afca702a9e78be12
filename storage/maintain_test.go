package storage

import (
	"fmt"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch"
)

func countRows(t *testing.T, db *DB, q string) int {
	t.Helper()
	var n int
	if err := db.read.QueryRow(q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Old changes go, but never while an alert queued with them waits.
func TestRetentionPrunesDeliveredChanges(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		for i, price := range []string{"98.32", "90"} {
			snap := snapshot(offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.OnDemand, price))
			key := []string{"run/1/x", "run/2/x"}[i]
			mustSaveWith(t, db, snap, SaveOptions{Outbox: func(*Result) ([]OutboxMessage, error) { return []OutboxMessage{msg(key, "C1")}, nil }})
			clk.t = clk.t.Add(24 * time.Hour)
		}
		if n := countRows(t, db, "SELECT COUNT(*) FROM changes"); n != 2 {
			t.Fatalf("%d changes stored, want 2", n)
		}
		clk.t = clk.t.Add(30 * 24 * time.Hour)
		res, err := db.Maintain(ctx, Retention{ChangesMaxAge: 7 * 24 * time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		if res.ChangesPruned != 0 {
			t.Errorf("pruned %d changes while their alerts are pending", res.ChangesPruned)
		}
		first, err := db.OutboxByKey(ctx, "run/1/x")
		if err != nil {
			t.Fatal(err)
		}
		if err := db.MarkSent(ctx, first.ID); err != nil {
			t.Fatal(err)
		}
		if res, err = db.Maintain(ctx, Retention{ChangesMaxAge: 7 * 24 * time.Hour}); err != nil || res.ChangesPruned != 1 {
			t.Fatalf("after the first alert was sent: pruned %d, %v; want 1", res.ChangesPruned, err)
		}
		if n := countRows(t, db, "SELECT COUNT(*) FROM changes"); n != 1 {
			t.Errorf("%d changes left, want the one whose alert waits", n)
		}
		if res, err = db.Maintain(ctx, Retention{}); err != nil || res.ChangesPruned != 0 {
			t.Errorf("no retention pruned %d, %v", res.ChangesPruned, err)
		}
	})
}

// Thinning merges contiguous spot intervals within a step, leaves gaps,
// recent history and other price types alone, and keeps intervals from
// overlapping.
func TestRetentionThinsOldSpot(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		clk.t = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		od := offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.OnDemand, "98.32")
		// Day 1: four spot prices hourly, then the spot offer is gone for an
		// hour and back; day 2..: one more price.
		prices := []string{"30", "31", "32", "33", "", "34", "35"}
		for _, p := range prices {
			offers := []pricewatch.Offer{od}
			if p != "" {
				offers = append(offers, offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.Spot, p))
			}
			mustSave(t, db, snapshot(offers...))
			clk.tick()
		}
		clk.t = clk.t.Add(10 * 24 * time.Hour)
		before, _ := db.Prices(ctx, PriceFilter{PriceTypes: []pricewatch.PriceType{pricewatch.Spot}})
		res, err := db.Maintain(ctx, Retention{SpotThinAfter: 5 * 24 * time.Hour, SpotThinStep: 24 * time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		after, err := db.Prices(ctx, PriceFilter{PriceTypes: []pricewatch.PriceType{pricewatch.Spot}})
		if err != nil {
			t.Fatal(err)
		}
		// 30..33 (hours 0–4) become one; 34 (hours 5–6) stays as the start
		// of a new stretch; 35 is current and untouched.
		if res.SpotIntervalsMerged != 3 || len(before) != 6 || len(after) != 3 {
			t.Fatalf("merged %d: %d intervals before, %d after: %+v", res.SpotIntervalsMerged, len(before), len(after), after)
		}
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		if !after[0].Hourly.Equal(before[0].Hourly) || !after[0].ValidFrom.Equal(start) || !after[0].ValidTo.Equal(start.Add(4*time.Hour)) {
			t.Errorf("merged interval: %+v", after[0])
		}
		if after[2].ValidTo != nil {
			t.Errorf("current spot price thinned: %+v", after[2])
		}
		if n := countRows(t, db, "SELECT COUNT(*) FROM prices WHERE offer_id = (SELECT id FROM offers WHERE price_type = 'on_demand')"); n != 1 {
			t.Errorf("on-demand intervals: %d, want 1", n)
		}
	})
}

func TestStats(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		for _, p := range []string{"98.32", "90"} {
			mustSave(t, db, snapshot(offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.OnDemand, p)))
			clk.tick()
		}
		st, err := db.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.PriceIntervals != 2 || st.CurrentPrices != 1 || st.Offers != 1 || st.Runs != 2 || st.OldestPrice == nil ||
			!st.OldestPrice.Equal(time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)) || st.FileBytes == 0 || st.Pages == 0 {
			t.Errorf("stats: %+v", st)
		}
		for _, ts := range st.Tables {
			if ts.Name == "prices" && (ts.Rows != 2 || ts.PayloadBytes == 0) {
				t.Errorf("prices table: %+v", ts)
			}
		}
		if err := db.Vacuum(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

func TestParseFixedTimeMatchesTimeParse(t *testing.T) {
	for _, s := range []string{"2026-11-02T10:00:00.000000Z", "2024-02-29T23:59:59.999999Z", "2026-01-01T00:00:00.000001Z"} {
		want, err := time.Parse(timeFormat, s)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := parseFixedTime(s)
		if !ok || !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("%s: %v %v, want %v", s, got, ok, want)
		}
	}
	for _, s := range []string{"2026-02-31T10:00:00.000000Z", "2026-13-01T10:00:00.000000Z", "2026-11-02T10:00:00Z", "2026-11-02 10:00:00.000000Z", "2026-11-0aT10:00:00.000000Z"} {
		if _, ok := parseFixedTime(s); ok {
			t.Errorf("%s parsed", s)
		}
	}
}

// A changes_max_age under a week and a day still keeps the week's changes
// the weekly digest counts (PriceChanges); older ones go.
func TestRetentionKeepsTheDigestsWeek(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		for _, price := range []string{"98.32", "90", "91"} {
			mustSaveWith(t, db, snapshot(offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.OnDemand, price)), SaveOptions{})
			clk.t = clk.t.Add(5 * 24 * time.Hour)
		}
		// Changes at day 0 (new), 5 and 10 (moves); now is day 15.
		res, err := db.Maintain(ctx, Retention{ChangesMaxAge: time.Hour})
		if err != nil || res.ChangesPruned != 2 {
			t.Fatalf("pruned %d, %v; want the two changes older than %s", res.ChangesPruned, err, MinChangesAge)
		}
		counts, err := db.PriceChanges(ctx, clk.t.Add(-7*24*time.Hour), clk.t, pricewatch.Linux, nil)
		if err != nil || len(counts) != 1 || counts[0].N != 1 || counts[0].Region != "eastus" {
			t.Errorf("the week's price changes: %+v, %v; want the day-10 move", counts, err)
		}
	})
}

// Changes are pruned a batch at a time, every old one however many
// batches they take, the newer ones kept and each counted once.
func TestRetentionPrunesInBatches(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		defer func(n int64) { pruneBatch = n }(pruneBatch)
		pruneBatch = 2
		for i := range 8 {
			mustSaveWith(t, db, snapshot(offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.OnDemand, fmt.Sprintf("%d", 90+i))), SaveOptions{})
			clk.t = clk.t.Add(24 * time.Hour)
		}
		// Changes at days 0 (new) to 7 (moves), then one at day 22: the
		// first eight are older than MinChangesAge, four full batches.
		clk.t = clk.t.Add(14 * 24 * time.Hour)
		mustSaveWith(t, db, snapshot(offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.OnDemand, "80")), SaveOptions{})
		res, err := db.Maintain(ctx, Retention{ChangesMaxAge: time.Hour})
		if err != nil || res.ChangesPruned != 8 {
			t.Fatalf("pruned %d, %v; want the 8 changes older than %s", res.ChangesPruned, err, MinChangesAge)
		}
		var left int
		if err := db.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM changes`).Scan(&left); err != nil || left != 1 {
			t.Errorf("%d changes left, %v; want today's", left, err)
		}
	})
}
