package lambda

import (
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/section"
)

// Section is providers.lambda: one global API read with an API key.
type Section struct {
	section.Keyed `yaml:",inline"`
}

// Provider registers Lambda (see package providers).
var Provider = fetchers.Provider{
	Name:    pricewatch.Lambda,
	Display: "Lambda",
	Pricing: fetchers.GeneralPricing("https://lambda.ai/pricing"),
	Facts:   section.Facts{NeedsEndpoint: true},
	Section: func() section.Section {
		// Capacity comes and goes within minutes: polled often, each run
		// is one small request.
		return &Section{section.Keyed{Enabled: true, Endpoint: DefaultEndpoint, Schedule: "*/5 * * * *", Timeout: 2 * time.Minute}}
	},
	Build: fetchers.Builder(func(s *Section, env fetchers.Env) (fetchers.Fetcher, error) {
		key, err := APIKeyFrom(s.APIKeyFile)
		if err != nil {
			return nil, err
		}
		env.Secrets(key)
		return New(Config{Endpoint: s.Endpoint, APIKey: key}, env.Client, env.Log)
	}),
}
