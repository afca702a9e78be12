package tencent

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers"
)

// TestSameOfferTwiceFailsTheRun: CVM gives no validity field to choose
// between two listings of one type in one zone and charge type, so two of
// them (here the second at a tenth of the price) fail the run instead of
// keeping either, least of all the lower.
func TestSameOfferTwiceFailsTheRun(t *testing.T) {
	b, err := os.ReadFile("testdata/run1/ap-shanghai/POSTPAID_BY_HOUR.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	set := doc["Response"]["InstanceTypeQuotaSet"].([]any)
	twin := map[string]any{}
	for k, v := range set[0].(map[string]any) {
		twin[k] = v
	}
	price := map[string]any{}
	for k, v := range twin["Price"].(map[string]any) {
		price[k] = v
	}
	price["UnitPriceDiscount"] = 14.851
	twin["Price"] = price
	doc["Response"]["InstanceTypeQuotaSet"] = append(set, twin)
	body, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	// The real-format scenario with that one listing changed.
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/run1")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ap-shanghai", "POSTPAID_BY_HOUR.json"), body, 0o644); err != nil {
		t.Fatal(err)
	}
	fake := newFake(t, dir)
	r := newRig(t, fake.URL(), nil)
	snap, err := r.f.Fetch(t.Context(), fetchers.Previous{})
	if !errors.Is(err, fetchers.ErrIncomplete) || snap != nil || !strings.Contains(err.Error(), "listed twice") {
		t.Fatalf("got snapshot %v, err %v; want no snapshot and ErrIncomplete", snap != nil, err)
	}
}
