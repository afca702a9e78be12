// Package providers is the one list of the clouds pricewatch reads: each
// cloud's package defines its Provider (name, display name, pricing pages,
// config section, constructor) and this list holds them in the order a
// fetch cycle runs them. Config, the CLI, the daemon and the notifiers
// iterate this list; none keeps its own.
package providers

import (
	"slices"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/alibaba"
	"github.com/pricewatch/pricewatch/fetchers/aws"
	"github.com/pricewatch/pricewatch/fetchers/azure"
	"github.com/pricewatch/pricewatch/fetchers/lambda"
	"github.com/pricewatch/pricewatch/fetchers/oci"
	"github.com/pricewatch/pricewatch/fetchers/runpod"
	"github.com/pricewatch/pricewatch/fetchers/tencent"
	"github.com/pricewatch/pricewatch/fetchers/vastai"
)

// Provider is what the rest of pricewatch knows about one cloud.
type Provider = fetchers.Provider

// registry in the order a cycle runs them. Adding a cloud: its package
// under fetchers/ (with its Provider) and one line here.
var registry = []Provider{
	aws.Provider,
	azure.Provider,
	alibaba.Provider,
	tencent.Provider,
	lambda.Provider,
	runpod.Provider,
	vastai.Provider,
	oci.Provider,
}

// projectURL is where a provider pricewatch does not know points.
const projectURL = "https://github.com/pricewatch/pricewatch"

// All returns every provider in run order.
func All() []Provider { return slices.Clone(registry) }

// Names returns every provider's name in run order.
func Names() []string {
	out := make([]string, len(registry))
	for i, p := range registry {
		out[i] = p.Name
	}
	return out
}

// Lookup returns the provider called name.
func Lookup(name string) (Provider, bool) {
	i := slices.IndexFunc(registry, func(p Provider) bool { return p.Name == name })
	if i < 0 {
		return Provider{}, false
	}
	return registry[i], true
}

// DisplayName is the provider as people write it; an unknown name is
// returned as it is.
func DisplayName(name string) string {
	if p, ok := Lookup(name); ok {
		return p.Display
	}
	return name
}

// PricingURL is the cloud's public pricing page for a price type (its
// general page when it has none for that type).
func PricingURL(name string, pt pricewatch.PriceType) string {
	p, ok := Lookup(name)
	if !ok {
		return projectURL
	}
	if u, ok := p.Pricing[pt]; ok {
		return u
	}
	return p.Pricing[""]
}
