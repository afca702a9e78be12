package main

import (
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch/fetchers/shadeform"
	"github.com/pricewatch/pricewatch/fetchers/shadeform/shadeformtest"
)

// Issue 33 item 1: Shadeform end to end through the CLI and the built-in
// rules, over the real home-page capture (fetchers/shadeform/
// shadeformtest/testdata/README.md). Hyperstack's 8x H100 resold through
// Shadeform comes back in CANADA-2 (available false → true): one alert;
// its price then drops from 25.60 to 20.48 USD (20%): one alert. A cut
// answer fails the run and closes nothing; the key is never printed.
func TestShadeformEndToEnd(t *testing.T) {
	const key = "sf_e2e_MustNeverBePrinted"
	const h100 = "hyperstack:H100_sxm5x8"
	t.Setenv(envSlackToken, alertsToken)
	t.Setenv(shadeform.EnvAPIKey, key)
	fake := shadeformtest.New(t, key)
	slack := newSlackAPI(t)
	cfg := capacityConfig(t, "shadeform", fake.URL, slack.URL, "")

	fetchExpect(t, cfg, "16 offers: 16 new")
	if got := slack.received(); len(got) != 0 {
		t.Fatalf("the baseline alerted: %+v", got)
	}

	fake.Change(t, "hyperstack", "H100_sxm5x8", 0, "CANADA-2", true)
	out := fetchExpect(t, cfg, "16 offers: 0 new, 0 changed, 16 unchanged")
	posts := oneAlertSent(t, out, slack)
	if p := posts[0]; !strings.Contains(p.key, "back_in_stock") || !strings.Contains(p.text, h100) {
		t.Errorf("post %+v, want %s back in stock", p, h100)
	}

	fake.Change(t, "hyperstack", "H100_sxm5x8", 2048, "", false)
	out = fetchExpect(t, cfg, "16 offers: 0 new, 3 changed, 13 unchanged")
	if !strings.Contains(out, "alerts   1 sent") {
		t.Errorf("the drop did not deliver one alert: %s", out)
	}
	if got := slack.received(); len(got) != 2 || !strings.Contains(got[1].key, "price_drop") || !strings.Contains(got[1].text, h100) {
		t.Errorf("Slack received %+v, want a second message: the %s drop", got, h100)
	}
	wantShadeform(t, cfg, h100, "20.48")

	fake.FailNext(fetcherstest.Truncated)
	out, errOut, code := runCLI(t, "--config", cfg, "fetch", "--provider", "shadeform")
	if code == 0 || strings.Contains(out+errOut, key) {
		t.Fatalf("a cut answer exited %d (or printed the key):\n%s%s", code, out, errOut)
	}
	wantShadeform(t, cfg, h100, "20.48")
	if got := slack.received(); len(got) != 2 {
		t.Errorf("Slack received %d messages after the failed run, want still 2", len(got))
	}
}

func wantShadeform(t *testing.T, cfg, typ, hourly string) {
	t.Helper()
	r, ok := currentPrice(t, cfg, typ, "CANADA-2", "on_demand")
	if !ok {
		t.Fatalf("no current on_demand price of %s", typ)
	}
	if r.Provider != "shadeform" || r.Currency != "USD" || r.GPUModel != "H100" || r.GPUCount != 8 || decimal.Decimal(r.HourlyPrice).String() != hourly ||
		r.OfferingClass != "hyperstack" {
		t.Errorf("%s stored as %+v, want shadeform (hyperstack) 8 × H100 at %s USD", typ, r, hourly)
	}
}
