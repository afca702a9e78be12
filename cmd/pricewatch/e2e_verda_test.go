package main

import (
	"bytes"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch/fetchers/verda"
	"github.com/pricewatch/pricewatch/fetchers/verda/verdatest"
)

// Issue 33 item 1: Verda end to end through the CLI and the built-in
// rules, over the gpuhunt fixtures and the constructed on-demand
// availability (fetchers/verda/verdatest/testdata/README.md). The 1x H100
// becomes deployable on demand in ICE-01: one alert; its on-demand price
// then drops from 3.95 to 3.16 USD (20%): one alert. A cut answer fails
// the run and closes nothing; the client secret is never printed.
func TestVerdaEndToEnd(t *testing.T) {
	const secret = "verda_e2e_MustNeverBePrinted"
	const h100 = "1H100.80S.30V"
	t.Setenv(envSlackToken, alertsToken)
	t.Setenv(verda.EnvClientID, verdatest.ClientID)
	t.Setenv(verda.EnvClientSecret, secret)
	fake := verdatest.New(t, secret)
	slack := newSlackAPI(t)
	cfg := capacityConfig(t, "verda", fake.URL, slack.URL, "")

	fetchExpect(t, cfg, "18 offers: 18 new")
	if got := slack.received(); len(got) != 0 {
		t.Fatalf("the baseline alerted: %+v", got)
	}

	fake.SetBody("/v1/instance-availability?is_spot=false", []byte(`[{"location_code": "FIN-01", "availabilities": ["1H100.80S.30V", "2A6000.20V"]},
		{"location_code": "ICE-01", "availabilities": ["1H100.80S.30V"]}]`))
	out := fetchExpect(t, cfg, "18 offers: 0 new, 0 changed, 18 unchanged")
	posts := oneAlertSent(t, out, slack)
	if p := posts[0]; !strings.Contains(p.key, "back_in_stock") || !strings.Contains(p.text, h100) {
		t.Errorf("post %+v, want %s back in stock", p, h100)
	}

	fake.SetBody("/v1/instance-types", bytes.Replace(verdatest.Types(), []byte(`"price_per_hour": "3.95"`), []byte(`"price_per_hour": "3.16"`), 1))
	out = fetchExpect(t, cfg, "18 offers: 0 new, 3 changed, 15 unchanged")
	if !strings.Contains(out, "alerts   1 sent") {
		t.Errorf("the drop did not deliver one alert: %s", out)
	}
	if got := slack.received(); len(got) != 2 || !strings.Contains(got[1].key, "price_drop") || !strings.Contains(got[1].text, h100) {
		t.Errorf("Slack received %+v, want a second message: the %s drop", got, h100)
	}
	wantVerda(t, cfg, h100, "3.16")

	fake.FailNext(fetcherstest.Truncated)
	out, errOut, code := runCLI(t, "--config", cfg, "fetch", "--provider", "verda")
	if code == 0 || strings.Contains(out+errOut, secret) {
		t.Fatalf("a cut answer exited %d (or printed the secret):\n%s%s", code, out, errOut)
	}
	wantVerda(t, cfg, h100, "3.16")
	if got := slack.received(); len(got) != 2 {
		t.Errorf("Slack received %d messages after the failed run, want still 2", len(got))
	}
}

func wantVerda(t *testing.T, cfg, typ, hourly string) {
	t.Helper()
	r, ok := currentPrice(t, cfg, typ, "ICE-01", "on_demand")
	if !ok {
		t.Fatalf("no current on_demand price of %s", typ)
	}
	if r.Provider != "verda" || r.Currency != "USD" || r.GPUModel != "H100" || r.GPUCount != 1 || decimal.Decimal(r.HourlyPrice).String() != hourly {
		t.Errorf("%s stored as %+v, want verda 1 × H100 at %s USD", typ, r, hourly)
	}
}
