package vultr

import (
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/vultr/vultrtest"
)

// TestConformance runs the fetcher contract every cloud passes, built as
// the program builds it (Provider, the key in api_key_file: region
// availability needs it).
func TestConformance(t *testing.T) {
	c := fetcherstest.KeyedCase(Provider, EnvAPIKey, "VULTRCONFORMANCEKEYNEVERSHOWN0000", vultrtest.New,
		func(f *vultrtest.Server) string { return f.URL })
	c.RepeatPage = func(_ *testing.T, fake *vultrtest.Server) { fake.RepeatCursor() }
	c.Empty = func(_ *testing.T, fake *vultrtest.Server) {
		fake.SetRows(vultrtest.Plans, []map[string]any{})
		fake.SetRows(vultrtest.Metal, []map[string]any{})
	}
	c.Malformed = func(t *testing.T, fake *vultrtest.Server) func(pricewatch.Offer) bool {
		fake.Set(t, "vcg-a100-6c-60g-40vram", "hourly_cost", "1.397 USD")
		return fetcherstest.InstanceType("vcg-a100-6c-60g-40vram")
	}
	c.Lacks = map[fetcherstest.Check]string{
		fetcherstest.NoKey: "the plan lists answer without a key; a key only adds region availability",
	}
	fetcherstest.Conformance(t, c)
}
