package shadeform

import (
	"bytes"
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/shadeform/shadeformtest"
)

// TestConformance runs the fetcher contract every cloud passes, built as
// the program builds it (Provider, the key in api_key_file).
func TestConformance(t *testing.T) {
	const key = "sf_conformance_NeverShown"
	fetcherstest.Conformance(t, fetcherstest.Case[*shadeformtest.Server]{
		Provider: pricewatch.Shadeform,
		Key:      key,
		Fake:     func(t *testing.T) *shadeformtest.Server { return shadeformtest.New(t, key) },
		New:      fetcherstest.KeyedNew(Provider, EnvAPIKey, func(f *shadeformtest.Server) string { return f.URL }),
		Empty:    func(_ *testing.T, fake *shadeformtest.Server) { fake.FailNext(shadeformtest.Empty) },
		Malformed: func(t *testing.T, fake *shadeformtest.Server) func(pricewatch.Offer) bool {
			// A price that is not a number, in one entry of seven.
			body := shadeformtest.Sample()
			old := []byte(`"hourly_price": 1560`)
			if bytes.Count(body, old) != 1 {
				t.Fatal("shadeformtest sample changed: no single crusoe price 1560")
			}
			fake.SetBody(bytes.Replace(body, old, []byte(`"hourly_price": "15.60 USD"`), 1))
			return fetcherstest.InstanceType("crusoe:A100_80G_sxm4x8")
		},
		Lacks: map[fetcherstest.Check]string{
			fetcherstest.RepeatedPage: "GET /v1/instances/types answers with the whole list in one document; it has no page tokens",
		},
	})
}
