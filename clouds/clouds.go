// Package clouds is the table of the clouds pricewatch reads: each cloud's
// name, how people write it, its public pricing pages and whether its
// offers are sold by third-party hosts. It is a leaf (it imports only the
// domain types), so the notifiers, analysis, the reports and the web pages
// can name a cloud without linking its fetcher, its SDK or the config.
//
// The fetcher and config section of each cloud are composed elsewhere
// (package providers, in this table's order). Adding a cloud: one entry
// here, its package under fetchers/ and one line in providers.
package clouds

import (
	"maps"
	"strings"

	"github.com/pricewatch/pricewatch"
)

// Cloud is what the rest of pricewatch knows about one cloud without its
// fetcher.
type Cloud struct {
	// Name is the cloud's key: providers.<name> in config, the provider
	// column in storage, --provider on the command line.
	Name string
	// Display is the cloud as people write it ("Oracle Cloud").
	Display string
	// Pricing is the cloud's public pricing page per price type; the
	// entry for "" is the general page.
	Pricing map[pricewatch.PriceType]string
	// Marketplace: every offer of the cloud is sold by third-party hosts
	// through a marketplace, not by the cloud itself (Vast.ai).
	Marketplace bool
	// MarketplaceClasses are the offering classes that are a marketplace
	// on a cloud that otherwise sells its own machines (RunPod's
	// Community Cloud beside its Secure Cloud), each with how people
	// write that marketplace.
	MarketplaceClasses map[string]string
	// FOCUSName is the ProviderName of the cloud's FOCUS rows: the name it
	// gives itself in its own FOCUS billing exports ("Microsoft" for
	// Azure), else its readable name ("Oracle Cloud Infrastructure");
	// empty rows carry Display.
	FOCUSName string
	// Confidential, when set, says why the cloud's availability is
	// confidential to the customer (CoreWeave's Capacity Finder): it may
	// alert the company's own channels and show on its dashboard, marked,
	// but goes into no file meant for another party.
	Confidential string
}

