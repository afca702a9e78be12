package main

import (
	"bytes"
	"cmp"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch/fetchers/digitalocean"
	"github.com/pricewatch/pricewatch/fetchers/digitalocean/digitaloceantest"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/shadeform"
	"github.com/pricewatch/pricewatch/fetchers/shadeform/shadeformtest"
	"github.com/pricewatch/pricewatch/fetchers/verda"
	"github.com/pricewatch/pricewatch/fetchers/verda/verdatest"
	"github.com/pricewatch/pricewatch/fetchers/vultr"
	"github.com/pricewatch/pricewatch/fetchers/vultr/vultrtest"
)

// alertStep is one fetch of twoAlertsCase: change moves the fake, the
// fetch prints line, and (but for the baseline) Slack receives one new
// message whose key holds rule and whose text names the case's type;
// check then looks at what is stored.
type alertStep struct {
	change func(t *testing.T)
	line   string
	rule   string
	check  func(t *testing.T, cfg string)
}

// twoAlertsCase is one cloud's end-to-end run through the CLI and the
// built-in default rules (issue 33 item 1): a baseline that alerts
// nothing, two fetches that each deliver one alert, then a cut answer
// that fails the run, closes nothing and sends nothing; the secret is
// never printed. start sets the cloud's credentials and starts its fake
// (its URL, and its FailNext).
type twoAlertsCase struct {
	name, secret, typ string
	start             func(t *testing.T, secret string) (url string, failNext func(modes ...string))
	baseline          alertStep
	steps             [2]alertStep
	// afterFail is what must still hold after the failed run.
	afterFail func(t *testing.T, cfg string)
}

// storedPrice is the open on_demand price wanted of a type, in currency
// (empty: USD); the GPU model, the GPU count and the per-GPU price are
// checked when set, the offering class always.
type storedPrice struct {
	provider, region, currency, model string
	gpus                              float64
	hourly, perGPU, class             string
}

func (w storedPrice) check(t *testing.T, cfg, typ string) {
	t.Helper()
	r, ok := currentPrice(t, cfg, typ, w.region, "on_demand")
	if !ok {
		t.Fatalf("no current on_demand price of %s in %s", typ, w.region)
	}
	currency := cmp.Or(w.currency, "USD")
	if r.Provider != w.provider || r.Currency != currency || w.model != "" && r.GPUModel != w.model || w.gpus != 0 && r.GPUCount != w.gpus ||
		decimal.Decimal(r.HourlyPrice).String() != w.hourly || r.OfferingClass != w.class ||
		(w.perGPU != "" && (!r.PricePerGPUHour.Valid || r.PricePerGPUHour.D.String() != w.perGPU)) {
		t.Errorf("%s stored as %+v, want %+v", typ, r, w)
	}
}

// wantIntervals wants typ's availability intervals in region.
func wantIntervals(t *testing.T, cfg, typ, region, want string) {
	t.Helper()
	if got := strings.Join(intervals(t, cfg, typ)[region], ","); got != want {
		t.Errorf("%s intervals in %s: %s, want %s", typ, region, got, want)
	}
}

func TestTwoAlertsEndToEnd(t *testing.T) {
	for _, c := range twoAlertsCases() {
		t.Run(c.name, func(t *testing.T) { c.run(t) })
	}
}

func (c twoAlertsCase) run(t *testing.T) {
	t.Setenv(envSlackToken, alertsToken)
	url, failNext := c.start(t, c.secret)
	slack := newSlackAPI(t)
	cfg := capacityConfig(t, c.name, url, slack.URL, "")

	if c.baseline.change != nil {
		c.baseline.change(t)
	}
	out := fetchExpect(t, cfg, c.baseline.line)
	if !strings.Contains(out, "first run") {
		t.Errorf("first run not a baseline: %s", out)
	}
	if got := slack.received(); len(got) != 0 {
		t.Fatalf("the baseline alerted: %+v", got)
	}
	if c.baseline.check != nil {
		c.baseline.check(t, cfg)
	}
	for i, s := range c.steps {
		s.change(t)
		out := fetchExpect(t, cfg, s.line)
		if !strings.Contains(out, "alerts   1 sent") {
			t.Errorf("fetch %d did not deliver one alert: %s", i+2, out)
		}
		if got := slack.received(); len(got) != i+1 || !strings.Contains(got[i].key, s.rule) || !strings.Contains(got[i].text, c.typ) {
			t.Fatalf("Slack received %+v, want message %d: %s of %s", got, i+1, s.rule, c.typ)
		}
		if s.check != nil {
			s.check(t, cfg)
		}
	}

	failNext(fetcherstest.Truncated)
	out, errOut, code := runCLI(t, "--config", cfg, "fetch", "--provider", c.name)
	if code == 0 || !strings.Contains(out+errOut, c.name) {
		t.Fatalf("a cut answer exited %d:\n%s%s", code, out, errOut)
	}
	if strings.Contains(out+errOut, c.secret) {
		t.Errorf("secret printed: %s%s", out, errOut)
	}
	c.afterFail(t, cfg)
	if got := slack.received(); len(got) != 2 {
		t.Errorf("Slack received %d messages after the failed run, want still 2", len(got))
	}
}

