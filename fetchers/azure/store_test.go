package azure

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/storage/dbtest"
)

// TestStoredExactly runs the fetcher into a real database and reads the
// prices back: what is stored must be the exact decimal Azure published
// (and, for reservations, the exact term total spread over its hours). A
// second run in which one region comes back empty must fail and store
// nothing.
func TestStoredExactly(t *testing.T) {
	ctx := context.Background()
	db := dbtest.Open(t)

	fake := newFake(t)
	f, _ := newTestFetcher(t, Config{Endpoint: fake.srv.URL, Regions: []string{"eastus", "westeurope"}, Windows: true}, nil)
	run := func() (*pricewatch.Snapshot, error) {
		versions, err := db.Versions(ctx, pricewatch.Azure)
		if err != nil {
			t.Fatal(err)
		}
		snap, err := f.Fetch(ctx, fetchers.Previous{Versions: versions})
		if err != nil {
			return nil, err
		}
		_, err = dbtest.Store(t, db, snap, storage.SaveOptions{MinOfferRatio: 0.5})
		return snap, err
	}
	snap, err := run()
	if err != nil {
		t.Fatal(err)
	}

	stored, err := db.Prices(ctx, storage.PriceFilter{Providers: []string{pricewatch.Azure}, CurrentOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != len(snap.Offers) {
		t.Fatalf("stored %d prices, fetched %d offers", len(stored), len(snap.Offers))
	}
	got := map[string]string{}
	for _, p := range stored {
		got[p.Key().String()] = p.Hourly.String() + " " + p.Upfront.String() + " " + p.EffectiveHourly.String()
	}
	want := map[string]string{
		"azure/eastus//Standard_ND96isr_H100_v5/on_demand////linux":                "98.32 0 98.32",
		"azure/eastus//Standard_ND96isr_H100_v5/spot////linux":                     "18.169536 0 18.169536",
		"azure/eastus//Standard_ND96isr_H100_v5/reserved/1y/all_upfront//linux":    "0 574203 65.5482876712",
		"azure/eastus//Standard_ND96isr_H100_v5/reserved/3y/all_upfront//linux":    "0 1121960 42.6925418569",
		"azure/eastus//Standard_ND96isr_H100_v5/savings_plan/1y/no_upfront//linux": "69.3156 0 69.3156",
		"azure/eastus//Standard_ND96isr_H100_v5/savings_plan/3y/no_upfront//linux": "44.244 0 44.244",
		"azure/eastus//Standard_ND96isr_H100_v5/on_demand////windows":              "102.736 0 102.736",
		"azure/eastus//Standard_NV6ads_A10_v5/savings_plan/3y/no_upfront//linux":   "0.25906 0 0.25906",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s stored as %q, want %q", k, got[k], v)
		}
	}

	// Second run: westeurope answers with an empty (well-formed) page.
	fake.intercept = func(w http.ResponseWriter, r *http.Request, n int) bool {
		if strings.Contains(r.URL.Query().Get("$filter"), "'westeurope'") {
			w.Write([]byte(`{"BillingCurrency":"USD","CustomerEntityId":"Default","CustomerEntityType":"Retail","Items":[],"NextPageLink":null,"Count":0}`))
			return true
		}
		return false
	}
	if _, err := run(); !errors.Is(err, storage.ErrSuspiciousDrop) || !strings.Contains(err.Error(), "westeurope") {
		t.Fatalf("second run: %v, want storage.ErrSuspiciousDrop naming westeurope", err)
	}
	after, err := db.Prices(ctx, storage.PriceFilter{Providers: []string{pricewatch.Azure}, Regions: []string{"westeurope"}, CurrentOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != 6 {
		t.Errorf("%d westeurope prices current after the failed run, want all 6 kept", len(after))
	}
}
