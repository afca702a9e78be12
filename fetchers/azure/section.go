package azure

import (
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/section"
)

// Section is providers.azure: the Retail Prices API.
type Section struct {
	section.Common `yaml:",inline"`
	// Windows also stores Windows prices (kept apart from Linux).
	Windows bool `yaml:"windows"`
}

// Validate: the shared checks cover every key but windows, a boolean.
func (*Section) Validate(section.Checker) error { return nil }

// Provider registers Azure (see package providers).
var Provider = fetchers.Provider{
	Name:    pricewatch.Azure,
	Display: "Azure",
	Pricing: fetchers.GeneralPricing("https://azure.microsoft.com/en-us/pricing/details/virtual-machines/linux/"),
	Facts:   section.Facts{NeedsEndpoint: true},
	Section: func() section.Section {
		return &Section{
			Common:  section.Common{Enabled: true, Endpoint: DefaultEndpoint, Schedule: "5 * * * *", Timeout: 30 * time.Minute},
			Windows: true,
		}
	},
	Build: fetchers.Builder(func(s *Section, env fetchers.Env) (fetchers.Fetcher, error) {
		return New(Config{Endpoint: s.Endpoint, Regions: s.Regions, Windows: s.Windows, Now: env.Now}, env.Client, env.Log)
	}),
}
