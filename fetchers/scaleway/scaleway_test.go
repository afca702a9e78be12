package scaleway

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/scaleway/scalewaytest"
)

func fetch(t *testing.T, fake *scalewaytest.Server, zones ...string) (*pricewatch.Snapshot, error) {
	t.Helper()
	if len(zones) == 0 {
		zones = []string{scalewaytest.Zone}
	}
	f, err := New(Config{Endpoint: fake.URL, Zones: zones}, fetcherstest.QuickClient(), zap.NewNop())
	return fetcherstest.Fetch(t, f, err)
}

// describe is one line per record, for exact comparison: offers with
// their currency, stock with its detail and hardware.
func describe(s *pricewatch.Snapshot) []string {
	return fetcherstest.Describe(s, func(o pricewatch.Offer) string {
		return fmt.Sprintf("offer %s %s %s %s %s %s x%v %vGB %dvCPU %vGB", o.Region, o.InstanceType, o.PriceType, o.Currency,
			o.Hourly, o.GPUModel, o.GPUCount, o.GPUMemoryGB, o.VCPUs, o.MemoryGB)
	}, func(a pricewatch.Availability) string {
		return fmt.Sprintf("stock %s %s %s (%s) %s x%v", a.Region, a.InstanceType, a.State, a.StockDetail, a.GPUModel, a.GPUCount)
	})
}

// TestReplayCaptures replays the real fr-par-2 pages (testdata/README.md):
// every GPU type of both catalogue pages at its exact euro price, the CPU
// types left out, and the stock of each from both availability pages.
func TestReplayCaptures(t *testing.T) {
	fake := scalewaytest.New(t)
	snap, err := fetch(t, fake)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"offer fr-par-2 B300-SXM-2-288G on_demand EUR 18.96 B300 x2 288GB 56vCPU 960GB",
		"offer fr-par-2 H100-1-80G on_demand EUR 2.8665 H100-PCIe x1 80GB 24vCPU 240GB",
		"offer fr-par-2 H100-SXM-2-80G on_demand EUR 6.6198 H100 x2 80GB 32vCPU 240GB",
		"offer fr-par-2 H100-SXM-8-80G on_demand EUR 25.3308 H100 x8 80GB 128vCPU 960GB",
		"offer fr-par-2 L4-1-24G on_demand EUR 0.7875 L4 x1 24GB 8vCPU 48GB",
		"offer fr-par-2 RENDER-S on_demand EUR 1.221 P100 x1 16GB 10vCPU 42GB",
		"stock fr-par-2 B300-SXM-2-288G sold_out (shortage) B300 x2",
		"stock fr-par-2 H100-1-80G in_stock (available) H100-PCIe x1",
		"stock fr-par-2 H100-SXM-2-80G in_stock (available) H100 x2",
		"stock fr-par-2 H100-SXM-8-80G in_stock (available) H100 x8",
		"stock fr-par-2 L4-1-24G in_stock (available) L4 x1",
		"stock fr-par-2 RENDER-S in_stock (available) P100 x1",
	}
	if got := describe(snap); !slices.Equal(got, want) {
		t.Errorf("records:\n%s\nwant:\n%s", join(got), join(want))
	}
	if want := []pricewatch.Scope{{Region: "fr-par-2", PriceTypes: []pricewatch.PriceType{pricewatch.OnDemand}, Availability: true}}; fmt.Sprint(snap.Coverage) != fmt.Sprint(want) {
		t.Errorf("coverage %+v, want %+v", snap.Coverage, want)
	}
	// Two pages and the empty third of each listing.
	if got := fake.Requests(); got != 6 {
		t.Errorf("%d requests, want 6 (3 pages of each listing)", got)
	}
	if got := fake.Authorizations(); slices.ContainsFunc(got, func(a string) bool { return a != "" }) {
		t.Errorf("Authorization sent to a keyless API: %q", got)
	}
}

func join(lines []string) string { return "  " + strings.Join(lines, "\n  ") }

