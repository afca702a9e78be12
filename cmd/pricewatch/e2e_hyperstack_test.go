package main

import (
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
	t.Setenv(hyperstack.EnvAPIKey, key)
	fake := hyperstacktest.New(t, key)
	cloudE2E{
		cloud: cloud{name: "hyperstack", endpoint: fake.URL},
		typ:   h100,
		baseline: alertStep{line: "7 offers: 7 new",
			check: func(t *testing.T, cfg string) { wantIntervals(t, cfg, h100, "CANADA-2", "sold_out*") }},
		steps: []alertStep{{
			change: func(t *testing.T) {
				fake.Replace(t, hyperstacktest.Flavors, `"gpu_count": 8, "stock_available": false, "created_at": "2025-03-01T12:00:00"`,
					`"gpu_count": 8, "stock_available": true, "created_at": "2025-03-01T12:00:00"`)
			},
			line: "7 offers: 0 new, 0 changed, 7 unchanged", rule: "back_in_stock",
			check: func(t *testing.T, cfg string) { wantIntervals(t, cfg, h100, "CANADA-2", "sold_out,in_stock*") },
		}, {
			change: func(t *testing.T) { fake.Replace(t, hyperstacktest.Pricebook, `"value": "3.20"`, `"value": "2.40"`) },
			line:   "7 offers: 0 new, 1 changed, 6 unchanged", rule: "price_drop",
			check: func(t *testing.T, cfg string) {
				wantHyperstack(t, cfg, h100, "19.2")
				// Nothing closed.
				wantIntervals(t, cfg, h100, "CANADA-2", "sold_out,in_stock*")
			},
		}},
		fail:    func() { fake.FailNext("", "", hyperstacktest.Truncated) },
		secrets: []string{key},
	}.run(t)
}

func wantHyperstack(t *testing.T, cfg, typ, hourly string) {
	t.Helper()
	storedPrice{provider: "hyperstack", region: "CANADA-2", model: "H100", gpus: 8, hourly: hourly}.check(t, cfg, typ)
}
