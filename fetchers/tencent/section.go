package tencent

import (
	"errors"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/section"
)

// Section is providers.tencent: CVM called with TC3-signed requests.
type Section struct {
	section.Common `yaml:",inline"`
	SecretIDFile   string `yaml:"secret_id_file"`
	SecretKeyFile  string `yaml:"secret_key_file"`
	// Currency of the account's prices: CNY on the China site, USD on the
	// international one (the API does not say).
	Currency string `yaml:"currency"`
	// ImageID is the image quoted when asking prepaid prices; empty picks a
	// public Linux image per region.
	ImageID       string `yaml:"image_id"`
	MaxPriceCalls int    `yaml:"max_price_calls"`
	Concurrency   int    `yaml:"concurrency"`
}

// Validate checks the keys beyond the shared ones.
func (s *Section) Validate(k section.Checker) error {
	var errs []error
	if !section.IsCurrency(s.Currency) {
		errs = append(errs, k.Errorf("currency", "%q is not a three-letter currency code (CNY on the China site, USD on the international one)", s.Currency))
	}
	if s.Concurrency < 1 {
		errs = append(errs, k.Errorf("concurrency", "must be at least 1"))
	}
	return errors.Join(errs...)
}

// Provider registers Tencent Cloud (see package providers).
var Provider = fetchers.Provider{
	Name:    pricewatch.Tencent,
	Display: "Tencent Cloud",
	Pricing: fetchers.GeneralPricing("https://www.tencentcloud.com/pricing/cvm/overview"),
	Section: func() section.Section {
		return &Section{
			Common: section.Common{Enabled: true, Regions: []string{"ap-guangzhou", "ap-shanghai", "ap-beijing", "ap-singapore"},
				Schedule: "45 * * * *", Timeout: 30 * time.Minute},
			Currency: DefaultCurrency, MaxPriceCalls: 500, Concurrency: 4,
		}
	},
	Build: fetchers.Builder(func(s *Section, env fetchers.Env) (fetchers.Fetcher, error) {
		id, key, err := CredentialsFrom(s.SecretIDFile, s.SecretKeyFile)
		if err != nil {
			return nil, err
		}
		env.Secrets(id, key)
		return New(Config{Endpoint: s.Endpoint, Regions: s.Regions, SecretID: id, SecretKey: key, Currency: s.Currency,
			ImageID: s.ImageID, MaxPriceCalls: s.MaxPriceCalls, Concurrency: s.Concurrency}, env.Log)
	}),
}
