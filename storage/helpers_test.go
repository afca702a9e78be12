package storage

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/storage/storagetest"
)

// The shared fixture of this package's tests: a fresh database in the
// test's temp dir on a clock the test moves by hand, and the small offer
// and snapshot builders every table starts from.

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }
func (c *clock) tick()          { c.t = c.t.Add(time.Hour) }

// The conformance suite: every test of the storage contract runs once per
// backend, as subtests "sqlite" and "postgres" (backends), and opens its
// database through openTest / openStore, which read the backend from the
// subtest's name. The PostgreSQL subtest runs in a fresh schema of
// PRICEWATCH_TEST_POSTGRES's database and skips without it.

// backends runs body as subtest "sqlite" and subtest "postgres".
func backends(t *testing.T, body func(t *testing.T)) {
	t.Helper()
	t.Run("sqlite", body)
	t.Run("postgres", body)
}

// onPostgres reports whether t runs inside backends' "postgres" subtest.
func onPostgres(t testing.TB) bool {
	parts := strings.Split(t.Name(), "/")
	return len(parts) > 1 && parts[1] == "postgres"
}

// store is where a test's database lives: an SQLite path or a PostgreSQL
// DSN; opening it twice gives two handles on one history (two processes,
// or two replicas).
type store string

// newStore is a fresh, empty store of t's backend.
func newStore(t *testing.T) store {
	t.Helper()
	if onPostgres(t) {
		return store(storagetest.PostgresDSN(t))
	}
	return store(filepath.Join(t.TempDir(), "pw.db"))
}

// open opens the store, closed when the test ends.
func (s store) open(t testing.TB, opts Options) *DB {
	t.Helper()
	db, err := OpenURL(context.Background(), string(s), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// openStore is a fresh store of t's backend and a handle on it.
func openStore(t *testing.T, opts Options) (store, *DB) {
	t.Helper()
	s := newStore(t)
	return s, s.open(t, opts)
}

func openTest(t *testing.T) (*DB, *clock) {
	t.Helper()
	_, db := openStore(t, Options{})
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

// holdRunLock holds what a provider's run waits for, from a connection of
// its own, until the returned func (or the test's end): SQLite's write
// lock, or on PostgreSQL the provider's run lock (lockProvider).
func holdRunLock(t *testing.T, s store, provider string) (release func()) {
	t.Helper()
	if !IsPostgresURL(string(s)) {
		return storagetest.HoldWriteLock(t, string(s))
	}
	db := s.open(t, Options{})
	conn, err := db.write.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	const key = `hashtextextended('pricewatch/' || current_schema() || '/' || ?, 0)`
	if _, err := conn.ExecContext(t.Context(), `SELECT pg_advisory_lock(`+key+`)`, "run/"+provider); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			if _, err := conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock(`+key+`)`, "run/"+provider); err != nil {
				t.Error(err)
			}
			conn.Close()
		})
	}
	t.Cleanup(release)
	return release
}