// table in the order a fetch cycle runs the clouds.
var table = []Cloud{
	{Name: pricewatch.AWS, Display: "AWS", FOCUSName: "AWS", Pricing: map[pricewatch.PriceType]string{
		"":                     "https://aws.amazon.com/ec2/pricing/on-demand/",
		pricewatch.Spot:        "https://aws.amazon.com/ec2/spot/pricing/",
		pricewatch.Reserved:    "https://aws.amazon.com/ec2/pricing/reserved-instances/pricing/",
		pricewatch.SavingsPlan: "https://aws.amazon.com/savingsplans/compute-pricing/",
	}},
	{Name: pricewatch.Azure, Display: "Azure", FOCUSName: "Microsoft",
		Pricing: general("https://azure.microsoft.com/en-us/pricing/details/virtual-machines/linux/")},
	{Name: pricewatch.Alibaba, Display: "Alibaba Cloud", FOCUSName: "Alibaba Cloud",
		Pricing: general("https://www.alibabacloud.com/product/ecs#pricing")},
	{Name: pricewatch.Tencent, Display: "Tencent Cloud", FOCUSName: "Tencent Cloud",
		Pricing: general("https://www.tencentcloud.com/pricing/cvm/overview")},
	{Name: pricewatch.Lambda, Display: "Lambda", FOCUSName: "Lambda", Pricing: general("https://lambda.ai/pricing")},
	{Name: pricewatch.RunPod, Display: "RunPod", FOCUSName: "RunPod", Pricing: general("https://www.runpod.io/pricing"),
		MarketplaceClasses: map[string]string{pricewatch.Community: "RunPod Community"}},
	{Name: pricewatch.VastAI, Display: "Vast.ai", FOCUSName: "Vast.ai", Pricing: general("https://cloud.vast.ai/create/"), Marketplace: true},
	{Name: pricewatch.OCI, Display: "Oracle Cloud", FOCUSName: "Oracle Cloud Infrastructure", Pricing: general("https://www.oracle.com/cloud/compute/pricing/")},
	// AWS China's own billing exports name it as AWS's do.
	{Name: pricewatch.AWSChina, Display: "AWS China", FOCUSName: "AWS",
		Pricing: general("https://www.amazonaws.cn/en/ec2/pricing/")},
	{Name: pricewatch.OVHcloud, Display: "OVHcloud", Pricing: general("https://www.ovhcloud.com/en/public-cloud/prices/")},
	// Google's billing exports (and FOCUS data) name the provider "Google Cloud".
	{Name: pricewatch.GCP, Display: "Google Cloud", FOCUSName: "Google Cloud", Pricing: map[pricewatch.PriceType]string{
		"":                  "https://cloud.google.com/compute/gpus-pricing",
		pricewatch.Spot:     "https://cloud.google.com/spot-vms/pricing",
		pricewatch.Reserved: "https://cloud.google.com/compute/docs/instances/committed-use-discounts-overview",
	}},
	// No FOCUS export of 21Vianet's was found to take its name from: its
	// readable name.
	{Name: pricewatch.AzureChina, Display: "Azure China",
		Pricing: general("https://www.azure.cn/en-us/pricing/details/virtual-machines/")},
	// Huawei Cloud's FOCUS name: none found either.
	{Name: pricewatch.Huawei, Display: "Huawei Cloud", Pricing: general("https://www.huaweicloud.com/intl/en-us/pricing/calculator.html#/ecs")},
	// Scaleway, Vultr and DigitalOcean: no FOCUS export of theirs found
	// to take a name from.
	{Name: pricewatch.Scaleway, Display: "Scaleway", Pricing: general("https://www.scaleway.com/en/pricing/gpu/")},
	{Name: pricewatch.Vultr, Display: "Vultr", Pricing: general("https://www.vultr.com/pricing/")},
	{Name: pricewatch.DigitalOcean, Display: "DigitalOcean", Pricing: general("https://www.digitalocean.com/pricing/gpu-droplets")},
	// CoreWeave's and Crusoe's prices come from price sheets of their
	// pages (package fetchers/sheet).
	{Name: pricewatch.CoreWeave, Display: "CoreWeave", Pricing: general("https://www.coreweave.com/pricing"),
		Confidential: "CoreWeave Capacity Finder data is CoreWeave's confidential information: not to be shared outside your company"},
	{Name: pricewatch.Crusoe, Display: "Crusoe", Pricing: general("https://www.crusoe.ai/cloud/pricing")},
	// Shadeform resells other clouds' machines at its own prices: every
	// offer is a resale (a marketplace offer), its offering class the
	// underlying cloud, so a cheapest-per-cloud answer counts the machine
	// under shadeform only, once.
	{Name: pricewatch.Shadeform, Display: "Shadeform", Pricing: general("https://www.shadeform.ai/"), Marketplace: true},
	{Name: pricewatch.Verda, Display: "Verda", Pricing: map[pricewatch.PriceType]string{
		"":              "https://verda.com/products",
		pricewatch.Spot: "https://verda.com/products",
	}},
	{Name: pricewatch.Hyperstack, Display: "Hyperstack", Pricing: general("https://www.hyperstack.cloud/gpu-pricing")},
	// Volcengine: stock from its API, prices from price sheets (its
	// billing API cannot be asked for an instance type's price).
	{Name: pricewatch.Volcengine, Display: "Volcengine", Pricing: general("https://www.volcengine.com/pricing?product=ECS")},
	// Nebius: no FOCUS export of its found to take a name from.
	{Name: pricewatch.Nebius, Display: "Nebius", Pricing: map[pricewatch.PriceType]string{
		"":              "https://nebius.com/prices",
		pricewatch.Spot: "https://docs.nebius.com/compute/virtual-machines/preemptible",
	}},
}

