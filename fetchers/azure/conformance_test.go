package azure

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/section"
)

// TestConformance runs the fetcher contract every cloud passes, built as
// the program builds it (Provider), over the replayed Retail Prices pages
// of eastus (three pages) and westeurope.
func TestConformance(t *testing.T) {
	fetcherstest.Conformance(t, fetcherstest.Case[*fakeAzure]{
		Provider: pricewatch.Azure,
		Fake:     newFake,
		New: func(_ *testing.T, fake *fakeAzure, h fetcherstest.Harness) (fetchers.Fetcher, error) {
			s := Provider.Section().(*Section)
			s.Common = section.Common{Enabled: true, Endpoint: fake.srv.URL, Regions: []string{"eastus", "westeurope"}}
			return Provider.Build(s, h.Env)
		},
		RepeatPage: func(_ *testing.T, fake *fakeAzure) {
			// Every page hands out the same next page.
			fake.intercept = func(w http.ResponseWriter, r *http.Request, _ int) bool {
				fmt.Fprintf(w, `{"Items":[],"NextPageLink":%q,"Count":0}`, fake.srv.URL+"/api/retail/prices?$skip=1000")
				return true
			}
		},
		Malformed: func(t *testing.T, fake *fakeAzure) func(pricewatch.Offer) bool {
			// The first eastus row (ND96isr H100 v5, Linux pay-as-you-go,
			// with its savings plans) with a price that is not a number:
			// its prices are left out (and kept open), the reserved and
			// spot rows of the size stored.
			page, err := os.ReadFile(filepath.Join(fake.dir, "eastus-1.json"))
			if err != nil {
				t.Fatal(err)
			}
			spoilt := strings.Replace(string(page), `"retailPrice": 98.32,`, `"retailPrice": "98.32 USD",`, 1)
			if spoilt == string(page) {
				t.Fatal("testdata/pages/eastus-1.json changed: no retailPrice 98.32")
			}
			spoilt = strings.ReplaceAll(spoilt, "https://prices.azure.com:443", fake.srv.URL)
			fake.intercept = func(w http.ResponseWriter, r *http.Request, _ int) bool {
				if !strings.Contains(r.URL.Query().Get("$filter"), "'eastus'") || r.URL.Query().Get("$skip") != "" {
					return false
				}
				w.Write([]byte(spoilt))
				return true
			}
			return func(o pricewatch.Offer) bool {
				return o.Region == "eastus" && o.InstanceType == "Standard_ND96isr_H100_v5" && o.OS == pricewatch.Linux &&
					o.PriceType != pricewatch.Spot && o.PriceType != pricewatch.Reserved
			}
		},
		Lacks: map[fetcherstest.Check]string{
			// TestFetchEmptyRegionIsCoveredWithoutOffers holds this.
			fetcherstest.EmptyAnswer: "a region may truly list no GPU size, so an empty region is handed on as covered without offers; " +
				"where offers are stored, storage refuses the drop (storage.ErrSuspiciousDrop)",
			fetcherstest.NoKey:      "the Retail Prices API is public; the Entra ID credentials of the optional capacity signals are tested in signals_test.go",
			fetcherstest.RefusedKey: "the Retail Prices API is public; the Entra ID credentials of the optional capacity signals are tested in signals_test.go",
		},
	})
}
