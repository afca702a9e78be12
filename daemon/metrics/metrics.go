// Package metrics holds the daemon's Prometheus series: run counters and
// durations it observes, and the series read from the database at scrape
// time (outbox, exchange rates, freshness, prices), which survive restarts.
package metrics

import (
	"context"
	"math"
	"net/http"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch/run"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/web"
)

// Metrics are the daemon's Prometheus series. Labels stay low-cardinality;
// the price series (collectors.go) are one per GPU model and price
// type unless metrics.offers asks for more.
type Metrics struct {
	reg           *prometheus.Registry
	fetchDuration *prometheus.HistogramVec
	fetchRuns     *prometheus.CounterVec
	offersTracked *prometheus.GaugeVec
	changes       *prometheus.CounterVec
	readErrors    *prometheus.CounterVec // scrape-time database reads that failed
	leader        prometheus.Gauge
	// db's data version and moved (counting the daemon's own
	// observations and the price series' recomputations) tell when a
	// kept scrape is stale (keptScrape).
	db    Store
	moved atomic.Uint64
}

// Store is what the series are read from: they are read from the database when Prometheus scrapes, so they are
// never stale and survive restarts.
type Store interface {
	OutboxCounts(ctx context.Context) (storage.OutboxStats, error)
	FXDays(ctx context.Context) ([]storage.FXDay, error)
	FreshnessStore
	PriceStore
}

// New registers the daemon's series over db; version is the build's
// (pricewatch_build_info). The price series are added with AddPriceSeries.
func New(db Store, version string) *Metrics {
	m := &Metrics{
		db:  db,
		reg: prometheus.NewRegistry(),
		fetchDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "pricewatch_fetch_duration_seconds", Help: "Duration of provider fetch runs, download and store included.",
			Buckets: []float64{1, 5, 15, 30, 60, 120, 300, 600, 1200, 3600},
		}, []string{"provider"}),
		fetchRuns: counterVec("pricewatch_fetch_runs_total",
			"Provider fetch runs by result (success, partial: stored but some regions could not be read, error, skipped: no credentials, overlap: another run of the provider still going, not_started: the run could not be recorded).",
			"provider", "result"),
		offersTracked: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "pricewatch_offers_tracked", Help: "Offers with a current price per provider (a drop to zero means a parser broke).",
		}, []string{"provider"}),
		changes: counterVec("pricewatch_changes_detected_total",
			"Changes detected while storing runs, by kind.",
			"provider", "kind"),
		readErrors: counterVec("pricewatch_metrics_read_errors_total",
			"Database reads for series computed at scrape time that failed, by series group (those series are left out, or served from the last good read).",
			"series"),
		leader: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "pricewatch_leader",
			Help: "1 while this replica leads (runs the schedules, alert delivery and the digest), 0 while another replica on the database does.",
		}),
	}
	build := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "pricewatch_build_info", Help: "Build information; always 1.",
	}, []string{"version", "goversion"})
	build.WithLabelValues(version, runtime.Version()).Set(1)
	outbox := func(pick func(storage.OutboxStats) float64) func() float64 {
		return func() float64 {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			s, err := db.OutboxCounts(ctx)
			if err != nil {
				return math.NaN()
			}
			return pick(s)
		}
	}
	pending := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "pricewatch_outbox_pending", Help: "Messages waiting for delivery."},
		outbox(func(s storage.OutboxStats) float64 { return float64(s.Pending) }))
	failed := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "pricewatch_outbox_failed", Help: "Messages that failed permanently."},
		outbox(func(s storage.OutboxStats) float64 { return float64(s.Failed) }))
	fxAge := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "pricewatch_fx_rate_age_seconds", Help: "Age of the newest stored exchange rate, by its reference date (NaN: none stored).",
	}, func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		days, err := db.FXDays(ctx)
		if err != nil || len(days) == 0 {
			return math.NaN()
		}
		return time.Since(days[len(days)-1].Date).Seconds()
	})
	m.reg.MustRegister(m.fetchDuration, m.fetchRuns, m.offersTracked, m.changes, m.readErrors, m.leader,
		pending, failed, fxAge, NewFreshnessCollector(db, m.readErrors), build,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// counterVec is one of the daemon's counter series, by labels.
func counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
}

// Observe records one provider run.
func (m *Metrics) Observe(s run.Summary) {
	defer m.moved.Add(1)
	result := map[string]string{run.StatusOK: "success", run.StatusPartial: "partial", run.StatusFailed: "error", run.StatusSkipped: "skipped",
		run.StatusOverlap: "overlap", run.StatusNotStarted: "not_started"}[s.Status]
	m.fetchRuns.WithLabelValues(s.Provider, result).Inc()
	m.fetchDuration.WithLabelValues(s.Provider).Observe(s.Duration.Seconds())
	if s.Result != nil && (s.Status == run.StatusOK || s.Status == run.StatusPartial) {
		for _, c := range s.Result.Changes {
			m.changes.WithLabelValues(s.Provider, string(c.Kind)).Inc()
		}
	}
}

// Leader sets pricewatch_leader: whether this replica leads.
func (m *Metrics) Leader(leading bool) {
	defer m.moved.Add(1)
	v := 0.0
	if leading {
		v = 1
	}
	m.leader.Set(v)
}

// Registry is what /metrics serves.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Overlap counts a scheduler tick skipped because the provider's previous
// run is still going.
func (m *Metrics) Overlap(provider string) {
	defer m.moved.Add(1)
	m.fetchRuns.WithLabelValues(provider, "overlap").Inc()
}

// OffersTracked sets the number of offers with a current price of provider.
func (m *Metrics) OffersTracked(provider string, n int) {
	defer m.moved.Add(1)
	m.offersTracked.WithLabelValues(provider).Set(float64(n))
}

// Handler serves /metrics, /healthz and /readyz (ready says what /readyz
// answers, and an error makes it 503; its detail goes to log only). A
// scrape's rendering is served again for up to a second to scrapes that
// ask the same way, until the data or the daemon's own counts move
// (keptScrape).
func Handler(m *Metrics, ready func(context.Context) (web.Readiness, error), log *zap.Logger) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", &keptScrape{h: promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg}),
		m: m, version: m.db.DataVersion, now: time.Now})
	// Open to probes without the token: they say nothing an error holds.
	mux.Handle("/healthz", web.HealthHandler())
	mux.Handle("/readyz", web.ReadyHandler(ready, log))
	return mux
}
