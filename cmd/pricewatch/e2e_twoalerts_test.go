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

// at is the check that typ is stored at w with the hourly and per-GPU
// prices given.
func (w storedPrice) at(typ, hourly, perGPU string) func(*testing.T, string) {
	w.hourly, w.perGPU = hourly, perGPU
	return func(t *testing.T, cfg string) {
		t.Helper()
		w.check(t, cfg, typ)
	}
}

// wantIntervals wants typ's availability intervals in region.
func wantIntervals(t *testing.T, cfg, typ, region, want string) {
	t.Helper()
	if got := strings.Join(intervals(t, cfg, typ)[region], ","); got != want {
		t.Errorf("%s intervals in %s: %s, want %s", typ, region, got, want)
	}
}

// TestTwoAlertsEndToEnd plays four clouds' end-to-end runs through the
// CLI and the built-in default rules (issue 33 item 1): a baseline that
// alerts nothing, two fetches that each deliver one alert, then a cut
// answer that fails the run, closes nothing and sends nothing; the secret
// is never printed.
func TestTwoAlertsEndToEnd(t *testing.T) {
	for _, c := range []struct {
		name  string
		start func(t *testing.T) cloudE2E
	}{
		{"shadeform", shadeformE2E},
		{"verda", verdaE2E},
		{"digitalocean", digitaloceanE2E},
		{"vultr", vultrE2E},
	} {
		t.Run(c.name, func(t *testing.T) { c.start(t).run(t) })
	}
}

// shadeformE2E is over the real home-page capture
// (fetchers/shadeform/shadeformtest/testdata/README.md): Hyperstack's 8x
// H100 resold through Shadeform comes back in CANADA-2 (available false →
// true); its price then drops from 25.60 to 20.48 USD (20%).
func shadeformE2E(t *testing.T) cloudE2E {
	const key, h100 = "sf_e2e_MustNeverBePrinted", "hyperstack:H100_sxm5x8"
	t.Setenv(shadeform.EnvAPIKey, key)
	sf := shadeformtest.New(t, key)
	price := storedPrice{provider: "shadeform", region: "CANADA-2", model: "H100", gpus: 8, class: "hyperstack"}.at(h100, "20.48", "")
	return cloudE2E{
		cloud: cloud{name: "shadeform", endpoint: sf.URL}, typ: h100, secrets: []string{key},
		baseline: alertStep{line: "16 offers: 16 new"},
		steps: []alertStep{
			{change: func(t *testing.T) { sf.Change(t, "hyperstack", "H100_sxm5x8", 0, "CANADA-2", true) },
				line: "16 offers: 0 new, 0 changed, 16 unchanged", rule: "back_in_stock"},
			{change: func(t *testing.T) { sf.Change(t, "hyperstack", "H100_sxm5x8", 2048, "", false) },
				line: "16 offers: 0 new, 3 changed, 13 unchanged", rule: "price_drop", check: price},
		},
		fail: func() { sf.FailNext(fetcherstest.Truncated) },
	}
}

// verdaE2E is over the gpuhunt fixtures and the constructed on-demand
// availability (fetchers/verda/verdatest/testdata/README.md): the 1x H100
// becomes deployable on demand in ICE-01; its on-demand price then drops
// from 3.95 to 3.16 USD (20%).
func verdaE2E(t *testing.T) cloudE2E {
	const secret, h100 = "verda_e2e_MustNeverBePrinted", "1H100.80S.30V"
	t.Setenv(verda.EnvClientID, verdatest.ClientID)
	t.Setenv(verda.EnvClientSecret, secret)
	vd := verdatest.New(t, secret)
	return cloudE2E{
		cloud: cloud{name: "verda", endpoint: vd.URL}, typ: h100, secrets: []string{secret},
		baseline: alertStep{line: "18 offers: 18 new"},
		steps: []alertStep{
			{change: func(*testing.T) {
				vd.SetBody("/v1/instance-availability?is_spot=false", []byte(`[{"location_code": "FIN-01", "availabilities": ["1H100.80S.30V", "2A6000.20V"]},
		{"location_code": "ICE-01", "availabilities": ["1H100.80S.30V"]}]`))
			}, line: "18 offers: 0 new, 0 changed, 18 unchanged", rule: "back_in_stock"},
			{change: func(*testing.T) {
				vd.SetBody("/v1/instance-types", bytes.Replace(verdatest.Types(), []byte(`"price_per_hour": "3.95"`), []byte(`"price_per_hour": "3.16"`), 1))
			}, line: "18 offers: 0 new, 3 changed, 15 unchanged", rule: "price_drop",
				check: storedPrice{provider: "verda", region: "ICE-01", model: "H100", gpus: 1}.at(h100, "3.16", "")},
		},
		fail: func() { vd.FailNext(fetcherstest.Truncated) },
	}
}

