package hyperstack

import (
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/hyperstack/hyperstacktest"
)

// TestConformance runs the fetcher contract every cloud passes, built as
// the program builds it (Provider, the key in api_key_file).
func TestConformance(t *testing.T) {
	c := fetcherstest.KeyedCase(Provider, EnvAPIKey, "hs_conformance_0123456789abcdefNeverShown", hyperstacktest.New,
		func(f *hyperstacktest.Server) string { return f.URL })
	c.Empty = fetcherstest.EmptyNext[*hyperstacktest.Server]
	c.Malformed = func(t *testing.T, fake *hyperstacktest.Server) func(pricewatch.Offer) bool {
		// A GPU count that is not a number, in one flavor of eight.
		fake.Replace(t, hyperstacktest.Flavors, `"gpu": "L40", "gpu_count": 1`, `"gpu": "L40", "gpu_count": "one"`)
		return fetcherstest.InstanceType("n3-L40x1")
	}
	c.Lacks = map[fetcherstest.Check]string{
		fetcherstest.RepeatedPage: "the flavor list, pricebook and stock list each answer in one document; there are no page tokens",
	}
	fetcherstest.Conformance(t, c)
}
