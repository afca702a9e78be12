package shadeform

import (
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/shadeform/shadeformtest"
)

// TestConformance runs the fetcher contract every cloud passes, built as
// the program builds it (Provider, the key in api_key_file).
func TestConformance(t *testing.T) {
	c := fetcherstest.KeyedCase(Provider, EnvAPIKey, "sf_conformance_NeverShown", shadeformtest.New,
		func(f *shadeformtest.Server) string { return f.URL })
	c.Empty = fetcherstest.EmptyNext[*shadeformtest.Server]
	c.Malformed = func(t *testing.T, fake *shadeformtest.Server) func(pricewatch.Offer) bool {
		// A price that is not a number (crusoe's 1560), in one entry of seven.
		fake.SetBody(fetcherstest.ReplaceOnce(t, shadeformtest.Sample(), `"hourly_price": 1560`, `"hourly_price": "15.60 USD"`))
		return fetcherstest.InstanceType("crusoe:A100_80G_sxm4x8")
	}
	c.Lacks = map[fetcherstest.Check]string{
		fetcherstest.RepeatedPage: "GET /v1/instances/types answers with the whole list in one document; it has no page tokens",
	}
	fetcherstest.Conformance(t, c)
}
