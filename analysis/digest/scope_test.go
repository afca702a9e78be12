package digest

import (
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
)

// TestScope: digest.regions, digest.providers and digest.sellers each
// narrow what the digest reports, the week's change counts included.
func TestScope(t *testing.T) {
	counts := []ChangeCount{
		{GPUModel: "H100", Region: "us-east-1", Provider: pricewatch.AWS, N: 3},
		{GPUModel: "H100", Region: "US", Provider: pricewatch.VastAI, N: 5},
		{GPUModel: "H100", Region: "global", Provider: pricewatch.RunPod, OfferingClass: pricewatch.Community, N: 7},
		{GPUModel: "H100", Region: "global", Provider: pricewatch.RunPod, N: 11},
	}
	watched := func(string) bool { return true }
	for _, c := range []struct {
		name string
		in   Input
		want int
	}{
		{"everything", Input{}, 26},
		{"cloud", Input{Seller: analysis.SellerCloud}, 14},
		{"marketplace", Input{Seller: analysis.SellerMarketplace}, 12},
		{"providers", Input{Providers: []string{"runpod"}}, 18},
		{"runpod's own", Input{Providers: []string{"RunPod"}, Seller: analysis.SellerCloud}, 11},
		{"region", Input{Regions: []string{"us-east-1"}}, 3},
	} {
		if got := weekChanges(counts, watched, &c.in); got != c.want {
			t.Errorf("%s: %d changes, want %d", c.name, got, c.want)
		}
	}
}
