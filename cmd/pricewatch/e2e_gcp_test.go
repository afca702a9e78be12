package main

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/gcp"
	"github.com/pricewatch/pricewatch/fetchers/gcp/gcptest"
)

// Issue 22 item 1: Google Cloud end to end through the CLI and the
// built-in default rules (no alerts.rules key). `pricewatch fetch` against
// the fake Catalog API (three pages of real captures and the constructed
// A3/G2 parts named in fetchers/gcp/gcptest/testdata/README.md) stores
// a3-highgpu-8g in us-central1 at 8 × 9.796550569 + 208 × 0.025498003 +
// 1,872 × 0.00222034 = 87.832465656 USD an hour; the next run finds the
// H100 SKU at 8.50 (the machine 77.460061104, an 11.8% drop of an H100
// on_demand price): one Slack message, from the price-drops rule. A run
// whose second page is cut off then fails and changes nothing, and the
// key is in no output.
func TestGCPEndToEnd(t *testing.T) {
	t.Setenv(gcp.EnvAPIKey, gcptest.Key)
	fake := gcptest.New(t)
	cloudE2E{
		cloud: cloud{name: "gcp", endpoint: fake.URL},
		typ:   "a3-highgpu-8g",
		baseline: alertStep{line: "46 offers: 46 new", check: func(t *testing.T, cfg string) {
			wantGCP(t, cfg, "87.832465656", "10.979058207")
			for _, w := range []struct{ pt, term, class, hourly string }{
				{"spot", "", "", "43.51344"},
				{"reserved", "1y", "", "60.35033416"},
				{"reserved", "3y", "", "38.7442008"},
				{"on_demand", "", "flex_start", "37.662504"},
			} {
				r, ok := a3Price(t, cfg, w.pt, w.term, w.class)
				if !ok || decimal.Decimal(r.HourlyPrice).String() != w.hourly {
					t.Errorf("a3-highgpu-8g %s %s %s stored as %+v (found %v), want %s", w.pt, w.term, w.class, r, ok, w.hourly)
				}
			}
		}},
		steps: []alertStep{{
			change: func(t *testing.T) { fake.SetPrice(t, "D4E2-451A-15B9", 8, 500000000) }, // the H100 GPU-hour at 8.50
			line:   "46 offers: 0 new, 1 changed, 45 unchanged", rule: priceDrop,
			check: func(t *testing.T, cfg string) { wantGCP(t, cfg, "77.460061104", "9.682507638") },
		}},
		fail:    func() { fake.FailNext("", fetcherstest.Truncated) },
		secrets: []string{gcptest.Key},
	}.run(t)
}

// wantGCP wants a3-highgpu-8g's open on_demand price in us-central1, USD,
// with its price per GPU-hour.
func wantGCP(t *testing.T, cfg, hourly, perGPU string) {
	t.Helper()
	r, ok := a3Price(t, cfg, "on_demand", "", "")
	if !ok {
		t.Fatal("no current on_demand price of a3-highgpu-8g")
	}
	if r.Provider != "gcp" || r.Currency != "USD" || r.GPUModel != "H100" || decimal.Decimal(r.HourlyPrice).String() != hourly ||
		!r.PricePerGPUHour.Valid || r.PricePerGPUHour.D.String() != perGPU {
		t.Errorf("a3-highgpu-8g stored as %+v, want gcp H100 %s USD (%s per GPU-hour)", r, hourly, perGPU)
	}
}

// a3Price is a3-highgpu-8g's open price in us-central1 bought as pt,
// term and offering class (flex-start is on_demand too).
func a3Price(t *testing.T, cfg, pt, term, class string) (historyJSON, bool) {
	t.Helper()
	for _, r := range history(t, cfg, "a3-highgpu-8g") {
		if r.ValidTo == nil && r.Region == "us-central1" && string(r.PriceType) == pt && r.Term == term && r.OfferingClass == class {
			return r, true
		}
	}
	return historyJSON{}, false
}
