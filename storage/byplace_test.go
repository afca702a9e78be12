package storage

import (
	"reflect"
	"testing"

	"github.com/pricewatch/pricewatch"
)

// A read of many current prices with their offers, made one provider and
// region at a time (eachCurrentByPlace), hands out what one read of them
// all does, in the same order, each interval with its offer's identity:
// for every provider, for a provider alone, for a way of buying, for regions
// whose names sort differently by byte and without case, and with
// closed intervals and an offer no longer listed left out.
func TestCurrentPricesReadByPlace(t *testing.T) {
	backends(t, func(t *testing.T) { currentPricesReadByPlace(t) })
}

func currentPricesReadByPlace(t *testing.T) {
	ctx, db, clk := openTestDB(t)
	a100 := func(o pricewatch.Offer) pricewatch.Offer {
		o.GPUModel, o.GPUCount = "A100-80GB", 4
		return o
	}
	mustSave(t, db, snapshot(offer("ND96", "eastus", pricewatch.OnDemand, "98.32"), offer("ND96", "eastus", pricewatch.Spot, "40.1"),
		a100(offer("NC96", "Westus", pricewatch.OnDemand, "14.5")), offer("ND96", "westeurope", pricewatch.OnDemand, "101"),
		offer("ND40", "westeurope", pricewatch.OnDemand, "22")))
	clk.tick()
	// The spot price moves (its first interval closes) and ND40 is gone.
	mustSave(t, db, snapshot(offer("ND96", "eastus", pricewatch.OnDemand, "98.32"), offer("ND96", "eastus", pricewatch.Spot, "38.7"),
		a100(offer("NC96", "Westus", pricewatch.OnDemand, "14.5")), offer("ND96", "westeurope", pricewatch.OnDemand, "101")))
	lambda := &pricewatch.Snapshot{Provider: "lambda", Coverage: []pricewatch.Scope{{Region: pricewatch.AllRegions}}}
	for _, region := range []string{"us-east-1", "Asia-1"} {
		o := offer("gpu_8x_h100", region, pricewatch.OnDemand, "23.92")
		o.Provider = "lambda"
		lambda.Offers = append(lambda.Offers, o)
	}
	mustSave(t, db, lambda)
	for _, f := range []PriceFilter{
		{CurrentOnly: true},
		{CurrentOnly: true, Providers: []string{"azure"}},
		{CurrentOnly: true, PriceTypes: []pricewatch.PriceType{pricewatch.OnDemand}},
		{CurrentOnly: true, Regions: []string{"eastus", "Westus", "us-east-1"}, OS: pricewatch.Linux},
	} {
		if !readsByPlace(f) {
			t.Fatalf("%+v is not read by place", f)
		}
		var got, want []PriceInterval
		err := db.EachPrice(ctx, f, func(p *PriceInterval) error {
			if id := p.Identity; id == nil || id.Key() != p.Key() || id.Hardware != p.Hardware {
				t.Errorf("%+v: price %d without its offer's identity", f, p.ID)
			}
			got = append(got, *p)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		seen, err := loadSeen(ctx, db.read, "")
		if err != nil {
			t.Fatal(err)
		}
		// One read of them all, as EachPrice read them before.
		if err := db.eachPrice(ctx, f, seen, func(p *PriceInterval) error { want = append(want, *p); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(want) < 2 {
			t.Fatalf("%+v: %d prices, too few to compare", f, len(want))
		}
		for i := range got {
			got[i].Identity = nil
		}
		for i := range want {
			want[i].Identity = nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%+v read by place:\n%+v\nwant:\n%+v", f, got, want)
		}
	}
}
