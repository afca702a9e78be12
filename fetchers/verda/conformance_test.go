package verda

import (
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/verda/verdatest"
)

// TestConformance runs the fetcher contract every cloud passes, built as
// the program builds it (Provider, the credentials in files); the
// suite's key is the client secret.
func TestConformance(t *testing.T) {
	const secret = "verda_conformance_secret.NeverShown"
	fetcherstest.Conformance(t, fetcherstest.Case[*verdatest.Server]{
		Provider: pricewatch.Verda,
		Key:      secret,
		Secrets:  []string{"verda-access-token-NeverShown"},
		Fake:     func(t *testing.T) *verdatest.Server { return verdatest.New(t, secret) },
		New: func(t *testing.T, fake *verdatest.Server, h fetcherstest.Harness) (fetchers.Fetcher, error) {
			t.Setenv(EnvClientID, "")
			t.Setenv(EnvClientSecret, "")
			s := &Section{Common: Provider.Section().Shared()}
			s.Endpoint = fake.URL
			if h.Key != "" {
				dir := fetcherstest.CredentialFiles(t, map[string]string{"id": verdatest.ClientID, "secret": h.Key})
				s.ClientIDFile, s.ClientSecretFile = dir+"/id", dir+"/secret"
			}
			return Provider.Build(s, h.Env)
		},
		Empty: fetcherstest.EmptyNext[*verdatest.Server],
		Malformed: func(t *testing.T, fake *verdatest.Server) func(pricewatch.Offer) bool {
			// 2A6000.20V's price, the one 1.98.
			fake.SetBody("/v1/instance-types", fetcherstest.ReplaceOnce(t, verdatest.Types(), `"price_per_hour": "1.98"`, `"price_per_hour": "1.98 USD"`))
			return fetcherstest.InstanceType("2A6000.20V")
		},
		Lacks: map[fetcherstest.Check]string{
			fetcherstest.RepeatedPage: "every list Verda's API v1 answers comes in one document; it has no page tokens",
		},
	})
}
