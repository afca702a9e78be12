package main

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/compose"
	"github.com/pricewatch/pricewatch/daemon/metrics"
	providerrun "github.com/pricewatch/pricewatch/run"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"
	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch/storage"
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

// unixSeconds is how the freshness series write a time.
func unixSeconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }
