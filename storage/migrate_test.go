package storage

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/alerting"
)

// releaseSchema builds a database as an earlier release wrote it: the
// migrations up to schema version upTo only (3: the release before the
// faults, trust and export work; 6: the release just before scale's
// conversion), then rows the way its SaveSnapshot stored them (every
// current row's last_seen moved by each run).
func releaseSchema(t *testing.T, path string, upTo, extraPrices int) {
	t.Helper()
	raw, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	if upTo >= len(names) {
		t.Fatalf("schema %d is not older than the newest (%d)", upTo, len(names))
	}
	for i, name := range names[:upTo] {
		body, err := migrations.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := raw.Exec(string(body)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := raw.Exec(fmt.Sprintf("PRAGMA user_version = %d", i+1)); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{
		`INSERT INTO fetch_runs (id, provider, started_at, finished_at, status) VALUES
			(1, 'azure', '2026-11-02T10:00:00.000000Z', '2026-11-02T10:00:00.000000Z', 'ok'),
			(2, 'azure', '2026-11-02T11:00:00.000000Z', '2026-11-02T11:00:00.000000Z', 'ok'),
			(3, 'azure', '2026-11-02T12:00:00.000000Z', '2026-11-02T12:00:00.000000Z', 'ok')`,
		`INSERT INTO offers (id, provider, region, zone, instance_type, price_type, term, payment, offering_class, os, gpu_model, gpu_count, gpu_memory_gb, vcpus, memory_gb)
			VALUES (1, 'azure', 'eastus', '', 'Standard_ND96isr_H100_v5', 'on_demand', '', '', '', 'linux', 'H100', 8, 80, 96, 1900)`,
		// 98.32 from run 1, seen by run 2; 90.00 since run 3.
		`INSERT INTO prices (offer_id, currency, hourly, upfront, effective_hourly, valid_from, valid_to, last_seen, first_run_id, last_run_id) VALUES
			(1, 'USD', '98.32', '0', '98.32', '2026-11-02T10:00:00.000000Z', '2026-11-02T12:00:00.000000Z', '2026-11-02T11:00:00.000000Z', 1, 2),
			(1, 'USD', '90', '0', '90', '2026-11-02T12:00:00.000000Z', NULL, '2026-11-02T12:00:00.000000Z', 3, 3)`,
		`INSERT INTO availability (provider, region, zone, instance_type, gpu_model, gpu_count, state, since, last_seen)
			VALUES ('azure', 'eastus', '', 'Standard_ND96isr_H100_v5', 'H100', 8, 'offered', '2026-11-02T10:00:00.000000Z', '2026-11-02T12:00:00.000000Z')`,
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if upTo >= 5 {
		// 0005 gave offers the clouds' own ids: a release of that schema
		// has them stored, and they must survive the conversion.
		if _, err := raw.Exec(`UPDATE offers SET sku_id = 'DZH318Z0BQ4C', sku_price_id = 'DZH318Z0BQ4C/0002', product_id = 'DZH318Z0BPVP', region_name = 'East US' WHERE id = 1`); err != nil {
			t.Fatal(err)
		}
	}
	if extraPrices > 0 {
		// Closed intervals of other offers, to make the migration large.
		if _, err := raw.Exec(`WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
			INSERT INTO offers (id, provider, region, zone, instance_type, price_type, term, payment, offering_class, os, gpu_model, gpu_count, gpu_memory_gb, vcpus, memory_gb)
			SELECT i, 'aws', 'us-east-1', 'us-east-1' || (i % 1000), 'p5.' || (i / 1000), 'spot', '', '', '', 'linux', 'H100', 8, 80, 192, 2048 FROM n`, extraPrices/10+1); err != nil {
			t.Fatal(err)
		}
		if _, err := raw.Exec(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
			INSERT INTO prices (offer_id, currency, hourly, upfront, effective_hourly, valid_from, valid_to, last_seen, first_run_id, last_run_id)
			SELECT 2 + i / 10, 'USD', '12.5', '0', '12.5', printf('2026-01-01T%02d:00:00.000000Z', i % 10), printf('2026-01-01T%02d:00:00.000000Z', i % 10 + 1),
				printf('2026-01-01T%02d:00:00.000000Z', i % 10), 1, 1 FROM n`, extraPrices-1); err != nil {
			t.Fatal(err)
		}
	}
}

func TestMigrationConvertsReleaseDatabaseInPlace(t *testing.T) {
	for _, schema := range []int{3, 6, 8} {
		t.Run(fmt.Sprintf("schema %d", schema), func(t *testing.T) { testConvertRelease(t, schema) })
	}
}

func testConvertRelease(t *testing.T, schema int) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "release.db")
	releaseSchema(t, path, schema, 0)
	var reports []string
	db, err := OpenURL(ctx, path, Options{Progress: func(m string) { reports = append(reports, m) }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if len(reports) != 0 {
		t.Errorf("a small migration reported progress: %q", reports)
	}
	clk := &clock{t: time.Date(2026, 11, 2, 13, 0, 0, 0, time.UTC)}
	db.Now = clk.now

	history := func() []PriceInterval {
		t.Helper()
		got, err := db.Prices(ctx, PriceFilter{InstanceType: "Standard_ND96isr_H100_v5"})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	got := history()
	if len(got) != 2 || got[0].LastSeen.Hour() != 11 || got[1].LastSeen.Hour() != 12 || got[1].ValidTo != nil {
		t.Fatalf("history after migration: %+v", got)
	}
	var version int
	if err := db.read.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil {
		t.Fatal(err)
	}
	if names, _ := fs.Glob(migrations, "migrations/*.sql"); version != len(names) {
		t.Fatalf("schema %d after opening, want %d", version, len(names))
	}
	var left int
	if err := db.read.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = 'prices_offer'`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("prices_offer after migration: %d (%v), want dropped", left, err)
	}
	// The price in force at a moment, read without prices_offer, whichever
	// way the readers ask (the digest's per-moment queries, or one union).
	for _, tc := range []struct {
		at   string
		want string // "" none
	}{{"09:00", ""}, {"10:00", "98.32"}, {"11:59", "98.32"}, {"12:00", "90"}, {"23:00", "90"}} {
		at, err := time.Parse("2006-01-02 15:04", "2026-11-02 "+tc.at)
		if err != nil {
			t.Fatal(err)
		}
		for _, unordered := range []bool{false, true} {
			got, err := db.Prices(ctx, PriceFilter{InstanceType: "Standard_ND96isr_H100_v5", At: []time.Time{at}, Unordered: unordered})
			if err != nil {
				t.Fatal(err)
			}
			var prices []string
			for _, p := range got {
				prices = append(prices, p.Hourly.String())
			}
			if strings.Join(prices, ",") != tc.want {
				t.Errorf("price in force at %s (unordered %v): %q, want %q", tc.at, unordered, prices, tc.want)
			}
		}
	}
	wantIDs := pricewatch.CloudIDs{}
	if schema >= 5 {
		wantIDs = pricewatch.CloudIDs{SkuID: "DZH318Z0BQ4C", SkuPriceID: "DZH318Z0BQ4C/0002", ProductID: "DZH318Z0BPVP", RegionName: "East US"}
	}
	if got[1].CloudIDs != wantIDs {
		t.Fatalf("cloud ids after migration: %+v, want %+v", got[1].CloudIDs, wantIDs)
	}

	// The new code stores the next, unchanged run without touching the
	// row; last_seen still moves.
	unchanged := offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.OnDemand, "90.00")
	unchanged.CloudIDs = wantIDs
	mustSave(t, db, snapshot(unchanged))
	got = history()
	if len(got) != 2 || !got[1].LastSeen.Equal(clk.t) || got[1].ValidTo != nil || got[0].LastSeen.Hour() != 11 {
		t.Fatalf("history after an unchanged run: %+v", got)
	}
	var stored string
	if err := db.read.QueryRow(`SELECT last_seen FROM prices WHERE valid_to IS NULL`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != "2026-11-02T12:00:00.000000Z" {
		t.Errorf("the unchanged run rewrote the row's last_seen: %s", stored)
	}
	// A change closes the interval with the last run that saw it.
	clk.tick()
	mustSave(t, db, snapshot(offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.OnDemand, "95")))
	got = history()
	if len(got) != 3 || got[1].ValidTo == nil || !got[1].ValidTo.Equal(clk.t) || !got[1].LastSeen.Equal(clk.t.Add(-time.Hour)) {
		t.Fatalf("history after a change: %+v", got)
	}
	av, err := db.Availability(ctx, AvailabilityFilter{})
	if err != nil || len(av) != 1 || av[0].LastSeen.Hour() != 12 {
		t.Fatalf("availability after migration: %+v, %v", av, err)
	}
}

func TestLargeMigrationShowsProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a database of 150k intervals")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "release.db")
	// The upgrade a deployment of the previous release makes: schema 6
	// (run leases) to this one.
	releaseSchema(t, path, 6, 150_000)
	var reports []string
	db, err := OpenURL(ctx, path, Options{Progress: func(m string) { reports = append(reports, m) }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	text := strings.Join(reports, "\n")
	for _, want := range []string{"migrating", "_scale.sql", "CREATE INDEX prices_current_cover", "done in"} {
		if !strings.Contains(text, want) {
			t.Errorf("progress lacks %q:\n%s", want, text)
		}
	}
	n := 0
	err = db.EachPrice(ctx, PriceFilter{Providers: []string{"aws"}, Since: time.Date(2026, 1, 1, 9, 30, 0, 0, time.UTC)}, func(*PriceInterval) error {
		n++
		return nil
	})
	if err != nil || n != 15_000 {
		t.Errorf("closed intervals ending after 09:30: %d, %v; want 15000", n, err)
	}
}

// last_seen without a write per row: a price in an unchanged scope is seen
// by the run, one outside every scope is not, and a pair missing from a
// run keeps the time it was last listed.
func TestLastSeenFromScopes(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		a := offer("Standard_NC24ads_A100_v4", "eastus", pricewatch.OnDemand, "3.673")
		b := offer("Standard_NC24ads_A100_v4", "westus", pricewatch.OnDemand, "3.9")
		c := offer("Standard_NC24ads_A100_v4", "northeurope", pricewatch.OnDemand, "4.1")
		avail := func(region string) pricewatch.Availability {
			return pricewatch.Availability{Provider: "azure", Region: region, InstanceType: a.InstanceType, State: pricewatch.Offered, Hardware: a.Hardware}
		}
		first := &pricewatch.Snapshot{Provider: "azure", Offers: []pricewatch.Offer{a, b, c},
			Availability: []pricewatch.Availability{avail("eastus"), avail("westus")},
			Coverage:     []pricewatch.Scope{{Region: pricewatch.AllRegions, Availability: true}}}
		mustSaveWith(t, db, first, SaveOptions{Policy: alerting.NewPolicy(0, 3)})
		t0 := clk.t
		clk.tick()
		// eastus fetched (westus's availability missing), westus unchanged,
		// northeurope not looked at.
		second := &pricewatch.Snapshot{Provider: "azure", Offers: []pricewatch.Offer{a}, Availability: []pricewatch.Availability{avail("eastus")},
			Coverage:  []pricewatch.Scope{{Region: "eastus", Availability: true}, {Region: "westus", Availability: true, PriceTypes: []pricewatch.PriceType{pricewatch.Spot}}},
			Unchanged: []pricewatch.Scope{{Region: "westus", PriceTypes: []pricewatch.PriceType{pricewatch.OnDemand}}}}
		res := mustSaveWith(t, db, second, SaveOptions{Policy: alerting.NewPolicy(0, 3)})
		if res.Unchanged != 2 || res.Closed != 0 {
			t.Errorf("second run: %+v, want 2 unchanged, none closed", res)
		}
		got, err := db.Prices(ctx, PriceFilter{CurrentOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]time.Time{"eastus": clk.t, "westus": clk.t, "northeurope": t0}
		for _, p := range got {
			if !p.LastSeen.Equal(want[p.Region]) {
				t.Errorf("%s last seen %s, want %s", p.Region, p.LastSeen, want[p.Region])
			}
		}
		av, err := db.Availability(ctx, AvailabilityFilter{})
		if err != nil {
			t.Fatal(err)
		}
		wantAv := map[string]time.Time{"eastus": clk.t, "westus": t0}
		for _, x := range av {
			if !x.LastSeen.Equal(wantAv[x.Region]) {
				t.Errorf("availability %s last seen %s, want %s", x.Region, x.LastSeen, wantAv[x.Region])
			}
		}
		// westus's availability comes back: seen again from then on.
		clk.tick()
		mustSaveWith(t, db, first, SaveOptions{Policy: alerting.NewPolicy(0, 3)})
		clk.tick()
		mustSaveWith(t, db, first, SaveOptions{Policy: alerting.NewPolicy(0, 3)})
		av, _ = db.Availability(ctx, AvailabilityFilter{})
		for _, x := range av {
			if !x.LastSeen.Equal(clk.t) {
				t.Errorf("availability %s last seen %s after it came back, want %s", x.Region, x.LastSeen, clk.t)
			}
		}
	})
}

// ByOffer returns the same intervals as the key order, grouped per offer
// and in time order within each; with EffectiveOnly (trends: on SQLite one
// row per offer, its intervals joined in SQL) the same currency, effective
// rate and validity of each, a currency holding the join's separators
// included.
func TestByOfferSameIntervals(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		start := clk.t
		for i := 0; i < 6; i++ {
			a := offer("Standard_NC24ads_A100_v4", "eastus", pricewatch.Spot, fmt.Sprintf("1.%d", i))
			b := offer("Standard_ND96isr_H100_v5", "westus", pricewatch.OnDemand, fmt.Sprintf("9%d", i%2))
			c := offer("Standard_NC40ads_H100_v5", "westus", pricewatch.Spot, fmt.Sprintf("2.%d", i))
			mustSave(t, db, snapshot(a, b, c))
			clk.tick()
		}
		if !db.pg {
			// Saving refuses anything but a currency code; a currency
			// holding the joined read's separators (a file edited by
			// hand) is still read by its length, never split.
			if _, err := db.write.ExecContext(ctx, `UPDATE prices SET currency = ? WHERE offer_id = (SELECT id FROM offers WHERE instance_type = ?)`,
				"U\x1fS\x1eD", "Standard_NC40ads_H100_v5"); err != nil {
				t.Fatal(err)
			}
		}
		for _, since := range []time.Time{{}, start.Add(150 * time.Minute)} {
			want, err := db.Prices(ctx, PriceFilter{Since: since})
			if err != nil {
				t.Fatal(err)
			}
			byID := map[int64]PriceInterval{}
			for _, p := range want {
				byID[p.ID] = p
			}
			for _, effectiveOnly := range []bool{false, true} {
				var got []PriceInterval
				err = db.EachPrice(ctx, PriceFilter{Since: since, ByOffer: true, EffectiveOnly: effectiveOnly}, func(p *PriceInterval) error {
					if n := len(got); n > 0 && got[n-1].Key() == p.Key() && !got[n-1].ValidFrom.Before(p.ValidFrom) {
						t.Errorf("intervals of %s out of order", p.Key())
					}
					got = append(got, *p)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(want) {
					t.Fatalf("since %s, effective only %v: %d intervals by offer, %d in key order", since, effectiveOnly, len(got), len(want))
				}
				for _, p := range got {
					w, ok := byID[p.ID]
					switch {
					case !ok:
						t.Errorf("since %s: interval %d by offer only", since, p.ID)
					case p.OfferID != w.OfferID || p.Key() != w.Key() || p.Currency != w.Currency || !p.EffectiveHourly.Equal(w.EffectiveHourly) ||
						!p.ValidFrom.Equal(w.ValidFrom) || (p.ValidTo == nil) != (w.ValidTo == nil) || (p.ValidTo != nil && !p.ValidTo.Equal(*w.ValidTo)):
						t.Errorf("since %s, effective only %v: interval %d read as %+v, want %+v", since, effectiveOnly, p.ID, p, w)
					}
				}
			}
		}
	})
}

// ClosedOnly with Since reads the Since read's closed intervals, none of
// its current ones, and with BegunBySince only those in force at Since;
// without Since alone (BegunBySince without ClosedOnly) it is refused,
// never read as something else.
func TestClosedOnlySince(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		start := clk.t
		for i := 0; i < 5; i++ {
			a := offer("Standard_NC24ads_A100_v4", "eastus", pricewatch.Spot, fmt.Sprintf("1.%d", i))
			b := offer("Standard_ND96isr_H100_v5", "westus", pricewatch.OnDemand, "90")
			mustSave(t, db, snapshot(a, b))
			clk.tick()
		}
		since := clk.t.Add(-clk.t.Sub(start) / 2)
		all, err := db.Prices(ctx, PriceFilter{Since: since})
		if err != nil {
			t.Fatal(err)
		}
		var want []int64
		for _, p := range all {
			if p.ValidTo != nil {
				want = append(want, p.ID)
			}
		}
		if len(want) == 0 || len(want) == len(all) {
			t.Fatalf("the fixture's window holds %d closed of %d intervals: want some of each", len(want), len(all))
		}
		var got []int64
		if err := db.EachPrice(ctx, PriceFilter{Since: since, ClosedOnly: true}, func(p *PriceInterval) error {
			got = append(got, p.ID)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("closed since %s: %v, want %v", since, got, want)
		}
		// BegunBySince: of those, the ones in force at since.
		var inForce, later []int64
		for _, p := range all {
			if p.ValidTo != nil && !p.ValidFrom.After(since) {
				inForce = append(inForce, p.ID)
			} else if p.ValidTo != nil {
				later = append(later, p.ID)
			}
		}
		if len(inForce) == 0 || len(later) == 0 {
			t.Fatalf("the fixture's window holds %d closed intervals begun by %s and %d after: want some of each", len(inForce), since, len(later))
		}
		got = nil
		if err := db.EachPrice(ctx, PriceFilter{Since: since, ClosedOnly: true, BegunBySince: true}, func(p *PriceInterval) error {
			got = append(got, p.ID)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, inForce) {
			t.Errorf("closed since %s and begun by it: %v, want %v", since, got, inForce)
		}
		for _, f := range []PriceFilter{{ClosedOnly: true}, {ClosedOnly: true, Since: since, CurrentOnly: true}, {ClosedOnly: true, Since: since, ByOffer: true}, {Since: since, BegunBySince: true}} {
			if err := db.EachPrice(ctx, f, func(*PriceInterval) error { return nil }); err == nil {
				t.Errorf("%+v: read, want refused", f)
			}
		}
	})
}

// TestPricesOnly: a read without the offers gives the same intervals,
// prices and offer ids as the whole read, in the same order, with the
// offer's identity and hardware left out; on both backends and for each kind of read.
func TestPricesOnly(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		start := clk.t
		for i := 0; i < 4; i++ {
			a := offer("Standard_NC24ads_A100_v4", "eastus", pricewatch.Spot, fmt.Sprintf("1.%d", i))
			b := offer("Standard_ND96isr_H100_v5", "westus", pricewatch.OnDemand, fmt.Sprintf("9%d", i%2))
			mustSave(t, db, snapshot(a, b))
			clk.tick()
		}
		mid := clk.t.Add(-clk.t.Sub(start) / 2)
		current, err := db.Prices(ctx, PriceFilter{CurrentOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		ids := []int64{current[0].OfferID}
		for _, f := range []PriceFilter{
			{},
			{CurrentOnly: true},
			{Since: mid},
			{Since: mid, ClosedOnly: true},
			{At: []time.Time{mid}, Unordered: true},
			{At: []time.Time{mid}, Unordered: true, EffectiveOnly: true, OfferIDs: ids},
			{Since: start, ByOffer: true},
		} {
			whole, err := db.Prices(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			if len(whole) == 0 {
				t.Fatalf("%+v: the fixture reads nothing", f)
			}
			f.PricesOnly = true
			got, err := db.Prices(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			for i := range whole {
				// The price's own fields stay (Offer holds them).
				o := whole[i].Offer
				whole[i].Offer, whole[i].Identity = pricewatch.Offer{Currency: o.Currency, Hourly: o.Hourly, Upfront: o.Upfront}, nil
			}
			// A current price's LastSeen is as stored without its offer,
			// not the newest run covering it.
			for _, rows := range [][]PriceInterval{whole, got} {
				for i := range rows {
					if rows[i].ValidTo == nil {
						rows[i].LastSeen = time.Time{}
					}
				}
			}
			if f.At != nil || f.ByOffer {
				// No order is promised: compare as sets.
				byID := func(a, b PriceInterval) int { return cmp.Compare(a.ID, b.ID) }
				slices.SortFunc(whole, byID)
				slices.SortFunc(got, byID)
			}
			if !reflect.DeepEqual(got, whole) {
				t.Errorf("%+v:\n got %+v\nwant %+v", f, got, whole)
			}
		}
	})
}
