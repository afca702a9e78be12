package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/compose"
	"github.com/pricewatch/pricewatch/daemon/metrics"
	providerrun "github.com/pricewatch/pricewatch/run"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"
	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/web"
)

// gaugeValue gathers reg and returns the value of the series name with
// exactly these labels (nil: none).
func gaugeValue(t *testing.T, reg prometheus.Gatherer, name string, labels map[string]string) (float64, bool) {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("gathering metrics: %v", err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			got := map[string]string{}
			for _, l := range m.GetLabel() {
				got[l.GetName()] = l.GetValue()
			}
			if maps.Equal(got, labels) || (len(got) == 0 && labels == nil) {
				return m.GetGauge().GetValue(), true
			}
		}
	}
	return 0, false
}

// series returns every series of a metric as label sets with values.
func series(t *testing.T, reg prometheus.Gatherer, name string) []map[string]string {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("gathering metrics: %v", err)
	}
	var out []map[string]string
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			s := map[string]string{"value": strconv.FormatFloat(m.GetGauge().GetValue(), 'g', -1, 64)}
			for _, l := range m.GetLabel() {
				s[l.GetName()] = l.GetValue()
			}
			out = append(out, s)
		}
	}
	return out
}

// fixtureMetrics is the daemon's registry over the fixture database (fake
// Azure westus2, AWS p5.48xlarge in ap-northeast-1), with the settings a
// test may change.
func fixtureMetrics(t *testing.T, extra string, tweak func(*metrics.PriceSettings)) (*metrics.Metrics, *storage.DB, *app, *fakeAzure) {
	t.Helper()
	cfg, az := fixtureConfig(t, extra)
	a, db := loadApp(t, cfg)
	m := metrics.New(db, buildVersion())
	m.AddPriceSeries(db, func() metrics.PriceSettings {
		s := compose.MetricsSettings(a.cfg)
		if tweak != nil {
			tweak(&s)
		}
		return s
	})
	return m, db, a, az
}

// TestCheapestPriceSeries: the cheapest price per GPU-hour of each GPU
// model and price type of the fixtures, exactly (worked out by hand from
// the fixtures' prices: effective hourly over the GPU count, reservations
// with the upfront spread over 8,760 or 26,280 hours), and the offer each
// comes from.
func TestCheapestPriceSeries(t *testing.T) {
	m, _, _, _ := fixtureMetrics(t, "", nil)
	want := map[string]float64{
		"H100/on_demand":         8.553125,     // p5.48xlarge 68.425 / 8
		"H100/spot":              2.5659375,    // 20.5275 / 8
		"H100/reserved":          3.5209570015, // 3y all upfront 740246 / 26280 / 8
		"H100/savings_plan":      3.7967375,    // compute 3y 30.3739 / 8
		"H100-NVL/on_demand":     6.98,         // NC40ads H100 v5, one GPU
		"H100-NVL/spot":          1.396,
		"H100-NVL/reserved":      4.2794520548, // 1y 37488 / 8760
		"H100-NVL/savings_plan":  4.886,        // 3y
		"A100-80GB/on_demand":    4.09625,      // ND96amsr A100 v4 32.77 / 8
		"A100-80GB/spot":         0.81925,      // 6.554 / 8
		"A100-80GB/reserved":     1.6179414003, // 3y 340156 / 26280 / 8
		"A100-80GB/savings_plan": 2.867375,     // 3y 22.939 / 8
	}
	got := map[string]float64{}
	for _, s := range series(t, m.Registry(), "pricewatch_cheapest_price_per_gpu_hour") {
		if s["currency"] != "USD" {
			t.Errorf("currency %q, want fx.currency USD", s["currency"])
		}
		v, _ := strconv.ParseFloat(s["value"], 64)
		got[s["gpu_model"]+"/"+s["price_type"]] = v
	}
	if !maps.Equal(got, want) {
		t.Errorf("cheapest per GPU-hour\n got %v\nwant %v", got, want)
	}
	info := series(t, m.Registry(), "pricewatch_cheapest_offer_info")
	if len(info) != len(want) {
		t.Errorf("%d info series, want %d", len(info), len(want))
	}
	wantInfo := map[string]string{"gpu_model": "H100", "price_type": "reserved", "currency": "USD", "provider": "aws",
		"region": "ap-northeast-1", "zone": "", "instance_type": "p5.48xlarge", "term": "3y", "payment": "all_upfront",
		"offering_class": "standard", "gpu_count": "8", "value": "1"}
	if !slices.ContainsFunc(info, func(s map[string]string) bool { return maps.Equal(s, wantInfo) }) {
		t.Errorf("no info series %v among %v", wantInfo, info)
	}
	if s := series(t, m.Registry(), "pricewatch_offer_price_per_gpu_hour"); len(s) != 0 {
		t.Errorf("per-offer series without metrics.offers: %v", s)
	}
}

