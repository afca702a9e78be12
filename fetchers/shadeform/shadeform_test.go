package shadeform

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/shadeform/shadeformtest"
	"github.com/pricewatch/pricewatch/section"
)

const testKey = "sf_test_key"

func fetch(t *testing.T, body []byte) *pricewatch.Snapshot {
	t.Helper()
	fake := shadeformtest.New(t, testKey)
	fake.SetBody(body)
	f, err := New(Config{Endpoint: fake.URL, APIKey: section.NewSecret(testKey)}, fetchers.NewClient(fetchers.DefaultRetryPolicy()), nil)
	return fetcherstest.Fetched(t, f, err)
}

// TestReplayCaptures replays every real capture and the documented
// example: each offer's price exactly (cents / 100, per instance), its
// underlying cloud, and each region's availability.
func TestReplayCaptures(t *testing.T) {
	type want struct {
		typ, region, class, price, gpu string
		gpus                           float64
		state                          pricewatch.AvailabilityState
	}
	for _, tc := range []struct {
		name          string
		body          []byte
		offers, avail int
		want          []want
	}{
		{"home page 2026-08-22", shadeformtest.Sample(), 16, 16, []want{
			{"excesssupply:H200_sxm5x8_NVLINK", "helsinki-finland-4", "excesssupply", "36.13", "H200", 8, pricewatch.SoldOut},
			{"hyperstack:H100_sxm5x8", "montreal-canada-2", "hyperstack", "25.6", "H100", 8, pricewatch.InStock},
			{"hyperstack:H100_sxm5x8", "CANADA-2", "hyperstack", "25.6", "H100", 8, pricewatch.SoldOut},
			{"scaleway:L4", "warsaw-poland-1", "scaleway", "0.95", "L4", 1, pricewatch.InStock},
			{"crusoe:A100_80G_sxm4x8", "culpeper-usa-1", "crusoe", "15.6", "A100-80GB", 8, pricewatch.SoldOut},
			{"massedcompute:L40", "desmoines-usa-1", "massedcompute", "0.88", "L40", 1, pricewatch.InStock},
		}},
		{"API reference example", shadeformtest.DocExample(), 2, 2, []want{
			{"hyperstack:A6000", "us-central-1", "hyperstack", "2.1", "", 1, pricewatch.InStock},
			{"hyperstack:A6000", "us-central-2", "hyperstack", "2.1", "", 1, pricewatch.SoldOut},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snap := fetch(t, tc.body)
			if len(snap.Offers) != tc.offers || len(snap.Availability) != tc.avail {
				t.Fatalf("%d offers, %d availability records; want %d, %d", len(snap.Offers), len(snap.Availability), tc.offers, tc.avail)
			}
			for _, w := range tc.want {
				var o *pricewatch.Offer
				for i := range snap.Offers {
					if snap.Offers[i].InstanceType == w.typ && snap.Offers[i].Region == w.region {
						o = &snap.Offers[i]
					}
				}
				if o == nil {
					t.Errorf("no offer %s in %s", w.typ, w.region)
					continue
				}
				if !o.Hourly.Equal(decimal.RequireFromString(w.price)) || o.Currency != "USD" || o.OfferingClass != w.class ||
					o.PriceType != pricewatch.OnDemand || o.GPUCount != w.gpus || (w.gpu != "" && o.GPUModel != w.gpu) {
					t.Errorf("%s %s: %s %s class %q, %v×%q; want %s USD class %q, %v×%q", w.typ, w.region, o.Hourly, o.Currency,
						o.OfferingClass, o.GPUCount, o.GPUModel, w.price, w.class, w.gpus, w.gpu)
				}
				for _, a := range snap.Availability {
					if a.InstanceType == w.typ && a.Region == w.region && a.State != w.state {
						t.Errorf("%s %s: %s, want %s", w.typ, w.region, a.State, w.state)
					}
				}
			}
		})
	}
}

// TestOddRows: an entry that cannot be believed is left out, the others
// stored; a type with no region is left out without failing.
func TestOddRows(t *testing.T) {
	good := `{"cloud":"lambdalabs","shade_instance_type":"H100_sxm5x8","cloud_instance_type":"gpu_8x_h100_sxm5",
	 "configuration":{"num_gpus":8,"gpu_type":"H100","vram_per_gpu_in_gb":80},"hourly_price":2392,
	 "availability":[{"region":"us-south-1","display_name":"US, Texas","available":true}]}`
	for _, tc := range []struct {
		name, odd string
	}{
		{"listed twice", good},
		{"region twice", `{"cloud":"denvr","shade_instance_type":"A100","configuration":{"num_gpus":1,"gpu_type":"A100"},"hourly_price":100,
		 "availability":[{"region":"a","available":true},{"region":"a","available":false}]}`},
		{"no available flag", `{"cloud":"denvr","shade_instance_type":"A100","configuration":{"num_gpus":1,"gpu_type":"A100"},"hourly_price":100,
		 "availability":[{"region":"a"}]}`},
		{"no availability", `{"cloud":"denvr","shade_instance_type":"A100","configuration":{"num_gpus":1,"gpu_type":"A100"},"hourly_price":100}`},
		{"negative price", `{"cloud":"denvr","shade_instance_type":"A100","configuration":{"num_gpus":1,"gpu_type":"A100"},"hourly_price":-1,"availability":[]}`},
		{"cloud with a colon", `{"cloud":"a:b","shade_instance_type":"A100","configuration":{"num_gpus":1,"gpu_type":"A100"},"hourly_price":1,"availability":[]}`},
		{"not an object", `"H100"`},
		{"no regions", `{"cloud":"denvr","shade_instance_type":"A100","configuration":{"num_gpus":1,"gpu_type":"A100"},"hourly_price":100,"availability":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			other := `{"cloud":"imwt","shade_instance_type":"A6000x8","configuration":{"num_gpus":8,"gpu_type":"A6000","vram_per_gpu_in_gb":48},
			 "hourly_price":392,"availability":[{"region":"desmoines-usa-2","available":false}]}`
			body := `{"instance_types":[` + good + `,` + tc.odd + `,` + other + `]}`
			snap := fetch(t, []byte(body))
			var types []string
			for _, o := range snap.Offers {
				types = append(types, o.InstanceType)
			}
			wantLambda := tc.name != "listed twice"
			hasLambda, hasImwt := false, false
			for _, ty := range types {
				hasLambda = hasLambda || ty == "lambdalabs:H100_sxm5x8"
				hasImwt = hasImwt || ty == "imwt:A6000x8"
				if ty == "denvr:A100" {
					t.Errorf("the odd entry was stored: %v", types)
				}
			}
			if hasLambda != wantLambda || !hasImwt {
				t.Errorf("offers %v", types)
			}
		})
	}
}
