package ovhcloud

import (
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/ovhcloud/ovhcloudtest"
	"github.com/pricewatch/pricewatch/section"
)

// TestConformance runs the fetcher contract every cloud passes, built as
// the program builds it (Provider), over the documented-shape catalogue.
func TestConformance(t *testing.T) {
	fetcherstest.Conformance(t, fetcherstest.Case[*ovhcloudtest.Server]{
		Provider: Name,
		Fake:     func(t *testing.T) *ovhcloudtest.Server { return ovhcloudtest.New(t) },
		New: func(_ *testing.T, fake *ovhcloudtest.Server, h fetcherstest.Harness) (fetchers.Fetcher, error) {
			s := Provider.Section().(*Section)
			s.Common = section.Common{Enabled: true, Endpoint: fake.URL}
			return Provider.Build(s, h.Env)
		},
		Empty: func(_ *testing.T, fake *ovhcloudtest.Server) {
			fake.SetBody([]byte(`{"catalogId": 1, "locale": {"currencyCode": "EUR", "subsidiary": "FR"}, "plans": [], "addons": []}`))
		},
		Malformed: func(t *testing.T, fake *ovhcloudtest.Server) func(pricewatch.Offer) bool {
			// The hourly L4 plan at a price that is not a whole number of
			// 10⁻⁸ euros.
			// (l4-90.consumption, the one price 75000000).
			fake.SetBody(fetcherstest.ReplaceOnce(t, ovhcloudtest.Sample(), `"price": 75000000`, `"price": 75000000.5`))
			return func(o pricewatch.Offer) bool { return o.InstanceType == "l4-90" && o.PriceType == pricewatch.OnDemand }
		},
		Lacks: fetcherstest.Keyless("the public cloud catalogue (/v1/order/catalog/public/cloud) needs no key; pricewatch sends none",
			map[fetcherstest.Check]string{fetcherstest.RepeatedPage: "the catalogue is one document; nothing is paged"}),
	})
}
