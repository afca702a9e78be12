package analysis

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
)

// h100Market is an H100 market of the shapes issue 31 names: the clouds'
// 8-GPU machines (AWS states p5's network, Lambda states none) beside
// single-GPU marketplace hosts that are cheaper per GPU-hour.
func h100Market() []pricewatch.Offer {
	p5 := offer(pricewatch.AWS, "us-east-1", "", "p5.48xlarge", pricewatch.OnDemand, "", "", "USD", "0", "55.04", "H100", 8)
	p5.GPUMemoryGB, p5.VCPUs, p5.MemoryGB, p5.Interconnect = 80, 192, 2048, "3200 Gigabit"
	lambda8 := offer(pricewatch.Lambda, "global", "", "gpu_8x_h100_sxm5", pricewatch.OnDemand, "", "", "USD", "0", "23.92", "H100", 8)
	lambda8.GPUMemoryGB, lambda8.VCPUs, lambda8.MemoryGB = 80, 208, 1800
	vast := offer(pricewatch.VastAI, "US", "", "1x H100 SXM", pricewatch.OnDemand, "", "", "USD", "0", "1.39", "H100", 1)
	vast.GPUMemoryGB, vast.VCPUs, vast.MemoryGB = 80, 16, 64
	community := offer(pricewatch.RunPod, "global", "", "NVIDIA H100 80GB HBM3", pricewatch.OnDemand, "", "", "USD", "0", "2.69", "H100", 1)
	community.OfferingClass = pricewatch.Community
	return []pricewatch.Offer{p5, lambda8, vast, community}
}

func TestSellerKeeps(t *testing.T) {
	for _, c := range []struct {
		seller          Seller
		provider, class string
		want            bool
	}{
		{"", pricewatch.VastAI, "", true},
		{SellerAny, pricewatch.AWS, "", true},
		{SellerCloud, pricewatch.AWS, "", true},
		{SellerCloud, pricewatch.VastAI, "", false},
		{SellerCloud, pricewatch.RunPod, pricewatch.Community, false},
		{SellerCloud, pricewatch.RunPod, "", true},
		{SellerMarketplace, pricewatch.RunPod, pricewatch.Community, true},
		{SellerMarketplace, pricewatch.Lambda, "", false},
	} {
		if got := c.seller.KeepsOffer(c.provider, c.class); got != c.want {
			t.Errorf("%q keeps %s/%s = %v, want %v", c.seller, c.provider, c.class, got, c.want)
		}
	}
	if Seller("clouds").Valid() {
		t.Error("a misspelt seller is valid")
	}
}

