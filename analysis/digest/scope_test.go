package digest

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

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

// TestHeadlineSideBySide: the cheapest on-demand H100 of the clouds and
// of marketplace hosts are kept apart (issue 31): a Vast.ai box cheaper
// per GPU-hour is not the model's on-demand headline.
func TestHeadlineSideBySide(t *testing.T) {
	offer := func(provider, region, typ, hourly string, gpus float64) pricewatch.Offer {
		return pricewatch.Offer{Provider: provider, Region: region, InstanceType: typ, PriceType: pricewatch.OnDemand, OS: pricewatch.Linux,
			Currency: "USD", Hourly: decimal.RequireFromString(hourly), Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: gpus}}
	}
	offers := []pricewatch.Offer{
		offer(pricewatch.Lambda, "global", "gpu_8x_h100_sxm5", "23.92", 8),
		offer(pricewatch.VastAI, "US", "1x H100 SXM", "1.39", 1),
	}
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	rater, err := analysis.NewRater(analysis.AvailabilityIndex{}, analysis.CompareOptions{Currency: "USD", At: now, CheapestOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	row, err := modelRow("H100", offers, rater, nil, Input{Now: now}, "USD")
	if err != nil {
		t.Fatal(err)
	}
	if row.OnDemand == nil || row.OnDemand.Offer.Provider != pricewatch.Lambda || !row.OnDemand.PerGPUHour.Equal(decimal.RequireFromString("2.99")) {
		t.Errorf("on-demand headline %+v, want Lambda's 2.99", row.OnDemand)
	}
	if row.MarketOnDemand == nil || row.MarketOnDemand.Offer.Provider != pricewatch.VastAI {
		t.Errorf("marketplace beside it %+v, want Vast.ai's", row.MarketOnDemand)
	}
}
