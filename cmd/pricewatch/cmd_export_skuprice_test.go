package main

import (
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch/clouds"
	"github.com/pricewatch/pricewatch/focus"
	"github.com/pricewatch/pricewatch/focus/focustest"
)

// TestSKUPriceExportFollowsItsRules (issue 35 item 2): the SKU Price
// dataset of every registered provider's fake passes its validator
// (required columns non-null, dates ordered, per SkuPriceId intervals never
// overlapping), with rows of every provider.
func TestSKUPriceExportFollowsItsRules(t *testing.T) {
	cfg := everyProviderFocusConfig(t)
	recs := readFocus(t, rawCLI(t, "--config", cfg, "export", "--dataset", "sku-price"))
	if len(recs) < 20 {
		t.Fatalf("only %d records", len(recs))
	}
	if got := strings.Join(recs[0], ","); got != strings.Join(focus.SKUPriceHeader, ",") {
		t.Fatalf("header %s", got)
	}
	for i, err := range focustest.ValidateSKUPrice(recs) {
		if i == 40 {
			t.Error("… and more")
			break
		}
		t.Error(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	seen := map[string]bool{}
	for _, r := range recs[1:] {
		seen[r[col["ProviderName"]]] = true
	}
	for _, p := range providerNames {
		if name := focus.ProviderName(p, clouds.DisplayName); !seen[name] {
			t.Errorf("no row of %s (ProviderName %q)", p, name)
		}
	}
	// The window's flags and the dataset are checked before the store is
	// read: a usage error, exit 2.
	for _, args := range [][]string{
		{"export", "--since", "30d"},
		{"export", "--dataset", "sku-price", "--at", "2026-11-01T00:00:00Z"},
		{"export", "--dataset", "sku-price", "--format", "jsonl"},
		{"export", "--dataset", "sku-prices"},
	} {
		if _, errOut, code := runCLI(t, append([]string{"--config", cfg}, args...)...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errOut)
		}
	}
}
