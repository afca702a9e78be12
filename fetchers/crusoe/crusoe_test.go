package crusoe

import (
	"net/url"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers/crusoe/crusoetest"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/section"
)

var clock = func() time.Time { return time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC) }

func fetch(t *testing.T, fake *crusoetest.Server, sheets ...string) *pricewatch.Snapshot {
	t.Helper()
	f, err := New(Config{Endpoint: fake.Endpoint(), AccessKeyID: conformanceID, SecretKey: section.NewSecret(conformanceKey), PriceSheets: sheets},
		fetcherstest.QuickClient(), nil, clock)
	return fetcherstest.Fetched(t, f, err)
}

func TestCapacitiesAndSheet(t *testing.T) {
	fake := crusoetest.New(t, conformanceID, conformanceKey)
	snap := fetch(t, fake, fake.SheetURL())
	type av struct {
		state  pricewatch.AvailabilityState
		detail string
		model  string
		count  float64
	}
	got := map[string]av{}
	for _, a := range snap.Availability {
		got[a.InstanceType+"@"+a.Region] = av{a.State, a.StockDetail, a.GPUModel, a.GPUCount}
	}
	want := map[string]av{
		"h100-80gb-sxm-ib.8x@us-east1-a":         {pricewatch.InStock, "quantity 12", "H100", 8},
		"h100-80gb-sxm-ib.8x@us-southcentral1-a": {pricewatch.SoldOut, "quantity 0", "H100", 8},
		"h200-141gb-sxm-ib.8x@us-east1-a":        {pricewatch.InStock, "quantity 3", "H200", 8},
		"l40s-48gb.1x@us-east1-a":                {pricewatch.InStock, "quantity 40", "L40S", 1},
		"mi300x-192gb.8x@us-east1-a":             {pricewatch.SoldOut, "quantity 0", "MI300X", 8},
		// Not on the sheet: its GPU read from the type's name.
		"a100-80gb-sxm-ib.8x@eu-iceland1-a": {pricewatch.InStock, "quantity 5", "A100-80GB", 8},
	}
	if len(got) != len(want) {
		t.Errorf("%d availability records (%v), want %d (the CPU type left out)", len(got), got, len(want))
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %+v, want %+v", k, got[k], w)
		}
	}
	if len(snap.Offers) != 4 || !snap.Coverage[0].Availability {
		t.Errorf("%d offers, coverage %+v", len(snap.Offers), snap.Coverage)
	}
}

func TestOddItemClosesNothing(t *testing.T) {
	fake := crusoetest.New(t, conformanceID, conformanceKey)
	fake.SetBody([]byte(`{"items":[{"type":"h100-80gb-sxm-ib.8x","location":"us-east1-a","quantity":12},{"type":"l40s-48gb.1x","location":"us-east1-a"},` +
		`{"type":"h100-80gb-sxm-ib.8x","location":"us-east1-a","quantity":9}]}`))
	snap := fetch(t, fake)
	if len(snap.Availability) != 1 || snap.Availability[0].StockDetail != "quantity 12" || snap.Coverage[0].Availability {
		t.Errorf("%+v coverage %+v: want the largest quantity of the repeated item, the odd item out, nothing covered", snap.Availability, snap.Coverage)
	}
}

// The signature of the recipe's example shape: path with version, sorted
// query, method, timestamp, each line ended.
func TestSignCoversQueryAndTime(t *testing.T) {
	secret := []byte("k")
	a := Sign("id", secret, "GET", "/v1alpha5/capacities", url.Values{"location": {"b"}, "product_name": {"a"}}, "2026-12-05T10:00:00Z")
	b := Sign("id", secret, "GET", "/v1alpha5/capacities", url.Values{"product_name": {"a"}, "location": {"b"}}, "2026-12-05T10:00:00Z")
	c := Sign("id", secret, "GET", "/v1alpha5/capacities", nil, "2026-12-05T10:00:01Z")
	if a != b || a == c || a[:14] != "Bearer 1.0:id:" {
		t.Errorf("%s %s %s", a, b, c)
	}
}
