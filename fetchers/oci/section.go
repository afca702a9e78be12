package oci

import (
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/section"
)

// Section is providers.oci: Oracle's public price list (no key).
type Section struct {
	section.Common `yaml:",inline"`
}

// Validate: the shared checks cover every key.
func (*Section) Validate(section.Checker) error { return nil }

// Provider registers Oracle Cloud (see package providers).
var Provider = fetchers.Provider{
	Name:    pricewatch.OCI,
	Display: "Oracle Cloud",
	Pricing: fetchers.GeneralPricing("https://www.oracle.com/cloud/compute/pricing/"),
	Facts: section.Facts{NeedsEndpoint: true,
		RegionsUnused: "OCI's list price is the same in every region and is stored once, under region global"},
	Section: func() section.Section {
		return &Section{Common: section.Common{Enabled: true, Endpoint: DefaultEndpoint, Schedule: "35 */6 * * *", Timeout: 10 * time.Minute}}
	},
	Build: fetchers.Builder(func(s *Section, env fetchers.Env) (fetchers.Fetcher, error) {
		return New(Config{Endpoint: s.Endpoint}, env.Client, env.Log)
	}),
}
