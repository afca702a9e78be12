package vultr

import (
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/vultr/vultrtest"
)

const conformanceKey = "VULTRCONFORMANCEKEYNEVERSHOWN0000"

// TestConformance runs the fetcher contract every cloud passes, built as
// the program builds it (Provider, the key in api_key_file: region
// availability needs it).
func TestConformance(t *testing.T) {
	fetcherstest.Conformance(t, fetcherstest.Case[*vultrtest.Server]{
		Provider:   Name,
		Key:        conformanceKey,
		Fake:       func(t *testing.T) *vultrtest.Server { return vultrtest.New(t, conformanceKey) },
		New:        fetcherstest.KeyedNew(Provider, EnvAPIKey, func(f *vultrtest.Server) string { return f.URL }),
		RepeatPage: func(_ *testing.T, fake *vultrtest.Server) { fake.RepeatCursor() },
		Empty: func(_ *testing.T, fake *vultrtest.Server) {
			fake.SetRows(vultrtest.Plans, []map[string]any{})
			fake.SetRows(vultrtest.Metal, []map[string]any{})
		},
		Malformed: func(t *testing.T, fake *vultrtest.Server) func(pricewatch.Offer) bool {
			fake.Set(t, "vcg-a100-6c-60g-40vram", "hourly_cost", "1.397 USD")
			return fetcherstest.InstanceType("vcg-a100-6c-60g-40vram")
		},
		Lacks: map[fetcherstest.Check]string{
			fetcherstest.NoKey: "the plan lists answer without a key; a key only adds region availability",
		},
	})
}
