// Package providers is the one list of the clouds pricewatch reads: each
// one's name (as config keys, storage and output spell it), the order a
// fetch cycle runs them in, how people write it, where its public prices
// are, and the facts config validation needs about it. Config, the CLI,
// the daemon and the notifiers iterate this list; none keeps its own.
package providers

import (
	"slices"

	"github.com/pricewatch/pricewatch"
)

// Provider is what the rest of pricewatch knows about one cloud.
type Provider struct {
	// Name is the provider's key: providers.<name> in config, the
	// provider column in storage, --provider on the command line.
	Name string
	// Display is the provider as people write it ("Oracle Cloud").
	Display string
	// Pricing is the cloud's public pricing page per price type; the
	// entry for "" is the general page.
	Pricing map[pricewatch.PriceType]string
	// NeedsEndpoint: the fetcher always calls providers.<name>.endpoint
	// (the others build their hosts per region unless an endpoint is set).
	NeedsEndpoint bool
	// RegionsUnused, when set, says why providers.<name>.regions has no
	// meaning for this cloud (and is refused).
	RegionsUnused string
}

// registry in the order a cycle runs them. Adding a cloud: its fetcher
// package and one entry here.
var registry = []Provider{
	{Name: pricewatch.AWS, Display: "AWS", NeedsEndpoint: true, Pricing: map[pricewatch.PriceType]string{
		"":                     "https://aws.amazon.com/ec2/pricing/on-demand/",
		pricewatch.Spot:        "https://aws.amazon.com/ec2/spot/pricing/",
		pricewatch.Reserved:    "https://aws.amazon.com/ec2/pricing/reserved-instances/pricing/",
		pricewatch.SavingsPlan: "https://aws.amazon.com/savingsplans/compute-pricing/",
	}},
	{Name: pricewatch.Azure, Display: "Azure", NeedsEndpoint: true, Pricing: general("https://azure.microsoft.com/en-us/pricing/details/virtual-machines/linux/")},
	{Name: pricewatch.Alibaba, Display: "Alibaba Cloud", Pricing: general("https://www.alibabacloud.com/product/ecs#pricing")},
	{Name: pricewatch.Tencent, Display: "Tencent Cloud", Pricing: general("https://www.tencentcloud.com/pricing/cvm/overview")},
	{Name: pricewatch.Lambda, Display: "Lambda", NeedsEndpoint: true, Pricing: general("https://lambda.ai/pricing")},
	{Name: pricewatch.RunPod, Display: "RunPod", NeedsEndpoint: true, Pricing: general("https://www.runpod.io/pricing")},
	{Name: pricewatch.VastAI, Display: "Vast.ai", NeedsEndpoint: true, Pricing: general("https://cloud.vast.ai/create/"),
		RegionsUnused: "offers are stored per country, every country the marketplace lists"},
	{Name: pricewatch.OCI, Display: "Oracle Cloud", NeedsEndpoint: true, Pricing: general("https://www.oracle.com/cloud/compute/pricing/"),
		RegionsUnused: "OCI's list price is the same in every region and is stored once, under region global"},
}

func general(url string) map[pricewatch.PriceType]string {
	return map[pricewatch.PriceType]string{"": url}
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