// digitaloceanE2E is over the gpuhunt fixture
// (fetchers/digitalocean/digitaloceantest/testdata/README.md). The
// baseline has the 8x H100 Droplet not available (edited): sold out in
// nyc1, no price. It becomes available (its price is stored); it then
// drops from 23.92 to 20.00 USD (16%).
func digitaloceanE2E(t *testing.T) cloudE2E {
	const token, h100 = "dop_v1_e2e_MustNeverBePrinted", "gpu-h100x8-640gb"
	t.Setenv(digitalocean.EnvAPIKey, token)
	do := digitaloceantest.New(t, token)
	price := storedPrice{provider: "digitalocean", region: "nyc1", model: "H100", gpus: 8}
	return cloudE2E{
		cloud: cloud{name: "digitalocean", endpoint: do.URL}, typ: h100, secrets: []string{token},
		baseline: alertStep{change: func(t *testing.T) { do.Set(t, h100, "available", false) },
			line:  "digitalocean ok       1 offers: 1 new",
			check: func(t *testing.T, cfg string) { wantIntervals(t, cfg, h100, "nyc1", "sold_out*") }},
		steps: []alertStep{
			{change: func(t *testing.T) { do.Set(t, h100, "available", true) },
				line: "digitalocean ok       2 offers: 1 new, 0 changed, 1 unchanged", rule: backInStock, check: price.at(h100, "23.92", "2.99")},
			{change: func(t *testing.T) { do.Set(t, h100, "price_hourly", 20.00) },
				line: "digitalocean ok       2 offers: 0 new, 1 changed, 1 unchanged", rule: priceDrop,
				check: func(t *testing.T, cfg string) {
					price.at(h100, "20", "2.5")(t, cfg)
					wantIntervals(t, cfg, h100, "nyc1", "sold_out,in_stock*")
				}},
		},
		fail: func() { do.FailNext(fetcherstest.Truncated) },
	}
}

// vultrE2E is over the gpuhunt fixtures
// (fetchers/vultr/vultrtest/testdata/README.md) with a key, so region
// availability is read. The baseline stores 7 offers, the 8x H100 metal
// plan sold out in sea (edited), the fractional A100 slice as 0.05 GPU;
// the plan drops from 23.92 to 20.00 USD (16%); then sea lists it again.
func vultrE2E(t *testing.T) cloudE2E {
	const key, h100 = "VULTRE2EKEYMUSTNEVERBEPRINTED", "vbm-112c-2048gb-8-h100-gpu"
	t.Setenv(vultr.EnvAPIKey, key)
	vu := vultrtest.New(t, key)
	price := storedPrice{provider: "vultr", region: "sea", model: "H100", gpus: 8}
	return cloudE2E{
		cloud: cloud{name: "vultr", endpoint: vu.URL}, typ: h100, secrets: []string{key},
		baseline: alertStep{change: func(*testing.T) { vu.SetStock("sea", "vc2-1c-1gb") },
			line: "vultr    ok       7 offers: 7 new",
			check: func(t *testing.T, cfg string) {
				price.at(h100, "23.92", "2.99")(t, cfg)
				storedPrice{provider: "vultr", region: "ewr", model: "A100-80GB", gpus: 0.05, hourly: "0.123", perGPU: "2.46"}.check(t, cfg, "vcg-a100-1c-6g-4vram")
				wantIntervals(t, cfg, h100, "sea", "sold_out*")
			}},
		steps: []alertStep{
			{change: func(t *testing.T) { vu.Set(t, h100, "hourly_cost", 20.00) },
				line: "vultr    ok       7 offers: 0 new, 1 changed, 6 unchanged", rule: priceDrop, check: price.at(h100, "20", "2.5")},
			{change: func(*testing.T) { vu.SetStock("sea", h100) },
				line: "vultr    ok       7 offers: 0 new, 0 changed, 7 unchanged", rule: backInStock,
				check: func(t *testing.T, cfg string) {
					price.at(h100, "20", "2.5")(t, cfg)
					wantIntervals(t, cfg, h100, "sea", "sold_out,in_stock*")
				}},
		},
		fail: func() { vu.FailNext(fetcherstest.Truncated) },
	}
}
