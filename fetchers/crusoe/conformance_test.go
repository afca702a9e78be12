package crusoe

import (
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/crusoe/crusoetest"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/sheet"
)

// conformanceKey is the secret half (base64url, as Crusoe issues it);
// the access key id is derived from nothing secret.
const (
	conformanceKey = "c2VjcmV0LWNydXNvZS1jb25mb3JtYW5jZQ"
	conformanceID  = "AKID-conformance"
)

// TestConformance runs the fetcher contract every cloud passes, built as
// the program builds it (Provider, the secret in secret_key_file, the
// sheet at a URL on the fake).
func TestConformance(t *testing.T) {
	fetcherstest.Conformance(t, fetcherstest.Case[*crusoetest.Server]{
		Provider: pricewatch.Crusoe,
		Key:      conformanceKey,
		Fake:     func(t *testing.T) *crusoetest.Server { return crusoetest.New(t, conformanceID, conformanceKey) },
		New: func(t *testing.T, fake *crusoetest.Server, h fetcherstest.Harness) (fetchers.Fetcher, error) {
			t.Setenv(EnvSecretKey, "")
			t.Setenv(EnvAccessKeyID, "")
			return Provider.Build(&Section{Keys: sheet.Keys{Endpoint: fake.Endpoint(), PriceSheets: []string{fake.SheetURL()}},
				AccessKeyID: conformanceID, SecretKeyFile: h.KeyFile(t)}, h.Env)
		},
		Empty: fetcherstest.EmptyNext[*crusoetest.Server],
		Malformed: func(t *testing.T, fake *crusoetest.Server) func(pricewatch.Offer) bool {
			// l40s's price, the one 1.50.
			fake.SetSheet(fetcherstest.ReplaceOnce(t, crusoetest.Sheet(), "price: 1.50", "price: Contact sales"))
			return fetcherstest.InstanceType("l40s-48gb.1x")
		},
		Lacks: map[fetcherstest.Check]string{
			fetcherstest.RepeatedPage: "GET /capacities answers with every item in one document; it has no page tokens",
		},
	})
}
