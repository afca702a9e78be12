package aws

import (
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/section"
)

// Section is providers.aws: the public Price List Bulk API and the spot
// feed.
type Section struct {
	section.Common `yaml:",inline"`
	SpotEndpoint   string `yaml:"spot_endpoint"`
	SpotEnabled    bool   `yaml:"spot"`
	SavingsPlans   bool   `yaml:"savings_plans"`
}

// Validate checks the keys beyond the shared ones.
func (s *Section) Validate(k section.Checker) error {
	if s.SpotEnabled {
		return k.URL("spot_endpoint", s.SpotEndpoint)
	}
	return nil
}

// Provider registers AWS (see package providers).
var Provider = fetchers.Provider{
	Name:    pricewatch.AWS,
	Display: "AWS",
	Pricing: map[pricewatch.PriceType]string{
		"":                     "https://aws.amazon.com/ec2/pricing/on-demand/",
		pricewatch.Spot:        "https://aws.amazon.com/ec2/spot/pricing/",
		pricewatch.Reserved:    "https://aws.amazon.com/ec2/pricing/reserved-instances/pricing/",
		pricewatch.SavingsPlan: "https://aws.amazon.com/savingsplans/compute-pricing/",
	},
	Facts: section.Facts{NeedsEndpoint: true},
	Section: func() section.Section {
		return &Section{
			Common:       section.Common{Enabled: true, Endpoint: DefaultEndpoint, Schedule: "17 */6 * * *", Timeout: 2 * time.Hour},
			SpotEndpoint: DefaultSpotEndpoint,
			SpotEnabled:  true,
			SavingsPlans: true,
		}
	},
	Build: fetchers.Builder(func(s *Section, env fetchers.Env) (fetchers.Fetcher, error) {
		return New(Config{Endpoint: s.Endpoint, SpotEndpoint: s.SpotEndpoint, Regions: s.Regions,
			Spot: s.SpotEnabled, SavingsPlans: s.SavingsPlans, Progress: env.Progress, Now: env.Now}, env.Client, env.Log)
	}),
}
