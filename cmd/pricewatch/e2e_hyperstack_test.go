package main

import (
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers/hyperstack"
	"github.com/pricewatch/pricewatch/fetchers/hyperstack/hyperstacktest"
)

// Issue 33 item 1: Hyperstack end to end through the CLI and the built-in
// rules, over the constructed flavor list, pricebook and stock list
// (fetchers/hyperstack/hyperstacktest/testdata/README.md). The 8x H100
// SXM5 flavor in CANADA-2 comes back in stock: one alert; its GPU's
// pricebook value then drops from 3.20 to 2.40 USD per GPU-hour (25.60
// to 19.20 for the flavor): one alert. A cut stock list fails the run and
// closes nothing; the key is never printed.
func TestHyperstackEndToEnd(t *testing.T) {
	const key = "hyperstack_e2e_MustNeverBePrinted"
	const h100 = "n3-H100-SXM5x8"
	t.Setenv(envSlackToken, alertsToken)
	t.Setenv(hyperstack.EnvAPIKey, key)
	fake := hyperstacktest.New(t, key)
	slack := newSlackAPI(t)
	cfg := capacityConfig(t, "hyperstack", fake.URL, slack.URL, "")

	fetchExpect(t, cfg, "7 offers: 7 new")
	if got := slack.received(); len(got) != 0 {
		t.Fatalf("the baseline alerted: %+v", got)
	}
	if got := strings.Join(intervals(t, cfg, h100)["CANADA-2"], ","); got != "sold_out*" {
		t.Errorf("%s intervals %s, want sold_out*", h100, got)
	}

	fake.Replace(t, hyperstacktest.Flavors, `"gpu_count": 8, "stock_available": false, "created_at": "2025-03-01T12:00:00"`,
		`"gpu_count": 8, "stock_available": true, "created_at": "2025-03-01T12:00:00"`)
	out := fetchExpect(t, cfg, "7 offers: 0 new, 0 changed, 7 unchanged")
	posts := oneAlertSent(t, out, slack)
	if p := posts[0]; !strings.Contains(p.key, "back_in_stock") || !strings.Contains(p.text, h100) {
		t.Errorf("post %+v, want %s back in stock", p, h100)
	}
	if got := strings.Join(intervals(t, cfg, h100)["CANADA-2"], ","); got != "sold_out,in_stock*" {
		t.Errorf("%s intervals %s, want sold_out,in_stock*", h100, got)
	}

	fake.Replace(t, hyperstacktest.Pricebook, `"value": "3.20"`, `"value": "2.40"`)
	out = fetchExpect(t, cfg, "7 offers: 0 new, 1 changed, 6 unchanged")
	if !strings.Contains(out, "alerts   1 sent") {
		t.Errorf("the drop did not deliver one alert: %s", out)
	}
	if got := slack.received(); len(got) != 2 || !strings.Contains(got[1].key, "price_drop") || !strings.Contains(got[1].text, h100) {
		t.Errorf("Slack received %+v, want a second message: the %s drop", got, h100)
	}
	wantHyperstack(t, cfg, h100, "19.2")

	fake.FailNext("", "", hyperstacktest.Truncated)
	out, errOut, code := runCLI(t, "--config", cfg, "fetch", "--provider", "hyperstack")
	if code == 0 || strings.Contains(out+errOut, key) {
		t.Fatalf("a cut answer exited %d (or printed the key):\n%s%s", code, out, errOut)
	}
	wantHyperstack(t, cfg, h100, "19.2")
	if got := strings.Join(intervals(t, cfg, h100)["CANADA-2"], ","); got != "sold_out,in_stock*" {
		t.Errorf("after the cut run %s intervals %s, want sold_out,in_stock* (nothing closed)", h100, got)
	}
	if got := slack.received(); len(got) != 2 {
		t.Errorf("Slack received %d messages after the failed run, want still 2", len(got))
	}
}

func wantHyperstack(t *testing.T, cfg, typ, hourly string) {
	t.Helper()
	storedPrice{provider: "hyperstack", region: "CANADA-2", model: "H100", gpus: 8, hourly: hourly}.check(t, cfg, typ)
}
