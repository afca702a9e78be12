package main

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch/fetchers/azurecn/azurecntest"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
)

// a100CN is the sample sheet's Linux on-demand A100 row (skuId).
const a100CN = "DZH318Z0C1AB/0001"

// Issue 22 item 3: Azure China end to end through the CLI and the built-in
// default rules (no alerts.rules key). `pricewatch fetch` asks the fake
// download endpoint for the sheet's URL, streams the CSV from the fake
// storage host (another origin) and stores Standard_NC24ads_A100_v4 in
// chinanorth3 at 28.5431 CNY an hour (documented-shape sample, see
// fetchers/azurecn/azurecntest/testdata/README.md); the next run finds it
// at 25.1 (a 12% drop of an A100 on_demand price): one Slack message, from
// the price-drops rule. A run whose sheet is cut off then fails and
// changes nothing.
func TestAzureChinaEndToEnd(t *testing.T) {
	fake := azurecntest.New(t)
	cloudE2E{
		cloud: cloud{name: "azure-cn", endpoint: fake.URL()},
		typ:   "NC24ads_A100_v4",
		baseline: alertStep{line: "azure-cn ok       6 offers: 6 new",
			check: func(t *testing.T, cfg string) { wantA100CN(t, cfg, "28.5431") }},
		steps: []alertStep{{
			change: func(t *testing.T) { fake.SetPrice(t, a100CN, "25.1") },
			line:   "azure-cn ok       6 offers: 0 new, 1 changed, 5 unchanged", rule: priceDrop,
			check: func(t *testing.T, cfg string) { wantA100CN(t, cfg, "25.1") },
		}},
		fail: func() { fake.BlobFaults.FailNext(fetcherstest.Truncated) },
		// The download URL's signature.
		secrets: []string{"sig="},
	}.run(t)
}

// wantA100CN wants the A100's open Linux on_demand price in chinanorth3,
// in CNY (one GPU: the price per GPU-hour is the hourly).
func wantA100CN(t *testing.T, cfg, hourly string) {
	t.Helper()
	for _, r := range history(t, cfg, "Standard_NC24ads_A100_v4") {
		if r.ValidTo != nil || r.Region != "chinanorth3" || string(r.PriceType) != "on_demand" || r.OS != "linux" {
			continue
		}
		if r.Provider != "azure-cn" || r.Currency != "CNY" || r.GPUModel != "A100-80GB-PCIe" || decimal.Decimal(r.HourlyPrice).String() != hourly ||
			!r.PricePerGPUHour.Valid || r.PricePerGPUHour.D.String() != hourly {
			t.Errorf("A100 stored as %+v, want azure-cn A100-80GB-PCIe %s CNY", r, hourly)
		}
		return
	}
	t.Fatal("no current Linux on_demand price of Standard_NC24ads_A100_v4 in chinanorth3")
}