func TestCompareSellerAndHardware(t *testing.T) {
	base := CompareOptions{GPU: "H100", Currency: "USD", FX: ecbBook(t), At: fixtureAt}
	names := func(o CompareOptions) string {
		res, err := Compare(h100Market(), nil, o)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range res.Rows {
			out = append(out, r.Provider)
		}
		return strings.Join(out, ",")
	}
	for _, c := range []struct {
		name string
		set  func(*CompareOptions)
		want string
	}{
		{"any", func(*CompareOptions) {}, "vastai,runpod,lambda,aws"},
		{"cloud", func(o *CompareOptions) { o.Seller = SellerCloud }, "lambda,aws"},
		{"marketplace", func(o *CompareOptions) { o.Seller = SellerMarketplace }, "vastai,runpod"},
		// RunPod's row states no vCPUs: unknown is never enough.
		{"min vcpus", func(o *CompareOptions) { o.Hardware.MinVCPUs = 16 }, "vastai,lambda,aws"},
		{"min memory", func(o *CompareOptions) { o.Hardware.MinMemoryGB = 1024 }, "lambda,aws"},
		{"min gpu memory", func(o *CompareOptions) { o.Hardware.MinGPUMemoryGB = 81 }, ""},
		{"interconnect", func(o *CompareOptions) { o.Hardware.Interconnect = "3200" }, "aws"},
		// 23.92 / 8 = 2.99 per GPU-hour; 55.04 / 8 = 6.88.
		{"max per gpu-hour", func(o *CompareOptions) {
			o.Hardware.MaxPrice, o.Hardware.MaxPricePerGPU = decimal.NewNullDecimal(dec("2.99")), true
		}, "vastai,runpod,lambda"},
		{"max per hour", func(o *CompareOptions) { o.Hardware.MaxPrice = decimal.NewNullDecimal(dec("24")) }, "vastai,runpod,lambda"},
	} {
		o := base
		c.set(&o)
		if got := names(o); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// Issue 31: 16 H100 for three years is never sixteen single-GPU
// marketplace hosts unless asked; two machines whose cloud states their
// interconnect hold it; --hosts allows machines as they are.
func TestRecommendMachinesHoldTheJob(t *testing.T) {
	ask := func(set func(*RecommendOptions)) Recommendation {
		t.Helper()
		o := RecommendOptions{GPU: "H100", Count: 16, Utilization: one, Horizon: "3y", Currency: "USD", FX: ecbBook(t), At: fixtureAt}
		set(&o)
		rec, err := Recommend(h100Market(), nil, o)
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}
	labels := func(rec Recommendation) string {
		var out []string
		for _, o := range rec.Options {
			out = append(out, o.Label())
		}
		return strings.Join(out, "; ")
	}
	rec := ask(func(*RecommendOptions) {})
	if got := labels(rec); got != "2 × aws us-east-1 p5.48xlarge on_demand" {
		t.Errorf("default: %s", got)
	}
	if !strings.Contains(strings.Join(rec.Reasons, "\n"), "3 offers left out: the job would be split over up to 16 machines whose cloud states no interconnect between them (--hosts 16 allows it).") {
		t.Errorf("reasons do not say what was left out: %v", rec.Reasons)
	}
	if rec.BestCloud != 0 || rec.BestMarketplace != -1 {
		t.Errorf("best cloud %d, marketplace %d", rec.BestCloud, rec.BestMarketplace)
	}

	rec = ask(func(o *RecommendOptions) { o.Seller = SellerMarketplace })
	if got := labels(rec); got != "16 × vastai US 1x H100 SXM on_demand; 16 × runpod global NVIDIA H100 80GB HBM3 on_demand community" {
		t.Errorf("marketplace: %s", got)
	}

	rec = ask(func(o *RecommendOptions) { o.Hosts = 2 })
	if got := labels(rec); got != "2 × lambda global gpu_8x_h100_sxm5 on_demand; 2 × aws us-east-1 p5.48xlarge on_demand" {
		t.Errorf("--hosts 2: %s", got)
	}
	if !strings.Contains(strings.Join(rec.Reasons, "\n"), "2 offers left out: 16 GPUs do not fit on up to 2 machines of theirs (the largest machine has 8 GPUs).") {
		t.Errorf("--hosts 2 reasons: %v", rec.Reasons)
	}

	// Both sellers ranked: the cheapest of each, side by side.
	rec = ask(func(o *RecommendOptions) { o.Hosts = 16 })
	if rec.BestMarketplace != 0 || rec.Options[rec.BestCloud].Provider != pricewatch.Lambda {
		t.Fatalf("--hosts 16: best cloud %d, marketplace %d: %s", rec.BestCloud, rec.BestMarketplace, labels(rec))
	}
	if !strings.Contains(strings.Join(rec.Reasons, "\n"), "The cheapest cloud option is 2 × lambda global gpu_8x_h100_sxm5 on_demand at 2.99 USD per GPU-hour.") {
		t.Errorf("--hosts 16 reasons: %v", rec.Reasons)
	}

	rec = ask(func(o *RecommendOptions) {
		o.Hosts, o.Seller, o.Hardware = 16, SellerCloud, HardwareFilter{MaxPrice: decimal.NewNullDecimal(dec("3")), MaxPricePerGPU: true}
	})
	if got := labels(rec); got != "2 × lambda global gpu_8x_h100_sxm5 on_demand" || rec.PriceLeftOut != 1 {
		t.Errorf("cloud under 3 per GPU-hour: %s (%d left out)", got, rec.PriceLeftOut)
	}
}
