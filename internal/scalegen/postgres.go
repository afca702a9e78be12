package scalegen

import (
	"context"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/storage/storagetest"
)

// CopyToPostgres copies the cached SQLite history at path into a fresh
// PostgreSQL schema (skipping tb without PRICEWATCH_TEST_POSTGRES) and
// returns its DSN, for the benchmarks that run on both backends. It reads
// from a copy: the cache must not be migrated or left with WAL files by
// this process.
func CopyToPostgres(tb testing.TB, path string) string {
	tb.Helper()
	dsn := storagetest.PostgresDSN(tb)
	ctx := context.Background()
	path, err := CopyTo(path, tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	src, err := storage.Open(ctx, path, storage.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer src.Close()
	dst, err := storage.OpenPostgres(ctx, dsn, storage.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer dst.Close()
	began := time.Now()
	if _, err := storage.Copy(ctx, src, dst, storage.CopyOptions{}); err != nil {
		tb.Fatal(err)
	}
	// The planner's statistics, as autovacuum would gather them.
	if err := dst.Vacuum(ctx); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("copied %s to PostgreSQL in %s", path, time.Since(began).Round(time.Second))
	return dsn
}
