package guard

import (
	"context"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/config"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/storage/dbtest"
)

// The Alibaba shape of issue 20 item 6: ecs.gn6v-c8g1.2xlarge in
// cn-beijing at its real pay-as-you-go price (26.46 CNY an hour,
// cloudpilot-ai/priceserver's DescribePrice-derived table in
// shared/real-data/alibaba) and a constructed month of 8,890 CNY; the bug
// stored a 1-year TradePrice equal to that month.
func alibabaOffer(pt pricewatch.PriceType, term, hourly, upfront string) pricewatch.Offer {
	o := pricewatch.Offer{Provider: "alibaba", Region: "cn-beijing", Zone: "cn-beijing-h", InstanceType: "ecs.gn6v-c8g1.2xlarge",
		PriceType: pt, OS: pricewatch.Linux, Currency: "CNY", Hourly: decimal.RequireFromString(hourly),
		Hardware: pricewatch.Hardware{GPUModel: "V100", GPUCount: 1}}
	if term != "" {
		o.Term, o.Payment, o.Upfront = term, pricewatch.AllUpfront, decimal.RequireFromString(upfront)
	}
	return o
}

// Issue 20 item 6: a commitment whose effective hourly is below
// guard.commitment_min_fraction (default 0.2) of the same offer's
// on-demand price is held; real discounts are not.
func TestCommitmentFarBelowOnDemandIsHeld(t *testing.T) {
	onDemand := alibabaOffer(pricewatch.OnDemand, "", "26.46", "")
	month := alibabaOffer(pricewatch.Reserved, "1m", "0", "8890")
	yearIsMonth := alibabaOffer(pricewatch.Reserved, "1y", "0", "8890") // 1.0148/h: 3.8 % of on-demand
	realYear := alibabaOffer(pricewatch.Reserved, "1y", "0", "90678")   // 12 months at 15 % off: 39 %
	// shared/real-data/reference: p5.48xlarge us-east-1 on-demand 55.04,
	// 3-year Standard All Upfront effective 20.695053 (37.6 %).
	p5 := func(pt pricewatch.PriceType, term, hourly, upfront string) pricewatch.Offer {
		o := pricewatch.Offer{Provider: "aws", Region: "us-east-1", InstanceType: "p5.48xlarge", PriceType: pt, OS: pricewatch.Linux,
			Currency: "USD", Hourly: decimal.RequireFromString(hourly), Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8}}
		if term != "" {
			o.Term, o.Payment, o.OfferingClass, o.Upfront = term, pricewatch.AllUpfront, "standard", decimal.RequireFromString(upfront)
		}
		return o
	}
	p5Block := func(zone, fee string) pricewatch.Offer {
		o := p5(pricewatch.CapacityBlockPrice, "", "0", "")
		o.Zone, o.Term, o.Payment, o.Upfront = zone, "7d", pricewatch.AllUpfront, decimal.RequireFromString(fee)
		return o
	}
	zonal := func(o pricewatch.Offer) pricewatch.Offer { o.Zone = "us-east-1a"; return o }
	defaults := config.Default().Guard
	off := defaults
	off.CommitmentMinFraction = 0
	tests := []struct {
		name   string
		cfg    config.Guard
		stored []pricewatch.Offer
		snap   []pricewatch.Offer
		held   []string // instance term of the held offers
	}{
		{"a 1-year total that is one month's price", defaults, nil, []pricewatch.Offer{onDemand, month, yearIsMonth}, []string{"1y"}},
		{"a real 1-year discount", defaults, nil, []pricewatch.Offer{onDemand, month, realYear}, nil},
		{"on-demand known only from the store", defaults, []pricewatch.Offer{onDemand}, []pricewatch.Offer{yearIsMonth}, []string{"1y"}},
		{"no on-demand price to compare with", defaults, nil, []pricewatch.Offer{month, yearIsMonth}, nil},
		{"the deepest real AWS discount", defaults, nil, []pricewatch.Offer{p5(pricewatch.OnDemand, "", "55.04", ""), p5(pricewatch.Reserved, "3y", "0", "543866")}, nil},
		{"the test turned off", off, nil, []pricewatch.Offer{onDemand, yearIsMonth}, nil},
		// Issue 23 item 3: a capacity block is a one-time purchase of a
		// window, not a commitment discount; a constructed fee of 1,000
		// USD for 7 days (5.95 an hour, 10.8 % of on-demand) is not held
		// against on-demand, in the region or in its zone.
		{"a capacity block far below on-demand", defaults, nil, []pricewatch.Offer{p5(pricewatch.OnDemand, "", "55.04", ""), p5Block("us-east-1a", "1000")}, nil},
		{"a zonal on-demand price and a block of that zone", defaults, nil, []pricewatch.Offer{zonal(p5(pricewatch.OnDemand, "", "55.04", "")), p5Block("us-east-1a", "1000")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := dbtest.Open(t)
			if len(tt.stored) > 0 {
				store(t, db, tt.stored[0].Provider, tt.stored...)
			}
			g, err := New(Config(tt.cfg), nil)
			if err != nil {
				t.Fatal(err)
			}
			held, err := g.Check(context.Background(), db, &pricewatch.Snapshot{Provider: tt.snap[0].Provider, Offers: tt.snap})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range held {
				got = append(got, h.Offer.Term)
				if h.Reason != storage.HeldBelowOnDemand || !strings.Contains(h.Detail, "commitment_min_fraction") || h.Accepted {
					t.Errorf("hold %+v", h)
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.held, ",") {
				t.Errorf("held %v, want %v", got, tt.held)
			}
		})
	}
}

// Issue 20 item 6: such a hold is like any other: recorded for `pricewatch
// held`, counted in the run, and accepted after guard.accept_after_runs
// consecutive complete runs that bring it back unchanged.
func TestCommitmentHoldIsRecordedAndAcceptedLikeOthers(t *testing.T) {
	db := dbtest.Open(t)
	g := defaultGuard(t)
	offers := []pricewatch.Offer{alibabaOffer(pricewatch.OnDemand, "", "26.46", ""), alibabaOffer(pricewatch.Reserved, "1y", "0", "8890")}
	for run := 1; run <= 3; run++ {
		snap := complete("alibaba", offers...)
		held := checkRun(t, g, db, snap)
		if len(held) != 1 || held[0].Accepted != (run == 3) {
			t.Fatalf("run %d: held %+v, want one hold, accepted in run 3", run, held)
		}
		res := dbtest.SaveWith(t, db, snap, storage.SaveOptions{Held: held})
		if run == 1 && (res.Held != 1 || res.HeldReasons[storage.HeldBelowOnDemand] != 1 ||
			!strings.Contains(storage.HeldReasonsText(res.HeldReasons), "commitments far below on-demand")) {
			t.Errorf("run 1 counts %d held %v", res.Held, res.HeldReasons)
		}
	}
	recs, err := db.HeldPrices(context.Background(), storage.HeldFilter{Providers: []string{"alibaba"}})
	if err != nil || len(recs) != 1 || recs[0].Term != "1y" || recs[0].Reason != storage.HeldBelowOnDemand || recs[0].Runs != 3 || recs[0].AcceptedAt == nil {
		t.Errorf("held records %+v, %v", recs, err)
	}
}

func TestCommitmentFractionValidated(t *testing.T) {
	for _, f := range []float64{-0.1, 1, 1.5} {
		c := config.Default().Guard
		c.CommitmentMinFraction = f
		if _, err := New(Config(c), nil); err == nil {
			t.Errorf("commitment_min_fraction %v accepted", f)
		}
	}
}
