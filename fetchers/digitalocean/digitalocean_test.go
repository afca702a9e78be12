package digitalocean

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/digitalocean/digitaloceantest"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/gpu"
	"github.com/pricewatch/pricewatch/section"
)

const token = "dop_v1_test"

func fetch(t *testing.T, fake *digitaloceantest.Server) (*pricewatch.Snapshot, error) {
	t.Helper()
	return fetcherstest.FetchKeyed(t, New, fake.URL, token, nil)
}

func describe(s *pricewatch.Snapshot) []string {
	return fetcherstest.Describe(s, fetcherstest.OfferLine, fetcherstest.StockLine)
}

// TestReplayFixture replays the gpuhunt fixture (testdata/README.md), two
// sizes a page: the two GPU Droplets in nyc1 at their exact prices, the
// CPU size left out, the token sent on every page.
func TestReplayFixture(t *testing.T) {
	fake := digitaloceantest.New(t, token)
	snap, err := fetch(t, fake)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"offer nyc1 gpu-h100x8-640gb on_demand 23.92 H100 x8 80GB 160vCPU 1920GB [2046 gib local, 40960 gib scratch]",
		"offer nyc1 gpu-mi300x8-1536gb on_demand 15.92 MI300X x8 192GB 160vCPU 1920GB [2046 gib local, 40960 gib scratch]",
		"stock nyc1 gpu-h100x8-640gb in_stock",
		"stock nyc1 gpu-mi300x8-1536gb in_stock",
	}
	if got := describe(snap); !slices.Equal(got, want) {
		t.Errorf("records:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if got := fake.Authorizations(); len(got) != 2 || got[0] != "Bearer "+token || got[1] != "Bearer "+token {
		t.Errorf("Authorization headers %q, want the token on both pages", got)
	}
}

// TestModelNames: gpu_info.model spellings seen in third-party code
// (neoclouds.md §6) resolve to catalogue models.
func TestModelNames(t *testing.T) {
	for model, want := range map[string]string{"nvidia_h100": "H100", "amd_mi300x": "MI300X", "nvidia_h200": "H200",
		"nvidia_l40s": "L40S", "nvidia_rtx6000_ada": "RTX-6000-Ada"} {
		if got := gpu.Resolve(modelName(model), gpu.Hint{}).Name(); got != want {
			t.Errorf("%s: %q, want %q", model, got, want)
		}
	}
}

// TestNotAvailable: a size with available false is no offer, and sold out
// in its listed regions.
func TestNotAvailable(t *testing.T) {
	fake := digitaloceantest.New(t, token)
	fake.Set(t, "gpu-h100x8-640gb", "available", false)
	snap, err := fetch(t, fake)
	if err != nil {
		t.Fatal(err)
	}
	got := describe(snap)
	if !slices.Contains(got, "stock nyc1 gpu-h100x8-640gb sold_out") || len(snap.Offers) != 1 || snap.Offers[0].InstanceType != "gpu-mi300x8-1536gb" {
		t.Errorf("records:\n  %s", strings.Join(got, "\n  "))
	}
}

// TestPagingFaults: a size whose regions are not an array is left out,
// the others stored; a next link to another host is never followed.
func TestPagingFaults(t *testing.T) {
	fake := digitaloceantest.New(t, token)
	sizes := digitaloceantest.Sizes(t)
	sizes[2]["regions"] = "nyc1" // not an array: the row is malformed, not the list
	fake.SetSizes(sizes)
	if snap, err := fetch(t, fake); err != nil || len(snap.Offers) != 1 {
		t.Errorf("one malformed size: %v, %d offers", err, len(snap.Offers))
	}
	other := fetcherstest.Start(t, func(w http.ResponseWriter, _ *http.Request) { t.Error("the other host was asked") })
	srv := fetcherstest.Start(t, func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, `{"sizes": [], "links": {"pages": {"next": "%s/v2/sizes?page=2"}}, "meta": {"total": 3}}`, other.URL)
	})
	f, err := New(Config{Endpoint: srv.URL, APIKey: section.NewSecret(token)}, fetcherstest.QuickClient(), zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Fetch(context.Background(), fetchers.Previous{}); !errors.Is(err, fetchers.ErrForeignOrigin) {
		t.Errorf("foreign next link: %v", err)
	}
}
