package web_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/config"
	"github.com/pricewatch/pricewatch/internal/scalegen"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/web"
)

// BenchmarkScaleOffers times the offers table (issue 25 item 4: every
// filter on, under 300 ms server time, the page under 300 kB compressed)
// on a simulated deployment's history (internal/scalegen: ~50k current
// offers of Azure and AWS) at each share of a year in PRICEWATCH_SCALE:
//
//	PRICEWATCH_SCALE=1 go test ./web -run '^$' -bench ScaleOffers -benchtime 5x -timeout 1h
//
// Without PRICEWATCH_SCALE it is skipped (a year takes minutes to build;
// the databases are cached under os.UserCacheDir).
func BenchmarkScaleOffers(b *testing.B) {
	shares := scalegen.Shares()
	if len(shares) == 0 {
		b.Skip("set PRICEWATCH_SCALE=0.1,1 to run the offers table's scale benchmark")
	}
	ctx := context.Background()
	for _, share := range shares {
		d := scalegen.Default(share)
		cached, err := scalegen.Cached(ctx, d, os.Stderr)
		if err != nil {
			b.Fatal(err)
		}
		path, err := scalegen.CopyTo(cached, b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		sim, err := scalegen.Open(ctx, path, d)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { sim.Close() })
		fx := config.Default().FX
		now := sim.Now
		srv := &web.Server{Store: sim.DB, FX: func() report.FX {
			return report.FX{Currency: fx.Currency, FixedRates: fx.FixedRates, MaxAge: fx.MaxAge}
		}, Now: func() time.Time { return now },
			// The machine is shared: a slow answer is measured, not a 503.
			Limits: web.Limits{Budget: 5 * time.Minute}}
		mux := http.NewServeMux()
		srv.Mount(mux)
		for _, path := range []string{
			"/offers",
			"/offers?sort=-vcpus",
			// Every filter on.
			"/offers?provider=aws&provider=azure&region=*east*&gpu=H100&gpus_min=1&gpus_max=8&price_type=on_demand&price_type=spot&native_currency=USD&available_only=false&marketplace=exclude&q=e&sort=-price",
			"/offers?limit=20000",
			"/api/v1/offer-table?gpu=H100&price_type=on_demand",
			"/gpu/",
		} {
			b.Run(fmt.Sprintf("year=%g%s", share, path), func(b *testing.B) {
				cpu := scalegen.CPUTime()
				var size, gz int
				for b.Loop() {
					rec := httptest.NewRecorder()
					req := httptest.NewRequest(http.MethodGet, path, nil)
					req.Header.Set("Accept-Encoding", "gzip")
					mux.ServeHTTP(rec, req)
					if rec.Code != http.StatusOK {
						b.Fatalf("%s: %d %s", path, rec.Code, rec.Body.String())
					}
					gz = rec.Body.Len()
					size = gz
					if rec.Header().Get("Content-Encoding") == "gzip" {
						zr, err := gzip.NewReader(bytes.NewReader(rec.Body.Bytes()))
						if err != nil {
							b.Fatal(err)
						}
						var plain bytes.Buffer
						if _, err := plain.ReadFrom(zr); err != nil {
							b.Fatal(err)
						}
						size = plain.Len()
					}
				}
				b.ReportMetric(float64(size), "body-bytes")
				b.ReportMetric(float64(gz), "sent-bytes")
				b.ReportMetric(float64(scalegen.CPUTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
			})
		}
	}
}

// BenchmarkScaleCharts times the charts' pages (issue 30 item 3: the GPU
// page's 7/30/90 days, the instance page's 30/90/365 days, at most a point
// per offer and day from the daily summary) on the simulated deployment,
// CPU per request beside the wall time:
//
//	PRICEWATCH_SCALE=0.25 go test ./web -run '^$' -bench ScaleCharts -benchtime 5x -timeout 1h
func BenchmarkScaleCharts(b *testing.B) {
	shares := scalegen.Shares()
	if len(shares) == 0 {
		b.Skip("set PRICEWATCH_SCALE=0.25 to run the charts' scale benchmark")
	}
	ctx := context.Background()
	for _, share := range shares {
		d := scalegen.Default(share)
		cached, err := scalegen.Cached(ctx, d, os.Stderr)
		if err != nil {
			b.Fatal(err)
		}
		path, err := scalegen.CopyTo(cached, b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		sim, err := scalegen.Open(ctx, path, d)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { sim.Close() })
		fx := config.Default().FX
		now := sim.Now
		srv := &web.Server{Store: sim.DB, FX: func() report.FX {
			return report.FX{Currency: fx.Currency, FixedRates: fx.FixedRates, MaxAge: fx.MaxAge}
		}, Now: func() time.Time { return now }, Limits: web.Limits{Budget: 5 * time.Minute}}
		mux := http.NewServeMux()
		srv.Mount(mux)
		for _, path := range []string{
			"/gpu/H100?days=7", "/gpu/H100?days=30", "/gpu/H100?days=90",
			"/instance/p4.H100x8?since=30d", "/instance/p4.H100x8?since=90d", "/instance/p4.H100x8?since=365d",
		} {
			b.Run(fmt.Sprintf("year=%g%s", share, path), func(b *testing.B) {
				cpu := scalegen.CPUTime()
				for b.Loop() {
					rec := httptest.NewRecorder()
					mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
					if rec.Code != http.StatusOK {
						b.Fatalf("%s: %d %s", path, rec.Code, rec.Body.String())
					}
				}
				b.ReportMetric(float64(scalegen.CPUTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
			})
		}
	}
}
