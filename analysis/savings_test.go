package analysis

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// The AWS rows below are real: c6i.large in ap-northeast-1 (Tokyo), Windows
// with SQL Server Web, dedicated tenancy, from the EC2 offer file version
// 20250912225308 (shared/api-samples/aws/ec2-offer-index-excerpt-20250912.csv).
// On demand it is $0.2773 per hour; the reserved rows give the upfront fee
// (unit Quantity) and the hourly rate (unit Hrs) of each term.
func awsTokyo(pt pricewatch.PriceType, term, payment, class, upfront, hourly string) pricewatch.Offer {
	return pricewatch.Offer{
		Provider: pricewatch.AWS, Region: "ap-northeast-1", InstanceType: "c6i.large", OS: pricewatch.Windows,
		PriceType: pt, Term: term, Payment: payment, OfferingClass: class, Currency: "USD",
		Upfront: dec(upfront), Hourly: dec(hourly),
		Hardware: pricewatch.Hardware{VCPUs: 2, MemoryGB: 4},
	}
}

var (
	awsOnDemand   = awsTokyo(pricewatch.OnDemand, "", "", "", "0", "0.2773")
	aws3yAUStd    = awsTokyo(pricewatch.Reserved, "3y", pricewatch.AllUpfront, pricewatch.Standard, "5421", "0")
	aws3yAUConv   = awsTokyo(pricewatch.Reserved, "3y", pricewatch.AllUpfront, pricewatch.Convertible, "5655", "0")
	aws3yPUStd    = awsTokyo(pricewatch.Reserved, "3y", pricewatch.PartialUpfront, pricewatch.Standard, "2750", "0.10463")
	aws3yNUStd    = awsTokyo(pricewatch.Reserved, "3y", pricewatch.NoUpfront, pricewatch.Standard, "0", "0.21324")
	aws1yAUStd    = awsTokyo(pricewatch.Reserved, "1y", pricewatch.AllUpfront, pricewatch.Standard, "2033", "0")
	aws1yNUStd    = awsTokyo(pricewatch.Reserved, "1y", pricewatch.NoUpfront, pricewatch.Standard, "0", "0.23722")
	awsTokyoOffer = []pricewatch.Offer{awsOnDemand, aws3yAUStd, aws3yAUConv, aws3yPUStd, aws3yNUStd, aws1yAUStd, aws1yNUStd}
)

