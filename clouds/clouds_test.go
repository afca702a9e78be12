package clouds

import (
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch"
)

// Every cloud is complete: a name that is a config key, a display name
// and a general pricing page on https.
func TestTableComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range All() {
		if c.Name == "" || c.Name != strings.ToLower(c.Name) || strings.ContainsAny(c.Name, " .") {
			t.Errorf("name %q is not a config key", c.Name)
		}
		if seen[c.Name] {
			t.Errorf("%s listed twice", c.Name)
		}
		seen[c.Name] = true
		if c.Display == "" {
			t.Errorf("%s has no display name", c.Name)
		}
		for pt, u := range c.Pricing {
			if !strings.HasPrefix(u, "https://") {
				t.Errorf("%s pricing page for %q is %q", c.Name, pt, u)
			}
		}
		if c.Pricing[""] == "" {
			t.Errorf("%s has no general pricing page", c.Name)
		}
		if c.Marketplace && len(c.MarketplaceClasses) > 0 {
			t.Errorf("%s is a marketplace throughout and lists marketplace classes", c.Name)
		}
		for class, name := range c.MarketplaceClasses {
			if class == "" || name == "" {
				t.Errorf("%s marketplace class %q is named %q", c.Name, class, name)
			}
		}
	}
}

func TestLookups(t *testing.T) {
	tests := []struct {
		name, display string
		pt            pricewatch.PriceType
		url           string
	}{
		{"aws", "AWS", pricewatch.Spot, "https://aws.amazon.com/ec2/spot/pricing/"},
		{"aws", "AWS", pricewatch.OnDemand, "https://aws.amazon.com/ec2/pricing/on-demand/"},
		{"oci", "Oracle Cloud", pricewatch.OnDemand, "https://www.oracle.com/cloud/compute/pricing/"},
		{"vastai", "Vast.ai", pricewatch.Spot, "https://cloud.vast.ai/create/"},
		// Issue 22 item 2: AWS China is a cloud of its own.
		{"aws-cn", "AWS China", pricewatch.Reserved, "https://www.amazonaws.cn/en/ec2/pricing/"},
		// Issue 22 item 6: OVHcloud's name and pricing page.
		{"ovhcloud", "OVHcloud", pricewatch.Reserved, "https://www.ovhcloud.com/en/public-cloud/prices/"},
		// Issue 22 item 1: Google Cloud, its GPU, spot and committed-use pages.
		{"gcp", "Google Cloud", pricewatch.OnDemand, "https://cloud.google.com/compute/gpus-pricing"},
		{"gcp", "Google Cloud", pricewatch.Spot, "https://cloud.google.com/spot-vms/pricing"},
		{"gcp", "Google Cloud", pricewatch.Reserved, "https://cloud.google.com/compute/docs/instances/committed-use-discounts-overview"},
		// Issue 22 item 3: Azure operated by 21Vianet.
		{"azure-cn", "Azure China", pricewatch.OnDemand, "https://www.azure.cn/en-us/pricing/details/virtual-machines/"},
		// Issue 22 item 4: Huawei Cloud.
		{"huawei", "Huawei Cloud", pricewatch.Reserved, "https://www.huaweicloud.com/intl/en-us/pricing/calculator.html#/ecs"},
		// Issue 33 item 1: the neoclouds.
		{"scaleway", "Scaleway", pricewatch.OnDemand, "https://www.scaleway.com/en/pricing/gpu/"},
		{"vultr", "Vultr", pricewatch.Spot, "https://www.vultr.com/pricing/"},
		{"digitalocean", "DigitalOcean", pricewatch.OnDemand, "https://www.digitalocean.com/pricing/gpu-droplets"},
		// Issue 33: prices from their pages, through price sheets.
		{"coreweave", "CoreWeave", pricewatch.Spot, "https://www.coreweave.com/pricing"},
		{"crusoe", "Crusoe", pricewatch.OnDemand, "https://www.crusoe.ai/cloud/pricing"},
		// Issue 33 item 2.
		{"volcengine", "Volcengine", pricewatch.OnDemand, "https://www.volcengine.com/pricing?product=ECS"},
		{"nimbus", "nimbus", pricewatch.OnDemand, ProjectURL},
	}
	for _, tt := range tests {
		if got := DisplayName(tt.name); got != tt.display {
			t.Errorf("DisplayName(%q) = %q, want %q", tt.name, got, tt.display)
		}
		if got := PricingURL(tt.name, tt.pt); got != tt.url {
			t.Errorf("PricingURL(%q, %q) = %q, want %q", tt.name, tt.pt, got, tt.url)
		}
	}
	if got := strings.Join(Names(), ","); got != "aws,azure,alibaba,tencent,lambda,runpod,vastai,oci,aws-cn,ovhcloud,gcp,azure-cn,huawei,scaleway,vultr,digitalocean,coreweave,crusoe,shadeform,verda,hyperstack,volcengine,nebius" {
		t.Errorf("run order %s", got)
	}
}

