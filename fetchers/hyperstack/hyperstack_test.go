package hyperstack

import (
	"slices"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/hyperstack/hyperstacktest"
	"github.com/pricewatch/pricewatch/gpu"
)

const testKey = "hs_test_key"

func fetch(t *testing.T, fake *hyperstacktest.Server) (*pricewatch.Snapshot, error) {
	t.Helper()
	return fetcherstest.FetchKeyed(t, New, fake.URL, testKey, nil)
}

// fetchEdited fetches from a fake whose document at path has old
// replaced by new; the run must succeed.
func fetchEdited(t *testing.T, path, old, new string) *pricewatch.Snapshot {
	t.Helper()
	fake := hyperstacktest.New(t, testKey)
	fake.Replace(t, path, old, new)
	snap, err := fetch(t, fake)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// describe writes each stock record with its detail.
func describe(s *pricewatch.Snapshot) []string {
	return fetcherstest.Describe(s, fetcherstest.OfferLine, func(a pricewatch.Availability) string {
		return fetcherstest.StockLine(a) + " (" + a.StockDetail + ")"
	})
}

// TestReplayFixture replays the three bodies of hyperstacktest
// (testdata/README.md: documented shapes, the page's real list prices):
// each GPU flavor priced at its GPU's pricebook value × gpu_count,
// exactly; the CPU flavor and the Kubernetes node flavor left out; the
// state from stock_available, the stock list's figures in the detail; the
// key sent in api_key on all three requests, never as a bearer token.
func TestReplayFixture(t *testing.T) {
	fake := hyperstacktest.New(t, testKey)
	snap, err := fetch(t, fake)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"offer CANADA-1 n1-RTX-A6000x2 on_demand 1 RTX-A6000 x2 0GB 32vCPU 119GB [850 GB disk]",
		"offer CANADA-1 n3-H100x1 on_demand 2.5 H100-PCIe x1 80GB 28vCPU 180GB [100 GB disk, 750 GB ephemeral]",
		"offer CANADA-1 n3-H100x8 on_demand 20 H100-PCIe x8 80GB 192vCPU 1800GB [100 GB disk, 6000 GB ephemeral]",
		"offer CANADA-2 n3-H100-SXM5x8 on_demand 25.6 H100 x8 80GB 192vCPU 960GB [100 GB disk, 20000 GB ephemeral]",
		"offer NORWAY-1 n3-B200x8 on_demand 48 B200 x8 0GB 248vCPU 2048GB [100 GB disk, 30000 GB ephemeral]",
		"offer NORWAY-1 n3-H200-SXM5x8 on_demand 31.92 H200 x8 141GB 176vCPU 1800GB [100 GB disk, 30000 GB ephemeral]",
		"offer NORWAY-1 n3-L40x1 on_demand 1 L40 x1 0GB 28vCPU 120GB [100 GB disk, 725 GB ephemeral]",
		"stock CANADA-1 n1-RTX-A6000x2 in_stock (stock_available: true; RTX-A6000 in CANADA-1: 100+ GPUs available, 61 machines of 2x, planned 7/30/100 days: 100+/100+/100+)",
		"stock CANADA-1 n3-H100x1 in_stock (stock_available: true; H100-80G-PCIe in CANADA-1: 10+ GPUs available, 14 machines of 1x, planned 7/30/100 days: 25+/100+/100+)",
		"stock CANADA-1 n3-H100x8 sold_out (stock_available: false; H100-80G-PCIe in CANADA-1: 10+ GPUs available, 0 machines of 8x, planned 7/30/100 days: 25+/100+/100+)",
		"stock CANADA-2 n3-H100-SXM5x8 sold_out (stock_available: false; H100-80G-SXM5 in CANADA-2: 0 GPUs available, 0 machines of 8x, planned 7/30/100 days: 25+/100+/200+)",
		"stock NORWAY-1 n3-B200x8 in_stock (stock_available: true; B200-SXM in NORWAY-1: 10+ GPUs available, 2 machines of 8x)",
		"stock NORWAY-1 n3-H200-SXM5x8 in_stock (stock_available: true; H200-141G-SXM5 in NORWAY-1: 25+ GPUs available, 3 machines of 8x, planned 7/30/100 days: 25+/100+/-)",
		"stock NORWAY-1 n3-L40x1 in_stock (stock_available: true; L40 in NORWAY-1: 9 GPUs available, 9 machines of 1x, planned 7/30/100 days: 10+/25+/25+)",
	}
	if got := describe(snap); !slices.Equal(got, want) {
		t.Errorf("records:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if got := fake.Keys(); len(got) != 3 || got[0] != testKey || got[1] != testKey || got[2] != testKey {
		t.Errorf("api_key headers %q, want the testKey on all three requests", got)
	}
	if got := fake.Authorizations(); slices.ContainsFunc(got, func(a string) bool { return a != "" }) {
		t.Errorf("Authorization headers %q: the testKey travels in api_key only", got)
	}
	if len(snap.Coverage) != 1 || snap.Coverage[0].Region != pricewatch.AllRegions || !snap.Coverage[0].Availability {
		t.Errorf("coverage %+v, want every region with availability", snap.Coverage)
	}
}

// TestModelNames: Hyperstack's GPU names (the flavor's gpu and the
// pricebook's name, as SkyPilot and third-party collectors read them)
// resolve to catalogue models with the memory the name writes.
func TestModelNames(t *testing.T) {
	for name, want := range map[string]struct {
		model string
		mem   float64
	}{
		"H100-80G-PCIe": {"H100-PCIe", 80}, "H100-80G-SXM5": {"H100", 80}, "H100-80G-PCIe-NVLink": {"H100-PCIe", 80},
		"H200-141G-SXM5": {"H200", 141}, "B200-SXM": {"B200", 0}, "A100-80G-PCIe": {"A100-80GB-PCIe", 80},
		"A100-80G-PCIe-NVLink": {"A100-80GB-PCIe", 80}, "A100-80G-SXM4": {"A100-80GB", 80}, "RTX-A6000": {"RTX-A6000", 0},
		"L40": {"L40", 0}, "RTX-A4000": {"RTX-A4000", 0}, "RTX-PRO6000-SE": {"RTX-PRO-6000", 0},
	} {
		words, mem := modelName(name)
		if got := gpu.Resolve(words, gpu.Hint{MemoryGB: mem}).Name(); got != want.model || mem != want.mem {
			t.Errorf("%s: %q (%q, %v GB), want %q, %v GB", name, got, words, mem, want.model, want.mem)
		}
	}
}

// TestOddRows: a pricebook value as a JSON number is read exactly like a
// string; a GPU the pricebook does not price is availability only; a
// malformed price row leaves its GPU's region out of the coverage (what
// is stored there stays), the other regions still covered; a flavor
// listed twice is believed for neither.
func TestOddRows(t *testing.T) {
	t.Run("unpriced GPU", func(t *testing.T) {
		snap := fetchEdited(t, hyperstacktest.Pricebook, `"name": "B200-SXM"`, `"name": "B200-SXM-retired"`)
		got := describe(snap)
		if slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "offer NORWAY-1 n3-B200x8") }) ||
			!slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "stock NORWAY-1 n3-B200x8 in_stock") }) {
			t.Errorf("records:\n  %s", strings.Join(got, "\n  "))
		}
	})
	t.Run("malformed price defers its regions", func(t *testing.T) {
		snap := fetchEdited(t, hyperstacktest.Pricebook, `"value": "3.99"`, `"value": "3,99 USD"`)
		var regions []string
		for _, sc := range snap.Coverage {
			regions = append(regions, sc.Region)
		}
		if strings.Join(regions, ",") != "CANADA-1,CANADA-2" || len(snap.Offers) != 6 {
			t.Errorf("coverage %v and %d offers, want NORWAY-1 deferred and the other 6 offers", regions, len(snap.Offers))
		}
	})
	t.Run("flavor listed twice", func(t *testing.T) {
		snap := fetchEdited(t, hyperstacktest.Flavors, `"name": "n3-H100x1"`, `"name": "n3-H100x8"`)
		for _, o := range snap.Offers {
			if o.InstanceType == "n3-H100x8" || o.InstanceType == "n3-H100x1" {
				t.Errorf("offer %v of a flavor listed twice stored", o.Key())
			}
		}
	})
	t.Run("status false", func(t *testing.T) {
		fake := hyperstacktest.New(t, testKey)
		fake.Replace(t, hyperstacktest.Flavors, `"status": true`, `"status": false`)
		if _, err := fetch(t, fake); err == nil || !strings.Contains(err.Error(), "status false") {
			t.Errorf("status false: %v, want the run failed", err)
		}
	})
	t.Run("cut stock list", func(t *testing.T) {
		fake := hyperstacktest.New(t, testKey)
		fake.FailNext("", "", hyperstacktest.Truncated)
		if snap, err := fetch(t, fake); err == nil {
			t.Errorf("a cut stock list gave %d offers, want the run failed", len(snap.Offers))
		}
	})
}
