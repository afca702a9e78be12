package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/config"
	"github.com/pricewatch/pricewatch/internal/testing/cputime"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/web"
)

// yearDB stores a year of daily runs of two providers: 12 GPU types in 4
// regions each, on-demand moving monthly, 1y and 3y reservations, spot
// moving every day: about 30,000 price intervals, what a year of a busy
// catalogue holds.
func yearDB(b *testing.B) *storage.DB {
	b.Helper()
	ctx := context.Background()
	db, err := storage.Open(ctx, filepath.Join(b.TempDir(), "year.db"), storage.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	start := time.Date(2025, 12, 1, 6, 0, 0, 0, time.UTC)
	models := []struct {
		model string
		gpus  float64
		base  float64
	}{{"H100", 8, 98}, {"A100-80GB", 8, 40}, {"L40S", 4, 12}, {"H200", 8, 110}, {"A100-40GB", 8, 32}, {"B200", 8, 140}}
	regions := []string{"r-east", "r-west", "r-north", "r-south"}
	for day := 0; day < 365; day++ {
		at := start.Add(time.Duration(day) * 24 * time.Hour)
		db.Now = func() time.Time { return at }
		for _, provider := range []string{pricewatch.AWS, pricewatch.Azure} {
			snap := &pricewatch.Snapshot{Provider: provider, SourceVersion: fmt.Sprint(day)}
			for _, r := range regions {
				snap.Coverage = append(snap.Coverage, pricewatch.Scope{Region: r, Availability: true})
				for i, m := range models {
					for size := 0; size < 2; size++ {
						it := fmt.Sprintf("%s-%s-%d", provider, m.model, size)
						gpus := m.gpus / float64(size+1)
						hw := pricewatch.Hardware{GPUModel: m.model, GPUCount: gpus, GPUMemoryGB: 80}
						od := m.base * gpus / m.gpus * (1 + 0.01*float64((day/30+i)%5))
						spot := od * (0.3 + 0.05*float64((day*7+i+size)%9))
						add := func(pt pricewatch.PriceType, term, payment string, hourly, upfront float64) {
							snap.Offers = append(snap.Offers, pricewatch.Offer{Provider: provider, Region: r, InstanceType: it, PriceType: pt,
								Term: term, Payment: payment, OS: pricewatch.Linux, Currency: "USD",
								Hourly: decimal.NewFromFloat(hourly).Round(4), Upfront: decimal.NewFromFloat(upfront).Round(2), Hardware: hw})
						}
						add(pricewatch.OnDemand, "", "", od, 0)
						add(pricewatch.Spot, "", "", spot, 0)
						add(pricewatch.Reserved, "1y", pricewatch.NoUpfront, od*0.7, 0)
						add(pricewatch.Reserved, "3y", pricewatch.AllUpfront, 0, od*0.45*26280)
						snap.Availability = append(snap.Availability, pricewatch.Availability{Provider: provider, Region: r, InstanceType: it,
							State: pricewatch.Offered, Hardware: hw})
					}
				}
			}
			id, err := db.StartRun(ctx, provider)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := db.SaveSnapshot(ctx, id, snap, storage.SaveOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	}
	return db
}

// BenchmarkPages renders each dashboard page and API answer over a year of
// history (go test ./web -run '^$' -bench Pages -benchtime 5x).
func BenchmarkPages(b *testing.B) {
	db := yearDB(b)
	fx := config.Default().FX
	srv := &web.Server{Store: db, FX: func() report.FX {
		return report.FX{Currency: fx.Currency, FixedRates: fx.FixedRates, MaxAge: fx.MaxAge}
	},
		Now: func() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) }}
	mux := http.NewServeMux()
	srv.Mount(mux)
	var n int
	b.Run("count", func(b *testing.B) {
		rows, err := db.Prices(context.Background(), storage.PriceFilter{})
		if err != nil {
			b.Fatal(err)
		}
		n = len(rows)
		b.ReportMetric(float64(n), "intervals")
	})
	for _, path := range []string{"/", "/gpu/H100?days=7", "/gpu/H100?days=90&price_type=any", "/instance/aws-H100-0?since=365d",
		"/commitments?instance_type=aws-H100-0", "/api/v1/offers?gpu=H100&price_type=any", "/api/v1/history/aws-H100-0",
		"/api/v1/trends?window=90d", "/api/v1/runs", "/offers", "/offers?gpu=H100&price_type=on_demand&sort=-price", "/gpu/"} {
		b.Run(path, func(b *testing.B) {
			// The machine is shared: CPU time per page says more than the
			// wall clock when other work runs.
			before := cputime.Self()
			size := 0
			for b.Loop() {
				rec := httptest.NewRecorder()
				mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
				if rec.Code != http.StatusOK {
					b.Fatalf("%s: %d %s", path, rec.Code, rec.Body.String())
				}
				size = rec.Body.Len()
			}
			b.ReportMetric(float64(size), "body-bytes")
			b.ReportMetric(float64((cputime.Self()-before).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}
