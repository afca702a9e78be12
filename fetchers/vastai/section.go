package vastai

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/section"
)

// Section is providers.vastai: the Vast.ai marketplace search (no key).
type Section struct {
	section.Common `yaml:",inline"`
	// GPUModels are Vast.ai gpu_name values, one search each ("H100 SXM").
	GPUModels []string `yaml:"gpu_models"`
	// MaxPages bounds the 64-offer pages read per GPU model.
	MaxPages int `yaml:"max_pages"`
	// RequestInterval spaces requests (unauthenticated bursts get 429).
	RequestInterval time.Duration `yaml:"request_interval"`
}

// Validate checks the keys beyond the shared ones.
func (s *Section) Validate(k section.Checker) error {
	var errs []error
	for i, m := range s.GPUModels {
		if strings.TrimSpace(m) == "" {
			errs = append(errs, k.Errorf(fmt.Sprintf("gpu_models[%d]", i), "must not be empty"))
		}
	}
	if s.MaxPages < 1 {
		errs = append(errs, k.Errorf("max_pages", "must be at least 1"))
	}
	if s.RequestInterval < 0 {
		errs = append(errs, k.Errorf("request_interval", "must not be negative"))
	}
	return errors.Join(errs...)
}

// Provider registers Vast.ai (see package providers).
var Provider = fetchers.Provider{
	Name:    pricewatch.VastAI,
	Display: "Vast.ai",
	Pricing: fetchers.GeneralPricing("https://cloud.vast.ai/create/"),
	Facts: section.Facts{NeedsEndpoint: true,
		RegionsUnused: "offers are stored per country, every country the marketplace lists"},
	Section: func() section.Section {
		return &Section{
			// Marketplace offers change by the minute: every 15 minutes
			// catches capacity as it appears.
			Common:    section.Common{Enabled: true, Endpoint: DefaultEndpoint, Schedule: "*/15 * * * *", Timeout: 10 * time.Minute},
			GPUModels: slices.Clone(DefaultGPUModels),
			MaxPages:  DefaultMaxPages, RequestInterval: DefaultRequestInterval,
		}
	},
	Build: fetchers.Builder(func(s *Section, env fetchers.Env) (fetchers.Fetcher, error) {
		// request_interval 0 means no spacing; the fetcher's own 0 means
		// its default and a negative value none.
		interval := s.RequestInterval
		if interval == 0 {
			interval = -1
		}
		return New(Config{Endpoint: s.Endpoint, GPUModels: s.GPUModels, MaxPages: s.MaxPages, RequestInterval: interval}, env.Client, env.Log)
	}),
}