func TestCompareCommitmentHandComputed(t *testing.T) {
	cases := []struct {
		name   string
		commit pricewatch.Offer
		u      string
		// Hand-computed (3 years = 26,280 h, 1 year = 8,760 h; on-demand 0.2773):
		termCost, eff, be, fullPct, pct, odTermCost string
		// discount = (1 − effective / on-demand hourly) × 100, from the
		// effective rate as printed (ten decimals).
		discount   string
		payback    string // "" for none
		breaksEven bool
	}{
		{
			// The worked AWS 3-year All Upfront case.
			// term cost = 5421 + 0 × 26280 = 5421; effective = 5421 / 26280 = 0.20627853881…
			// on-demand over the term at full use = 0.2773 × 26280 = 7287.444
			// break-even = 5421 / 7287.444 = 0.7438817…; full-use saving = 1 − 0.7438817 = 25.6118 %
			// at u = 0.8: on-demand = 7287.444 × 0.8 = 5829.9552; saving = 1 − 5421 / 5829.9552 = 7.0147 %
			// payback = 5421 / (0.2773 − 0) = 19549.22 h of full use (814.55 days)
			name: "3y all upfront standard at 80%", commit: aws3yAUStd, u: "0.8",
			termCost: "5421", eff: "0.2062785388", be: "0.743882", fullPct: "25.6118", pct: "7.0147", odTermCost: "5829.9552",
			// 1 − 0.2062785388 / 0.2773 = 1 − 0.74388221... = 25.6118 %
			discount: "25.6118",
			payback:  "19549.22", breaksEven: true,
		},
		{
			// Same offer at 70%: 7287.444 × 0.7 = 5101.2108 < 5421, so the
			// reservation costs 6.2689 % more than on-demand for the hours used.
			name: "3y all upfront standard at 70%", commit: aws3yAUStd, u: "0.7",
			termCost: "5421", eff: "0.2062785388", be: "0.743882", fullPct: "25.6118", pct: "-6.2689", odTermCost: "5101.2108",
			// the discount does not depend on the utilisation asked
			discount: "25.6118",
			payback:  "19549.22", breaksEven: true,
		},
		{
			// term cost = 2750 + 0.10463 × 26280 = 2750 + 2749.6764 = 5499.6764
			// effective = 0.20927231354…; break-even = 5499.6764 / 7287.444 = 0.754678
			// payback = 2750 / (0.2773 − 0.10463) = 15926.33 h
			name: "3y partial upfront standard at 100%", commit: aws3yPUStd, u: "1",
			termCost: "5499.6764", eff: "0.2092723135", be: "0.754678", fullPct: "24.5322", pct: "24.5322", odTermCost: "7287.444",
			// 1 − 0.2092723135 / 0.2773 = 1 − 0.75467837... = 24.5322 %
			discount: "24.5322",
			payback:  "15926.33", breaksEven: true,
		},
		{
			// term cost = 0.21324 × 26280 = 5603.9472; effective = 0.21324;
			// break-even = 0.21324 / 0.2773 = 0.768987; no upfront, no payback.
			name: "3y no upfront standard at 100%", commit: aws3yNUStd, u: "1",
			termCost: "5603.9472", eff: "0.21324", be: "0.768987", fullPct: "23.1013", pct: "23.1013", odTermCost: "7287.444",
			// 1 − 0.21324 / 0.2773 = 1 − 0.76898665... = 23.1013 %
			discount:   "23.1013",
			breaksEven: true,
		},
		{
			// 1 year: term cost 2033; on-demand 0.2773 × 8760 = 2429.148;
			// at 80% on-demand is 1943.3184, below 2033: −4.6149 %.
			name: "1y all upfront standard at 80%", commit: aws1yAUStd, u: "0.8",
			termCost: "2033", eff: "0.2320776256", be: "0.836919", fullPct: "16.3081", pct: "-4.6149", odTermCost: "1943.3184",
			// 1 − 0.2320776256 / 0.2773 = 1 − 0.83691895... = 16.3081 %
			discount: "16.3081",
			payback:  "7331.41", breaksEven: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := CompareCommitment(tc.commit, awsOnDemand, dec(tc.u))
			if err != nil {
				t.Fatal(err)
			}
			check := func(field string, got decimal.Decimal, want string) {
				t.Helper()
				if !got.Equal(dec(want)) {
					t.Errorf("%s = %s, want %s", field, got, want)
				}
			}
			check("term cost", s.TermCost, tc.termCost)
			check("effective hourly", s.EffectiveHourly, tc.eff)
			check("break-even", s.BreakEvenUtilization, tc.be)
			check("full-use savings %", s.FullUseSavingsPct, tc.fullPct)
			check("discount %", s.DiscountPct, tc.discount)
			check("savings % at u", s.SavingsPct, tc.pct)
			check("on-demand term cost", s.OnDemandTermCost, tc.odTermCost)
			check("on-demand hourly", s.OnDemandHourly, "0.2773")
			if s.TermHours != map[string]int64{"1y": 8760, "3y": 26280}[tc.commit.Term] {
				t.Errorf("term hours = %d", s.TermHours)
			}
			if tc.payback == "" {
				if s.PaybackHours.Valid {
					t.Errorf("payback = %s, want none", s.PaybackHours.Decimal)
				}
			} else if !s.PaybackHours.Valid || !s.PaybackHours.Decimal.Equal(dec(tc.payback)) {
				t.Errorf("payback = %v, want %s", s.PaybackHours, tc.payback)
			}
			if s.BreaksEven != tc.breaksEven {
				t.Errorf("breaks even = %v", s.BreaksEven)
			}
		})
	}
}

// The circulating mistake: on-demand × term hours against reserved hourly ×
// number of years. For the 3-year No Upfront row it claims
// 1 − (0.21324 × 3) / (0.2773 × 26280) = 99.9912 % savings; for Partial
// Upfront 1 − (2750 + 0.10463 × 3) / 7287.444 = 62.2596 %. The real savings
// are 23.1013 % and 24.5322 %.
func TestSavingsIsNotTheHundredPercentMistake(t *testing.T) {
	years := decimal.NewFromInt(3)
	odTerm := dec("0.2773").Mul(decimal.NewFromInt(26280))
	for _, tc := range []struct {
		commit        pricewatch.Offer
		mistake, want string
	}{
		{aws3yNUStd, "99.9912", "23.1013"},
		{aws3yPUStd, "62.2596", "24.5322"},
	} {
		wrongCost := tc.commit.Upfront.Add(tc.commit.Hourly.Mul(years))
		wrong := savingsPct(wrongCost, odTerm)
		if !wrong.Equal(dec(tc.mistake)) {
			t.Fatalf("the mistaken formula gives %s, expected %s: test set-up is off", wrong, tc.mistake)
		}
		s, err := CompareCommitment(tc.commit, awsOnDemand, one)
		if err != nil {
			t.Fatal(err)
		}
		if !s.SavingsPct.Equal(dec(tc.want)) || s.SavingsPct.Equal(wrong) {
			t.Errorf("%s %s: savings %s, want %s (the mistake says %s)", tc.commit.Term, tc.commit.Payment, s.SavingsPct, tc.want, wrong)
		}
		if s.SavingsPct.GreaterThan(dec("50")) {
			t.Errorf("savings %s%% is implausible for a reservation", s.SavingsPct)
		}
	}
}

func TestComputeSavingsMarksBestOption(t *testing.T) {
	// At full use every 3-year option beats on-demand; the cheapest per hour
	// of the term is the 3-year All Upfront standard (0.2062785388).
	rep, err := ComputeSavings(awsTokyoOffer, SavingsOptions{Utilization: one})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Groups) != 1 || len(rep.Unmatched) != 0 {
		t.Fatalf("groups %d, unmatched %v", len(rep.Groups), rep.Unmatched)
	}
	g := rep.Groups[0]
	if len(g.Options) != 6 || g.OnDemandBest {
		t.Fatalf("options %d, on-demand best %v", len(g.Options), g.OnDemandBest)
	}
	wantOrder := []string{"3y/all_upfront/standard", "3y/partial_upfront/standard", "3y/no_upfront/standard", "3y/all_upfront/convertible", "1y/all_upfront/standard", "1y/no_upfront/standard"}
	for i, o := range g.Options {
		got := o.Term + "/" + o.Payment + "/" + o.OfferingClass
		if got != wantOrder[i] {
			t.Errorf("option %d = %s, want %s", i, got, wantOrder[i])
		}
		if o.Best != (i == 0) {
			t.Errorf("option %d best = %v", i, o.Best)
		}
	}
	// At 70% every option costs more than on-demand for the hours used
	// (on-demand per hour of the term = 0.2773 × 0.7 = 0.19411 < 0.2062785388).
	rep, err = ComputeSavings(awsTokyoOffer, SavingsOptions{Utilization: dec("0.7")})
	if err != nil {
		t.Fatal(err)
	}
	g = rep.Groups[0]
	if !g.OnDemandBest {
		t.Error("at 70% on-demand should be best")
	}
	for _, o := range g.Options {
		if o.Best {
			t.Errorf("%s %s marked best although on-demand is cheaper", o.Term, o.Payment)
		}
	}
	if len(rep.Rows()) != 6 {
		t.Errorf("rows = %d", len(rep.Rows()))
	}
}

