package analysis

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
)

func seedQuestion(t *testing.T) RecommendOptions {
	// Hosts 2: the fixture's 4-GPU Azure VMs state no interconnect, and the
	// team allows two machines as they are (issue 31).
	return RecommendOptions{GPU: "A100", Count: 8, Utilization: dec("0.6"), Horizon: "3y", Currency: "USD", FX: ecbBook(t), At: fixtureAt, Hosts: 2}
}

// recommendSeed answers the seed question, changed by change (nil: as it
// is), over the A100 offers and their availability.
func recommendSeed(t *testing.T, change func(q *RecommendOptions)) Recommendation {
	t.Helper()
	q := seedQuestion(t)
	if change != nil {
		change(&q)
	}
	rec, err := Recommend(a100Offers(), availabilityFixture(), q)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// The seed question: cost-sensitive team, 8 GPUs, ~60 % utilisation, 3 years.
//
// Hand-computed, 3 years = 26,280 h, at u = 0.6, 1 CNY = 1.0163 / 6.8095 USD:
//
//	alibaba ebmgn7e 3y sub     2,522,880 CNY                 = 376,533.2174168441 USD
//	aws p4d 3y partial         200,000 + 8.00 × 26,280       = 410,240 USD
//	tencent GT4 3y prepaid     2,759,400 CNY                 = 411,833.2065496733 USD (sold out)
//	azure ND96amsr 3y          420,000 USD
//	azure NC96ads on demand    2 × 14.69 × 26,280 × 0.6      = 463,263.84 USD
//	alibaba 1y sub × 3         3 × 1,051,200 CNY             = 470,666.5217710551 USD
//	azure savings plan 3y      18.50 × 26,280                = 486,180 USD
//	aws p4d on demand          32.77 × 26,280 × 0.6          = 516,717.36 USD
//	azure ND96amsr on demand   same                          = 516,717.36 USD
//	alibaba on demand          220 × 26,280 × 0.6 CNY        = 517,733.1739481606 USD
//	azure 1y reserved × 3      3 × 180,000                   = 540,000 USD
//	tencent on demand          230 × 26,280 × 0.6 CNY        = 541,266.5000367134 USD
//	alibaba 1m sub × 36        36 × 102,200 CNY              = 549,110.9420662310 USD
func TestRecommendSeedQuestion(t *testing.T) {
	rec := recommendSeed(t, nil)
	want := []struct{ label, total string }{
		{"1 × alibaba cn-hangzhou ecs.ebmgn7e.32xlarge reserved 3y all_upfront", "376533.2174168441"},
		{"1 × aws us-east-1 p4d.24xlarge reserved 3y partial_upfront standard", "410240"},
		{"1 × tencent ap-guangzhou-6 GT4.41XLARGE948 reserved 3y all_upfront", "411833.2065496733"},
		{"1 × azure eastus Standard_ND96amsr_A100_v4 reserved 3y all_upfront", "420000"},
		{"2 × azure eastus Standard_NC96ads_A100_v4 on_demand", "463263.84"},
		{"1 × alibaba cn-hangzhou ecs.ebmgn7e.32xlarge reserved 1y all_upfront", "470666.5217710551"},
		{"1 × azure eastus Standard_ND96amsr_A100_v4 savings_plan 3y compute", "486180"},
		{"1 × aws us-east-1 p4d.24xlarge on_demand", "516717.36"},
		{"1 × azure eastus Standard_ND96amsr_A100_v4 on_demand", "516717.36"},
		{"1 × alibaba cn-hangzhou ecs.ebmgn7e.32xlarge on_demand", "517733.1739481606"},
		{"1 × azure eastus Standard_ND96amsr_A100_v4 reserved 1y all_upfront", "540000"},
		{"1 × tencent ap-guangzhou-6 GT4.41XLARGE948 on_demand", "541266.5000367134"},
		{"1 × alibaba cn-hangzhou ecs.ebmgn7e.32xlarge reserved 1m all_upfront", "549110.942066231"},
	}
	if len(rec.Options) != len(want) {
		t.Fatalf("%d options, want %d", len(rec.Options), len(want))
	}
	for i, w := range want {
		o := rec.Options[i]
		if o.Label() != w.label || !o.TotalCost.Equal(dec(w.total)) || o.Rank != i+1 {
			t.Errorf("option %d = %q %s, want %q %s", i, o.Label(), o.TotalCost, w.label, w.total)
		}
	}
	best, ok := rec.BestOption()
	if !ok || rec.Best != 0 {
		t.Fatalf("best = %d", rec.Best)
	}
	// 376,533.2174168441 / (8 × 26,280 × 0.6 = 126,144 GPU-hours used) = 2.9849474998
	// Break-even against Alibaba on-demand: 2,522,880 / (220 × 26,280) = 0.436364
	if !best.CostPerGPUHour.Equal(dec("2.9849474998")) || !best.BreakEvenUtilization.Decimal.Equal(dec("0.436364")) ||
		best.Terms != 1 || best.CommittedHours != 26280 || best.NativeCurrency != "CNY" || best.FXDate != "2022-07-08" {
		t.Errorf("best = %+v", best)
	}
	if m := rec.Options[12]; m.Terms != 36 || m.CommittedHours != 26280 {
		t.Errorf("monthly subscription: %d terms, %d h", m.Terms, m.CommittedHours)
	}
	if nc := rec.Options[4]; nc.Instances != 2 || nc.GPUsPerInstance != 4 || nc.BreakEvenUtilization.Valid {
		t.Errorf("NC96ads option = %+v", nc)
	}
	// Going down from 60 %, the first on-demand line to cross the best's is
	// 2 × NC96ads: 376,533.2174168441 / 772,106.4 = 0.487670. Nothing
	// overtakes a fixed cost going up.
	if rec.Lower == nil || !rec.Lower.Utilization.Equal(dec("0.48767")) || rec.Lower.Option.InstanceType != "Standard_NC96ads_A100_v4" || !rec.Lower.Below {
		t.Errorf("lower crossover = %+v", rec.Lower)
	}
	if rec.Upper != nil {
		t.Errorf("upper crossover = %+v", rec.Upper)
	}
	if got := strings.Join(rec.Models, ","); got != "A100-40GB,A100-80GB,A100-80GB-PCIe" {
		t.Errorf("models = %s", got)
	}

	reasons := strings.Join(rec.Reasons, "\n")
	for _, s := range []string{
		"Compared 13 options for 8 × A100 GPUs (A100-40GB, A100-80GB, A100-80GB-PCIe) over 3y at 60% utilisation, costs in USD.",
		"1 spot price left out",
		"Cheapest: 1 × alibaba cn-hangzhou ecs.ebmgn7e.32xlarge reserved 3y all_upfront, 376,533.22 USD over 3y (2.98 USD per GPU-hour used).",
		"breaks even at 43.64% utilisation; 60% is planned",
		"Next: 1 × aws us-east-1 p4d.24xlarge reserved 3y partial_upfront standard, 410,240.00 USD (33,706.78 USD more).",
		"CNY converted at 1 CNY = 0.149247375 USD (ECB 2022-07-08).",
	} {
		if !strings.Contains(reasons, s) {
			t.Errorf("reasons lack %q:\n%s", s, reasons)
		}
	}
	changes := strings.Join(rec.Changes, "\n")
	for _, s := range []string{
		"Below 48.77% utilisation, 2 × azure eastus Standard_NC96ads_A100_v4 on_demand would be cheapest.",
		// (410,240 − 376,533.22) / 410,240 = 8.22 %; 410,240 / 376,533.22 − 1 = 8.95 %
		"p4d.24xlarge reserved 3y partial_upfront standard would be cheapest if its price fell by more than 8.22%, or if CNY gained more than 8.95% against USD.",
		// Over one year: 2 × 14.69 × 8,760 × 0.6 = 154,421.28 USD
		"Over 1y instead of 3y, 2 × azure eastus Standard_NC96ads_A100_v4 on_demand would be cheapest (154,421.28 USD).",
	} {
		if !strings.Contains(changes, s) {
			t.Errorf("changes lack %q:\n%s", s, changes)
		}
	}
}

func TestRecommendInCNY(t *testing.T) {
	rec := recommendSeed(t, func(q *RecommendOptions) { q.Currency = "CNY" })
	best, _ := rec.BestOption()
	// The CNY option needs no conversion; USD ones carry the inverse rate:
	// 410,240 × 6.8095 / 1.0163 = 2,748,725.0614975893 CNY.
	if !best.TotalCost.Equal(dec("2522880")) || best.FXSource != "identity" || best.Currency != "CNY" {
		t.Errorf("best in CNY = %s %s %s", best.TotalCost, best.Currency, best.FXSource)
	}
	if r := rec.Options[1]; r.Provider != pricewatch.AWS || !r.TotalCost.Equal(dec("2748725.0614975893")) {
		t.Errorf("runner-up in CNY = %s %s", r.Provider, r.TotalCost)
	}
	if !strings.Contains(strings.Join(rec.Reasons, "\n"), "USD converted at 1 USD = 6.7002853488 CNY (ECB 2022-07-08).") {
		t.Errorf("reasons: %v", rec.Reasons)
	}
}

func TestRecommendLowUtilizationPrefersOnDemand(t *testing.T) {
	rec := recommendSeed(t, func(q *RecommendOptions) { q.Utilization = dec("0.3") })
	best, _ := rec.BestOption()
	// 2 × 14.69 × 26,280 × 0.3 = 231,631.92 USD; above 48.767 % the
	// Alibaba 3-year subscription takes over.
	if best.InstanceType != "Standard_NC96ads_A100_v4" || !best.TotalCost.Equal(dec("231631.92")) {
		t.Errorf("best at 30%% = %s %s", best.Label(), best.TotalCost)
	}
	if rec.Upper == nil || !rec.Upper.Utilization.Equal(dec("0.48767")) || rec.Upper.Option.Provider != pricewatch.Alibaba || rec.Upper.Below {
		t.Errorf("upper crossover = %+v", rec.Upper)
	}
	if rec.Lower != nil {
		t.Errorf("lower crossover = %+v", rec.Lower)
	}
	if !strings.Contains(strings.Join(rec.Changes, "\n"), "Above 48.77% utilisation, 1 × alibaba cn-hangzhou ecs.ebmgn7e.32xlarge reserved 3y all_upfront would be cheapest.") {
		t.Errorf("changes: %v", rec.Changes)
	}
}

func TestRecommendSkipsSoldOut(t *testing.T) {
	offers := a100Offers()
	for i := range offers {
		if offers[i].Provider == pricewatch.Tencent && offers[i].PriceType == pricewatch.Reserved {
			// 2,000,000 CNY = 298,494.7499816433 USD: now the cheapest, but its zone is sold out.
			offers[i].Upfront = dec("2000000")
		}
	}
	rec, err := Recommend(offers, availabilityFixture(), seedQuestion(t))
	if err != nil {
		t.Fatal(err)
	}
	if first := rec.Options[0]; first.Provider != pricewatch.Tencent || !first.TotalCost.Equal(dec("298494.7499816433")) || rec.Best != 1 {
		t.Fatalf("sold-out Tencent should rank first but not be recommended: best %d, first %s %s", rec.Best, first.Label(), first.TotalCost)
	}
	if best, _ := rec.BestOption(); best.Provider != pricewatch.Alibaba || best.Term != "3y" {
		t.Errorf("best = %s", best.Label())
	}
	if !strings.Contains(strings.Join(rec.Reasons, "\n"), "1 cheaper option sold out where priced, starting with 1 × tencent") {
		t.Errorf("reasons do not mention the sold-out option: %v", rec.Reasons)
	}
	// The crossovers ignore what cannot be bought.
	if rec.Lower == nil || rec.Lower.Option.Provider == pricewatch.Tencent {
		t.Errorf("lower crossover = %+v", rec.Lower)
	}
}

func TestRecommendShortHorizon(t *testing.T) {
	rec := recommendSeed(t, func(q *RecommendOptions) { q.Horizon = "1y" })
	best, _ := rec.BestOption()
	// Over one year: 2 × 14.69 × 8,760 × 0.6 = 154,421.28 USD beats
	// Alibaba's 1y subscription (1,051,200 CNY = 156,888.8405903517 USD).
	if best.InstanceType != "Standard_NC96ads_A100_v4" || !best.TotalCost.Equal(dec("154421.28")) {
		t.Errorf("best over 1y = %s %s", best.Label(), best.TotalCost)
	}
	// A 3-year term bought for a 1-year horizon is paid in full.
	for _, o := range rec.Options {
		if o.Term == "3y" && (o.Terms != 1 || o.CommittedHours != 26280) {
			t.Errorf("%s: %d terms, %d h", o.Label(), o.Terms, o.CommittedHours)
		}
		if o.Term == "1m" && o.Terms != 12 {
			t.Errorf("%s: %d terms", o.Label(), o.Terms)
		}
	}
	// Two years at full use on Azure alone: on demand 32.77 × 17,520 =
	// 574,130.40 USD; the 3-year reservation (420,000) wins although a year
	// of it lies beyond the horizon, and the reasoning says so.
	var azure []pricewatch.Offer
	for _, o := range a100Offers() {
		if o.InstanceType == "Standard_ND96amsr_A100_v4" && (o.PriceType == pricewatch.OnDemand || o.Term == "3y") {
			azure = append(azure, o)
		}
	}
	q := seedQuestion(t)
	q.Horizon, q.Utilization = "2y", one
	rec, _ = Recommend(azure, nil, q)
	b, _ := rec.BestOption()
	if b.Term != "3y" || b.PriceType != pricewatch.Reserved || !strings.Contains(strings.Join(rec.Reasons, "\n"), "The commitment runs 1y past the 2y horizon") {
		t.Errorf("over 2y: best %s; reasons %v", b.Label(), rec.Reasons)
	}
}

func TestRecommendWithoutRatesNeverTreatsCNYAsUSD(t *testing.T) {
	rec := recommendSeed(t, func(q *RecommendOptions) { q.FX = nil })
	for _, o := range rec.Options {
		if o.NativeCurrency != "USD" {
			t.Errorf("%s ranked without a rate", o.Label())
		}
	}
	if len(rec.Unconverted) != 6 {
		t.Errorf("unconverted = %d, want the 6 CNY options", len(rec.Unconverted))
	}
	if !strings.Contains(strings.Join(rec.Reasons, "\n"), "6 options not compared: no exchange rate from CNY to USD.") {
		t.Errorf("reasons: %v", rec.Reasons)
	}
	// Stale rates are used and said to be stale.
	rec = recommendSeed(t, func(q *RecommendOptions) { q.At = ts("2022-08-01") })
	if b, _ := rec.BestOption(); !b.FXStale || !rec.StaleRates || !strings.Contains(strings.Join(rec.Reasons, "\n"), "STALE") {
		t.Errorf("stale rate not shown: %+v / %v", b.FXUsed, rec.Reasons)
	}
}

func TestRecommendRejectsBadQuestions(t *testing.T) {
	base := seedQuestion(t)
	for name, mod := range map[string]func(*RecommendOptions){
		"no gpu":           func(o *RecommendOptions) { o.GPU = "" },
		"no count":         func(o *RecommendOptions) { o.Count = 0 },
		"utilisation zero": func(o *RecommendOptions) { o.Utilization = decimal.Zero },
		"utilisation > 1":  func(o *RecommendOptions) { o.Utilization = dec("1.2") },
		"bad horizon":      func(o *RecommendOptions) { o.Horizon = "3 years" },
		"no currency":      func(o *RecommendOptions) { o.Currency = "" },
	} {
		q := base
		mod(&q)
		if _, err := Recommend(a100Offers(), nil, q); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	rec, err := Recommend(a100Offers(), nil, RecommendOptions{GPU: "H100", Count: 8, Utilization: dec("0.6"), Horizon: "3y", Currency: "USD"})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Best != -1 || !strings.Contains(strings.Join(rec.Reasons, "\n"), "No stored price matches") {
		t.Errorf("no H100 offers: %+v", rec)
	}
}

func TestRecommendSpotAndFractional(t *testing.T) {
	offers := append(a100Offers(),
		offer(pricewatch.Azure, "eastus", "", "Standard_NC24ads_A100_v4_slice", pricewatch.OnDemand, "", "", "USD", "0", "0.01", "A100-80GB", 0.5))
	q := seedQuestion(t)
	q.IncludeSpot = true
	rec, err := Recommend(offers, availabilityFixture(), q)
	if err != nil {
		t.Fatal(err)
	}
	best, _ := rec.BestOption()
	// Spot: 66 CNY × 26,280 × 0.6 = 1,040,688 CNY = 155,319.9521844482 USD, cheapest.
	if !best.Interruptible || best.PriceType != pricewatch.Spot {
		t.Errorf("with spot allowed, best = %s", best.Label())
	}
	reasons := strings.Join(rec.Reasons, "\n")
	if !strings.Contains(reasons, "spot capacity: it can be interrupted") || !strings.Contains(reasons, "1 fractional-GPU offer left out") {
		t.Errorf("reasons: %s", reasons)
	}
}

func TestRecommendJSON(t *testing.T) {
	rec := recommendSeed(t, nil)
	b, err := json.Marshal(rec.Options[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"total_cost":"376533.2174168441"`, `"break_even_utilization":"0.436364"`, `"fx_date":"2022-07-08"`, `"terms":1`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("JSON lacks %s: %s", k, b)
		}
	}
}

// When a marketplace offer is cheapest, the recommendation says so, names
// the marketplace and the terms that come with it, and names the cheapest
// cloud option beside it.
func TestRecommendNotesMarketplace(t *testing.T) {
	offers := []pricewatch.Offer{
		offer("vastai", "US", "", "8x H100 SXM", pricewatch.OnDemand, "", "", "USD", "0", "14.4", "H100", 8),
		offer("aws", "us-east-1", "", "p5.48xlarge", pricewatch.OnDemand, "", "", "USD", "0", "55.04", "H100", 8),
	}
	q := RecommendOptions{GPU: "H100", Count: 8, Utilization: dec("0.5"), Horizon: "1y", Currency: "USD", FX: ecbBook(t), At: fixtureAt}
	rec, err := Recommend(offers, nil, q)
	if err != nil {
		t.Fatal(err)
	}
	best, ok := rec.BestOption()
	if !ok || best.Provider != "vastai" || !best.Marketplace {
		t.Fatalf("best %+v", best)
	}
	if rec.Options[1].Marketplace {
		t.Errorf("the AWS option is marked marketplace")
	}
	want := "It is a marketplace offer from a third-party host: on Vast.ai at 1.80 USD per GPU-hour, if interruptions and the marketplace terms are acceptable." +
		" The cheapest cloud option is 1 × aws us-east-1 p5.48xlarge on_demand at 6.88 USD per GPU-hour."
	found := false
	for _, r := range rec.Reasons {
		if r == want {
			found = true
		}
	}
	if !found {
		t.Errorf("reasons lack the marketplace note:\n%s", strings.Join(rec.Reasons, "\n"))
	}
}

// Issue 23 item 3: a capacity block stored as a price is never an option
// of recommend (it is one window from a fixed start, offered apart from
// its signal), however cheap its per-GPU-hour.
func TestRecommendLeavesBlockPricesOut(t *testing.T) {
	q := seedQuestion(t)
	q.Horizon = "7d"
	cheap := pricewatch.Offer{Provider: pricewatch.AWS, Region: "us-east-1", Zone: "us-east-1a", InstanceType: "p4d.24xlarge",
		PriceType: pricewatch.CapacityBlockPrice, Term: "7d", Payment: pricewatch.AllUpfront, OS: pricewatch.Linux, Currency: "USD",
		Upfront: dec("168"), Hardware: pricewatch.Hardware{GPUModel: "A100-40GB", GPUCount: 8}}
	with, err := Recommend(append(a100Offers(), cheap), availabilityFixture(), q)
	if err != nil {
		t.Fatal(err)
	}
	without, err := Recommend(a100Offers(), availabilityFixture(), q)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range with.Options {
		if op.PriceType == pricewatch.CapacityBlockPrice {
			t.Errorf("a block price is an option: %s", op.Label())
		}
	}
	bw, _ := with.BestOption()
	bo, _ := without.BestOption()
	if len(with.Options) != len(without.Options) || bw.Label() != bo.Label() || len(with.Options) == 0 {
		t.Errorf("options %d (best %s), want %d (best %s)", len(with.Options), bw.Label(), len(without.Options), bo.Label())
	}
}
