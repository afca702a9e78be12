package storage

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
)

// naiveDays is the daily summary worked out from the intervals by its
// definition, moment by moment, independently of summarizeDays.
func naiveDays(ivs []PriceInterval) []PriceDay {
	byOffer := map[int64][]PriceInterval{}
	var ids []int64
	for _, iv := range ivs {
		if byOffer[iv.OfferID] == nil {
			ids = append(ids, iv.OfferID)
		}
		byOffer[iv.OfferID] = append(byOffer[iv.OfferID], iv)
	}
	slices.Sort(ids)
	var out []PriceDay
	for _, id := range ids {
		days := map[string]bool{}
		for _, iv := range byOffer[id] {
			days[iv.ValidFrom.Format(time.DateOnly)] = true
			if iv.ValidTo != nil {
				days[iv.ValidTo.Format(time.DateOnly)] = true
			}
		}
		var sorted []string
		for d := range days {
			sorted = append(sorted, d)
		}
		slices.Sort(sorted)
		for _, d := range sorted {
			start, _ := time.Parse(time.DateOnly, d)
			end := start.Add(24 * time.Hour)
			last := end.Add(-time.Microsecond)
			inForce := func(iv PriceInterval, at time.Time) bool {
				return !iv.ValidFrom.After(at) && (iv.ValidTo == nil || iv.ValidTo.After(at))
			}
			row := PriceDay{OfferID: id, Day: d}
			var newest time.Time
			for _, iv := range byOffer[id] {
				if iv.ValidFrom.Before(end) && !iv.ValidFrom.Before(newest) {
					row.Currency, newest = iv.Currency, iv.ValidFrom
				}
				if inForce(iv, start) {
					row.Open = decimal.NewNullDecimal(iv.EffectiveHourly)
				}
				if inForce(iv, last) {
					row.Close = decimal.NewNullDecimal(iv.EffectiveHourly)
				}
				if iv.ValidFrom.Before(end) && (iv.ValidTo == nil || iv.ValidTo.After(start)) &&
					(!row.Low.Valid || iv.EffectiveHourly.LessThan(row.Low.Decimal)) {
					row.Low = decimal.NewNullDecimal(iv.EffectiveHourly)
				}
				if !iv.ValidFrom.Before(start) && iv.ValidFrom.Before(end) {
					row.Changes++
				}
			}
			out = append(out, row)
		}
	}
	return out
}

func dayText(rows []PriceDay) string {
	var b strings.Builder
	show := func(d decimal.NullDecimal) string {
		if !d.Valid {
			return "-"
		}
		return d.Decimal.String()
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "offer %d %s %s open %s low %s close %s changes %d\n", r.OfferID, r.Day, r.Currency, show(r.Open), show(r.Low), show(r.Close), r.Changes)
	}
	return b.String()
}

