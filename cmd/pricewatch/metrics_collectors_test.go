package main

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch/internal/testing/wait"
	"github.com/pricewatch/pricewatch/storage"
)

// scrape is one /metrics answer of the daemon, as series: a name's label
// sets, each with its value under "value".
type scrape map[string][]map[string]string

// scrapeDaemon starts the daemon over cfg, which listens on port, waits
// until it has computed the price series and returns one scrape.
func scrapeDaemon(t *testing.T, cfg, port string) scrape {
	t.Helper()
	base, stop := serveInProcess(t, cfg, port)
	t.Cleanup(stop)
	return parseScrape(t, firstPriceSeries(t, base))
}

// firstPriceSeries waits until the daemon at base has computed its first
// price series (beside its first scrapes) and returns that scrape.
func firstPriceSeries(t *testing.T, base string) string {
	t.Helper()
	var body string
	wait.For(t, "the first price series", 30*time.Second, func() bool {
		resp, err := http.Get(base + "/metrics")
		if err != nil {
			return false
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body = string(b)
		return strings.Contains(body, "pricewatch_cheapest_price_per_gpu_hour{")
	})
	return body
}

// sampleLine is one sample of the text format: name, {labels}, value.
var sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$`)

// labelPair is one label="value" (the values here hold no escapes).
var labelPair = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="([^"]*)"`)

func parseScrape(t *testing.T, body string) scrape {
	t.Helper()
	out := scrape{}
	for _, l := range strings.Split(body, "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		m := sampleLine.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("not a sample line: %q", l)
		}
		s := map[string]string{"value": m[3]}
		for _, p := range labelPair.FindAllStringSubmatch(m[2], -1) {
			s[p[1]] = p[2]
		}
		out[m[1]] = append(out[m[1]], s)
	}
	return out
}

// gauge is the value of the series name with exactly these labels.
func (s scrape) gauge(name string, labels map[string]string) (float64, bool) {
	for _, got := range s[name] {
		l := maps.Clone(got)
		delete(l, "value")
		if maps.Equal(l, labels) || (len(l) == 0 && labels == nil) {
			v, err := strconv.ParseFloat(got["value"], 64)
			return v, err == nil
		}
	}
	return 0, false
}

// fixtureScrape is the daemon's scrape over the fixture database (fake
// Azure westus2, AWS p5.48xlarge in ap-northeast-1) with further keys
// under fx:; before, if set, runs on the fixture (its config and
// database) before the daemon starts.
func fixtureScrape(t *testing.T, fx string, before func(cfg string, db *storage.DB)) scrape {
	t.Helper()
	port := freePort(t)
	cfg, _ := fixtureConfigFX(t, "http:\n  listen: 127.0.0.1:"+port+"\n", fx)
	if before != nil {
		_, db := loadApp(t, cfg)
		before(cfg, db)
	}
	return scrapeDaemon(t, cfg, port)
}

// TestCheapestPriceSeries: the cheapest price per GPU-hour of each GPU
// model and price type of the fixtures, exactly (worked out by hand from
// the fixtures' prices: effective hourly over the GPU count, reservations
// with the upfront spread over 8,760 or 26,280 hours), and the offer each
// comes from.
func TestCheapestPriceSeries(t *testing.T) {
	m := fixtureScrape(t, "", nil)
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
	for _, s := range m["pricewatch_cheapest_price_per_gpu_hour"] {
		if s["currency"] != "USD" {
			t.Errorf("currency %q, want fx.currency USD", s["currency"])
		}
		v, _ := strconv.ParseFloat(s["value"], 64)
		got[s["gpu_model"]+"/"+s["price_type"]] = v
	}
	if !maps.Equal(got, want) {
		t.Errorf("cheapest per GPU-hour\n got %v\nwant %v", got, want)
	}
	info := m["pricewatch_cheapest_offer_info"]
	if len(info) != len(want) {
		t.Errorf("%d info series, want %d", len(info), len(want))
	}
	wantInfo := map[string]string{"gpu_model": "H100", "price_type": "reserved", "currency": "USD", "provider": "aws",
		"region": "ap-northeast-1", "zone": "", "instance_type": "p5.48xlarge", "term": "3y", "payment": "all_upfront",
		"offering_class": "standard", "gpu_count": "8", "value": "1"}
	if !slices.ContainsFunc(info, func(s map[string]string) bool { return maps.Equal(s, wantInfo) }) {
		t.Errorf("no info series %v among %v", wantInfo, info)
	}
	if s := m["pricewatch_offer_price_per_gpu_hour"]; len(s) != 0 {
		t.Errorf("per-offer series without metrics.offers: %v", s)
	}
}

// TestCheapestConvertsAsCompare: in another currency the gauge is the rank-1
// price of `compare --price-type any` for the exact model, through the same
// stored ECB rate.
func TestCheapestConvertsAsCompare(t *testing.T) {
	var out string
	m := fixtureScrape(t, "  currency: EUR\n", func(cfg string, db *storage.DB) {
		if err := db.SaveFXDay(context.Background(), storage.FXDay{Date: time.Now().UTC().Add(-24 * time.Hour).Truncate(24 * time.Hour), Source: "ECB",
			PerEUR: map[string]decimal.Decimal{"USD": decimal.RequireFromString("1.0412")}}); err != nil {
			t.Fatal(err)
		}
		out = rawCLI(t, "--config", cfg, "compare", "--gpu", "H100", "--price-type", "any", "--currency", "EUR", "--format", "json")
	})
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
		got, ok := m.gauge("pricewatch_cheapest_price_per_gpu_hour", map[string]string{"gpu_model": "H100", "price_type": r.PriceType, "currency": "EUR"})
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
	port := freePort(t)
	cfg, az := fixtureConfigFX(t, "http:\n  listen: 127.0.0.1:"+port+"\n", "")
	// Azure's next run fails; then the daemon starts with a fresh
	// registry.
	want := lastSuccessThenCut(t, cfg, az)
	if out, errOut, code := runCLI(t, "--config", cfg, "fetch", "--provider", "azure"); code == 0 {
		t.Fatalf("the cut run exited 0:\n%s%s", out, errOut)
	}
	m := scrapeDaemon(t, cfg, port)
	if v, ok := m.gauge("pricewatch_fetch_last_success_timestamp_seconds", map[string]string{"provider": "azure"}); !ok || v != want {
		t.Errorf("after a restart and a failed run: %v (present %v), want %v", v, ok, want)
	}
	if v, ok := m.gauge("pricewatch_fetch_last_success_timestamp_seconds", map[string]string{"provider": "aws"}); !ok || v <= 0 {
		t.Errorf("aws last success %v (present %v)", v, ok)
	}
}

// lastSuccessThenCut returns Azure's stored last success as the
// freshness series write it, then cuts the fake's first page in half, so
// that Azure's runs from now on fail.
func lastSuccessThenCut(t *testing.T, cfg string, az *fakeAzure) float64 {
	t.Helper()
	_, db := loadApp(t, cfg)
	last, err := db.LastSuccess(context.Background(), "azure")
	if err != nil || last == nil || last.FinishedAt == nil {
		t.Fatalf("stored last success %+v, %v", last, err)
	}
	az.mu.Lock()
	az.truncate = "1"
	az.mu.Unlock()
	return unixSeconds(*last.FinishedAt)
}

// unixSeconds is how the freshness series write a time.
func unixSeconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }
