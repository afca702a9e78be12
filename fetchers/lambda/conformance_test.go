package lambda

import (
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/lambda/lambdatest"
)

// TestConformance runs the fetcher contract every cloud passes, built as
// the program builds it (Provider, the key in api_key_file).
func TestConformance(t *testing.T) {
	c := fetcherstest.KeyedCase(Provider, EnvAPIKey, "secret_conformance_lambda.NeverShown", lambdatest.New,
		func(f *lambdatest.Server) string { return f.URL })
	c.Empty = fetcherstest.EmptyNext[*lambdatest.Server]
	c.Malformed = func(t *testing.T, fake *lambdatest.Server) func(pricewatch.Offer) bool {
		// A price that is not a number, in one entry of sixteen.
		fake.SetBody(fetcherstest.ReplaceOnce(t, lambdatest.Sample(), `"price_cents_per_hour": 1378`, `"price_cents_per_hour": "13.78 USD"`))
		return fetcherstest.InstanceType("gpu_2x_b200_sxm6")
	}
	c.Lacks = map[fetcherstest.Check]string{
		fetcherstest.RepeatedPage: "GET /api/v1/instance-types answers with the whole list in one document; it has no page tokens",
	}
	fetcherstest.Conformance(t, c)
}
