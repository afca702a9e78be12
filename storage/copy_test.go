package storage

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/storage/storagetest"
)

// buildHistory stores a few days of runs touching every table: prices
// that change and vanish, a held price, a move waiting for confirmation,
// availability, outbox messages (one with an attachment), exchange rates,
// source versions, fetcher state and capacity signals.
func buildHistory(t *testing.T, db *DB, clk *clock) {
	t.Helper()
	ctx := t.Context()
	for day := range 6 {
		offers := []pricewatch.Offer{
			offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.OnDemand, fmt.Sprintf("98.%d", day%3)),
			offer("Standard_ND96isr_H100_v5", "westeurope", pricewatch.Spot, fmt.Sprintf("40.%d", day)),
		}
		if day < 4 {
			offers = append(offers, offer("Standard_NC24ads_A100_v4", "eastus", pricewatch.OnDemand, "3.673"))
		}
		snap := snapshot(offers...)
		snap.Versions = map[string]string{"etag": fmt.Sprint("v", day)}
		snap.State = []byte(fmt.Sprintf(`{"version":1,"data":{"day":%d}}`, day))
		snap.Availability = []pricewatch.Availability{{Provider: "azure", Region: "eastus", InstanceType: "Standard_ND96isr_H100_v5",
			State: []pricewatch.AvailabilityState{pricewatch.InStock, pricewatch.SoldOut}[day%2], Hardware: offers[0].Hardware}}
		// A capacity signal whose band moves every other day (table signals).
		snap.Signals = []pricewatch.Signal{band("Standard_ND96isr_H100_v5", "eastus", []string{"<5%", ">20%"}[day/2%2])}
		snap.SignalCoverage = []pricewatch.SignalScope{{Kind: pricewatch.InterruptionBand, Region: pricewatch.AllRegions}}
		opts := SaveOptions{Policy: alerting.NewPolicy(50, 1), Outbox: func(res *Result) ([]OutboxMessage, error) {
			return []OutboxMessage{{DeliveryKey: fmt.Sprintf("run/%d", res.RunID), Channel: "#gpu", Kind: "alert", Payload: []byte(`{"text":"x"}`)}}, nil
		}}
		if day == 3 {
			held := offer("Standard_NC40ads_H100_v5", "eastus", pricewatch.OnDemand, "0.001")
			snap.Offers = append(snap.Offers, held)
			opts.Held = []HeldPrice{{Offer: held, Reason: HeldBelowFloor, Detail: "below the floor"}}
		}
		if _, err := save(t, db, snap, opts); err != nil {
			t.Fatalf("day %d: %v", day, err)
		}
		clk.t = clk.t.Add(24 * time.Hour)
	}
	if _, err := db.Enqueue(ctx, OutboxMessage{DeliveryKey: "digest/w1", Channel: "#gpu", Kind: "digest", Payload: []byte(`{}`)}, []byte("\x89PNG\x00bytes")); err != nil {
		t.Fatal(err)
	}
	if err := db.SaveFXDay(ctx, FXDay{Date: clk.t, Source: "ECB", PerEUR: map[string]decimal.Decimal{"USD": decimal.RequireFromString("1.0842")}}); err != nil {
		t.Fatal(err)
	}
}

