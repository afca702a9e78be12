package gcp

import (
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/gcp/gcptest"
)

// TestConformance runs the fetcher contract every cloud passes, built as
// the program builds it (Provider, the key in api_key_file, the
// program's clock).
func TestConformance(t *testing.T) {
	// The fake accepts gcptest.Key, the one key it knows.
	c := fetcherstest.KeyedCase(Provider, EnvAPIKey, gcptest.Key, func(t testing.TB, _ string) *gcptest.Server { return gcptest.New(t) },
		func(f *gcptest.Server) string { return f.URL })
	c.RepeatPage = func(_ *testing.T, fake *gcptest.Server) { fake.LoopPages() }
	c.Empty = func(t *testing.T, fake *gcptest.Server) {
		for i := range gcptest.Pages {
			fake.SetPage(t, i, []map[string]any{})
		}
	}
	c.Malformed = func(t *testing.T, fake *gcptest.Server) func(pricewatch.Offer) bool {
		// The A100 40GB GPU SKU of the Americas with a price that is
		// not a number: the on-demand A2 high-GPU and mega-GPU types
		// (the ones it prices) are left out, nothing else.
		fake.SetUnits(t, "039F-D0DA-4055", "x1")
		return func(o pricewatch.Offer) bool {
			return o.PriceType == pricewatch.OnDemand &&
				(strings.HasPrefix(o.InstanceType, "a2-highgpu-") || strings.HasPrefix(o.InstanceType, "a2-megagpu-"))
		}
	}
	fetcherstest.Conformance(t, c)
}
