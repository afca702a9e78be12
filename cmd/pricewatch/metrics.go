package main

import (
	"context"
	"encoding/json"
	"errors"
	providerrun "github.com/pricewatch/pricewatch/run"
	"math"
	"net"
	"net/http"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch/storage"
)

// metrics are the daemon's Prometheus series. Labels stay low-cardinality;
// the price series (metrics_collectors.go) are one per GPU model and price
// type unless metrics.offers asks for more.
type metrics struct {
	reg           *prometheus.Registry
	fetchDuration *prometheus.HistogramVec
	fetchRuns     *prometheus.CounterVec
	offersTracked *prometheus.GaugeVec
	changes       *prometheus.CounterVec
	readErrors    *prometheus.CounterVec // scrape-time database reads that failed
}

// dbGauges are read from the database when Prometheus scrapes, so they are
// never stale and survive restarts.
type dbGauges interface {
	OutboxCounts(ctx context.Context) (storage.OutboxStats, error)
	FXDays(ctx context.Context) ([]storage.FXDay, error)
	freshnessStore
}

func newMetrics(db dbGauges) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		fetchDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "pricewatch_fetch_duration_seconds", Help: "Duration of provider fetch runs, download and store included.",
			Buckets: []float64{1, 5, 15, 30, 60, 120, 300, 600, 1200, 3600},
		}, []string{"provider"}),
		fetchRuns: counterVec("pricewatch_fetch_runs_total",
			"Provider fetch runs by result (success, error, skipped: no credentials, overlap: another run of the provider still going, not_started: the run could not be recorded).",
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
	}
	build := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "pricewatch_build_info", Help: "Build information; always 1.",
	}, []string{"version", "goversion"})
	build.WithLabelValues(buildVersion(), runtime.Version()).Set(1)
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
	m.reg.MustRegister(m.fetchDuration, m.fetchRuns, m.offersTracked, m.changes, m.readErrors,
		pending, failed, fxAge, newFreshnessCollector(db, m.readErrors), build,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// counterVec is one of the daemon's counter series, by labels.
func counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
}

// observe records one provider run.
func (m *metrics) observe(s providerrun.Summary) {
	result := map[string]string{providerrun.StatusOK: "success", providerrun.StatusFailed: "error", providerrun.StatusSkipped: "skipped",
		providerrun.StatusOverlap: "overlap", providerrun.StatusNotStarted: "not_started"}[s.Status]
	m.fetchRuns.WithLabelValues(s.Provider, result).Inc()
	m.fetchDuration.WithLabelValues(s.Provider).Observe(s.Duration.Seconds())
	if s.Status == providerrun.StatusOK && s.Result != nil {
		for _, c := range s.Result.Changes {
			m.changes.WithLabelValues(s.Provider, string(c.Kind)).Inc()
		}
	}
}

// health is what /readyz, the systemd watchdog and people see.
type health struct {
	ready     atomic.Bool
	heartbeat atomic.Int64 // unix nanos of the scheduler's last tick
}

func (h *health) beat() { h.heartbeat.Store(time.Now().UnixNano()) }

// schedulerAlive reports whether the scheduler loop ticked recently.
func (h *health) schedulerAlive(maxQuiet time.Duration) error {
	last := time.Unix(0, h.heartbeat.Load())
	if quiet := time.Since(last); quiet > maxQuiet {
		return errors.New("scheduler has not ticked for " + quiet.Round(time.Second).String())
	}
	return nil
}

// serveHTTP runs /metrics, /healthz and /readyz, and what wrap adds around
// them (the API, the dashboard and the token check: see web.go), until ctx
// is done.
func serveHTTP(ctx context.Context, listen string, m *metrics, ready func(context.Context) (map[string]any, error), log *zap.Logger, wrap ...func(http.Handler) http.Handler) error {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	handler := httpHandler(m, ready)
	for _, w := range wrap {
		handler = w(handler)
	}
	srv := newHTTPServer(handler)
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	log.Info("http listening", zap.String("addr", ln.Addr().String()))
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// newHTTPServer bounds every phase of a connection: a client that sends
// slowly, reads slowly or idles holds no goroutine and socket for long.
// /readyz answers within its own 5 s; a scrape of /metrics is small.
func newHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
}

func httpHandler(m *metrics, ready func(context.Context) (map[string]any, error)) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		body, err := ready(ctx)
		w.Header().Set("Content-Type", "application/json")
		if err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			if body == nil {
				body = map[string]any{}
			}
			body["error"] = err.Error()
		}
		json.NewEncoder(w).Encode(body)
	})
	return mux
}