const (
	backInStock = "/new-frontier-capacity/back_in_stock"
	priceDrop   = "/price-drops/price_drop"
)

func twoAlertsCases() []twoAlertsCase {
	var sf *shadeformtest.Server
	var vd *verdatest.Server
	var do *digitaloceantest.Server
	var vu *vultrtest.Server
	const sfH100, vdH100, doH100, vuH100 = "hyperstack:H100_sxm5x8", "1H100.80S.30V", "gpu-h100x8-640gb", "vbm-112c-2048gb-8-h100-gpu"
	sfPrice := func(hourly string) func(*testing.T, string) {
		return func(t *testing.T, cfg string) {
			storedPrice{provider: "shadeform", region: "CANADA-2", model: "H100", gpus: 8, hourly: hourly, class: "hyperstack"}.check(t, cfg, sfH100)
		}
	}
	vdPrice := func(hourly string) func(*testing.T, string) {
		return func(t *testing.T, cfg string) {
			storedPrice{provider: "verda", region: "ICE-01", model: "H100", gpus: 1, hourly: hourly}.check(t, cfg, vdH100)
		}
	}
	doPrice := func(hourly, perGPU string) func(*testing.T, string) {
		return func(t *testing.T, cfg string) {
			storedPrice{provider: "digitalocean", region: "nyc1", model: "H100", gpus: 8, hourly: hourly, perGPU: perGPU}.check(t, cfg, doH100)
		}
	}
	vuPrice := func(hourly, perGPU string) func(*testing.T, string) {
		return func(t *testing.T, cfg string) {
			storedPrice{provider: "vultr", region: "sea", model: "H100", gpus: 8, hourly: hourly, perGPU: perGPU}.check(t, cfg, vuH100)
		}
	}
	return []twoAlertsCase{{
		// Over the real home-page capture (fetchers/shadeform/shadeformtest/
		// testdata/README.md): Hyperstack's 8x H100 resold through Shadeform
		// comes back in CANADA-2 (available false → true); its price then
		// drops from 25.60 to 20.48 USD (20%).
		name: "shadeform", secret: "sf_e2e_MustNeverBePrinted", typ: sfH100,
		start: func(t *testing.T, key string) (string, func(...string)) {
			t.Setenv(shadeform.EnvAPIKey, key)
			sf = shadeformtest.New(t, key)
			return sf.URL, sf.FailNext
		},
		baseline: alertStep{line: "16 offers: 16 new"},
		steps: [2]alertStep{
			{change: func(t *testing.T) { sf.Change(t, "hyperstack", "H100_sxm5x8", 0, "CANADA-2", true) },
				line: "16 offers: 0 new, 0 changed, 16 unchanged", rule: "back_in_stock"},
			{change: func(t *testing.T) { sf.Change(t, "hyperstack", "H100_sxm5x8", 2048, "", false) },
				line: "16 offers: 0 new, 3 changed, 13 unchanged", rule: "price_drop", check: sfPrice("20.48")},
		},
		afterFail: sfPrice("20.48"),
	}, {
		// Over the gpuhunt fixtures and the constructed on-demand
		// availability (fetchers/verda/verdatest/testdata/README.md): the 1x
		// H100 becomes deployable on demand in ICE-01; its on-demand price
		// then drops from 3.95 to 3.16 USD (20%).
		name: "verda", secret: "verda_e2e_MustNeverBePrinted", typ: vdH100,
		start: func(t *testing.T, secret string) (string, func(...string)) {
			t.Setenv(verda.EnvClientID, verdatest.ClientID)
			t.Setenv(verda.EnvClientSecret, secret)
			vd = verdatest.New(t, secret)
			return vd.URL, vd.FailNext
		},
		baseline: alertStep{line: "18 offers: 18 new"},
		steps: [2]alertStep{
			{change: func(*testing.T) {
				vd.SetBody("/v1/instance-availability?is_spot=false", []byte(`[{"location_code": "FIN-01", "availabilities": ["1H100.80S.30V", "2A6000.20V"]},
		{"location_code": "ICE-01", "availabilities": ["1H100.80S.30V"]}]`))
			}, line: "18 offers: 0 new, 0 changed, 18 unchanged", rule: "back_in_stock"},
			{change: func(*testing.T) {
				vd.SetBody("/v1/instance-types", bytes.Replace(verdatest.Types(), []byte(`"price_per_hour": "3.95"`), []byte(`"price_per_hour": "3.16"`), 1))
			}, line: "18 offers: 0 new, 3 changed, 15 unchanged", rule: "price_drop", check: vdPrice("3.16")},
		},
		afterFail: vdPrice("3.16"),
	}, {
		// Over the gpuhunt fixture (fetchers/digitalocean/digitaloceantest/
		// testdata/README.md). The baseline has the 8x H100 Droplet not
		// available (edited): sold out in nyc1, no price. It becomes
		// available (its price is stored); it then drops from 23.92 to
		// 20.00 USD (16%).
		name: "digitalocean", secret: "dop_v1_e2e_MustNeverBePrinted", typ: doH100,
		start: func(t *testing.T, token string) (string, func(...string)) {
			t.Setenv(digitalocean.EnvAPIKey, token)
			do = digitaloceantest.New(t, token)
			return do.URL, do.FailNext
		},
		baseline: alertStep{change: func(t *testing.T) { do.Set(t, doH100, "available", false) },
			line:  "digitalocean ok       1 offers: 1 new",
			check: func(t *testing.T, cfg string) { wantIntervals(t, cfg, doH100, "nyc1", "sold_out*") }},
		steps: [2]alertStep{
			{change: func(t *testing.T) { do.Set(t, doH100, "available", true) },
				line: "digitalocean ok       2 offers: 1 new, 0 changed, 1 unchanged", rule: backInStock, check: doPrice("23.92", "2.99")},
			{change: func(t *testing.T) { do.Set(t, doH100, "price_hourly", 20.00) },
				line: "digitalocean ok       2 offers: 0 new, 1 changed, 1 unchanged", rule: priceDrop, check: doPrice("20", "2.5")},
		},
		afterFail: func(t *testing.T, cfg string) {
			doPrice("20", "2.5")(t, cfg)
			wantIntervals(t, cfg, doH100, "nyc1", "sold_out,in_stock*")
		},
	}, {
		// Over the gpuhunt fixtures (fetchers/vultr/vultrtest/testdata/
		// README.md) with a key, so region availability is read. The
		// baseline stores 7 offers, the 8x H100 metal plan sold out in sea
		// (edited), the fractional A100 slice as 0.05 GPU; the plan drops
		// from 23.92 to 20.00 USD (16%); then sea lists it again.
		name: "vultr", secret: "VULTRE2EKEYMUSTNEVERBEPRINTED", typ: vuH100,
		start: func(t *testing.T, key string) (string, func(...string)) {
			t.Setenv(vultr.EnvAPIKey, key)
			vu = vultrtest.New(t, key)
			return vu.URL, vu.FailNext
		},
		baseline: alertStep{change: func(*testing.T) { vu.SetStock("sea", "vc2-1c-1gb") },
			line: "vultr    ok       7 offers: 7 new",
			check: func(t *testing.T, cfg string) {
				vuPrice("23.92", "2.99")(t, cfg)
				storedPrice{provider: "vultr", region: "ewr", model: "A100-80GB", gpus: 0.05, hourly: "0.123", perGPU: "2.46"}.check(t, cfg, "vcg-a100-1c-6g-4vram")
				wantIntervals(t, cfg, vuH100, "sea", "sold_out*")
			}},
		steps: [2]alertStep{
			{change: func(t *testing.T) { vu.Set(t, vuH100, "hourly_cost", 20.00) },
				line: "vultr    ok       7 offers: 0 new, 1 changed, 6 unchanged", rule: priceDrop, check: vuPrice("20", "2.5")},
			{change: func(*testing.T) { vu.SetStock("sea", vuH100) },
				line: "vultr    ok       7 offers: 0 new, 0 changed, 7 unchanged", rule: backInStock},
		},
		afterFail: func(t *testing.T, cfg string) {
			vuPrice("20", "2.5")(t, cfg)
			wantIntervals(t, cfg, vuH100, "sea", "sold_out,in_stock*")
		},
	}}
}
