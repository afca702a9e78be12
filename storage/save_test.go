package storage

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/storage/storagetest"
)

// save stores snap as one run with opts, as a fetch does (a failed save
// finishes the run failed).
func save(t *testing.T, db *DB, snap *pricewatch.Snapshot, opts SaveOptions) (*Result, error) {
	t.Helper()
	return storagetest.Store(t, db, snap, opts, db.SaveSnapshot)
}

// mustSave stores snap as one successful run with the default options.
func mustSave(t *testing.T, db *DB, snap *pricewatch.Snapshot) *Result {
	t.Helper()
	return mustSaveWith(t, db, snap, SaveOptions{})
}

// mustSaveWith is mustSave with opts: a failed save fails t.
func mustSaveWith(t *testing.T, db *DB, snap *pricewatch.Snapshot, opts SaveOptions) *Result {
	t.Helper()
	res, err := save(t, db, snap, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestIntervalHistory(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		steady := offer("Standard_NC24ads_A100_v4", "eastus", pricewatch.OnDemand, "3.673")
		for i, price := range []string{"98.32", "98.32", "90.00", "98.32"} {
			if _, err := save(t, db, snapshot(offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.OnDemand, price), steady), SaveOptions{}); err != nil {
				t.Fatalf("run %d: %v", i, err)
			}
			clk.tick()
		}
		got, err := db.Prices(ctx, PriceFilter{InstanceType: "Standard_ND96isr_H100_v5"})
		if err != nil {
			t.Fatal(err)
		}
		want := []struct {
			price    string
			from     int // hours after start
			to       int // -1: current
			lastSeen int
		}{
			{"98.32", 0, 2, 1},
			{"90", 2, 3, 2},
			{"98.32", 3, -1, 3},
		}
		if len(got) != len(want) {
			t.Fatalf("got %d intervals, want %d: %+v", len(got), len(want), got)
		}
		start := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
		for i, w := range want {
			g := got[i]
			if !g.Hourly.Equal(decimal.RequireFromString(w.price)) {
				t.Errorf("interval %d: price %s, want %s", i, g.Hourly, w.price)
			}
			if !g.ValidFrom.Equal(start.Add(time.Duration(w.from) * time.Hour)) {
				t.Errorf("interval %d: from %s", i, g.ValidFrom)
			}
			if w.to < 0 && g.ValidTo != nil || w.to >= 0 && (g.ValidTo == nil || !g.ValidTo.Equal(start.Add(time.Duration(w.to)*time.Hour))) {
				t.Errorf("interval %d: to %v, want +%dh", i, g.ValidTo, w.to)
			}
			if !g.LastSeen.Equal(start.Add(time.Duration(w.lastSeen) * time.Hour)) {
				t.Errorf("interval %d: last seen %s, want +%dh", i, g.LastSeen, w.lastSeen)
			}
		}
		untouched, err := db.Prices(ctx, PriceFilter{InstanceType: "Standard_NC24ads_A100_v4"})
		if err != nil {
			t.Fatal(err)
		}
		if len(untouched) != 1 || untouched[0].ValidTo != nil || !untouched[0].LastSeen.Equal(start.Add(3*time.Hour)) {
			t.Errorf("steady offer: got %+v, want one current interval last seen at the fourth run", untouched)
		}
	})
}

func TestEffectiveHourlyStored(t *testing.T) {
	backends(t, func(t *testing.T) {
		db, _ := openTest(t)
		r := offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.Reserved, "0")
		r.Term, r.Upfront = "1y", decimal.RequireFromString("3478.0")
		mustSave(t, db, snapshot(r))
		got := allPrices(t, db)
		// 3478 / 8760 = 0.39703196347031963…, rounded to ten places.
		if len(got) != 1 || got[0].EffectiveHourly.String() != "0.3970319635" {
			t.Fatalf("got %+v, want effective hourly 0.3970319635", got)
		}
	})
}

func TestFailedRunStoresNothing(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		a := offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.OnDemand, "98.32")
		b := offer("Standard_NC24ads_A100_v4", "eastus", pricewatch.OnDemand, "3.673")
		c := offer("Standard_NC48ads_A100_v4", "eastus", pricewatch.OnDemand, "7.346")
		mustSaveWith(t, db, snapshot(a, b, c), SaveOptions{MinOfferRatio: 0.5})
		clk.tick()
		tests := []struct {
			name string
			snap *pricewatch.Snapshot
			ctx  func() context.Context
			want error
		}{
			{"empty", snapshot(), context.Background, ErrSuspiciousDrop},
			{"one of three", snapshot(offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.OnDemand, "1")), context.Background, ErrSuspiciousDrop},
			{"cancelled", snapshot(offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.OnDemand, "1"), b, c), func() context.Context {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return ctx
			}, context.Canceled},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				id, err := db.StartRun(ctx, "azure")
				if err != nil {
					t.Fatal(err)
				}
				_, err = db.SaveSnapshot(tt.ctx(), id, tt.snap, SaveOptions{MinOfferRatio: 0.5})
				if !errors.Is(err, tt.want) {
					t.Fatalf("got %v, want %v", err, tt.want)
				}
				db.FinishRun(ctx, id, pricewatch.RunFailed, err.Error())
				got := allPrices(t, db)
				if len(got) != 3 {
					t.Fatalf("got %d intervals after a failed run, want the 3 stored before", len(got))
				}
				for _, p := range got {
					if p.ValidTo != nil || p.ID == 0 || p.Hourly.Equal(decimal.NewFromInt(1)) {
						t.Errorf("failed run changed %+v", p)
					}
				}
			})
		}
	})
}

