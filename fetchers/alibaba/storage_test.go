package alibaba

import (
	"context"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/alibaba/alibabatest"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/storage/dbtest"
)

// Pointed at local servers that replay different answers, pricewatch keeps
// exact prices in the answer's currency, stock per zone, and a sold-out →
// in-stock change as a new availability interval.
func TestStoredHistory(t *testing.T) {
	ctx := context.Background()
	db := dbtest.Open(t)
	clock := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { return clock }

	save := func(snap *pricewatch.Snapshot) *storage.Result { t.Helper(); return dbtest.Save(t, db, snap) }

	// Run 1: gn7i sold out in cn-hangzhou-j.
	w := hangzhouWorld()
	f, _, _ := hangzhouFetcher(t, w)
	save(fetch(t, f, fetchers.Previous{}))

	// Run 2, twenty minutes later, from a second server whose zone j has
	// gn7i back in stock.
	clock = clock.Add(20 * time.Minute)
	restocked := hangzhouWorld()
	restocked.Zones["cn-hangzhou"] = hangzhouZones("Available")
	fake2 := alibabatest.NewServer(t, testKeyID, testSecret, restocked)
	f2, _ := newTestFetcher(t, testConfig(fake2.URL(), "cn-hangzhou"))
	res := save(fetch(t, f2, fetchers.Previous{}))

	var backInStock []pricewatch.Change
	for _, c := range res.Changes {
		if c.Kind == pricewatch.BackInStock {
			backInStock = append(backInStock, c)
		}
	}
	if len(backInStock) != 1 || backInStock[0].Place.Zone != "cn-hangzhou-j" || backInStock[0].Place.InstanceType != gn7i {
		t.Fatalf("back-in-stock changes %+v", backInStock)
	}

	intervals, err := db.Availability(ctx, storage.AvailabilityFilter{InstanceType: gn7i, Providers: []string{pricewatch.Alibaba}, All: true})
	if err != nil {
		t.Fatal(err)
	}
	var inJ []pricewatch.AvailabilityInterval
	for _, a := range intervals {
		if a.Zone == "cn-hangzhou-j" {
			inJ = append(inJ, a)
		}
	}
	if len(inJ) != 2 {
		t.Fatalf("%d intervals for %s in zone j, want 2: %+v", len(inJ), gn7i, inJ)
	}
	sold, back := inJ[0], inJ[1]
	if sold.State != pricewatch.SoldOut || sold.StockDetail != "ClosedWithoutStock" || sold.Until == nil || !sold.Until.Equal(clock) {
		t.Errorf("sold-out interval %+v", sold)
	}
	if back.State != pricewatch.InStock || back.StockDetail != "WithStock" || back.Until != nil || !back.Since.Equal(clock) {
		t.Errorf("in-stock interval %+v", back)
	}
	if back.GPUModel != "A10" || back.GPUCount != 1 {
		t.Errorf("hardware on the interval: %s × %v", back.GPUModel, back.GPUCount)
	}

	prices, err := db.Prices(ctx, storage.PriceFilter{InstanceType: gn8v, CurrentOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range prices {
		if p.PriceType == pricewatch.Reserved && p.Term == "3y" {
			found = true
			if p.Currency != "CNY" || p.Upfront.String() != "98765.43" || p.EffectiveHourly.String() != "3.7581974886" {
				t.Errorf("stored 3y price: %s %s, effective %s", p.Currency, p.Upfront, p.EffectiveHourly)
			}
			if !p.ValidFrom.Equal(clock.Add(-20 * time.Minute)) {
				t.Errorf("an unchanged price got a new interval from %s", p.ValidFrom)
			}
		}
	}
	if !found {
		t.Fatalf("no stored 3y price for %s: %+v", gn8v, prices)
	}
}
