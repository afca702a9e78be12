package report

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fx"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/storage/dbtest"
)

// A table cut to its first rows (the offers page's) is the first rows of
// the whole table, in every order the page offers: each column, both
// ways, with ties, unknown values and rows without a price per GPU-hour;
// the rows' places in the default order keep their relative order.
// orderFixture is a table of 90 offers of three clouds with few distinct
// prices, hardware known for some, rows without a price per GPU-hour,
// and some prices changed 5 days before at (a 30-day move).
func orderFixture(t *testing.T) (db *storage.DB, at time.Time) {
	t.Helper()
	ctx := context.Background()
	db = dbtest.Open(t)
	clock := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { return clock }
	offers := func(run int) []pricewatch.Offer {
		var out []pricewatch.Offer
		for i := 0; i < 90; i++ {
			o := pricewatch.Offer{Provider: []string{"aws", "azure", "lambda"}[i%3], Region: fmt.Sprintf("region-%d", i%4),
				InstanceType: fmt.Sprintf("type-%02d", i/3), PriceType: []pricewatch.PriceType{pricewatch.OnDemand, pricewatch.Spot}[i%2],
				OS: pricewatch.Linux, Currency: "USD",
				// Few distinct prices: many ties.
				Hourly:   decimal.NewFromInt(int64(10 + i%7)).Shift(-1),
				Hardware: pricewatch.Hardware{GPUModel: []string{"H100", "A100-80GB", "L4"}[i%3], GPUCount: float64(i % 5)}}
			if i%6 == 0 {
				o.VCPUs, o.MemoryGB = 8*(i%4+1), float64(64*(i%3+1)) // known for some only
			}
			if run == 1 && i%4 == 0 {
				o.Hourly = o.Hourly.Add(decimal.NewFromInt(1)) // a move for some
			}
			out = append(out, o)
		}
		return out
	}
	for run := 0; run < 2; run++ {
		byProvider := map[string][]pricewatch.Offer{}
		for _, o := range offers(run) {
			byProvider[o.Provider] = append(byProvider[o.Provider], o)
		}
		for _, p := range []string{"aws", "azure", "lambda"} {
			id, err := db.StartRun(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			snap := &pricewatch.Snapshot{Provider: p, Offers: byProvider[p], Coverage: []pricewatch.Scope{{Region: pricewatch.AllRegions}}}
			if _, err := db.SaveSnapshot(ctx, id, snap, storage.SaveOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		clock = clock.Add(40 * 24 * time.Hour)
	}
	// Five days after the second run: its changes have a 30-day move.
	return db, clock.Add(-35 * 24 * time.Hour)
}

func TestOfferTableLimitIsTheFirstRows(t *testing.T) {
	ctx := context.Background()
	db, at := orderFixture(t)
	book, err := fx.NewBook(nil, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	columns := []string{""}
	for _, c := range OfferColumns {
		columns = append(columns, c.ID)
	}
	for _, col := range columns {
		for _, desc := range []bool{false, true} {
			q := OfferTableQuery{Scope: Scope{Currency: "USD", At: at}, Sort: col, Desc: desc}
			all, err := BuildOfferTable(ctx, db, book, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(all.Rows) != 90 || all.Matching != 90 {
				t.Fatalf("the whole table has %d rows, matching %d: want 90", len(all.Rows), all.Matching)
			}
			var moved, noRate int
			for _, r := range all.Rows {
				if r.Move30d.Valid && !r.Move30d.D.IsZero() {
					moved++
				}
				if !r.PricePerGPUHour.Valid {
					noRate++
				}
			}
			if moved == 0 || noRate == 0 {
				t.Fatalf("the fixture has %d moved rows and %d without a price per GPU-hour: want some of each", moved, noRate)
			}
			for _, limit := range []int{1, 7, 45, 89, 90, 200} {
				q.Limit = limit
				got, err := BuildOfferTable(ctx, db, book, q)
				if err != nil {
					t.Fatal(err)
				}
				want := all.Rows[:min(limit, len(all.Rows))]
				if col == "move" {
					want = all.Rows // ordered by the move, nothing is cut
				}
				if got.Matching != 90 || len(got.Rows) != len(want) {
					t.Fatalf("sort %q desc %v limit %d: %d rows, matching %d; want %d, 90", col, desc, limit, len(got.Rows), got.Matching, len(want))
				}
				for i := range want {
					g, w := got.Rows[i], want[i]
					g.order, w.order = 0, 0
					if !reflect.DeepEqual(g, w) {
						t.Fatalf("sort %q desc %v limit %d: row %d is %s %s %s, want %s %s %s", col, desc, limit, i,
							g.Provider, g.Region, g.InstanceType, w.Provider, w.Region, w.InstanceType)
					}
					// The default order's places agree with the whole table's.
					for j := range i {
						if (got.Rows[j].order < got.Rows[i].order) != (want[j].order < want[i].order) {
							t.Fatalf("sort %q desc %v limit %d: rows %d and %d in the default order disagree", col, desc, limit, j, i)
						}
					}
				}
			}
		}
	}
}

// The GPU index grouped as the rows come is the index of the whole
// table: per model its cheapest row of each price type (the first in the
// table's order), its clouds and its count.
func TestGPUIndexGroupsTheTable(t *testing.T) {
	ctx := context.Background()
	db, at := orderFixture(t)
	book, err := fx.NewBook(nil, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	q := OfferTableQuery{Scope: Scope{Currency: "USD", At: at}}
	index, _, err := GPUIndex(ctx, db, book, q)
	if err != nil {
		t.Fatal(err)
	}
	all, err := BuildOfferTable(ctx, db, book, q)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]GPUIndexRow{}
	for i := range all.Rows {
		r := all.Rows[i]
		// The index's rows carry no move of their own.
		r.order, r.Move30d = 0, NullDecimal{}
		g, ok := want[r.GPUModel]
		if !ok {
			g = GPUIndexRow{Model: r.GPUModel, Cheapest: map[pricewatch.PriceType]*OfferTableRow{}}
		}
		g.Offers++
		if !slices.Contains(g.Clouds, r.Provider) {
			g.Clouds = append(g.Clouds, r.Provider)
			slices.Sort(g.Clouds)
		}
		if _, seen := g.Cheapest[r.PriceType]; !seen && r.PricePerGPUHour.Valid {
			g.Cheapest[r.PriceType] = &r // the table is in price order
		}
		want[r.GPUModel] = g
	}
	if len(index) != len(want) || len(index) != 3 {
		t.Fatalf("index of %d models, the table has %d: want 3", len(index), len(want))
	}
	for _, g := range index {
		w := want[g.Model]
		for _, c := range g.Cheapest {
			c.order = 0
		}
		g.OnDemandThen, g.Move30d = NullDecimal{}, NullDecimal{}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s:\n got %+v\nwant %+v", g.Model, g, w)
		}
	}
}