// general is a pricing map with only the general page.
func general(url string) map[pricewatch.PriceType]string {
	return map[pricewatch.PriceType]string{"": url}
}

// ProjectURL is where a cloud pricewatch does not know points.
const ProjectURL = "https://github.com/pricewatch/pricewatch"

// All returns every cloud in run order. The entries are copies: changing
// one changes nothing here.
func All() []Cloud {
	out := make([]Cloud, len(table))
	for i, c := range table {
		out[i] = c.clone()
	}
	return out
}

func (c Cloud) clone() Cloud {
	c.Pricing = maps.Clone(c.Pricing)
	c.MarketplaceClasses = maps.Clone(c.MarketplaceClasses)
	return c
}

// find is the table's entry called name, nil for none; callers only read
// it (the lookups below run once per offer in a comparison, so they copy
// nothing).
func find(name string) *Cloud {
	for i := range table {
		if table[i].Name == name {
			return &table[i]
		}
	}
	return nil
}

// Names returns every cloud's name in run order.
func Names() []string {
	out := make([]string, len(table))
	for i, c := range table {
		out[i] = c.Name
	}
	return out
}

// Lookup returns the cloud called name.
func Lookup(name string) (Cloud, bool) {
	c := find(name)
	if c == nil {
		return Cloud{}, false
	}
	return c.clone(), true
}

// DisplayName is the cloud as people write it; an unknown name is
// returned as it is.
func DisplayName(name string) string {
	if c := find(name); c != nil {
		return c.Display
	}
	return name
}

// PricingURL is the cloud's public pricing page for a price type (its
// general page when it has none for that type; the project's page for a
// cloud it does not know).
func PricingURL(name string, pt pricewatch.PriceType) string {
	c := find(name)
	if c == nil {
		return ProjectURL
	}
	if u, ok := c.Pricing[pt]; ok {
		return u
	}
	return c.Pricing[""]
}

// IsMarketplace reports whether offers of this provider and offering class
// are sold by third-party hosts through a marketplace rather than by the
// cloud itself. A marketplace machine may be interrupted or withdrawn by its
// host, its reliability varies per host, and the marketplace's own terms
// apply; comparisons keep that visible instead of ranking it silently next
// to a cloud's price.
//
// Vast.ai is a marketplace throughout. RunPod's Community Cloud (offering
// class "community") is one; its Secure Cloud is RunPod's own data centres.
// An offering class means nothing on a cloud that lists none.
func IsMarketplace(provider, offeringClass string) bool {
	c := find(provider)
	if c == nil {
		return false
	}
	_, ok := c.MarketplaceClasses[offeringClass]
	return c.Marketplace || ok
}

// MarketplaceName names the marketplace an offer is sold on for people:
// "Vast.ai", "RunPod Community"; for an offer the cloud sells itself, the
// cloud ("RunPod"), and an unknown name as it is.
func MarketplaceName(provider, offeringClass string) string {
	c := find(provider)
	if c == nil {
		return provider
	}
	if n, ok := c.MarketplaceClasses[offeringClass]; ok {
		return n
	}
	return c.Display
}

// FOCUSProviderName is the ProviderName of a FOCUS row of the cloud: the
// one its own FOCUS exports carry, else pricewatch's name for it.
func FOCUSProviderName(name string) string {
	c := find(name)
	switch {
	case c == nil:
		return name
	case c.FOCUSName != "":
		return c.FOCUSName
	}
	return c.Display
}

// DisplayList names the clouds as people write them ("AWS, Azure, … and
// Vast.ai"), so that help texts never lag the table.
func DisplayList() string {
	var names []string
	for _, c := range table {
		names = append(names, c.Display)
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// ConfidentialAvailability is why the cloud's availability is
// confidential to the customer ("" when it is not).
func ConfidentialAvailability(name string) string {
	if c := find(name); c != nil {
		return c.Confidential
	}
	return ""
}