// TestStockEdges: scarce is still in stock; a type the map omits, or
// states in a word not known, is unknown (no record) and the zone's stock
// not claimed complete, so nothing stored is closed.
func TestStockEdges(t *testing.T) {
	for _, tc := range []struct {
		name     string
		edit     func(t *testing.T, f *scalewaytest.Server)
		record   string // the L4-1-24G stock line, "" for none
		complete bool
	}{
		{"scarce", func(t *testing.T, f *scalewaytest.Server) {
			f.Set(t, scalewaytest.Availability, "L4-1-24G", "availability", "scarce")
		}, "stock fr-par-2 L4-1-24G in_stock (scarce) L4 x1", true},
		{"omitted", func(t *testing.T, f *scalewaytest.Server) {
			f.Replace(t, scalewaytest.Availability, `"L4-1-24G"`, `"L4-1-24G-GONE"`)
		}, "", false},
		{"unknown word", func(t *testing.T, f *scalewaytest.Server) {
			f.Set(t, scalewaytest.Availability, "L4-1-24G", "availability", "maintenance")
		}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := scalewaytest.New(t)
			tc.edit(t, fake)
			snap, err := fetch(t, fake)
			if err != nil {
				t.Fatal(err)
			}
			got := describe(snap)
			var line string
			for _, l := range got {
				if f := strings.Fields(l); f[0] == "stock" && f[2] == "L4-1-24G" {
					line = l
				}
			}
			if line != tc.record {
				t.Errorf("L4-1-24G stock %q, want %q", line, tc.record)
			}
			if !slices.Contains(got, "offer fr-par-2 L4-1-24G on_demand EUR 0.7875 L4 x1 24GB 8vCPU 48GB") {
				t.Errorf("the L4 price was lost with its stock:\n%s", join(got))
			}
			if snap.Coverage[0].Availability != tc.complete {
				t.Errorf("stock claimed complete: %v, want %v", snap.Coverage[0].Availability, tc.complete)
			}
		})
	}
}

// TestLeftOut: a MIG slice (a share of a card of unstated size) and a type
// at end of service are not stored; neither fails the run.
func TestLeftOut(t *testing.T) {
	fake := scalewaytest.New(t)
	fake.Set(t, scalewaytest.Servers, "H100-1-80G", "mig_profile", "1g.10gb")
	fake.Set(t, scalewaytest.Servers, "RENDER-S", "end_of_service", true)
	snap, err := fetch(t, fake)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range snap.Offers {
		if o.InstanceType == "H100-1-80G" || o.InstanceType == "RENDER-S" {
			t.Errorf("%s stored", o.InstanceType)
		}
	}
	if len(snap.Offers) != 4 {
		t.Errorf("%d offers, want the 4 others", len(snap.Offers))
	}
}

// TestZoneFails: a zone the API does not know (404) is left out of the
// coverage and the others stored; a cut page fails the whole run: a part
// never closes the rest.
func TestZoneFails(t *testing.T) {
	fake := scalewaytest.New(t)
	snap, err := fetch(t, fake, "nl-ams-9", scalewaytest.Zone)
	if err != nil {
		t.Fatalf("unknown zone: %v", err)
	}
	if len(snap.Coverage) != 1 || snap.Coverage[0].Region != scalewaytest.Zone || len(snap.Offers) != 6 {
		t.Errorf("coverage %+v, %d offers: want fr-par-2's 6 alone", snap.Coverage, len(snap.Offers))
	}
	if _, err := fetch(t, fake, "nl-ams-9"); !errors.Is(err, fetchers.ErrIncomplete) {
		t.Errorf("only an unknown zone: %v, want ErrIncomplete (not one priced GPU type)", err)
	}
	fake = scalewaytest.New(t)
	fake.FailNext(fetcherstest.Truncated)
	if _, err := fetch(t, fake); !errors.Is(err, fetchers.ErrIncomplete) {
		t.Errorf("cut page: %v, want ErrIncomplete", err)
	}
}
