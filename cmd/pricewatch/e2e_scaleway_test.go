package main

import (
	"strings"
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
	t.Setenv(envSlackToken, alertsToken)
	fake := scalewaytest.New(t)
	slack := newSlackAPI(t)
	cfg := testConfig{
		clouds: []cloud{{name: "scaleway", endpoint: fake.URL, keys: "    regions: [" + scalewaytest.Zone + "]\n"}},
		slack:  fakeSlackSection(slack.URL, "C0GPUALERTS"),
		alerts: "alerts:\n  fetch_delivery_wait: 5s\n  flap_window: 0s\n",
	}.write(t, t.TempDir())
	const h100x8, h100x2 = "H100-SXM-8-80G", "H100-SXM-2-80G"

	fake.Set(t, scalewaytest.Availability, h100x2, "availability", "shortage")
	out := fetchExpect(t, cfg, "scaleway ok       6 offers: 6 new")
	if !strings.Contains(out, "first run") {
		t.Errorf("first run not a baseline: %s", out)
	}
	if got := slack.received(); len(got) != 0 {
		t.Fatalf("the baseline alerted: %+v", got)
	}
	wantScaleway(t, cfg, h100x8, "25.3308", "3.16635")
	if got := strings.Join(intervals(t, cfg, h100x2)[scalewaytest.Zone], ","); got != "sold_out*" {
		t.Errorf("%s intervals %s, want sold_out*", h100x2, got)
	}

	fake.Set(t, scalewaytest.Servers, h100x8, "hourly_price", 22.00)
	out = fetchExpect(t, cfg, "scaleway ok       6 offers: 0 new, 1 changed, 5 unchanged")
	posts := oneAlertSent(t, out, slack)
	if p := posts[0]; !strings.Contains(p.key, "/price-drops/price_drop") || !strings.Contains(p.text, h100x8) {
		t.Errorf("post %+v, want the %s drop from rule price-drops", p, h100x8)
	}
	wantScaleway(t, cfg, h100x8, "22", "2.75")

	fake.Set(t, scalewaytest.Availability, h100x2, "availability", "available")
	out = fetchExpect(t, cfg, "scaleway ok       6 offers: 0 new, 0 changed, 6 unchanged")
	if !strings.Contains(out, "alerts   1 sent") {
		t.Errorf("back in stock did not deliver one alert: %s", out)
	}
	if got := slack.received(); len(got) != 2 || !strings.Contains(got[1].key, "/new-frontier-capacity/back_in_stock") || !strings.Contains(got[1].text, h100x2) {
		t.Errorf("Slack received %+v, want a second message: %s back in stock", got, h100x2)
	}
	if got := strings.Join(intervals(t, cfg, h100x2)[scalewaytest.Zone], ","); got != "sold_out,in_stock*" {
		t.Errorf("%s intervals %s, want sold_out,in_stock*", h100x2, got)
	}

	fake.FailNext(fetcherstest.Truncated)
	out, errOut, code := runCLI(t, "--config", cfg, "fetch", "--provider", "scaleway")
	if code == 0 || !strings.Contains(out+errOut, "scaleway") {
		t.Fatalf("a cut page exited %d:\n%s%s", code, out, errOut)
	}
	wantScaleway(t, cfg, h100x8, "22", "2.75")
	if got := strings.Join(intervals(t, cfg, h100x2)[scalewaytest.Zone], ","); got != "sold_out,in_stock*" {
		t.Errorf("after a failed run: %s", got)
	}
	if got := slack.received(); len(got) != 2 {
		t.Errorf("Slack received %d messages after the failed run, want still 2", len(got))
	}
}

// wantScaleway wants typ's open on_demand price in EUR in fr-par-2.
func wantScaleway(t *testing.T, cfg, typ, hourly, perGPU string) {
	t.Helper()
	storedPrice{provider: "scaleway", region: scalewaytest.Zone, currency: "EUR", model: "H100", hourly: hourly, perGPU: perGPU}.check(t, cfg, typ)
}
