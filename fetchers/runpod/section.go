package runpod

import (
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/section"
)

// Section is providers.runpod: one global API, read with an optional API
// key.
type Section struct {
	section.Keyed `yaml:",inline"`
}

// Provider registers RunPod (see package providers).
var Provider = fetchers.Provider{
	Name:    pricewatch.RunPod,
	Display: "RunPod",
	Pricing: fetchers.GeneralPricing("https://www.runpod.io/pricing"),
	Facts:   section.Facts{NeedsEndpoint: true},
	Section: func() section.Section {
		// Capacity comes and goes within minutes: polled often, each run
		// is one small request.
		return &Section{section.Keyed{Enabled: true, Endpoint: DefaultEndpoint, Schedule: "*/5 * * * *", Timeout: 2 * time.Minute}}
	},
	Build: fetchers.Builder(func(s *Section, env fetchers.Env) (fetchers.Fetcher, error) {
		// The key is optional: RunPod answers the price query without one.
		key, err := APIKeyFrom(s.APIKeyFile)
		if err != nil {
			return nil, err
		}
		env.Secrets(key)
		return New(Config{Endpoint: s.Endpoint, APIKey: key}, env.Client, env.Log)
	}),
}
