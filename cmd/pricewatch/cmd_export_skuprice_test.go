package main

import (
	"strings"
	"testing"

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
	wantValidSheet(t, recs, focustest.ValidateSKUPrice(recs))
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
