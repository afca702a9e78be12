package oci

import (
	"encoding/json"
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/oci/ocitest"
	"github.com/pricewatch/pricewatch/section"
)

// TestConformance runs the fetcher contract every cloud passes, built as
// the program builds it (Provider), over the real GPU rows of the list.
func TestConformance(t *testing.T) {
	fetcherstest.Conformance(t, fetcherstest.Case[*ocitest.Server]{
		Provider: pricewatch.OCI,
		Fake:     func(t *testing.T) *ocitest.Server { return ocitest.NewServer(t, ocitest.Load(t, capture)) },
		New: func(_ *testing.T, fake *ocitest.Server, h fetcherstest.Harness) (fetchers.Fetcher, error) {
			return Provider.Build(&Section{Common: section.Common{Enabled: true, Endpoint: fake.URL}}, h.Env)
		},
		RepeatPage: func(_ *testing.T, fake *ocitest.Server) { fake.LoopPages(10) },
		Empty: func(t *testing.T, fake *ocitest.Server) {
			fake.SetList(ocitest.Capture{LastUpdated: ocitest.Load(t, capture).LastUpdated, Items: []ocitest.Item{}})
		},
		Malformed: func(t *testing.T, fake *ocitest.Server) func(pricewatch.Offer) bool {
			// The H200 part with a negative pay-as-you-go price.
			c := ocitest.Load(t, capture)
			for i, it := range c.Items {
				if it.PartNumber() == "B110519" {
					c.Items[i] = with(it, "currencyCodeLocalizations", json.RawMessage(`[{"currencyCode": "USD", "prices": [{"model": "PAY_AS_YOU_GO", "value": -10}]}]`))
				}
			}
			fake.SetList(c)
			return fetcherstest.InstanceType("BM.GPU.H200.8")
		},
		Lacks: fetcherstest.Keyless("Oracle's price list (cetools products) is public; pricewatch sends no key", nil),
	})
}

// with returns a copy of it with field set to v.
func with(it ocitest.Item, field string, v json.RawMessage) ocitest.Item {
	c := ocitest.Item{}
	for k, x := range it {
		c[k] = x
	}
	c[field] = v
	return c
}
