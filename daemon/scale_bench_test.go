package daemon

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch/config"
	"github.com/pricewatch/pricewatch/daemon/metrics"
	"github.com/pricewatch/pricewatch/internal/scalegen"
	"github.com/pricewatch/pricewatch/web"
)

// BenchmarkScaleMetrics is issue 30's /metrics bound (20 ms of CPU a
// scrape) on the scale database: the daemon's registry over the store as
// /metrics reads it (the version from memory, the scrape-time reads once
// per version), with the price series computed once beforehand, as the
// daemon does when a version moves (compute-cpu-ms, from the current
// state already read).
//
//	PRICEWATCH_SCALE=0.25 go test ./daemon -run '^$' -bench ScaleMetrics -benchtime 200x -timeout 1h
func BenchmarkScaleMetrics(b *testing.B) {
	shares := scalegen.Shares()
	if len(shares) == 0 {
		b.Skip("set PRICEWATCH_SCALE=0.25 to run the /metrics scale benchmark")
	}
	ctx := context.Background()
	for _, share := range shares {
		sim := scalegen.OpenCopy(b, share)
		versions := web.NewVersions(sim.DB.DataVersion)
		if _, err := versions.Refresh(ctx); err != nil {
			b.Fatal(err)
		}
		// The price series read the current state as the daemon's do. It
		// is read first: the pages share it, and each version's update of
		// it is the refresh round's (web's BenchmarkScaleRound).
		srv := &web.Server{Store: sim.DB, Versions: versions}
		srv.CurrentReads(ctx)
		st := scrapeStore{DB: sim.DB, versions: versions, current: srv.CurrentReads, memo: &scrapeMemo{}}
		m := metrics.New(st, "bench")
		cfg := config.Default()
		cpu := scalegen.CPUTime()
		m.AddPriceSeries(st, func() metrics.PriceSettings {
			return metrics.PriceSettings{Currency: strings.ToUpper(cfg.FX.Currency), Fixed: cfg.FX.FixedRates, MaxAge: cfg.FX.MaxAge}
		})()
		compute := scalegen.CPUTime() - cpu
		h := metrics.Handler(m, func(context.Context) (web.Readiness, error) { return web.Readiness{}, nil }, zap.NewNop())
		b.Run("year="+strconvG(share), func(b *testing.B) {
			cpu := scalegen.CPUTime()
			var size int
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
				if rec.Code != http.StatusOK {
					b.Fatalf("/metrics: %d %s", rec.Code, rec.Body.String())
				}
				size = rec.Body.Len()
			}
			b.ReportMetric(float64(scalegen.CPUTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
			b.ReportMetric(float64(compute)/1e6, "compute-cpu-ms")
			b.ReportMetric(float64(size), "body-bytes")
		})
	}
}

func strconvG(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
