package vastai

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/vastai/vastaitest"
	"github.com/pricewatch/pricewatch/section"
)

// TestConformance runs the fetcher contract every cloud passes, built as
// the program builds it (Provider), over the real H100 and B300 captures.
func TestConformance(t *testing.T) {
	fetcherstest.Conformance(t, fetcherstest.Case[*vastaitest.Server]{
		Provider: pricewatch.VastAI,
		Fake:     func(t *testing.T) *vastaitest.Server { return vastaitest.NewServer(t, realBook(t)) },
		New: func(_ *testing.T, fake *vastaitest.Server, h fetcherstest.Harness) (fetchers.Fetcher, error) {
			return Provider.Build(&Section{Common: section.Common{Enabled: true, Endpoint: fake.URL}, MaxPages: DefaultMaxPages}, h.Env)
		},
		RepeatPage: func(t *testing.T, fake *vastaitest.Server) {
			// More than a page of offers (copies of a real one at rising
			// prices), and a search that hands out the first page again
			// whatever price floor the next page asks for.
			base := vastaitest.LoadOffers(t, h100Capture)[0]
			var book []vastaitest.Offer
			for i := range PageSize + 8 {
				book = append(book, base.With(t, map[string]any{"id": 90000000 + i, "dph_total": json.Number(fmt.Sprintf("2.%03d", i))}))
			}
			fake.SetOffers(book)
			fake.IgnoreFloor()
		},
		Empty: func(_ *testing.T, fake *vastaitest.Server) { fake.SetOffers(nil) },
		Malformed: func(t *testing.T, fake *vastaitest.Server) func(pricewatch.Offer) bool {
			// The one 4x B300 offer with a GPU count that is not a number.
			book := realBook(t)
			for i, o := range book {
				if string(o["id"]) == "47419091" {
					book[i] = o.With(t, map[string]any{"num_gpus": "four"})
				}
			}
			fake.SetOffers(book)
			return fetcherstest.InstanceType("4x B300")
		},
		Lacks: fetcherstest.Keyless("the offer search (GET /api/v0/bundles/) is public; pricewatch sends no key", nil),
	})
}
