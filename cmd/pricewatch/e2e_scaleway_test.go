package main

import (
	"testing"

	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/scaleway/scalewaytest"
)

// Issue 33 item 1: Scaleway end to end through the CLI and the built-in
// default rules, over the real fr-par-2 captures
// (fetchers/scaleway/scalewaytest/testdata/README.md). The baseline stores
// six GPU types in EUR, H100-SXM-2-80G in shortage (edited); then the
// 8x H100 drops from 25.3308 to 22.00 EUR (13%): one alert from
// price-drops; then H100-SXM-2-80G is available again: one alert from
// new-frontier-capacity. A cut page fails the run and closes nothing.
func TestScalewayEndToEnd(t *testing.T) {
	const h100x8, h100x2 = "H100-SXM-8-80G", "H100-SXM-2-80G"
	fake := scalewaytest.New(t)
	cloudE2E{
		cloud: cloud{name: "scaleway", endpoint: fake.URL, keys: "    regions: [" + scalewaytest.Zone + "]\n"},
		typ:   h100x8,
		baseline: alertStep{change: func(t *testing.T) { fake.Set(t, scalewaytest.Availability, h100x2, "availability", "shortage") },
			line: "scaleway ok       6 offers: 6 new",
			check: func(t *testing.T, cfg string) {
				wantScaleway(t, cfg, h100x8, "25.3308", "3.16635")
				wantIntervals(t, cfg, h100x2, scalewaytest.Zone, "sold_out*")
			}},
		steps: []alertStep{{
			change: func(t *testing.T) { fake.Set(t, scalewaytest.Servers, h100x8, "hourly_price", 22.00) },
			line:   "scaleway ok       6 offers: 0 new, 1 changed, 5 unchanged", rule: priceDrop,
			check: func(t *testing.T, cfg string) { wantScaleway(t, cfg, h100x8, "22", "2.75") },
		}, {
			change: func(t *testing.T) { fake.Set(t, scalewaytest.Availability, h100x2, "availability", "available") },
			line:   "scaleway ok       6 offers: 0 new, 0 changed, 6 unchanged", rule: backInStock, text: []string{h100x2},
			check: func(t *testing.T, cfg string) {
				wantScaleway(t, cfg, h100x8, "22", "2.75")
				wantIntervals(t, cfg, h100x2, scalewaytest.Zone, "sold_out,in_stock*")
			},
		}},
		fail: func() { fake.FailNext(fetcherstest.Truncated) },
	}.run(t)
}

// wantScaleway wants typ's open on_demand price in EUR in fr-par-2.
func wantScaleway(t *testing.T, cfg, typ, hourly, perGPU string) {
	t.Helper()
	storedPrice{provider: "scaleway", region: scalewaytest.Zone, currency: "EUR", model: "H100", hourly: hourly, perGPU: perGPU}.check(t, cfg, typ)
}