func TestMatchOnDemand(t *testing.T) {
	zonal := func(zone string, pt pricewatch.PriceType, hourly string) pricewatch.Offer {
		return pricewatch.Offer{Provider: pricewatch.Tencent, Region: "ap-guangzhou", Zone: zone, InstanceType: "GN7.2XLARGE32",
			OS: pricewatch.Linux, PriceType: pt, Currency: "CNY", Hourly: dec(hourly)}
	}
	od3, od6 := zonal("ap-guangzhou-3", pricewatch.OnDemand, "8.68"), zonal("ap-guangzhou-6", pricewatch.OnDemand, "8.50")
	regional := zonal("", pricewatch.OnDemand, "9.00")
	windows := regional
	windows.OS = pricewatch.Windows
	offers := []pricewatch.Offer{od3, od6, windows, regional}

	commit := zonal("ap-guangzhou-6", pricewatch.Reserved, "0")
	if got, ok := MatchOnDemand(commit, offers); !ok || got.Zone != "ap-guangzhou-6" {
		t.Errorf("zonal commitment matched %v %v, want its own zone", got.Zone, ok)
	}
	commit.Zone = "ap-guangzhou-7" // no on-demand in that zone: fall back to the regional price
	if got, ok := MatchOnDemand(commit, offers); !ok || got.Zone != "" || got.OS != pricewatch.Linux {
		t.Errorf("fallback matched %+v %v, want the regional Linux price", got, ok)
	}
	commit.Zone = ""
	if got, ok := MatchOnDemand(commit, offers[:2]); ok {
		t.Errorf("a regional commitment must not pick one zone's price, got %s", got.Zone)
	}
	other := commit
	other.InstanceType = "GN7.5XLARGE80"
	if _, ok := MatchOnDemand(other, offers); ok {
		t.Error("matched another instance type")
	}
}

func TestComputeSavingsReportsUnmatchedAndBadInput(t *testing.T) {
	lonely := aws3yAUStd
	lonely.Region = "eu-west-1"
	rep, err := ComputeSavings([]pricewatch.Offer{awsOnDemand, lonely}, SavingsOptions{Utilization: one})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Unmatched) != 1 || !strings.Contains(rep.Unmatched[0].Reason, "no on-demand") || len(rep.Groups) != 0 {
		t.Errorf("report = %+v", rep)
	}
	for _, u := range []string{"0", "-0.1", "1.01"} {
		if _, err := ComputeSavings(awsTokyoOffer, SavingsOptions{Utilization: dec(u)}); err == nil {
			t.Errorf("utilisation %s accepted", u)
		}
	}
	if _, err := CompareCommitment(awsOnDemand, awsOnDemand, one); err == nil {
		t.Error("on-demand accepted as a commitment")
	}
	cny := awsOnDemand
	cny.Currency = "CNY"
	if _, err := CompareCommitment(aws3yAUStd, cny, one); err == nil {
		t.Error("mixed currencies accepted")
	}
}

