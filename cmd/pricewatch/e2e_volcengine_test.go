package main

import (
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers/volcengine"
	"github.com/pricewatch/pricewatch/fetchers/volcengine/volcenginetest"
)

// Issue 33 item 2: Volcengine end to end through the CLI, over the fake
// OpenAPI (signatures checked; made-up values in the SDK's field names,
// fetchers/volcengine/volcenginetest/README.md) and its price sheet. The
// baseline stores 2 offers and the 8 × H20 type sold out in
// cn-beijing-a; the sheet's H20 price drops from 11.48 to 9.50 CNY per
// GPU-hour: one alert; then the zone has it again: one alert. A cut
// answer fails the run and closes nothing; the keys are never printed.
func TestVolcengineEndToEnd(t *testing.T) {
	const ak, sk = "AKLTe2eVolcengineAccessKey0001", "ZTJlVm9sY2VuZ2luZVNlY3JldE11c3ROZXZlckJlUHJpbnRlZA=="
	h20 := volcenginetest.H20x8
	t.Setenv(volcengine.EnvAccessKey, ak)
	t.Setenv(volcengine.EnvSecretKey, sk)
	fake := volcenginetest.New(t, ak, sk)
	cloudE2E{
		cloud: cloud{name: "volcengine", endpoint: fake.URL, keys: "    regions: [cn-beijing]\n    price_sheets: [" + fake.SheetURL() + "]\n"},
		rules: "  rules:\n" +
			"    - {name: h20-capacity, events: [availability_new, back_in_stock], gpu_models: [H20]}\n" +
			"    - {name: h20-prices, events: [price_drop], gpu_models: [H20]}\n",
		typ: h20,
		baseline: alertStep{line: "2 offers: 2 new", check: func(t *testing.T, cfg string) {
			wantVolcengine(t, cfg, h20, "91.84", "11.48")
			wantVolcengine(t, cfg, volcenginetest.GNI2, "9.61", "9.61")
			wantIntervals(t, cfg, h20, "cn-beijing", "sold_out*")
		}},
		steps: []alertStep{{
			change: func(*testing.T) {
				fake.SetSheet(strings.Replace(volcenginetest.Sheet(), "price: 11.48", "price: 9.50", 1))
			},
			line: "2 offers: 0 new, 1 changed, 1 unchanged", rule: "/h20-prices/price_drop",
			check: func(t *testing.T, cfg string) { wantVolcengine(t, cfg, h20, "76", "9.5") },
		}, {
			change: func(*testing.T) { fake.SetStock("cn-beijing", "cn-beijing-a", h20, "Available") },
			line:   "2 offers: 0 new, 0 changed, 2 unchanged", rule: "/h20-capacity/back_in_stock",
			check: func(t *testing.T, cfg string) {
				wantVolcengine(t, cfg, h20, "76", "9.5")
				wantIntervals(t, cfg, h20, "cn-beijing", "sold_out,in_stock*")
			},
		}},
		fail:    func() { fake.FailNext("truncated") },
		secrets: []string{ak, sk},
	}.run(t)
}

// wantVolcengine wants typ's open on_demand price in CNY in cn-beijing.
func wantVolcengine(t *testing.T, cfg, typ, hourly, perGPU string) {
	t.Helper()
	storedPrice{provider: "volcengine", region: "cn-beijing", currency: "CNY", hourly: hourly, perGPU: perGPU}.check(t, cfg, typ)
}
