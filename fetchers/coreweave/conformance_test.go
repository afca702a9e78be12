package coreweave

import (
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/coreweave/coreweavetest"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
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
			return Provider.Build(&Section{Endpoint: fake.URL, APIKeyFile: h.KeyFile(t), PriceSheets: []string{fake.SheetURL()}}, h.Env)
		},
		Empty: func(_ *testing.T, fake *coreweavetest.Server) { fake.FailNext(coreweavetest.Empty) },
		Malformed: func(t *testing.T, fake *coreweavetest.Server) func(pricewatch.Offer) bool {
			sheet := coreweavetest.Sample()
			if !strings.Contains(sheet, ",6.50,") {
				t.Fatal("coreweavetest sheet changed: no gh200-1x price 6.50")
			}
			fake.SetSheet(strings.Replace(sheet, ",6.50,", ",6.50 USD,", 1))
			return fetcherstest.InstanceType("gh200-1x")
		},
		Lacks: map[fetcherstest.Check]string{
			fetcherstest.NoKey:        "the API access token is optional: without it the price sheets are read and Capacity Finder is not asked",
			fetcherstest.RepeatedPage: "a sheet is one document and Capacity Finder answers every type asked in one; neither has page tokens",
		},
	})
}
