package main

import (
	"strings"
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
	t.Setenv(envSlackToken, alertsToken)
	fake := ovhcloudtest.New(t)
	slack := newSlackAPI(t)
	cfg := capacityConfig(t, "ovhcloud", fake.URL, slack.URL, "")

	out := fetchExpect(t, cfg, "ovhcloud ok       10 offers: 10 new")
	if !strings.Contains(out, "first run") {
		t.Errorf("first run not a baseline: %s", out)
	}
	if got := slack.received(); len(got) != 0 {
		t.Fatalf("the baseline alerted: %+v", got)
	}
	wantCurrent(t, cfg, "2.8", "2.8")
	if r, ok := currentPrice(t, cfg, "h100-380", "global", "reserved"); !ok || r.Term != "1m" || decimal.Decimal(r.HourlyPrice).String() != "2.6575342466" {
		t.Errorf("monthly plan stored as %+v (found %v), want reserved 1m at 1940.00/730", r, ok)
	}

	fake.SetPrice(t, "h100-380.consumption", 250000000) // 2.50 EUR
	out = fetchExpect(t, cfg, "ovhcloud ok       10 offers: 0 new, 1 changed, 9 unchanged")
	posts := oneAlertSent(t, out, slack)
	if p := posts[0]; p.channel != "C0GPUALERTS" || !strings.Contains(p.key, "/price-drops/price_drop") || !strings.Contains(p.text, "h100-380") {
		t.Errorf("post %+v, want the h100-380 drop from rule price-drops", p)
	}
	wantCurrent(t, cfg, "2.5", "2.5")

	fake.FailNext(fetcherstest.Truncated)
	out, errOut, code := runCLI(t, "--config", cfg, "fetch", "--provider", "ovhcloud")
	if code == 0 || !strings.Contains(out+errOut, "ovhcloud") {
		t.Fatalf("a cut-off catalogue exited %d:\n%s%s", code, out, errOut)
	}
	wantCurrent(t, cfg, "2.5", "2.5")
	if got := slack.received(); len(got) != 1 {
		t.Errorf("Slack received %d messages after the failed run, want still 1", len(got))
	}
}

// wantCurrent wants h100-380's open on_demand price in EUR, global, with
// its price per GPU-hour.
func wantCurrent(t *testing.T, cfg, hourly, perGPU string) {
	t.Helper()
	storedPrice{provider: "ovhcloud", region: "global", currency: "EUR", model: "H100", hourly: hourly, perGPU: perGPU}.check(t, cfg, "h100-380")
}
