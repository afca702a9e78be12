package alibaba

import (
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/section"
)

// Section is providers.alibaba: ECS called with signed requests.
type Section struct {
	section.Common      `yaml:",inline"`
	AccessKeyIDFile     string `yaml:"access_key_id_file"`
	AccessKeySecretFile string `yaml:"access_key_secret_file"`
	MaxPriceCalls       int    `yaml:"max_price_calls"`
	Concurrency         int    `yaml:"concurrency"`
}

// Validate checks the keys beyond the shared ones.
func (s *Section) Validate(k section.Checker) error {
	if s.Concurrency < 1 {
		return k.Errorf("concurrency", "must be at least 1")
	}
	return nil
}

// Provider registers Alibaba Cloud (see package providers).
var Provider = fetchers.Provider{
	Name:    pricewatch.Alibaba,
	Display: "Alibaba Cloud",
	Pricing: fetchers.GeneralPricing("https://www.alibabacloud.com/product/ecs#pricing"),
	Section: func() section.Section {
		return &Section{
			Common: section.Common{Enabled: true, Regions: []string{"cn-hangzhou", "cn-shanghai", "cn-beijing", "ap-southeast-1"},
				Schedule: "25 * * * *", Timeout: 30 * time.Minute},
			MaxPriceCalls: DefaultMaxPriceCalls, Concurrency: DefaultConcurrency,
		}
	},
	Build: fetchers.Builder(func(s *Section, env fetchers.Env) (fetchers.Fetcher, error) {
		id, secret, err := CredentialsFrom(s.AccessKeyIDFile, s.AccessKeySecretFile)
		if err != nil {
			return nil, err
		}
		env.Secrets(id, secret)
		return New(Config{Endpoint: s.Endpoint, Regions: s.Regions, AccessKeyID: id, AccessKeySecret: secret,
			MaxPriceCalls: s.MaxPriceCalls, Concurrency: s.Concurrency}, env.Log)
	}),
}