func TestScopes(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		east := offer("p5.48xlarge", "us-east-1", pricewatch.OnDemand, "55.04")
		west := offer("p5.48xlarge", "us-west-2", pricewatch.OnDemand, "55.04")
		spotEast := offer("p5.48xlarge", "us-east-1", pricewatch.Spot, "20.1")
		for _, o := range []*pricewatch.Offer{&east, &west, &spotEast} {
			o.Provider = "aws"
		}
		first := &pricewatch.Snapshot{Provider: "aws", Offers: []pricewatch.Offer{east, west, spotEast}, Coverage: []pricewatch.Scope{{Region: pricewatch.AllRegions}}}
		mustSave(t, db, first)
		clk.tick()
		// us-west-2 unchanged (skipped), us-east-1 on-demand re-read, spot feed
		// read but without us-east-1 p5: only that spot price closes.
		second := &pricewatch.Snapshot{
			Provider: "aws", Offers: []pricewatch.Offer{east},
			Coverage:  []pricewatch.Scope{{Region: "us-east-1", PriceTypes: []pricewatch.PriceType{pricewatch.OnDemand}}, {Region: "us-east-1", PriceTypes: []pricewatch.PriceType{pricewatch.Spot}}},
			Unchanged: []pricewatch.Scope{{Region: "us-west-2"}},
			Skipped:   1,
		}
		res := mustSaveWith(t, db, second, SaveOptions{})
		if res.Closed != 1 || res.Unchanged != 2 || res.Skipped != 1 {
			t.Errorf("result %+v: want 1 closed (spot), 2 unchanged, 1 skipped", res)
		}
		cur, err := db.Prices(ctx, PriceFilter{CurrentOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(cur) != 2 {
			t.Fatalf("current %+v, want on-demand east and west", cur)
		}
		for _, p := range cur {
			if !p.LastSeen.Equal(clk.t) {
				t.Errorf("%s %s last seen %s, want moved to this run", p.Region, p.PriceType, p.LastSeen)
			}
		}
	})
}

func TestAvailabilityIntervals(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		avail := func(zone string, st pricewatch.AvailabilityState) pricewatch.Availability {
			return pricewatch.Availability{Provider: "tencent", Region: "ap-shanghai", Zone: zone, InstanceType: "HCCPNV5.24XLARGE384", State: st,
				Hardware: pricewatch.Hardware{GPUModel: "H800", GPUCount: 8}}
		}
		o := offer("HCCPNV5.24XLARGE384", "ap-shanghai", pricewatch.OnDemand, "210.5")
		o.Provider, o.Currency = "tencent", "CNY"
		run := func(av ...pricewatch.Availability) *Result {
			t.Helper()
			res, err := save(t, db, &pricewatch.Snapshot{Provider: "tencent", Offers: []pricewatch.Offer{o}, Availability: av,
				Coverage: []pricewatch.Scope{{Region: "ap-shanghai", Availability: true}}}, SaveOptions{Policy: alerting.NewPolicy(0, 2)})
			if err != nil {
				t.Fatal(err)
			}
			clk.tick()
			return res
		}
		kinds := func(res *Result) []pricewatch.ChangeKind {
			var out []pricewatch.ChangeKind
			for _, c := range res.Changes {
				if c.Place.Zone != "" || c.Kind == pricewatch.AvailabilityGone {
					out = append(out, c.Kind)
				}
			}
			return out
		}
		if r := run(avail("ap-shanghai-5", pricewatch.SoldOut), avail("ap-shanghai-2", pricewatch.InStock)); !r.FirstRun {
			t.Error("first run not marked as baseline")
		}
		if got := kinds(run(avail("ap-shanghai-5", pricewatch.InStock), avail("ap-shanghai-2", pricewatch.InStock))); len(got) != 1 || got[0] != pricewatch.BackInStock {
			t.Errorf("got %v, want back_in_stock", got)
		}
		// Missing once: not yet withdrawn; missing twice: withdrawn.
		if got := kinds(run(avail("ap-shanghai-5", pricewatch.InStock))); len(got) != 0 {
			t.Errorf("first miss: got %v, want nothing", got)
		}
		missedAt := clk.t.Add(-time.Hour)
		if got := kinds(run(avail("ap-shanghai-5", pricewatch.InStock))); len(got) != 1 || got[0] != pricewatch.AvailabilityGone {
			t.Errorf("second miss: got %v, want availability_gone", got)
		}
		all, err := db.Availability(ctx, AvailabilityFilter{All: true})
		if err != nil {
			t.Fatal(err)
		}
		var states []string
		for _, a := range all {
			s := a.Zone + ":" + string(a.State)
			if a.Until != nil {
				s += ":closed"
			}
			if a.Zone == "ap-shanghai-2" && (a.Until == nil || !a.Until.Equal(missedAt)) {
				t.Errorf("withdrawn interval ends %v, want the first missed run %s", a.Until, missedAt)
			}
			states = append(states, s)
		}
		want := []string{"ap-shanghai-2:in_stock:closed", "ap-shanghai-5:sold_out:closed", "ap-shanghai-5:in_stock"}
		if len(states) != len(want) {
			t.Fatalf("got %v, want %v", states, want)
		}
		for i := range want {
			if states[i] != want[i] {
				t.Errorf("got %v, want %v", states, want)
				break
			}
		}
	})
}

