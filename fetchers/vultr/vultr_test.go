package vultr

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/vultr/vultrtest"
)

const testKey = "VULTRTESTKEY"

func fetch(t *testing.T, fake *vultrtest.Server, key string) (*pricewatch.Snapshot, error) {
	t.Helper()
	return fetcherstest.FetchKeyed(t, New, fake.URL, key, nil)
}

// describe writes each offer without its local storage.
func describe(s *pricewatch.Snapshot) []string {
	return fetcherstest.Describe(s, func(o pricewatch.Offer) string {
		return strings.TrimSuffix(fetcherstest.OfferLine(o), " ["+o.LocalStorage+"]")
	}, fetcherstest.StockLine)
}

var wantOffers = []string{
	"offer sea vbm-112c-2048gb-8-h100-gpu on_demand 23.92 H100 x8 80GB 224vCPU 2048GB",
	"offer sea vbm-112c-2048gb-8-h100-gpu spot 18.4 H100 x8 80GB 224vCPU 2048GB",
	"offer ord vbm-256c-2048gb-8-mi300x-gpu on_demand 17.52 MI300X x8 192GB 256vCPU 2267.50390625GB",
	"offer ord vbm-256c-2048gb-8-mi300x-gpu spot 14.72 MI300X x8 192GB 256vCPU 2267.50390625GB",
	// A share of one A100 80 GB: 4/80 and 40/80 of a card, never a whole one.
	"offer ewr vcg-a100-12c-120g-80vram on_demand 2.397 A100-80GB x1 80GB 12vCPU 120GB",
	"offer ewr vcg-a100-1c-6g-4vram on_demand 0.123 A100-80GB x0.05 4GB 1vCPU 6GB",
	"offer ewr vcg-a100-6c-60g-40vram on_demand 1.397 A100-80GB x0.5 40GB 12vCPU 60GB",
}

// TestReplayFixtures replays both gpuhunt fixtures (testdata/README.md),
// paged two rows at a time: without a key each plan's locations are
// "offered"; with one, each region's available_plans decide in or out of
// stock.
func TestReplayFixtures(t *testing.T) {
	for _, tc := range []struct {
		key   string
		stock []string
	}{
		{"", []string{"offered", "offered", "offered", "offered", "offered"}},
		{testKey, []string{"in_stock", "in_stock", "in_stock", "in_stock", "sold_out"}},
	} {
		t.Run("key "+fmt.Sprint(tc.key != ""), func(t *testing.T) {
			fake := vultrtest.New(t, testKey)
			snap, err := fetch(t, fake, tc.key)
			if err != nil {
				t.Fatal(err)
			}
			want := slices.Clone(wantOffers)
			for i, p := range []string{"sea vbm-112c-2048gb-8-h100-gpu", "ord vbm-256c-2048gb-8-mi300x-gpu", "ewr vcg-a100-12c-120g-80vram",
				"ewr vcg-a100-1c-6g-4vram", "ewr vcg-a100-6c-60g-40vram"} {
				want = append(want, "stock "+p+" "+tc.stock[i])
			}
			if got := describe(snap); !slices.Equal(got, want) {
				t.Errorf("records:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
			if !snap.Coverage[0].Availability || snap.Coverage[0].Region != pricewatch.AllRegions {
				t.Errorf("coverage %+v", snap.Coverage)
			}
			auth := fake.Authorizations()
			for _, a := range auth[:3] { // two pages of plans, one of metal plans
				if a != "" {
					t.Errorf("the key was sent to a plan list: %q", auth)
				}
			}
		})
	}
}

// TestPlanEdges: a location's own price, a card not in the table, a share
// that is no share, the free plan and CPU plans.
func TestPlanEdges(t *testing.T) {
	fake := vultrtest.New(t, testKey)
	fake.Set(t, "vcg-a100-12c-120g-80vram", "location_cost", map[string]any{"ewr": map[string]any{"hourly_cost": 2.5}})
	rows := fake.Rows(t, vultrtest.Plans)
	rows = append(rows,
		map[string]any{"id": "vcg-b200-1c-1g-180vram", "type": "vcg", "vcpu_count": 30, "ram": 184320, "hourly_cost": 4.99,
			"locations": []string{"ewr"}, "gpu_vram_gb": 180, "gpu_type": "NVIDIA_B200"},
		map[string]any{"id": "vcg-a100-odd-120vram", "type": "vcg", "vcpu_count": 12, "ram": 1, "hourly_cost": 3,
			"locations": []string{"ewr"}, "gpu_vram_gb": 120, "gpu_type": "NVIDIA_A100"},
		map[string]any{"id": "vc2-1c-0.5gb-free", "type": "vc2", "vcpu_count": 1, "ram": 512, "hourly_cost": 0, "locations": []string{"ewr"}},
		map[string]any{"id": "vcg-free", "type": "vcg", "vcpu_count": 1, "ram": 512, "hourly_cost": 0, "locations": []string{"ewr"},
			"gpu_vram_gb": 80, "gpu_type": "NVIDIA_A100"},
	)
	fake.SetRows(vultrtest.Plans, rows)
	snap, err := fetch(t, fake, "")
	if err != nil {
		t.Fatal(err)
	}
	got := describe(snap)
	for _, w := range []string{
		"offer ewr vcg-a100-12c-120g-80vram on_demand 2.5 A100-80GB x1 80GB 12vCPU 120GB",
		// A card the table does not know: stored, its count unknown.
		"offer ewr vcg-b200-1c-1g-180vram on_demand 4.99 B200 x0 0GB 30vCPU 180GB",
	} {
		if !slices.Contains(got, w) {
			t.Errorf("missing %q in\n  %s", w, strings.Join(got, "\n  "))
		}
	}
	for _, l := range got {
		if strings.Contains(l, "odd-120vram") || strings.Contains(l, "free") {
			t.Errorf("stored %s", l)
		}
	}
}

// TestRegionUnanswered: a region whose availability fails leaves its
// plans' stock unknown and no stock claimed complete; a refused key and a
// short list (meta.total) fail the run.
func TestRegionUnanswered(t *testing.T) {
	fake := vultrtest.New(t, testKey)
	fake.SetStock("ewr")
	snap, err := fetch(t, fake, testKey)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Coverage[0].Availability {
		t.Error("stock claimed complete without ewr")
	}
	for _, a := range snap.Availability {
		if a.Region == "ewr" {
			t.Errorf("ewr stock recorded: %+v", a)
		}
	}
	if len(snap.Offers) != len(wantOffers) {
		t.Errorf("%d offers, want %d", len(snap.Offers), len(wantOffers))
	}

	if _, err := fetch(t, vultrtest.New(t, testKey), "wrong"); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("refused key: %v", err)
	}
}