// The table hands out copies: a caller changing what it got changes
// nothing for the next one.
func TestCopies(t *testing.T) {
	c, ok := Lookup(pricewatch.RunPod)
	if !ok {
		t.Fatal("runpod is not in the table")
	}
	c.Pricing[""] = "http://changed"
	c.MarketplaceClasses["secure"] = "RunPod Secure"
	all := All()
	all[0].Pricing[""] = "http://changed"
	if PricingURL(pricewatch.RunPod, "") == "http://changed" || PricingURL(pricewatch.AWS, pricewatch.OnDemand) == "http://changed" {
		t.Error("a caller's change reached the table's pricing pages")
	}
	if !IsMarketplace(pricewatch.RunPod, pricewatch.Community) || IsMarketplace(pricewatch.RunPod, "secure") {
		t.Error("a caller's change reached the table's marketplace classes")
	}
}

func TestIsMarketplace(t *testing.T) {
	tests := []struct {
		provider, class string
		want            bool
	}{
		{pricewatch.VastAI, "", true},
		{pricewatch.VastAI, "anything", true},
		{"runpod", "community", true},
		{"runpod", "secure", false},
		{"runpod", "", false},
		{pricewatch.OCI, "", false},
		{pricewatch.OVHcloud, "", false},
		{pricewatch.GCP, "flex_start", false},
		{pricewatch.AWS, pricewatch.Standard, false},
		{pricewatch.Azure, "", false},
		{"lambda", "", false},
		// The offering class means something only together with RunPod.
		{pricewatch.AWS, "community", false},
		{"nimbus", "community", false},
	}
	for _, tt := range tests {
		if got := IsMarketplace(tt.provider, tt.class); got != tt.want {
			t.Errorf("IsMarketplace(%q, %q) = %v, want %v", tt.provider, tt.class, got, tt.want)
		}
	}
}

// The names the recommendation's marketplace note and the FOCUS export
// print (they were analysis.MarketplaceName and cmd's focusProviderNames
// before the table held them).
func TestPrintedNames(t *testing.T) {
	tests := []struct {
		provider, class string
		market, focus   string
	}{
		{pricewatch.VastAI, "", "Vast.ai", "Vast.ai"},
		{pricewatch.RunPod, pricewatch.Community, "RunPod Community", "RunPod"},
		{pricewatch.RunPod, "secure", "RunPod", "RunPod"},
		{pricewatch.AWS, pricewatch.Standard, "AWS", "AWS"},
		{pricewatch.Azure, "", "Azure", "Microsoft"},
		{pricewatch.Alibaba, "", "Alibaba Cloud", "Alibaba Cloud"},
		{pricewatch.Tencent, "", "Tencent Cloud", "Tencent Cloud"},
		{pricewatch.OCI, "", "Oracle Cloud", "Oracle Cloud Infrastructure"},
		// OVHcloud publishes no FOCUS export (its roadmap item is open): its
		// readable name.
		{pricewatch.OVHcloud, "", "OVHcloud", "OVHcloud"},
		// Google's FOCUS export names itself "Google Cloud".
		{pricewatch.GCP, "flex_start", "Google Cloud", "Google Cloud"},
		{pricewatch.AzureChina, "", "Azure China", "Azure China"},
		{pricewatch.Huawei, "", "Huawei Cloud", "Huawei Cloud"},
		{"nimbus", "community", "nimbus", "nimbus"},
	}
	for _, tt := range tests {
		if got := MarketplaceName(tt.provider, tt.class); got != tt.market {
			t.Errorf("MarketplaceName(%q, %q) = %q, want %q", tt.provider, tt.class, got, tt.market)
		}
		if got := FOCUSProviderName(tt.provider); got != tt.focus {
			t.Errorf("FOCUSProviderName(%q) = %q, want %q", tt.provider, got, tt.focus)
		}
	}
}

// Issue 33: CoreWeave's Capacity Finder answers are confidential to the
// customer; no other cloud's are.
func TestConfidentialAvailability(t *testing.T) {
	for _, c := range All() {
		if got := ConfidentialAvailability(c.Name); (got != "") != (c.Name == pricewatch.CoreWeave) {
			t.Errorf("%s: confidential %q", c.Name, got)
		}
	}
}
