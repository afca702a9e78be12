package coreweave

import (
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/coreweave/coreweavetest"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/sheet"
)

// TestConformance runs the fetcher contract every cloud passes, built as
// the program builds it: the sheet at a URL on the fake, the token in
// api_key_file.
func TestConformance(t *testing.T) {
	const key = "cw-conformance-token-NeverShown"
	fetcherstest.Conformance(t, fetcherstest.Case[*coreweavetest.Server]{
		Provider: pricewatch.CoreWeave,
		Key:      key,
		Fake:     func(t *testing.T) *coreweavetest.Server { return coreweavetest.New(t, key) },
		New: func(t *testing.T, fake *coreweavetest.Server, h fetcherstest.Harness) (fetchers.Fetcher, error) {
			t.Setenv(EnvAPIToken, "")
			return Provider.Build(&Section{Keys: sheet.Keys{Endpoint: fake.URL, PriceSheets: []string{fake.SheetURL()}}, APIKeyFile: h.KeyFile(t)}, h.Env)
		},
		Empty: fetcherstest.EmptyNext[*coreweavetest.Server],
		Malformed: func(t *testing.T, fake *coreweavetest.Server) func(pricewatch.Offer) bool {
			// gh200-1x's price, the one 6.50.
			fake.SetSheet(fetcherstest.ReplaceOnce(t, coreweavetest.Sample(), ",6.50,", ",6.50 USD,"))
			return fetcherstest.InstanceType("gh200-1x")
		},
		Lacks: map[fetcherstest.Check]string{
			fetcherstest.NoKey:        "the API access token is optional: without it the price sheets are read and Capacity Finder is not asked",
			fetcherstest.RepeatedPage: "a sheet is one document and Capacity Finder answers every type asked in one; neither has page tokens",
		},
	})
}
