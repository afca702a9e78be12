package azurecn

import (
	"bytes"
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/azurecn/azurecntest"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/section"
)

// TestConformance runs the fetcher contract every cloud passes, built as
// the program builds it (Provider), over the documented-shape sheet. The
// download link's SAS signature is a secret of sorts: it must show
// nowhere.
func TestConformance(t *testing.T) {
	fetcherstest.Conformance(t, fetcherstest.Case[*azurecntest.Server]{
		Provider: Name,
		Secrets:  []string{azurecntest.Signature},
		Fake:     func(t *testing.T) *azurecntest.Server { return azurecntest.New(t) },
		New: func(_ *testing.T, fake *azurecntest.Server, h fetcherstest.Harness) (fetchers.Fetcher, error) {
			s := Provider.Section().(*Section)
			s.Common = section.Common{Enabled: true, Endpoint: fake.URL()}
			return Provider.Build(s, h.Env)
		},
		Empty: func(_ *testing.T, fake *azurecntest.Server) {
			// The header line and no row.
			sheet := azurecntest.Sample()
			fake.SetSheet(sheet[:bytes.IndexByte(sheet, '\n')+1])
		},
		Malformed: func(t *testing.T, fake *azurecntest.Server) func(pricewatch.Offer) bool {
			// The Linux NC24ads A100 v4 row of chinanorth3 at a price that
			// is not a number.
			fake.SetPrice(t, "DZH318Z0C1AB/0001", "28,5431")
			return func(o pricewatch.Offer) bool {
				return o.Region == "chinanorth3" && o.InstanceType == "Standard_NC24ads_A100_v4" && o.OS == pricewatch.Linux &&
					o.PriceType == pricewatch.OnDemand
			}
		},
		Lacks: map[fetcherstest.Check]string{
			fetcherstest.NoKey:        "the price sheet download is public; its link carries its own signature (Secrets)",
			fetcherstest.RefusedKey:   "the price sheet download is public; its link carries its own signature (Secrets)",
			fetcherstest.RepeatedPage: "one download link answers the whole sheet; nothing is paged",
		},
	})
}
