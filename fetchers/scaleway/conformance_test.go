package scaleway

import (
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/scaleway/scalewaytest"
	"github.com/pricewatch/pricewatch/section"
)

// TestConformance runs the fetcher contract every cloud passes, built as
// the program builds it (Provider), over the real fr-par-2 captures.
func TestConformance(t *testing.T) {
	fetcherstest.Conformance(t, fetcherstest.Case[*scalewaytest.Server]{
		Provider: Name,
		Fake:     func(t *testing.T) *scalewaytest.Server { return scalewaytest.New(t) },
		New: func(_ *testing.T, fake *scalewaytest.Server, h fetcherstest.Harness) (fetchers.Fetcher, error) {
			s := Provider.Section().(*Section)
			s.Common = section.Common{Enabled: true, Endpoint: fake.URL, Regions: []string{scalewaytest.Zone}}
			return Provider.Build(s, h.Env)
		},
		// A server answering page 1 whatever page is asked: the types of
		// page 1 come again.
		RepeatPage: func(_ *testing.T, fake *scalewaytest.Server) {
			p := scalewaytest.Pages(scalewaytest.Servers)
			fake.SetPages(scalewaytest.Servers, p[0], p[0], p[1])
		},
		Empty: func(_ *testing.T, fake *scalewaytest.Server) { fake.SetPages(scalewaytest.Servers) },
		Malformed: func(t *testing.T, fake *scalewaytest.Server) func(pricewatch.Offer) bool {
			fake.Replace(t, scalewaytest.Servers, `"hourly_price": 18.96`, `"hourly_price": "18.96 EUR"`)
			return fetcherstest.InstanceType("B300-SXM-2-288G")
		},
		Lacks: fetcherstest.Keyless("the products/servers endpoints answer without a key (captured anonymously); pricewatch sends none", nil),
	})
}