// TestCopyBetweenBackends: a history copied SQLite → PostgreSQL, in
// batches and interrupted half way, then continued, holds the same rows
// (counts and checksums verified) and reads back the same; copied back to a
// new SQLite file, the same again. A destination holding another history
// is refused.
func TestCopyBetweenBackends(t *testing.T) {
	pgDSN := storagetest.PostgresDSN(t)
	ctx := t.Context()
	src, clk := openTestSQLite(t)
	buildHistory(t, src, clk)
	pg := store(pgDSN).open(t, Options{})

	old := copyBatch
	copyBatch = 3
	t.Cleanup(func() { copyBatch = old })

	// Interrupted: the context ends after a few batches.
	cut, cancel := context.WithCancel(ctx)
	batches := 0
	_, err := Copy(cut, src, pg, CopyOptions{Progress: func(string) {
		if batches++; batches == 4 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted copy: %v, want context.Canceled", err)
	}
	var lines []string
	tables, err := Copy(ctx, src, pg, CopyOptions{Progress: func(m string) { lines = append(lines, m) }})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "fetch_runs: resuming") }) {
		t.Errorf("second copy did not resume: %q", lines)
	}
	want := map[string]bool{}
	for _, tb := range tables {
		if tb.Rows == 0 && tb.Name != "run_leases" && tb.Name != "pending_moves" {
			t.Errorf("table %s copied empty: the history should fill it", tb.Name)
		}
		want[tb.Name] = true
	}
	if len(want) != len(copyTables) {
		t.Errorf("copied %d tables, want %d", len(want), len(copyTables))
	}
	sameReads(t, src, pg)
	// The planner has statistics of what was copied (a type's history read
	// by scanning every price without them).
	var analyzed int
	if err := pg.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM pg_stat_user_tables
		WHERE schemaname = current_schema() AND relname IN ('prices', 'offers') AND last_analyze IS NOT NULL`).Scan(&analyzed); err != nil {
		t.Fatal(err)
	}
	if analyzed != 2 {
		t.Errorf("%d of prices and offers analysed after the copy, want 2", analyzed)
	}

	// Ids continue after the copied ones on PostgreSQL.
	clk.tick()
	pg.Now = clk.now
	if _, err := pg.StartRun(ctx, "azure"); err != nil {
		t.Fatalf("a new run after the copy: %v", err)
	}

	// Back to SQLite, from a history that has one more run.
	back := store(t.TempDir()+"/back.db").open(t, Options{})
	if _, err := Copy(ctx, pg, back, CopyOptions{}); err != nil {
		t.Fatal(err)
	}
	sameReads(t, pg, back)

	// src and back now differ (back has the extra run): copying src into
	// back again must find the rows differ, not claim success.
	if _, err := Copy(ctx, src, back, CopyOptions{}); !errors.Is(err, ErrCopyMismatch) {
		t.Errorf("copy into a longer history: %v, want ErrCopyMismatch", err)
	}
	other, oclk := openTestSQLite(t)
	oclk.t = oclk.t.Add(-time.Hour)
	mustSave(t, other, snapshot(offer("x", "eastus", pricewatch.OnDemand, "1")))
	if _, err := Copy(ctx, src, other, CopyOptions{}); err == nil {
		t.Error("copy into another history succeeded")
	}
}

func openTestSQLite(t *testing.T) (*DB, *clock) {
	db := store(t.TempDir()+"/pw.db").open(t, Options{})
	c := &clock{t: time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)}
	db.Now = c.now
	return db, c
}

// sameReads: both databases answer the storage reads alike.
func sameReads(t *testing.T, a, b *DB) {
	t.Helper()
	ctx := t.Context()
	check := func(what string, x, y any, errs ...error) {
		t.Helper()
		if err := errors.Join(errs...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if !reflect.DeepEqual(x, y) {
			t.Errorf("%s differ:\n%+v\n%+v", what, x, y)
		}
	}
	pa, err1 := a.Prices(ctx, PriceFilter{})
	pb, err2 := b.Prices(ctx, PriceFilter{})
	check("prices", pa, pb, err1, err2)
	aa, err1 := a.Availability(ctx, AvailabilityFilter{All: true})
	ab, err2 := b.Availability(ctx, AvailabilityFilter{All: true})
	check("availability", aa, ab, err1, err2)
	ra, err1 := a.Runs(ctx, 100)
	rb, err2 := b.Runs(ctx, 100)
	check("runs", ra, rb, err1, err2)
	oa, err1 := a.ListOutbox(ctx, OutboxFilter{})
	ob, err2 := b.ListOutbox(ctx, OutboxFilter{})
	check("outbox", oa, ob, err1, err2)
	ha, err1 := a.HeldPrices(ctx, HeldFilter{})
	hb, err2 := b.HeldPrices(ctx, HeldFilter{})
	check("held prices", ha, hb, err1, err2)
	fa, err1 := a.FXDays(ctx)
	fb, err2 := b.FXDays(ctx)
	check("exchange rates", fa, fb, err1, err2)
}

// TestCopyTablesNameEveryColumn: Copy's table list is the schema, on both
// backends; a migration adding a column or table must add it there too.
func TestCopyTablesNameEveryColumn(t *testing.T) {
	backends(t, func(t *testing.T) {
		db, _ := openTest(t)
		q := `SELECT m.name, p.name FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table' ORDER BY m.name, p.cid`
		if db.pg {
			q = `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name <> 'pricewatch_schema'
				ORDER BY table_name, ordinal_position`
		}
		rows, err := db.read.QueryContext(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		got := map[string][]string{}
		for rows.Next() {
			var tb, c string
			if err := rows.Scan(&tb, &c); err != nil {
				t.Fatal(err)
			}
			got[tb] = append(got[tb], c)
		}
		want := map[string][]string{}
		for _, tb := range copyTables {
			want[tb.name] = tb.columns
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("schema columns:\n%v\ncopyTables:\n%v", got, want)
		}
	})
}

func TestPostgresErrorsHideThePassword(t *testing.T) {
	// Nothing listens on port 1: the connection fails, naming the DSN.
	_, err := OpenPostgres(t.Context(), "postgres://pricewatch:s3cret-pw@127.0.0.1:1/pw?connect_timeout=2", Options{})
	if err == nil {
		t.Fatal("opening an unreachable database succeeded")
	}
	if got := err.Error(); !strings.Contains(got, "127.0.0.1") || strings.Contains(got, "s3cret-pw") {
		t.Errorf("error %q: want the host, never the password", got)
	}
	if got := RedactDSN("postgres://u:s3cret-pw@h/db?sslmode=disable"); got != "postgres://u:xxxxx@h/db?sslmode=disable" {
		t.Errorf("RedactDSN = %q", got)
	}
	if got := RedactDSN("host=h password=s3cret-pw dbname=x"); got != "host=h password=xxxxx dbname=x" {
		t.Errorf("RedactDSN = %q", got)
	}
}

// TestPostgresSchemaOfAnotherProgramIsRefused: a schema holding tables but
// no pricewatch_schema is not migrated into, and one whose version is newer
// than this binary's is refused, as SQLite files are.
func TestPostgresSchemaOfAnotherProgramIsRefused(t *testing.T) {
	dsn := storagetest.PostgresDSN(t)
	ctx := t.Context()
	db := store(dsn).open(t, Options{})
	if _, err := db.write.ExecContext(ctx, `UPDATE pricewatch_schema SET version = 99`); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenPostgres(ctx, dsn, Options{}); err == nil || !strings.Contains(err.Error(), "schema version 99") {
		t.Errorf("newer schema: %v, want it refused", err)
	}
	if _, err := db.write.ExecContext(ctx, `DROP TABLE pricewatch_schema`); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenPostgres(ctx, dsn, Options{}); !errors.Is(err, ErrNotPricewatch) {
		t.Errorf("foreign schema: %v, want ErrNotPricewatch", err)
	}
}