func TestParseUtilization(t *testing.T) {
	for in, want := range map[string]string{"0.7": "0.7", "70%": "0.7", " 1 ": "1", "60 %": "0.6"} {
		got, err := ParseUtilization(in)
		if err != nil || !got.Equal(dec(want)) {
			t.Errorf("ParseUtilization(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "1.5", "150%", "abc", "-0.2"} {
		if _, err := ParseUtilization(in); err == nil {
			t.Errorf("ParseUtilization(%q) accepted", in)
		}
	}
}

// randomCommitment draws a commitment and its on-demand price with the
// shapes clouds publish: 1m/1y/3y terms, all/partial/no upfront, prices
// with up to 5 decimals.
func randomCommitment(rng *rand.Rand) (commit, od pricewatch.Offer) {
	terms := []string{"1m", "1y", "3y"}
	term := terms[rng.IntN(len(terms))]
	hours, _ := pricewatch.TermHours(term)
	odHourly := decimal.New(rng.Int64N(10_000_000)+1, -5) // 0.00001 … 100
	// An effective rate from 20 % to 130 % of on-demand, split between
	// upfront and hourly at random.
	eff := odHourly.Mul(decimal.New(rng.Int64N(111)+20, -2))
	split := decimal.New(rng.Int64N(101), -2)
	hourly := eff.Mul(one.Sub(split)).Round(5)
	upfront := eff.Mul(split).Mul(decimal.NewFromInt(hours)).Round(2)
	if hourly.IsZero() && upfront.IsZero() {
		hourly = odHourly // a commitment always costs something
	}
	od = pricewatch.Offer{Provider: "p", Region: "r", InstanceType: "t", OS: pricewatch.Linux, PriceType: pricewatch.OnDemand, Currency: "USD", Hourly: odHourly}
	commit = od
	commit.PriceType, commit.Term, commit.Payment, commit.Hourly, commit.Upfront = pricewatch.Reserved, term, pricewatch.PartialUpfront, hourly, upfront
	return commit, od
}

// Property: whenever the commitment is cheaper than on-demand at full use,
// its break-even utilisation lies in [0, 1]; and the other way round.
func TestBreakEvenWithinUnitIntervalWhenCheaper(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 5000; i++ {
		commit, od := randomCommitment(rng)
		s, err := CompareCommitment(commit, od, one)
		if err != nil {
			t.Fatal(err)
		}
		hours := decimal.NewFromInt(s.TermHours)
		cheaper := s.TermCost.LessThan(od.Hourly.Mul(hours))
		inUnit := !s.BreakEvenUtilization.IsNegative() && s.BreakEvenUtilization.LessThanOrEqual(one)
		if cheaper && !inUnit {
			t.Fatalf("cheaper at full use but break-even %s (commit %+v, od %s)", s.BreakEvenUtilization, commit, od.Hourly)
		}
		if cheaper != s.FullUseSavingsPct.IsPositive() && !s.FullUseSavingsPct.IsZero() {
			t.Fatalf("cheaper %v but full-use savings %s", cheaper, s.FullUseSavingsPct)
		}
		if cheaper && !s.BreaksEven {
			t.Fatalf("cheaper at full use but BreaksEven false")
		}
	}
}

// Property: savings fall as utilisation falls (strictly, since a
// commitment's cost does not shrink with use), and are about zero at the
// break-even utilisation.
func TestSavingsFallAsUtilizationFalls(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 2000; i++ {
		commit, od := randomCommitment(rng)
		prev := decimal.Decimal{}
		for step := 100; step >= 5; step -= 5 {
			u := decimal.New(int64(step), -2)
			s, err := CompareCommitment(commit, od, u)
			if err != nil {
				t.Fatal(err)
			}
			if step < 100 && !s.SavingsPct.LessThan(prev) {
				t.Fatalf("savings at u=%s is %s, not below %s at u=%s (commit %+v)", u, s.SavingsPct, prev, u.Add(dec("0.05")), commit)
			}
			prev = s.SavingsPct
		}
		s, err := CompareCommitment(commit, od, one)
		if err != nil {
			t.Fatal(err)
		}
		if be := s.BreakEvenUtilization; be.IsPositive() && be.LessThanOrEqual(one) {
			atBE, err := CompareCommitment(commit, od, be)
			if err != nil {
				t.Fatal(err)
			}
			// be is rounded to 6 places (±0.0000005), so the saving there is
			// zero up to 100 × 0.0000005 / be percent, plus the rounding of
			// the percentage itself.
			bound := dec("0.00005").DivRound(be, 10).Add(dec("0.0001"))
			if atBE.SavingsPct.Abs().GreaterThan(bound) {
				t.Fatalf("savings at break-even %s = %s%%, want ≈ 0", be, atBE.SavingsPct)
			}
		}
	}
}

// An Alibaba subscription priced in CNY set beside an Azure reservation
// priced in USD, both reported in USD at the ECB rate of 2022-07-08.
//
// Alibaba: 1-year subscription 42,048 CNY against 8.40 CNY/h on demand.
// At 70 %: on-demand for the hours used = 8.40 × 8,760 × 0.7 = 51,508.8 CNY;
// savings = 1 − 42,048 / 51,508.8 = 18.3673 %; break-even = 42,048 / 73,584
// = 0.571429. In USD (× 1.0163 / 6.8095): term cost 6,275.5536236141,
// on-demand 7,687.5531889272, effective 0.7163874, on-demand hourly 1.2536779499.
//
// Azure: 16,819.20 USD against 3.20 USD/h: on-demand for the hours used =
// 19,622.40; savings = 1 − 16,819.20 / 19,622.40 = 14.2857 %; break-even 0.6.
func TestSavingsAcrossCurrencies(t *testing.T) {
	rep, err := ComputeSavings(a10Offers(), SavingsOptions{Utilization: dec("0.7"), Currency: "USD", FX: ecbBook(t), At: fixtureAt})
	if err != nil {
		t.Fatal(err)
	}
	rows := rep.Rows()
	if len(rows) != 2 {
		t.Fatalf("rows = %+v, unmatched %+v", rows, rep.Unmatched)
	}
	ali, az := rows[0], rows[1]
	if ali.Provider != pricewatch.Alibaba || az.Provider != pricewatch.Azure {
		t.Fatalf("order: %s, %s", ali.Provider, az.Provider)
	}
	for _, c := range []struct {
		name      string
		got, want decimal.Decimal
	}{
		{"alibaba term cost", ali.TermCost, dec("6275.5536236141")},
		{"alibaba on-demand term cost", ali.OnDemandTermCost, dec("7687.5531889272")},
		{"alibaba effective", ali.EffectiveHourly, dec("0.7163874")},
		{"alibaba on-demand hourly", ali.OnDemandHourly, dec("1.2536779499")},
		{"alibaba savings", ali.SavingsPct, dec("18.3673")},
		{"alibaba break-even", ali.BreakEvenUtilization, dec("0.571429")},
		{"alibaba rate", ali.FXRate, dec("0.149247375")},
		{"azure term cost", az.TermCost, dec("16819.2")},
		{"azure on-demand term cost", az.OnDemandTermCost, dec("19622.4")},
		{"azure savings", az.SavingsPct, dec("14.2857")},
		{"azure break-even", az.BreakEvenUtilization, dec("0.6")},
		// effective 16,819.20 / 8,760 = 1.92 USD/h; 1 − 1.92 / 3.20 = 40 %
		{"azure discount", az.DiscountPct, dec("40")},
		// 42,048 / 8,760 = 4.8 CNY/h against 8.40: 1 − 4.8 / 8.4 = 42.8571 %,
		// the same in USD (a rate scales both)
		{"alibaba discount", ali.DiscountPct, dec("42.8571")},
	} {
		if !c.got.Equal(c.want) {
			t.Errorf("%s = %s, want %s", c.name, c.got, c.want)
		}
	}
	if ali.Currency != "USD" || ali.NativeCurrency != "CNY" || ali.FXDate != "2022-07-08" || az.FXSource != "identity" {
		t.Errorf("currencies: %s/%s %s, %s", ali.Currency, ali.NativeCurrency, ali.FXDate, az.FXSource)
	}
	if rep.StaleRates {
		t.Error("a two-day-old rate is not stale")
	}
	if !ali.Best || !az.Best {
		t.Error("each machine's only option beats its on-demand at 70% and is its best")
	}
	// Three weeks later the same rate is used and flagged.
	rep, _ = ComputeSavings(a10Offers(), SavingsOptions{Utilization: dec("0.7"), Currency: "USD", FX: ecbBook(t), At: ts("2022-07-29")})
	if !rep.StaleRates || !rep.Rows()[0].FXStale {
		t.Error("stale rate not flagged in the savings report")
	}
	// Without a rate the CNY commitment is reported as unmatched, not as USD.
	rep, err = ComputeSavings(a10Offers(), SavingsOptions{Utilization: dec("0.7"), Currency: "USD", At: fixtureAt})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows()) != 1 || len(rep.Unmatched) != 1 || !strings.Contains(rep.Unmatched[0].Reason, "CNY") {
		t.Errorf("rows %d, unmatched %+v", len(rep.Rows()), rep.Unmatched)
	}
}

func TestSavingsJSONNames(t *testing.T) {
	s, err := CompareCommitment(aws3yAUStd, awsOnDemand, dec("0.7"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"provider", "region", "instance_type", "price_type", "term", "payment", "offering_class", "currency",
		"on_demand_hourly", "effective_hourly", "savings_pct", "break_even_utilization", "term_cost", "on_demand_term_cost"} {
		if _, ok := m[k]; !ok {
			t.Errorf("savings JSON lacks %q: %s", k, b)
		}
	}
	if m["savings_pct"] != "-6.2689" || m["term_cost"] != "5421" || m["payback_hours"] != "19549.22" {
		t.Errorf("JSON values: %s", b)
	}
}