// checkDays compares the stored summary with one worked out from the
// intervals.
func checkDays(ctx context.Context, t *testing.T, db *DB, when string) {
	t.Helper()
	ivs, err := db.Prices(ctx, PriceFilter{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := db.PriceDays(ctx, PriceFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if g, w := dayText(got), dayText(naiveDays(ivs)); g != w {
		t.Errorf("%s: daily summary\n%s\nwant, from the intervals,\n%s", when, g, w)
	}
}

// TestDailySummaryFollowsTheIntervals: after runs over several days
// (price changes, several a day, a change at midnight, a closed offer, an
// offer back, a new region, a failed run), the summary kept at write time,
// the migration's backfill and spot thinning each equal the summary
// worked out from the intervals.
func TestDailySummaryFollowsTheIntervals(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		base := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
		type run struct {
			at     time.Duration // after base
			offers []pricewatch.Offer
			fails  bool
		}
		od := func(region, price string) pricewatch.Offer {
			return offer("Standard_ND96isr_H100_v5", region, pricewatch.OnDemand, price)
		}
		spot := func(region, price string) pricewatch.Offer {
			return offer("Standard_ND96isr_H100_v5", region, pricewatch.Spot, price)
		}
		runs := []run{
			{0, []pricewatch.Offer{od("eastus", "98.32"), spot("eastus", "30.10")}, false},
			{2 * time.Hour, []pricewatch.Offer{od("eastus", "98.32"), spot("eastus", "28.00")}, false},
			{5 * time.Hour, []pricewatch.Offer{od("eastus", "98.32"), spot("eastus", "31.50")}, false},
			// A day later, then at midnight exactly.
			{26 * time.Hour, []pricewatch.Offer{od("eastus", "90.00"), spot("eastus", "29.00")}, false},
			{38 * time.Hour, []pricewatch.Offer{od("eastus", "90.00"), spot("eastus", "27.25")}, false},
			// The spot offer vanishes (closed); a new region appears.
			{50 * time.Hour, []pricewatch.Offer{od("eastus", "90.00"), od("westus", "99.00")}, false},
			// A run that fails stores nothing.
			{51 * time.Hour, []pricewatch.Offer{od("eastus", "1.00")}, true},
			// Days without a change, then the spot offer back and a move.
			{5*24*time.Hour + 3*time.Hour, []pricewatch.Offer{od("eastus", "90.00"), od("westus", "99.00"), spot("eastus", "26.00")}, false},
			{5*24*time.Hour + 4*time.Hour, []pricewatch.Offer{od("eastus", "92.00"), od("westus", "99.00"), spot("eastus", "26.00")}, false},
			{6*24*time.Hour + 1*time.Hour, []pricewatch.Offer{od("eastus", "92.00"), od("westus", "99.00"), spot("eastus", "24.00")}, false},
		}
		for i, r := range runs {
			clk.t = base.Add(r.at)
			opts := SaveOptions{}
			if r.fails {
				opts.MinOfferRatio = 0.9
			}
			_, err := save(t, db, snapshot(r.offers...), opts)
			if (err != nil) != r.fails {
				t.Fatalf("run %d: %v", i, err)
			}
			checkDays(ctx, t, db, fmt.Sprintf("after run %d", i))
		}
		got, err := db.PriceDays(ctx, PriceFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) < 8 {
			t.Fatalf("only %d summary rows:\n%s", len(got), dayText(got))
		}

		// The migration's backfill makes the same rows again.
		tx, err := db.write.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := backfillDays(ctx, tx); err != nil {
			tx.Rollback()
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		again, err := db.PriceDays(ctx, PriceFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if g, w := dayText(again), dayText(got); g != w {
			t.Errorf("backfilled:\n%s\nwant, as kept at write time,\n%s", g, w)
		}

		// Thinning spot history rewrites the summary of what it merged.
		n, err := db.thinSpot(ctx, base.Add(3*24*time.Hour), 24*time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Fatal("thinning merged nothing: the test no longer covers it")
		}
		checkDays(ctx, t, db, "after thinning")
	})
}

// TestChartPricesFromTheSummary: a chart reads the days before the cut
// from the summary (a changed day's low, then its close) and the stored
// intervals after it.
func TestChartPricesFromTheSummary(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		base := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
		spot := func(price string) *pricewatch.Snapshot {
			return snapshot(offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.Spot, price))
		}
		for _, r := range []struct {
			at    time.Duration
			price string
		}{{0, "30"}, {2 * time.Hour, "20"}, {4 * time.Hour, "25"}, {3 * 24 * time.Hour, "22"}, {5*24*time.Hour + time.Hour, "21"}, {5*24*time.Hour + 2*time.Hour, "23"}} {
			clk.t = base.Add(r.at)
			mustSave(t, db, spot(r.price))
		}
		to := base.Add(5*24*time.Hour + 3*time.Hour) // 2026-11-07 13:00: the cut is 2026-11-05
		var got []string
		err := db.EachChartPrice(ctx, PriceFilter{Since: base.Add(-24 * time.Hour)}, to, func(p *PriceInterval) error {
			end := "now"
			if p.ValidTo != nil {
				end = p.ValidTo.Format("01-02 15:04")
			}
			got = append(got, fmt.Sprintf("%s..%s %s", p.ValidFrom.Format("01-02 15:04"), end, p.EffectiveHourly))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{
			"11-02 00:00..11-03 00:00 20", // 2 Nov: 30, 20, 25: its low
			"11-03 00:00..11-05 00:00 25", // its close until the next change or the cut
			"11-05 00:00..11-05 10:00 25", // stored intervals from the cut
			"11-05 10:00..11-07 11:00 22",
			"11-07 11:00..11-07 12:00 21",
			"11-07 12:00..now 23",
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("chart prices:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}
