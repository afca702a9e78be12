package coreweave

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/coreweave/coreweavetest"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/sheet"
	"github.com/pricewatch/pricewatch/section"
)

const token = "cw-test-token"

func newFetcher(t *testing.T, fake *coreweavetest.Server, tok string) *Fetcher {
	t.Helper()
	f, err := New(Config{Endpoint: fake.URL, Token: section.NewSecret(tok), PriceSheets: []string{fake.SheetURL()}}, fetcherstest.QuickClient(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func avail(snap *pricewatch.Snapshot) map[string]pricewatch.AvailabilityState {
	out := map[string]pricewatch.AvailabilityState{}
	for _, a := range snap.Availability {
		out[a.InstanceType+"@"+a.Region] = a.State
	}
	return out
}

func TestPricesAndCapacity(t *testing.T) {
	fake := coreweavetest.New(t, token)
	f := newFetcher(t, fake, token)
	snap, err := f.Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Offers) != 7 || !snap.Coverage[0].Availability {
		t.Fatalf("%d offers, coverage %+v; want the sheet's 7 and availability covered", len(snap.Offers), snap.Coverage)
	}
	// Superchip types are not asked (Capacity Finder leaves them out).
	if got := fake.Asked(); len(got) != 1 || !slices.Equal(got[0], []string{"b200-8x", "b300-8x", "h200-8x"}) {
		t.Errorf("asked %v, want b200-8x b300-8x h200-8x", got)
	}
	want := map[string]pricewatch.AvailabilityState{
		"b200-8x@US-EAST-04A": pricewatch.InStock, "b200-8x@US-WEST-04A": pricewatch.InStock, "b200-8x@global": pricewatch.InStock,
		"h200-8x@US-EAST-04A": pricewatch.InStock, "h200-8x@global": pricewatch.InStock, "b300-8x@global": pricewatch.SoldOut,
	}
	if got := avail(snap); !mapsEqual(got, want) {
		t.Errorf("availability %v, want %v", got, want)
	}

	// US-WEST-04A no longer ranked: sold out there, not withdrawn.
	fake.SetZones("b200-8x", "US-EAST-04A")
	snap2, err := f.Fetch(context.Background(), fetchers.Previous{State: snap.State})
	if err != nil {
		t.Fatal(err)
	}
	if got := avail(snap2)["b200-8x@US-WEST-04A"]; got != pricewatch.SoldOut {
		t.Errorf("b200-8x@US-WEST-04A %q after it left the ranking, want sold_out", got)
	}
}

func TestWithoutTokenOnlyPrices(t *testing.T) {
	fake := coreweavetest.New(t, token)
	snap, err := newFetcher(t, fake, "").Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Availability) != 0 || snap.Coverage[0].Availability || len(fake.Asked()) != 0 {
		t.Errorf("without a token: %d availability records, coverage %+v, asked %v; want prices only", len(snap.Availability), snap.Coverage, fake.Asked())
	}
}

func TestNoSheetIsSkipped(t *testing.T) {
	_, err := Provider.New(&Section{Keys: sheet.Keys{Enabled: true}}, fetchers.Env{Client: fetcherstest.QuickClient()})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := Provider.New(&Section{Keys: sheet.Keys{Enabled: true}}, fetchers.Env{Client: fetcherstest.QuickClient()})
	if _, err := f.Fetch(context.Background(), fetchers.Previous{}); !errors.Is(err, fetchers.ErrNoCredentials) {
		t.Errorf("no price sheet: %v, want a skip (ErrNoCredentials)", err)
	}
}

// A Capacity Finder answer that leaves a type out closes nothing: the
// run covers no availability, and states what it read.
func TestPartialAnswerClosesNothing(t *testing.T) {
	fake := coreweavetest.New(t, token)
	fake.Omit("b300-8x")
	snap, err := newFetcher(t, fake, token).Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	got := avail(snap)
	if snap.Coverage[0].Availability || got["b200-8x@US-EAST-04A"] != pricewatch.InStock || got["b300-8x@global"] != "" {
		t.Errorf("coverage %+v, availability %v; want b200-8x stated, b300-8x not, and nothing covered", snap.Coverage, got)
	}
	if len(snap.Offers) != 7 {
		t.Errorf("%d offers, want the sheet's 7", len(snap.Offers))
	}
}

func mapsEqual[K comparable, V comparable](a, b map[K]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
