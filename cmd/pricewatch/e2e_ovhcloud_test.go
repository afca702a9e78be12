package main

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/ovhcloud/ovhcloudtest"
)

// Issue 22 items 5 and 6: OVHcloud end to end through the CLI and the
// built-in default rules (no alerts.rules key). `pricewatch fetch` against
// the fake catalogue (documented-shape sample, see
// fetchers/ovhcloud/ovhcloudtest/testdata/README.md) stores h100-380 at
// 2.80 EUR an hour under region global; the next run finds it at 2.50 (a
// 10.7% drop of an H100 on_demand price): one Slack message, from the
// price-drops rule. A run whose answer is cut off then fails and changes
// nothing.
func TestOVHcloudEndToEnd(t *testing.T) {
	fake := ovhcloudtest.New(t)
	cloudE2E{
		cloud: cloud{name: "ovhcloud", endpoint: fake.URL},
		typ:   "h100-380",
		baseline: alertStep{line: "ovhcloud ok       10 offers: 10 new", check: func(t *testing.T, cfg string) {
			wantCurrent(t, cfg, "2.8", "2.8")
			if r, ok := currentPrice(t, cfg, "h100-380", "global", "reserved"); !ok || r.Term != "1m" || decimal.Decimal(r.HourlyPrice).String() != "2.6575342466" {
				t.Errorf("monthly plan stored as %+v (found %v), want reserved 1m at 1940.00/730", r, ok)
			}
		}},
		steps: []alertStep{{
			change: func(t *testing.T) { fake.SetPrice(t, "h100-380.consumption", 250000000) }, // 2.50 EUR
			line:   "ovhcloud ok       10 offers: 0 new, 1 changed, 9 unchanged", rule: priceDrop,
			check: func(t *testing.T, cfg string) { wantCurrent(t, cfg, "2.5", "2.5") },
		}},
		fail: func() { fake.FailNext(fetcherstest.Truncated) },
	}.run(t)
}

// wantCurrent wants h100-380's open on_demand price in EUR, global, with
// its price per GPU-hour.
func wantCurrent(t *testing.T, cfg, hourly, perGPU string) {
	t.Helper()
	storedPrice{provider: "ovhcloud", region: "global", currency: "EUR", model: "H100", hourly: hourly, perGPU: perGPU}.check(t, cfg, "h100-380")
}
