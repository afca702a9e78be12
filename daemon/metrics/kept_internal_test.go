package metrics

import (
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"
	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	providerrun "github.com/pricewatch/pricewatch/run"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/web"
)

// scrapeFake is the store the series read, at a data version the test
// moves.
type scrapeFake struct {
	*versionedStore
}

func (scrapeFake) OutboxCounts(context.Context) (storage.OutboxStats, error) {
	return storage.OutboxStats{}, nil
}
func (scrapeFake) LastSuccessTimes(context.Context) (map[string]time.Time, error) { return nil, nil }
func (scrapeFake) LastQueued(context.Context, string) (time.Time, bool, error) {
	return time.Time{}, false, nil
}

// gatherings counts how often the registry was gathered, and says so in
// its one series.
type gatherings struct {
	n    atomic.Int64
	desc *prometheus.Desc
}

func (g *gatherings) Describe(ch chan<- *prometheus.Desc) { ch <- g.desc }
func (g *gatherings) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(g.desc, prometheus.GaugeValue, float64(g.n.Add(1)))
}

// A scrape's rendering is served again to scrapes asking the same way
// within a second (issue 30: 420 scrapes a second under 200 clients
// gathered every series each, a fifth of the daemon's CPU), and rendered
// afresh once the second is over, the data version moved, the daemon
// counted something of its own or the price series were recomputed.
func TestScrapeKeptASecond(t *testing.T) {
	st := scrapeFake{&versionedStore{version: "1", offerStore: offerStore{{Provider: "aws", Region: "us-east-1",
		InstanceType: "p5.48xlarge", PriceType: pricewatch.OnDemand, OS: pricewatch.Linux, Currency: "USD",
		Hourly: decimal.NewFromInt(80), Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8}}}}}
	m := New(st, "test")
	warm := m.AddPriceSeries(st, usd)
	g := &gatherings{desc: prometheus.NewDesc("test_gatherings", "Times gathered.", nil, nil)}
	m.reg.MustRegister(g)
	h := Handler(m, func(context.Context) (web.Readiness, error) { return web.Readiness{}, nil }, zap.NewNop())
	clock := time.Date(2026, 12, 6, 16, 0, 0, 0, time.UTC)
	// The first series, as the daemon computes them at its start.
	warm()
	kept := keptOf(t, h)
	kept.now = func() time.Time { return clock }

	scrape := func(encoding string) (string, http.Header) {
		t.Helper()
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		if encoding != "" {
			req.Header.Set("Accept-Encoding", encoding)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("/metrics: %d %s", rec.Code, rec.Body.String())
		}
		body := rec.Body.String()
		if rec.Header().Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(rec.Body)
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			body = string(b)
		}
		return body, rec.Header()
	}
	gathered := func(want int64, why string) {
		t.Helper()
		if got := g.n.Load(); got != want {
			t.Errorf("%s: gathered %d times, want %d", why, got, want)
		}
	}

	first, _ := scrape("")
	if !strings.Contains(first, "test_gatherings 1") || !strings.Contains(first, `pricewatch_cheapest_price_per_gpu_hour{currency="USD",gpu_model="H100",price_type="on_demand"} 10`) {
		t.Fatalf("first scrape:\n%s", first)
	}
	clock = clock.Add(999 * time.Millisecond)
	if again, _ := scrape(""); again != first {
		t.Errorf("a scrape within the second was not the kept one:\n%s", again)
	}
	gathered(1, "two plain scrapes within a second")

	zipped, header := scrape("gzip")
	if header.Get("Content-Encoding") != "gzip" || zipped == first || !strings.Contains(zipped, "test_gatherings 2") {
		t.Errorf("a gzip scrape was served the plain one's rendering (Content-Encoding %q):\n%s", header.Get("Content-Encoding"), zipped)
	}
	scrape("gzip")
	gathered(2, "a gzip scrape beside the plain one, twice")

	clock = clock.Add(time.Millisecond)
	if later, _ := scrape(""); !strings.Contains(later, "test_gatherings 3") {
		t.Errorf("a scrape a second after the kept one's rendering was not rendered again:\n%s", later)
	}

	st.version = "2"
	st.offerStore[0].Hourly = decimal.NewFromInt(64)
	scrape("")
	gathered(4, "after the data version moved")
	// The price series are recomputed beside the scrape that found the new
	// version (it served the last ones); their recomputation renders again.
	warm()
	if moved, _ := scrape(""); !strings.Contains(moved, `pricewatch_cheapest_price_per_gpu_hour{currency="USD",gpu_model="H100",price_type="on_demand"} 8`) {
		t.Errorf("the recomputed price series were not served within the second:\n%s", moved)
	}

	m.Observe(providerrun.Summary{Provider: "lambda", Status: providerrun.StatusSkipped})
	if counted, _ := scrape(""); !strings.Contains(counted, `pricewatch_fetch_runs_total{provider="lambda",result="skipped"} 1`) {
		t.Errorf("a run the daemon counted was not served within the second:\n%s", counted)
	}
	m.Leader(true)
	if led, _ := scrape(""); !strings.Contains(led, "pricewatch_leader 1") {
		t.Errorf("the replica's leading was not served within the second:\n%s", led)
	}
}

// keptOf is the kept scrape h serves /metrics with.
func keptOf(t *testing.T, h http.Handler) *keptScrape {
	t.Helper()
	mux, ok := h.(*http.ServeMux)
	if !ok {
		t.Fatalf("Handler is a %T", h)
	}
	got, _ := mux.Handler(httptest.NewRequest(http.MethodGet, "/metrics", nil))
	k, ok := got.(*keptScrape)
	if !ok {
		t.Fatalf("/metrics is served by a %T", got)
	}
	return k
}
