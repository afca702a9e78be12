package report

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/fx"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/storage/dbtest"
)

// TestComputeTrendsSampledReadMatchesFullRead builds a month of irregular
// runs (prices moving between daily samples, offers delisted and relisted,
// one switching currency) and checks that the trends read through the
// sample grid (Top > 0: sampled intervals, the listed movers read again in
// full) equal those from every interval of the window (Top 0), at now and
// at a moment in the past with later history stored.
func TestComputeTrendsSampledReadMatchesFullRead(t *testing.T) {
	ctx := context.Background()
	const runs = 130 // every 7 hours: about 38 days
	db, start, clock := irregularHistory(t, runs, 7*time.Hour)
	book, err := fx.NewBook(nil, map[string]decimal.Decimal{"USD": decimal.RequireFromString("1.1")}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		at     time.Time
		window time.Duration
	}{
		{"now, 30 days", clock, 30 * 24 * time.Hour},
		// The history (38 days) is younger than the window: offers move
		// from their first sampled price, the same in both reads.
		{"now, 90 days (history younger than the window)", clock, 90 * 24 * time.Hour},
		{"past, 14 days", start.Add(20*24*time.Hour + 5*time.Hour), 14 * 24 * time.Hour},
		{"past, 36 hours (hourly)", start.Add(20 * 24 * time.Hour), 36 * time.Hour},
		{"now, 50 hours (daily, not a whole number of days)", clock, 50 * time.Hour},
		// Run 52 starts at 07:17, an hour before this moment; the daily
		// samples fall at 06:17, so only the moment itself sees its prices.
		{"past, 50 hours", start.Add(365 * time.Hour), 50 * time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := TrendsQuery{Scope: Scope{Currency: "USD", At: tc.at}, Window: tc.window, PriceTypes: DefaultTrendPriceTypes}
			full, err := ComputeTrends(ctx, db, book, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(full.Movers) < 4 || len(full.Cheapest) == 0 {
				t.Fatalf("history too quiet to compare: %d movers, %d cheapest series", len(full.Movers), len(full.Cheapest))
			}
			q.Top = 3
			sampled, err := ComputeTrends(ctx, db, book, q)
			if err != nil {
				t.Fatal(err)
			}
			full.Movers = full.Movers[:3]
			if !reflect.DeepEqual(sampled, full) {
				t.Errorf("sampled read differs from the full read:\nsampled %+v\nfull    %+v", sampled, full)
			}
		})
	}
}

// irregularHistory stores runs irregular runs, one every every: 12 offers
// (on-demand and spot, H100 and A100-80GB) whose prices move between
// samples, some back to an earlier price, each delisted and relisted, one
// switching currency half-way, and a model listed once near the end. It
// returns the database, the first run's time and the time after the last.
func irregularHistory(t *testing.T, runs int, every time.Duration) (db *storage.DB, start, end time.Time) {
	t.Helper()
	ctx := context.Background()
	db = dbtest.Open(t)
	start = time.Date(2026, 10, 1, 3, 17, 0, 0, time.UTC)
	clock := start
	db.Now = func() time.Time { return clock }
	for run := 0; run < runs; run++ {
		var offers []pricewatch.Offer
		for i := 0; i < 12; i++ {
			// Offer i is delisted in runs where (run+i)%11 == 0.
			if (run+i)%11 == 0 {
				continue
			}
			pt := pricewatch.OnDemand
			if i%2 == 1 {
				pt = pricewatch.Spot
			}
			// Prices move every (i%4+1) runs, some back to an earlier price.
			price := decimal.NewFromInt(int64(100 + (run/(i%4+1)*(i+3))%40)).Shift(-1)
			o := pricewatch.Offer{Provider: "azure", Region: fmt.Sprintf("region%d", i%3), InstanceType: fmt.Sprintf("Type%d", i/2),
				PriceType: pt, OS: pricewatch.Linux, Currency: "USD", Hourly: price,
				Hardware: pricewatch.Hardware{GPUModel: []string{"H100", "A100-80GB"}[i%2], GPUCount: float64(i%3 + 1)}}
			if i == 5 && run > runs/2 {
				o.Currency = "EUR"
			}
			offers = append(offers, o)
		}
		if run == runs-10 {
			// A model listed once, between two samples, and never again:
			// its series has no point but is still reported.
			offers = append(offers, pricewatch.Offer{Provider: "azure", Region: "region0", InstanceType: "Brief", PriceType: pricewatch.Spot,
				OS: pricewatch.Linux, Currency: "USD", Hourly: decimal.NewFromInt(3), Hardware: pricewatch.Hardware{GPUModel: "L4", GPUCount: 1}})
		}
		id, err := db.StartRun(ctx, "azure")
		if err != nil {
			t.Fatal(err)
		}
		snap := &pricewatch.Snapshot{Provider: "azure", Offers: offers, Coverage: []pricewatch.Scope{{Region: pricewatch.AllRegions}}}
		if _, err := db.SaveSnapshot(ctx, id, snap, storage.SaveOptions{}); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		clock = clock.Add(every)
	}
	return db, start, clock
}

// Issue 20 item 14: on a database younger than the window, `trends
// --window 90d` said "no price moved" while 30d showed −8.5 % and −33 %:
// an offer not listed at the window's start had no baseline. It now moves
// from its first sampled price in the window.
func TestTrendsWindowLongerThanHistory(t *testing.T) {
	ctx := context.Background()
	db := dbtest.Open(t)
	start := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	clock := start
	db.Now = func() time.Time { return clock }
	offer := func(typ, price string) pricewatch.Offer {
		return pricewatch.Offer{Provider: "azure", Region: "eastus", InstanceType: typ, PriceType: pricewatch.OnDemand, OS: pricewatch.Linux,
			Currency: "USD", Hourly: decimal.RequireFromString(price), Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8}}
	}
	// 40 daily runs; both prices drop on day 25.
	for day := 0; day < 40; day++ {
		a, b := "10.00", "30.00"
		if day >= 25 {
			a, b = "9.15", "20.00"
		}
		snap := &pricewatch.Snapshot{Provider: "azure", Offers: []pricewatch.Offer{offer("A", a), offer("B", b)},
			Coverage: []pricewatch.Scope{{Region: pricewatch.AllRegions}}}
		dbtest.Save(t, db, snap)
		clock = clock.Add(24 * time.Hour)
	}
	book, err := fx.NewBook(nil, map[string]decimal.Decimal{"USD": decimal.NewFromInt(1)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	pcts := func(window time.Duration) map[string]string {
		tr, err := ComputeTrends(ctx, db, book, TrendsQuery{Scope: Scope{Currency: "USD", At: clock}, Window: window, PriceTypes: DefaultTrendPriceTypes, Top: 10})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, m := range tr.Movers {
			d, _ := m.Change(analysis.WindowLabel(window))
			got[m.Key.InstanceType] = d.Pct.String()
		}
		return got
	}
	want := map[string]string{"A": "-8.5", "B": "-33.3333"}
	for _, w := range []time.Duration{30 * 24 * time.Hour, 90 * 24 * time.Hour, 365 * 24 * time.Hour} {
		if got := pcts(w); !reflect.DeepEqual(got, want) {
			t.Errorf("window %s: moves %v, want %v", analysis.WindowLabel(w), got, want)
		}
	}
}
