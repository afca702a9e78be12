package main

import (
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch/fetchers/digitalocean"
	"github.com/pricewatch/pricewatch/fetchers/digitalocean/digitaloceantest"
)

// Issue 33 item 1: DigitalOcean end to end through the CLI and the
// built-in default rules, over the gpuhunt fixture (fetchers/digitalocean/
// digitaloceantest/testdata/README.md). The baseline has the 8x H100
// Droplet not available (edited): sold out in nyc1, no price. It becomes
// available: one alert from new-frontier-capacity, and its price is
// stored; it then drops from 23.92 to 20.00 USD (16%): one alert from
// price-drops. A cut page fails the run and closes nothing; the token is
// never printed.
func TestDigitalOceanEndToEnd(t *testing.T) {
	const token = "dop_v1_e2e_MustNeverBePrinted"
	const h100 = "gpu-h100x8-640gb"
	t.Setenv(envSlackToken, alertsToken)
	t.Setenv(digitalocean.EnvAPIKey, token)
	fake := digitaloceantest.New(t, token)
	slack := newSlackAPI(t)
	cfg := capacityConfig(t, "digitalocean", fake.URL, slack.URL, "")

	fake.Set(t, h100, "available", false)
	out := fetchExpect(t, cfg, "digitalocean ok       1 offers: 1 new")
	if !strings.Contains(out, "first run") {
		t.Errorf("first run not a baseline: %s", out)
	}
	if got := slack.received(); len(got) != 0 {
		t.Fatalf("the baseline alerted: %+v", got)
	}
	if got := strings.Join(intervals(t, cfg, h100)["nyc1"], ","); got != "sold_out*" {
		t.Errorf("%s intervals %s, want sold_out*", h100, got)
	}

	fake.Set(t, h100, "available", true)
	out = fetchExpect(t, cfg, "digitalocean ok       2 offers: 1 new, 0 changed, 1 unchanged")
	posts := oneAlertSent(t, out, slack)
	if p := posts[0]; !strings.Contains(p.key, "/new-frontier-capacity/back_in_stock") || !strings.Contains(p.text, h100) {
		t.Errorf("post %+v, want %s back in stock", p, h100)
	}
	wantDigitalOcean(t, cfg, h100, "23.92", "2.99")

	fake.Set(t, h100, "price_hourly", 20.00)
	out = fetchExpect(t, cfg, "digitalocean ok       2 offers: 0 new, 1 changed, 1 unchanged")
	if !strings.Contains(out, "alerts   1 sent") {
		t.Errorf("the drop did not deliver one alert: %s", out)
	}
	if got := slack.received(); len(got) != 2 || !strings.Contains(got[1].key, "/price-drops/price_drop") || !strings.Contains(got[1].text, h100) {
		t.Errorf("Slack received %+v, want a second message: the %s drop", got, h100)
	}
	wantDigitalOcean(t, cfg, h100, "20", "2.5")

	fake.FailNext(fetcherstest.Truncated)
	out, errOut, code := runCLI(t, "--config", cfg, "fetch", "--provider", "digitalocean")
	if code == 0 || !strings.Contains(out+errOut, "digitalocean") {
		t.Fatalf("a cut page exited %d:\n%s%s", code, out, errOut)
	}
	if strings.Contains(out+errOut, token) {
		t.Errorf("token printed: %s%s", out, errOut)
	}
	wantDigitalOcean(t, cfg, h100, "20", "2.5")
	if got := strings.Join(intervals(t, cfg, h100)["nyc1"], ","); got != "sold_out,in_stock*" {
		t.Errorf("after a failed run: %s", got)
	}
	if got := slack.received(); len(got) != 2 {
		t.Errorf("Slack received %d messages after the failed run, want still 2", len(got))
	}
}

// wantDigitalOcean wants typ's open on_demand price in USD in nyc1.
func wantDigitalOcean(t *testing.T, cfg, typ, hourly, perGPU string) {
	t.Helper()
	r, ok := currentPrice(t, cfg, typ, "nyc1", "on_demand")
	if !ok {
		t.Fatalf("no current on_demand price of %s", typ)
	}
	if r.Provider != "digitalocean" || r.Currency != "USD" || r.GPUModel != "H100" || r.GPUCount != 8 || decimal.Decimal(r.HourlyPrice).String() != hourly ||
		!r.PricePerGPUHour.Valid || r.PricePerGPUHour.D.String() != perGPU {
		t.Errorf("%s stored as %+v, want digitalocean 8 × H100 at %s USD (%s per GPU-hour)", typ, r, hourly, perGPU)
	}
}
