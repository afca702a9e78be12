package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch/fetchers/coreweave"
	"github.com/pricewatch/pricewatch/fetchers/coreweave/coreweavetest"
	"github.com/pricewatch/pricewatch/fetchers/crusoe"
	"github.com/pricewatch/pricewatch/fetchers/crusoe/crusoetest"
)

const (
	e2eCoreWeaveToken = "cw-e2e-token-NeverPrinted"
	e2eCrusoeID       = "AKID-e2e"
	e2eCrusoeSecret   = "ZTJlLWNydXNvZS1zZWNyZXQtbmV2ZXItcHJpbnRlZA" // base64url
)

// sheetFile writes a price sheet into a temp dir and returns its path.
func sheetFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Issue 33 items 1 and 3: CoreWeave's prices from a price sheet file; an
// edit of the sheet (one price changed) is one price change: one alert,
// one new interval, nothing else touched. Capacity Finder, with the
// token, shows in availability marked confidential and never in export.
func TestPriceSheetEditEndToEnd(t *testing.T) {
	t.Setenv(coreweave.EnvAPIToken, e2eCoreWeaveToken)
	fake := coreweavetest.New(t, e2eCoreWeaveToken)
	sheet := sheetFile(t, "coreweave.csv", coreweavetest.Sample())
	// The sheet edited: HGX B200 on-demand 68.80 → 61.92 (−10%).
	edited := strings.Replace(coreweavetest.Sample(), "north-america,68.80,", "north-america,61.92,", 1)
	writeSheet := func(t *testing.T, body string) {
		if err := os.WriteFile(sheet, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cloudE2E{
		cloud:    cloud{name: "coreweave", endpoint: fake.URL, keys: "    price_sheets: [" + sheet + "]\n"},
		typ:      "b200-8x",
		baseline: alertStep{line: "coreweave ok       7 offers: 7 new"},
		steps: []alertStep{{
			change: func(t *testing.T) { writeSheet(t, edited) },
			line:   "coreweave ok       7 offers: 0 new, 1 changed, 6 unchanged", rule: priceDrop,
			check: func(t *testing.T, cfg string) {
				wantSheetEdit(t, cfg)
				wantConfidential(t, cfg)
			},
		}},
		// A sheet cut inside its last line fails the run and closes nothing.
		fail: func() { writeSheet(t, edited[:len(edited)-20]) },
		afterFail: func(t *testing.T, cfg string) {
			if r, ok := currentPrice(t, cfg, "b200-8x", "north-america", "on_demand"); !ok || decimal.Decimal(r.HourlyPrice).String() != "61.92" {
				t.Errorf("after the cut sheet b200-8x is %+v (open %v), want 61.92 still", r, ok)
			}
		},
		secrets: []string{e2eCoreWeaveToken},
	}.run(t)
}

// wantSheetEdit wants the edit of the sheet to be one new interval of
// b200-8x in north-america, the old one closed.
func wantSheetEdit(t *testing.T, cfg string) {
	t.Helper()
	var na []historyJSON
	for _, r := range history(t, cfg, "b200-8x") {
		if r.Region == "north-america" && r.PriceType == "on_demand" {
			na = append(na, r)
		}
	}
	if len(na) != 2 {
		t.Fatalf("b200-8x north-america on_demand has %d intervals, want 2: %+v", len(na), na)
	}
	open, closed := na[0], na[1]
	if open.ValidTo != nil {
		open, closed = closed, open
	}
	if open.ValidTo != nil || closed.ValidTo == nil || decimal.Decimal(open.HourlyPrice).String() != "61.92" ||
		decimal.Decimal(closed.HourlyPrice).String() != "68.8" {
		t.Errorf("intervals %+v, want 68.80 closed and 61.92 open", na)
	}
}

// wantConfidential wants Capacity Finder's answer in availability, marked
// confidential, and never in export.
func wantConfidential(t *testing.T, cfg string) {
	t.Helper()
	rows := availability(t, cfg, "coreweave")
	ranked := false
	for _, r := range rows {
		if r.Region == "US-EAST-04A" && r.InstanceType == "b200-8x" && r.State == "in_stock" {
			ranked = true
		}
		if r.StockDetail == nil || !strings.Contains(*r.StockDetail, "confidential") {
			t.Errorf("availability row %+v not marked confidential", r)
		}
	}
	if !ranked {
		t.Errorf("Capacity Finder's b200-8x in US-EAST-04A not in availability: %+v", rows)
	}
	// An agent asking over MCP is told, beside the rows, that they are
	// confidential (issue 35).
	res, a := callTool(t, mcpSession(t, cfg), "availability", map[string]any{"provider": []string{"coreweave"}})
	if len(a.Confidential) != 1 || !strings.Contains(a.Confidential[0], "CoreWeave's confidential") ||
		!strings.Contains(toolText(res), "CONFIDENTIAL: CoreWeave Capacity Finder") {
		t.Errorf("MCP availability not marked confidential: %v\n%s", a.Confidential, clipText(toolText(res)))
	}
	// ... and never in export, whatever its format.
	for _, format := range []string{"focus-csv", "csv", "jsonl"} {
		out, errOut, code := runCLI(t, "--config", cfg, "export", "--format", format)
		if code != 0 || !strings.Contains(out, "b200-8x") {
			t.Fatalf("export --format %s exited %d without the sheet's prices: %s%s", format, code, out, errOut)
		}
		for _, leak := range []string{"US-EAST-04A", "US-WEST-04A", "Capacity Finder", "confidential", e2eCoreWeaveToken} {
			if strings.Contains(out, leak) {
				t.Errorf("export --format %s carries %q", format, leak)
			}
		}
	}
}

// Issue 33 item 1, Crusoe: two runs, a price change (its sheet at a URL)
// and an availability change (capacities), each one alert.
func TestCrusoeEndToEnd(t *testing.T) {
	const h100 = "h100-80gb-sxm-ib.8x"
	t.Setenv(crusoe.EnvAccessKeyID, e2eCrusoeID)
	t.Setenv(crusoe.EnvSecretKey, e2eCrusoeSecret)
	fake := crusoetest.New(t, e2eCrusoeID, e2eCrusoeSecret)
	cloudE2E{
		cloud:    cloud{name: "crusoe", endpoint: fake.Endpoint(), keys: "    price_sheets: [" + fake.SheetURL() + "]\n"},
		typ:      h100,
		baseline: alertStep{line: "crusoe   ok       4 offers: 4 new"},
		steps: []alertStep{{
			// H100 on-demand 3.90 → 3.50 per GPU-hour on the sheet.
			change: func(*testing.T) { fake.SetSheet(strings.Replace(crusoetest.Sheet(), "price: 3.90", "price: 3.50", 1)) },
			line:   "crusoe   ok       4 offers: 0 new, 1 changed, 3 unchanged", rule: priceDrop,
			check: func(t *testing.T, cfg string) {
				if r, ok := currentPrice(t, cfg, h100, "us-east1-a", "on_demand"); !ok || decimal.Decimal(r.HourlyPrice).String() != "28" {
					t.Errorf("h100 stored as %+v (open %v), want 8 × 3.50 = 28", r, ok)
				}
			},
		}, {
			// H100 back in stock in us-southcentral1-a.
			change: func(*testing.T) {
				fake.SetBody([]byte(strings.Replace(string(crusoetest.Sample()), `"us-southcentral1-a","quantity":0`, `"us-southcentral1-a","quantity":4`, 1)))
			},
			line: "crusoe   ok", rule: "back_in_stock",
		}},
	}.run(t)
}
