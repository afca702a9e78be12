package runpod

import (
	"encoding/json"
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/runpod/runpodtest"
	"github.com/pricewatch/pricewatch/section"
)

const conformanceKey = "secret_conformance_runpod.NeverShown"

// TestConformance runs the fetcher contract every cloud passes, built as
// the program builds it (Provider, the key in api_key_file).
func TestConformance(t *testing.T) {
	fetcherstest.Conformance(t, fetcherstest.Case[*runpodtest.Server]{
		Provider: pricewatch.RunPod,
		Key:      conformanceKey,
		Fake:     func(t *testing.T) *runpodtest.Server { return runpodtest.New(t, conformanceKey) },
		New: func(t *testing.T, fake *runpodtest.Server, h fetcherstest.Harness) (fetchers.Fetcher, error) {
			t.Setenv(EnvAPIKey, "")
			return Provider.Build(&Section{Keyed: section.Keyed{Endpoint: fake.URL, APIKeyFile: h.KeyFile(t)}, API: APIGraphQL}, h.Env)
		},
		Empty: fetcherstest.EmptyNext[*runpodtest.Server],
		Malformed: func(t *testing.T, fake *runpodtest.Server) func(pricewatch.Offer) bool {
			// A negative price, on one GPU type of the list.
			fake.SetGPUField(t, "AMD Instinct MI300X OAM", "securePrice", json.Number("-2.39"))
			return fetcherstest.InstanceType("AMD Instinct MI300X OAM")
		},
		Lacks: map[fetcherstest.Check]string{
			fetcherstest.RepeatedPage: "one GraphQL query answers both lists in one document; nothing is paged",
			fetcherstest.NoKey:        "the key is optional: the public query answers without one (built without a key, the fetcher sends none)",
		},
	})
}
