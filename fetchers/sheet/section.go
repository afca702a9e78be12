package sheet

import (
	"errors"
	"time"

	"github.com/pricewatch/pricewatch/section"
)

// Keys are the keys of a provider whose prices come from price sheets
// and whose API only adds availability (CoreWeave, Crusoe): the keys
// every provider shares but regions (the sheets and the API name their
// own), and price_sheets. A provider's section embeds it inline, beside
// the keys of its credentials.
type Keys struct {
	Enabled  bool          `yaml:"enabled"`
	Endpoint string        `yaml:"endpoint"`
	Schedule string        `yaml:"schedule"`
	Timeout  time.Duration `yaml:"timeout"`
	// PriceSheets are the files or URLs of the sheets with the cloud's
	// prices (this package's format).
	PriceSheets []string `yaml:"price_sheets"`
}

// Shared returns the keys every provider has.
func (s Keys) Shared() section.Common {
	return section.Common{Enabled: s.Enabled, Endpoint: s.Endpoint, Schedule: s.Schedule, Timeout: s.Timeout}
}

// Check checks, when the provider is on, price_sheets and the key
// secretKey naming the file of the credential's secret, file.
func (s Keys) Check(k section.Checker, secretKey, file string) error {
	if !s.Enabled {
		return nil
	}
	return errors.Join(k.SecretFile(secretKey, file), CheckSources(k, "price_sheets", s.PriceSheets))
}
