// Package providers composes each cloud pricewatch reads with its fetcher:
// each cloud's package under fetchers/ defines its Provider (config
// section, constructor) and this list holds them in the order of package
// clouds' table, the order a fetch cycle runs them. Config and the code
// that builds the fetch jobs iterate this list; what only names a cloud
// (notifiers, reports, the web pages) reads package clouds instead and
// links no fetcher.
package providers

import (
	"slices"

	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/alibaba"
	"github.com/pricewatch/pricewatch/fetchers/aws"
	"github.com/pricewatch/pricewatch/fetchers/awscn"
	"github.com/pricewatch/pricewatch/fetchers/azure"
	"github.com/pricewatch/pricewatch/fetchers/azurecn"
	"github.com/pricewatch/pricewatch/fetchers/coreweave"
	"github.com/pricewatch/pricewatch/fetchers/crusoe"
	"github.com/pricewatch/pricewatch/fetchers/digitalocean"
	"github.com/pricewatch/pricewatch/fetchers/gcp"
	"github.com/pricewatch/pricewatch/fetchers/huawei"
	"github.com/pricewatch/pricewatch/fetchers/hyperstack"
	"github.com/pricewatch/pricewatch/fetchers/lambda"
	"github.com/pricewatch/pricewatch/fetchers/nebius"
	"github.com/pricewatch/pricewatch/fetchers/oci"
	"github.com/pricewatch/pricewatch/fetchers/ovhcloud"
	"github.com/pricewatch/pricewatch/fetchers/runpod"
	"github.com/pricewatch/pricewatch/fetchers/scaleway"
	"github.com/pricewatch/pricewatch/fetchers/shadeform"
	"github.com/pricewatch/pricewatch/fetchers/tencent"
	"github.com/pricewatch/pricewatch/fetchers/vastai"
	"github.com/pricewatch/pricewatch/fetchers/verda"
	"github.com/pricewatch/pricewatch/fetchers/volcengine"
	"github.com/pricewatch/pricewatch/fetchers/vultr"
)

// Provider is one cloud's config section and fetcher constructor.
type Provider = fetchers.Provider

// registry in clouds' order (TestRegistryFollowsClouds holds it so).
// Adding a cloud: its entry in package clouds, its package under
// fetchers/ (with its Provider) and one line here.
var registry = []Provider{
	aws.Provider,
	azure.Provider,
	alibaba.Provider,
	tencent.Provider,
	lambda.Provider,
	runpod.Provider,
	vastai.Provider,
	oci.Provider,
	awscn.Provider,
	ovhcloud.Provider,
	gcp.Provider,
	azurecn.Provider,
	huawei.Provider,
	scaleway.Provider,
	vultr.Provider,
	digitalocean.Provider,
	coreweave.Provider,
	crusoe.Provider,
	shadeform.Provider,
	verda.Provider,
	hyperstack.Provider,
	volcengine.Provider,
	nebius.Provider,
}

// All returns every provider in run order.
func All() []Provider { return slices.Clone(registry) }

// Names returns every provider's name in run order (package clouds'
// order).
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