func TestReadWhileWriting(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, _ := openTestDB(t)
		mustSave(t, db, snapshot(offer("a", "eastus", pricewatch.OnDemand, "1.5")))
		tx, err := db.write.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, `UPDATE prices SET hourly = '2'`); err != nil {
			t.Fatal(err)
		}
		// A second process (the CLI) opening the same file must read while the
		// writer holds its transaction.
		other, err := OpenURL(ctx, db.Path(), Options{BusyTimeout: 200 * time.Millisecond})
		if err == nil {
			defer other.Close()
			got, err := other.Prices(ctx, PriceFilter{})
			if err != nil || len(got) != 1 || got[0].Hourly.String() != "1.5" {
				t.Fatalf("reader got %+v, %v; want the committed 1.5", got, err)
			}
			return
		}
		t.Fatalf("opening a second handle while writing: %v", err)
	})
}

func TestConcurrentOpenMigratesOnce(t *testing.T) {
	backends(t, func(t *testing.T) {
		path := string(newStore(t))
		ctx := context.Background()
		errs := make(chan error, 4)
		for range 4 {
			go func() {
				db, err := OpenURL(ctx, path, Options{})
				if err == nil {
					err = db.Close()
				}
				errs <- err
			}()
		}
		for range 4 {
			if err := <-errs; err != nil {
				t.Errorf("concurrent open: %v", err)
			}
		}
	})
}

func TestRegionGoingEmptyFailsTheRun(t *testing.T) {
	backends(t, func(t *testing.T) {
		tests := []struct {
			name    string
			stored  int // offers in westeurope before
			wantErr bool
		}{
			{"region had many offers", 6, true},
			{"region had a few offers", 3, false},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				db, clk := openTest(t)
				var offers []pricewatch.Offer
				for i := range 20 {
					offers = append(offers, offer(fmt.Sprintf("Standard_NC%d", i), "eastus", pricewatch.OnDemand, "1.5"))
				}
				for i := range tt.stored {
					offers = append(offers, offer(fmt.Sprintf("Standard_ND%d", i), "westeurope", pricewatch.OnDemand, "2.5"))
				}
				scopes := []pricewatch.Scope{{Region: "eastus", Availability: true}, {Region: "westeurope", Availability: true}}
				mustSaveWith(t, db, &pricewatch.Snapshot{Provider: "azure", Offers: offers, Coverage: scopes}, SaveOptions{MinOfferRatio: 0.5})
				clk.tick()
				// westeurope answers empty; eastus is whole, so the run as a
				// whole keeps 20 of 26 offers, above the ratio.
				_, err := save(t, db, &pricewatch.Snapshot{Provider: "azure", Offers: offers[:20], Coverage: scopes}, SaveOptions{MinOfferRatio: 0.5})
				if tt.wantErr != (err != nil) || (err != nil && (!errors.Is(err, ErrSuspiciousDrop) || !strings.Contains(err.Error(), "westeurope"))) {
					t.Fatalf("got %v, want error naming westeurope: %v", err, tt.wantErr)
				}
				cur, _ := db.Prices(context.Background(), PriceFilter{CurrentOnly: true, Regions: []string{"westeurope"}})
				if tt.wantErr && len(cur) != tt.stored {
					t.Errorf("%d westeurope prices current after the refused run, want %d", len(cur), tt.stored)
				}
			})
		}
	})
}
