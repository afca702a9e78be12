package storage

import (
	"context"
	"io/fs"
	"path/filepath"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
)

// The shared fixture of this package's tests: a fresh database in the
// test's temp dir on a clock the test moves by hand, and the small offer
// and snapshot builders every table starts from.

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }
func (c *clock) tick()          { c.t = c.t.Add(time.Hour) }

func openTest(t *testing.T) (*DB, *clock) {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "pw.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c := &clock{t: time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)}
	db.Now = c.now
	return db, c
}

func offer(typ, region string, pt pricewatch.PriceType, hourly string) pricewatch.Offer {
	o := pricewatch.Offer{
		Provider: "azure", Region: region, InstanceType: typ, PriceType: pt, OS: pricewatch.Linux,
		Currency: "USD", Hourly: decimal.RequireFromString(hourly),
		Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8, GPUMemoryGB: 80, VCPUs: 96, MemoryGB: 1900},
	}
	return o
}

func snapshot(offers ...pricewatch.Offer) *pricewatch.Snapshot {
	return &pricewatch.Snapshot{Provider: "azure", Offers: offers, Coverage: []pricewatch.Scope{{Region: pricewatch.AllRegions}}}
}

// openTestDB is openTest for the tests that also talk to the database
// directly: the context ends with the test.
func openTestDB(t *testing.T) (context.Context, *DB, *clock) {
	t.Helper()
	db, clk := openTest(t)
	return t.Context(), db, clk
}

// seedVersions writes source_versions rows {provider, key, version} as an
// older release left them, for the migration tests.
func seedVersions(ctx context.Context, t *testing.T, db *DB, updatedAt string, rows [][3]string) {
	t.Helper()
	for _, kv := range rows {
		if _, err := db.write.ExecContext(ctx, `INSERT INTO source_versions (provider, key, version, updated_at) VALUES (?, ?, ?, ?)`, kv[0], kv[1], kv[2], updatedAt); err != nil {
			t.Fatal(err)
		}
	}
}

// runMigrationFile runs the one embedded migration matching the glob (its
// number is not fixed: migrations are renumbered at merge) on db as it is.
func runMigrationFile(ctx context.Context, t *testing.T, db *DB, glob string) {
	t.Helper()
	names, err := fs.Glob(migrations, "migrations/"+glob)
	if err != nil || len(names) != 1 {
		t.Fatalf("migration file: %v %v", names, err)
	}
	body, err := migrations.ReadFile(names[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.write.ExecContext(ctx, string(body)); err != nil {
		t.Fatalf("applying %s: %v", names[0], err)
	}
}

// allPrices are every stored price interval; a failed read fails the test.
func allPrices(t *testing.T, db *DB) []PriceInterval {
	t.Helper()
	got, err := db.Prices(t.Context(), PriceFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return got
}
