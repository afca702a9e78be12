package storage

import (
	"maps"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch"
)

// TestCloudIDsStoredAndRefreshed: the cloud's identifiers are stored with
// the offer, replaced when the cloud renumbers them, and never split a
// price's interval (they are not part of the offer's identity).
func TestCloudIDsStoredAndRefreshed(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		withIDs := func(ids pricewatch.CloudIDs) pricewatch.Offer {
			o := offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.OnDemand, "98.32")
			o.CloudIDs = ids
			return o
		}
		first := pricewatch.CloudIDs{SkuID: "DZH318Z0P4N7/0004", SkuPriceID: "5b6c1b2e-8f3a-5d2c-9a41-0c7e6d1f2a93", ProductID: "DZH318Z0P4N7", RegionName: "US East"}
		renumbered := first
		renumbered.SkuID = "DZH318Z0P4N7/0009"
		for i, ids := range []pricewatch.CloudIDs{first, first, renumbered, {}} {
			if _, err := save(t, db, snapshot(withIDs(ids)), SaveOptions{}); err != nil {
				t.Fatalf("run %d: %v", i, err)
			}
			got, err := db.Prices(ctx, PriceFilter{CurrentOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 {
				t.Fatalf("run %d: %d current prices, want 1", i, len(got))
			}
			if got[0].CloudIDs != ids {
				t.Errorf("run %d: stored ids %+v, want %+v", i, got[0].CloudIDs, ids)
			}
			clk.tick()
		}
		all := allPrices(t, db)
		if len(all) != 1 {
			t.Errorf("%d price intervals, want 1: new identifiers are not a new price", len(all))
		}
	})
}

// TestPricesAt: the prices valid at a time, not those begun later or
// ended by then.
func TestPricesAt(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		start := clk.t
		for _, price := range []string{"98.32", "90.00"} {
			mustSave(t, db, snapshot(offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.OnDemand, price)))
			clk.tick()
		}
		for _, c := range []struct {
			hours float64
			want  string // "" none
		}{{-1, ""}, {0, "98.32"}, {0.5, "98.32"}, {1, "90"}, {5, "90"}} {
			got, err := db.Prices(ctx, PriceFilter{At: []time.Time{start.Add(time.Duration(c.hours * float64(time.Hour)))}})
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case c.want == "" && len(got) != 0:
				t.Errorf("at +%vh: %d prices, want none", c.hours, len(got))
			case c.want != "" && (len(got) != 1 || got[0].Hourly.String() != c.want):
				t.Errorf("at +%vh: %v, want one price %s", c.hours, got, c.want)
			}
		}
	})
}

// TestOfferIDsMigration applies the migration's own SQL to a database laid
// out as before it (the id columns dropped): the columns come back empty,
// and AWS's remembered price-file versions are forgotten so that the next
// run reads every file once and stores the ids, while the remembered GPU
// types, the spot validators and other providers' versions stay.
func TestOfferIDsMigration(t *testing.T) {
	ctx, db, _ := openTestDB(t)
	mustSave(t, db, snapshot(offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.OnDemand, "98.32")))
	for _, col := range []string{"sku_id", "sku_price_id", "product_id", "region_name"} {
		if _, err := db.write.ExecContext(ctx, "ALTER TABLE offers DROP COLUMN "+col); err != nil {
			t.Fatal(err)
		}
	}
	seedVersions(ctx, t, db, "", [][3]string{{"aws", "ec2/us-east-1", "20261201"}, {"aws", "savingsplan/us-east-1", "20261130"}, {"aws", "gpu-types", "{}"},
		{"aws", "spot/etag", `"abc"`}, {"azure", "ec2/x", "1"}})
	runMigrationFile(ctx, t, db, "*_offer_ids.sql")
	got, err := db.Prices(ctx, PriceFilter{})
	if err != nil || len(got) != 1 || got[0].CloudIDs != (pricewatch.CloudIDs{}) {
		t.Fatalf("prices after the migration: %+v, %v", got, err)
	}
	aws, err := db.Versions(ctx, "aws")
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"gpu-types": "{}", "spot/etag": `"abc"`}; !maps.Equal(aws, want) {
		t.Errorf("aws versions %v, want %v", aws, want)
	}
	if az, _ := db.Versions(ctx, "azure"); len(az) != 1 {
		t.Errorf("azure versions %v", az)
	}
}
