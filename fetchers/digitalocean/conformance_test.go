package digitalocean

import (
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers/digitalocean/digitaloceantest"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
)

// TestConformance runs the fetcher contract every cloud passes, built as
// the program builds it (Provider, the token in api_key_file).
func TestConformance(t *testing.T) {
	c := fetcherstest.KeyedCase(Provider, EnvAPIKey, "dop_v1_conformance0123456789abcdefNeverShown", digitaloceantest.New,
		func(f *digitaloceantest.Server) string { return f.URL })
	c.RepeatPage = func(_ *testing.T, fake *digitaloceantest.Server) { fake.RepeatNext() }
	c.Empty = func(_ *testing.T, fake *digitaloceantest.Server) { fake.SetSizes([]map[string]any{}) }
	c.Malformed = func(t *testing.T, fake *digitaloceantest.Server) func(pricewatch.Offer) bool {
		fake.Set(t, "gpu-mi300x8-1536gb", "price_hourly", "15.92 USD")
		return fetcherstest.InstanceType("gpu-mi300x8-1536gb")
	}
	fetcherstest.Conformance(t, c)
}
