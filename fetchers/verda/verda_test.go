package verda

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/verda/verdatest"
	"github.com/pricewatch/pricewatch/section"
)

const testSecret = "verda-test-secret"

func fetch(t *testing.T, fake *verdatest.Server, regions ...string) (*pricewatch.Snapshot, error) {
	t.Helper()
	f, err := New(Config{Endpoint: fake.URL, Regions: regions, ClientID: section.NewSecret(verdatest.ClientID),
		ClientSecret: section.NewSecret(testSecret)}, fetchers.NewClient(fetchers.DefaultRetryPolicy()), nil)
	return fetcherstest.Fetch(t, f, err)
}

// TestReplayFixtures replays the gpuhunt fixtures (the real-looking rows
// of the API's three lists) with the constructed on-demand availability:
// exact string prices, on-demand and spot, per location; CPU types left
// out; availability from the on-demand list, spot in the detail.
func TestReplayFixtures(t *testing.T) {
	snap, err := fetch(t, verdatest.New(t, testSecret))
	if err != nil {
		t.Fatal(err)
	}
	// 3 GPU types × 3 locations × (on-demand + spot).
	if len(snap.Offers) != 18 || len(snap.Availability) != 9 {
		t.Fatalf("%d offers, %d availability records; want 18, 9", len(snap.Offers), len(snap.Availability))
	}
	for _, w := range []struct {
		typ, region string
		pt          pricewatch.PriceType
		price, gpu  string
		gpus, mem   float64
	}{
		{"1H100.80S.30V", "FIN-01", pricewatch.OnDemand, "3.95", "H100", 1, 80},
		{"1H100.80S.30V", "ICE-01", pricewatch.Spot, "1.70", "H100", 1, 80},
		{"2A6000.20V", "FIN-02", pricewatch.OnDemand, "1.98", "", 2, 48},
		{"1V100.6V", "FIN-01", pricewatch.Spot, "0.25", "", 1, 0},
	} {
		found := false
		for _, o := range snap.Offers {
			if o.InstanceType != w.typ || o.Region != w.region || o.PriceType != w.pt {
				continue
			}
			found = true
			if !o.Hourly.Equal(decimal.RequireFromString(w.price)) || o.Currency != "USD" || o.GPUCount != w.gpus ||
				(w.gpu != "" && o.GPUModel != w.gpu) || (w.mem != 0 && o.GPUMemoryGB != w.mem) {
				t.Errorf("%s %s %s: %s %s %v×%s %v GB", w.typ, w.region, w.pt, o.Hourly, o.Currency, o.GPUCount, o.GPUModel, o.GPUMemoryGB)
			}
		}
		if !found {
			t.Errorf("no %s offer of %s in %s", w.pt, w.typ, w.region)
		}
	}
	for _, o := range snap.Offers {
		if strings.HasPrefix(o.InstanceType, "CPU.") {
			t.Errorf("CPU type stored: %s", o.InstanceType)
		}
	}
	states := map[string]string{}
	for _, a := range snap.Availability {
		states[a.InstanceType+" "+a.Region] = string(a.State) + " / " + a.StockDetail
	}
	for k, want := range map[string]string{
		"1H100.80S.30V FIN-01": "in_stock / on-demand available, spot not available",
		"2A6000.20V FIN-01":    "in_stock / on-demand available, spot available",
		"1V100.6V FIN-01":      "sold_out / on-demand not available, spot available",
		"1H100.80S.30V ICE-01": "sold_out / on-demand not available, spot not available",
	} {
		if states[k] != want {
			t.Errorf("%s: %q, want %q", k, states[k], want)
		}
	}
}

// TestRegions keeps only the configured locations, and covers only them.
func TestRegions(t *testing.T) {
	snap, err := fetch(t, verdatest.New(t, testSecret), "ICE-01")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range snap.Offers {
		if o.Region != "ICE-01" {
			t.Fatalf("offer in %s", o.Region)
		}
	}
	if len(snap.Coverage) != 1 || snap.Coverage[0].Region != "ICE-01" {
		t.Errorf("coverage %+v", snap.Coverage)
	}
	if _, err := fetch(t, verdatest.New(t, testSecret), "NOPE-01"); err == nil {
		t.Error("a region the API does not list read as complete")
	}
}

// TestCutLists: an empty or odd location or on-demand availability list
// fails the run (nothing closed); an empty spot list is believed.
func TestCutLists(t *testing.T) {
	for _, tc := range []struct {
		path, body string
		fails      bool
	}{
		{"/v1/locations", `[]`, true},
		{"/v1/locations", `[{"code": "FIN-01"}, {"code": "FIN-01"}]`, true},
		{"/v1/instance-availability?is_spot=false", `[]`, true},
		{"/v1/instance-availability?is_spot=false", `[{"location_code": "FIN-01"}]`, true},
		{"/v1/instance-availability?is_spot=true", `[]`, false},
	} {
		fake := verdatest.New(t, testSecret)
		fake.SetBody(tc.path, []byte(tc.body))
		_, err := fetch(t, fake)
		if (err != nil) != tc.fails {
			t.Errorf("%s %s: error %v, want failure %v", tc.path, tc.body, err, tc.fails)
		}
	}
}
