package lambda

import (
	"bytes"
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/lambda/lambdatest"
)

// TestConformance runs the fetcher contract every cloud passes, built as
// the program builds it (Provider, the key in api_key_file).
func TestConformance(t *testing.T) {
	fetcherstest.Conformance(t, fetcherstest.Case[*lambdatest.Server]{
		Provider: pricewatch.Lambda,
		Key:      "secret_conformance_lambda.NeverShown",
		Fake: func(t *testing.T) *lambdatest.Server {
			return lambdatest.New(t, "secret_conformance_lambda.NeverShown")
		},
		New:   fetcherstest.KeyedNew(Provider, EnvAPIKey, func(f *lambdatest.Server) string { return f.URL }),
		Empty: func(_ *testing.T, fake *lambdatest.Server) { fake.FailNext(lambdatest.Empty) },
		Malformed: func(t *testing.T, fake *lambdatest.Server) func(pricewatch.Offer) bool {
			// A price that is not a number, in one entry of sixteen.
			body := lambdatest.Sample()
			i := bytes.Index(body, []byte(`"price_cents_per_hour": 1378`))
			if i < 0 {
				t.Fatal("lambdatest sample changed: no gpu_2x_b200_sxm6 price")
			}
			fake.SetBody(bytes.Replace(body, []byte(`"price_cents_per_hour": 1378`), []byte(`"price_cents_per_hour": "13.78 USD"`), 1))
			return fetcherstest.InstanceType("gpu_2x_b200_sxm6")
		},
		Lacks: map[fetcherstest.Check]string{
			fetcherstest.RepeatedPage: "GET /api/v1/instance-types answers with the whole list in one document; it has no page tokens",
		},
	})
}
