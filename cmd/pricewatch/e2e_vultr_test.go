package main

import (
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch/fetchers/vultr"
	"github.com/pricewatch/pricewatch/fetchers/vultr/vultrtest"
)

// Issue 33 item 1: Vultr end to end through the CLI and the built-in
// default rules, over the gpuhunt fixtures (fetchers/vultr/vultrtest/
// testdata/README.md) with a key, so region availability is read. The
// baseline stores 7 offers, the 8x H100 metal plan sold out in sea (edited);
// the plan drops from 23.92 to 20.00 USD (16%): one alert from price-drops;
// then sea lists it again: one alert from new-frontier-capacity. The
// fractional A100 slice is stored as 0.05 GPU. A cut page fails the run
// and closes nothing; the key is never printed.
func TestVultrEndToEnd(t *testing.T) {
	const key = "VULTRE2EKEYMUSTNEVERBEPRINTED"
	const h100 = "vbm-112c-2048gb-8-h100-gpu"
	t.Setenv(envSlackToken, alertsToken)
	t.Setenv(vultr.EnvAPIKey, key)
	fake := vultrtest.New(t, key)
	slack := newSlackAPI(t)
	cfg := capacityConfig(t, "vultr", fake.URL, slack.URL, "")

	fake.SetStock("sea", "vc2-1c-1gb")
	out := fetchExpect(t, cfg, "vultr    ok       7 offers: 7 new")
	if !strings.Contains(out, "first run") {
		t.Errorf("first run not a baseline: %s", out)
	}
	if got := slack.received(); len(got) != 0 {
		t.Fatalf("the baseline alerted: %+v", got)
	}
	wantVultr(t, cfg, h100, "sea", "23.92", "2.99", "H100", 8)
	wantVultr(t, cfg, "vcg-a100-1c-6g-4vram", "ewr", "0.123", "2.46", "A100-80GB", 0.05)
	if got := strings.Join(intervals(t, cfg, h100)["sea"], ","); got != "sold_out*" {
		t.Errorf("%s intervals %s, want sold_out*", h100, got)
	}

	fake.Set(t, h100, "hourly_cost", 20.00)
	out = fetchExpect(t, cfg, "vultr    ok       7 offers: 0 new, 1 changed, 6 unchanged")
	posts := oneAlertSent(t, out, slack)
	if p := posts[0]; !strings.Contains(p.key, "/price-drops/price_drop") || !strings.Contains(p.text, h100) {
		t.Errorf("post %+v, want the %s drop from rule price-drops", p, h100)
	}
	wantVultr(t, cfg, h100, "sea", "20", "2.5", "H100", 8)

	fake.SetStock("sea", h100)
	out = fetchExpect(t, cfg, "vultr    ok       7 offers: 0 new, 0 changed, 7 unchanged")
	if !strings.Contains(out, "alerts   1 sent") {
		t.Errorf("back in stock did not deliver one alert: %s", out)
	}
	if got := slack.received(); len(got) != 2 || !strings.Contains(got[1].key, "/new-frontier-capacity/back_in_stock") || !strings.Contains(got[1].text, h100) {
		t.Errorf("Slack received %+v, want a second message: %s back in stock", got, h100)
	}

	fake.FailNext(fetcherstest.Truncated)
	out, errOut, code := runCLI(t, "--config", cfg, "fetch", "--provider", "vultr")
	if code == 0 || !strings.Contains(out+errOut, "vultr") {
		t.Fatalf("a cut page exited %d:\n%s%s", code, out, errOut)
	}
	if strings.Contains(out+errOut, key) {
		t.Errorf("key printed: %s%s", out, errOut)
	}
	wantVultr(t, cfg, h100, "sea", "20", "2.5", "H100", 8)
	if got := strings.Join(intervals(t, cfg, h100)["sea"], ","); got != "sold_out,in_stock*" {
		t.Errorf("after a failed run: %s", got)
	}
	if got := slack.received(); len(got) != 2 {
		t.Errorf("Slack received %d messages after the failed run, want still 2", len(got))
	}
}

// wantVultr wants typ's open on_demand price in USD in region.
func wantVultr(t *testing.T, cfg, typ, region, hourly, perGPU, model string, gpus float64) {
	t.Helper()
	r, ok := currentPrice(t, cfg, typ, region, "on_demand")
	if !ok {
		t.Fatalf("no current on_demand price of %s in %s", typ, region)
	}
	if r.Provider != "vultr" || r.Currency != "USD" || r.GPUModel != model || r.GPUCount != gpus || decimal.Decimal(r.HourlyPrice).String() != hourly ||
		!r.PricePerGPUHour.Valid || r.PricePerGPUHour.D.String() != perGPU {
		t.Errorf("%s stored as %+v, want vultr %v × %s at %s USD (%s per GPU-hour)", typ, r, gpus, model, hourly, perGPU)
	}
}