// TestCheapestConvertsAsCompare: in another currency the gauge is the rank-1
// price of `compare --price-type any` for the exact model, through the same
// stored ECB rate.
func TestCheapestConvertsAsCompare(t *testing.T) {
	m, db, a, _ := fixtureMetrics(t, "", func(s *metrics.PriceSettings) { s.Currency = "EUR" })
	if err := db.SaveFXDay(context.Background(), storage.FXDay{Date: time.Now().UTC().Add(-24 * time.Hour).Truncate(24 * time.Hour), Source: "ECB",
		PerEUR: map[string]decimal.Decimal{"USD": decimal.RequireFromString("1.0412")}}); err != nil {
		t.Fatal(err)
	}
	out := rawCLI(t, "--config", a.configFlag, "compare", "--gpu", "H100", "--price-type", "any", "--currency", "EUR", "--format", "json")
	var rows []struct {
		Rank            *int        `json:"rank"`
		GPUModel        string      `json:"gpu_model"`
		PriceType       string      `json:"price_type"`
		PricePerGPUHour json.Number `json:"price_per_gpu_hour"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	checked := 0
	best := map[string]bool{}
	for _, r := range rows { // ranked, cheapest first
		if r.GPUModel != "H100" || r.Rank == nil || best[r.PriceType] {
			continue
		}
		best[r.PriceType] = true
		want, _ := strconv.ParseFloat(r.PricePerGPUHour.String(), 64)
		got, ok := gaugeValue(t, m.Registry(), "pricewatch_cheapest_price_per_gpu_hour", map[string]string{"gpu_model": "H100", "price_type": r.PriceType, "currency": "EUR"})
		if !ok || got != want {
			t.Errorf("H100 %s: gauge %v (present %v), compare says %v", r.PriceType, got, ok, want)
		}
		checked++
	}
	if checked != 4 {
		t.Errorf("compared %d price types, want 4", checked)
	}
}

// TestPerOfferSeries: metrics.offers selects one series per matching offer;
// a family name covers its variants.
func TestPerOfferSeries(t *testing.T) {
	m, _, _, _ := fixtureMetrics(t, "metrics:\n  offers:\n    gpu_models: [A100, H100]\n    price_types: [spot]\n    providers: [azure]\n", nil)
	var got []string
	for _, s := range series(t, m.Registry(), "pricewatch_offer_price_per_gpu_hour") {
		got = append(got, s["instance_type"]+" "+s["price_type"]+" "+s["gpu_model"]+" "+s["currency"]+" "+s["value"])
	}
	slices.Sort(got)
	want := []string{"Standard_NC40ads_H100_v5 spot H100-NVL USD 1.396", "Standard_ND96amsr_A100_v4 spot A100-80GB USD 0.81925"}
	if !slices.Equal(got, want) {
		t.Errorf("per-offer series %q, want %q", got, want)
	}
}

// countingStore counts how often the price rows are read.
type countingStore struct {
	metrics.PriceStore
	reads atomic.Int32
}

func (c *countingStore) Prices(ctx context.Context, f storage.PriceFilter) ([]storage.PriceInterval, error) {
	c.reads.Add(1)
	return c.PriceStore.Prices(ctx, f)
}

// TestPriceSeriesCachedPerRun: scrapes between runs reuse the computed
// series; a committed run that changes a price shows at the next scrape.
func TestPriceSeriesCachedPerRun(t *testing.T) {
	cfg, az := fixtureConfig(t, "")
	a, db := loadApp(t, cfg)
	store := &countingStore{PriceStore: db}
	reg := prometheus.NewRegistry()
	errs := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "errors_total", Help: "read errors"}, []string{"series"})
	reg.MustRegister(metrics.NewPriceCollector(store, func() metrics.PriceSettings { return compose.MetricsSettings(a.cfg) }, errs))
	a100 := map[string]string{"gpu_model": "A100-80GB", "price_type": "on_demand", "currency": "USD"}
	for i := 0; i < 3; i++ {
		if v, ok := gaugeValue(t, reg, "pricewatch_cheapest_price_per_gpu_hour", a100); !ok || v != 4.09625 {
			t.Fatalf("scrape %d: %v %v", i, v, ok)
		}
	}
	if n := store.reads.Load(); n != 1 {
		t.Errorf("three scrapes read the prices %d times, want once", n)
	}
	az.setPrice(t, "1", `"retailPrice": 32.77`, `"retailPrice": 30.0`)
	rawCLI(t, "--config", cfg, "fetch", "--provider", "azure")
	if v, _ := gaugeValue(t, reg, "pricewatch_cheapest_price_per_gpu_hour", a100); v != 3.75 {
		t.Errorf("after the price change: %v, want 3.75 (30.0 / 8)", v)
	}
}

// TestLastSuccessSurvivesRestart: after a restart in which the provider
// fails, the last-success gauge is still there, with the time of the run
// that succeeded before (read from the database, not from memory).
func TestLastSuccessSurvivesRestart(t *testing.T) {
	cfg, az := fixtureConfig(t, "")
	a, db := loadApp(t, cfg)
	before := metrics.New(db, buildVersion())
	last, err := db.LastSuccess(context.Background(), "azure")
	if err != nil || last == nil || last.FinishedAt == nil {
		t.Fatalf("last success %+v, %v", last, err)
	}
	want := unixSeconds(*last.FinishedAt)
	if v, ok := gaugeValue(t, before.Registry(), "pricewatch_fetch_last_success_timestamp_seconds", map[string]string{"provider": "azure"}); !ok || v != want {
		t.Fatalf("before the restart: %v (present %v), want %v", v, ok, want)
	}

	// The restarted daemon: a fresh registry, and Azure's first run after
	// the restart fails (a page cut in half).
	az.mu.Lock()
	az.truncate = "1"
	az.mu.Unlock()
	restarted := metrics.New(db, buildVersion())
	jobs, err := a.wiring().Jobs([]string{"azure"})
	if err != nil {
		t.Fatal(err)
	}
	sum := providerrun.Provider(context.Background(), providerrun.DB(db), jobs[0].Job, a.wiring().SaveOptions(), zap.NewNop())
	if sum.Status != providerrun.StatusFailed {
		t.Fatalf("run after the restart: %s, want failed", sum.Status)
	}
	restarted.Observe(sum)
	if v, ok := gaugeValue(t, restarted.Registry(), "pricewatch_fetch_last_success_timestamp_seconds", map[string]string{"provider": "azure"}); !ok || v != want {
		t.Errorf("after a restart and a failed run: %v (present %v), want %v", v, ok, want)
	}
	if v, ok := gaugeValue(t, restarted.Registry(), "pricewatch_fetch_last_success_timestamp_seconds", map[string]string{"provider": "aws"}); !ok || v <= 0 {
		t.Errorf("aws last success %v (present %v)", v, ok)
	}
}

// TestPromtoolCheckMetrics runs `promtool check metrics` on a /metrics
// scrape of the fixture database with per-offer series on. It skips only
// where promtool is missing; CI installs it and sets
// PRICEWATCH_REQUIRE_PROMTOOL=1 so that it cannot skip there.
func TestPromtoolCheckMetrics(t *testing.T) {
	promtool := lookPromtool(t)
	m, _, _, _ := fixtureMetrics(t, "metrics:\n  offers:\n    gpu_models: [H100]\n", nil)
	m.Observe(providerrun.Summary{Provider: "azure", Status: providerrun.StatusOK, Duration: time.Second, Result: &storage.Result{At: time.Now()}})
	srv := httptest.NewServer(metrics.Handler(m, func(context.Context) (web.Readiness, error) { return web.Readiness{}, web.NotReady }, zap.NewNop()))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("/metrics: %d %v", resp.StatusCode, err)
	}
	for _, want := range []string{"pricewatch_cheapest_price_per_gpu_hour{", "pricewatch_cheapest_offer_info{", "pricewatch_offer_price_per_gpu_hour{",
		"pricewatch_fetch_last_success_timestamp_seconds{provider=\"aws\"}", "pricewatch_outbox_pending "} {
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) != 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

func lookPromtool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("PRICEWATCH_REQUIRE_PROMTOOL") != "" {
			t.Fatalf("promtool not found, and PRICEWATCH_REQUIRE_PROMTOOL is set: %v", err)
		}
		t.Skip("promtool not installed (Debian: apt-get install prometheus); CI runs this")
	}
	return p
}

// failingStore fails every read once fail is set.
type failingStore struct {
	metrics.PriceStore
	fail atomic.Bool
}

var errDBGone = errors.New("database is locked")

func (f *failingStore) DataVersion(ctx context.Context) (string, error) {
	if f.fail.Load() {
		return "", errDBGone
	}
	return f.PriceStore.DataVersion(ctx)
}

func (f *failingStore) LastSuccessTimes(context.Context) (map[string]time.Time, error) {
	return nil, errDBGone
}

func (f *failingStore) LastQueued(context.Context, string) (time.Time, bool, error) {
	return time.Time{}, false, errDBGone
}

// TestScrapeSurvivesReadErrors: a database read that fails at scrape time
// does not fail the scrape: the price series stay at their last good
// values, the freshness series are left out, and each failure is counted.
func TestScrapeSurvivesReadErrors(t *testing.T) {
	cfg, _ := fixtureConfig(t, "")
	a, db := loadApp(t, cfg)
	store := &failingStore{PriceStore: db}
	errs := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "pricewatch_metrics_read_errors_total", Help: "read errors"}, []string{"series"})
	reg := prometheus.NewRegistry()
	reg.MustRegister(errs, metrics.NewPriceCollector(store, func() metrics.PriceSettings { return compose.MetricsSettings(a.cfg) }, errs), metrics.NewFreshnessCollector(store, errs))
	h100 := map[string]string{"gpu_model": "H100", "price_type": "on_demand", "currency": "USD"}
	if v, ok := gaugeValue(t, reg, "pricewatch_cheapest_price_per_gpu_hour", h100); !ok || v != 8.553125 {
		t.Fatalf("before the failure: %v %v", v, ok)
	}
	store.fail.Store(true)
	if v, ok := gaugeValue(t, reg, "pricewatch_cheapest_price_per_gpu_hour", h100); !ok || v != 8.553125 {
		t.Errorf("while reads fail: %v (present %v), want the last good 8.553125", v, ok)
	}
	if s := series(t, reg, "pricewatch_fetch_last_success_timestamp_seconds"); len(s) != 0 {
		t.Errorf("last-success series from a failed read: %v", s)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("scrape failed: %v", err)
	}
	counted := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() == "pricewatch_metrics_read_errors_total" {
			for _, m := range mf.GetMetric() {
				counted[m.GetLabel()[0].GetValue()] = m.GetCounter().GetValue()
			}
		}
	}
	if counted["prices"] < 1 || counted["last_success"] < 1 || counted["digest"] < 1 {
		t.Errorf("read errors counted %v, want prices, last_success and digest", counted)
	}
}

// unixSeconds is how the freshness series write a time.
func unixSeconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }
