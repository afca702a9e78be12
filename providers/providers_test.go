package providers

import (
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch"
)

// Every provider is complete: a name that is a config key, a display name
// and a general pricing page on https.
func TestRegistryComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range All() {
		if p.Name == "" || p.Name != strings.ToLower(p.Name) || strings.ContainsAny(p.Name, " .") {
			t.Errorf("name %q is not a config key", p.Name)
		}
		if seen[p.Name] {
			t.Errorf("%s registered twice", p.Name)
		}
		seen[p.Name] = true
		if p.Display == "" {
			t.Errorf("%s has no display name", p.Name)
		}
		for pt, u := range p.Pricing {
			if !strings.HasPrefix(u, "https://") {
				t.Errorf("%s pricing page for %q is %q", p.Name, pt, u)
			}
		}
		if p.Pricing[""] == "" {
			t.Errorf("%s has no general pricing page", p.Name)
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
		{"nimbus", "nimbus", pricewatch.OnDemand, projectURL},
	}
	for _, tt := range tests {
		if got := DisplayName(tt.name); got != tt.display {
			t.Errorf("DisplayName(%q) = %q, want %q", tt.name, got, tt.display)
		}
		if got := PricingURL(tt.name, tt.pt); got != tt.url {
			t.Errorf("PricingURL(%q, %q) = %q, want %q", tt.name, tt.pt, got, tt.url)
		}
	}
	if got := strings.Join(Names(), ","); got != "aws,azure,alibaba,tencent,lambda,runpod,vastai,oci" {
		t.Errorf("run order %s", got)
	}
}
