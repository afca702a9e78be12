package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/internal/scalegen"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/storage/storagetest"
)

// BenchmarkScaleCommands times digest, trends, compare and history through
// the CLI code on the simulated deployment's history (internal/scalegen)
// at each share of a year in PRICEWATCH_SCALE, e.g.
//
//	PRICEWATCH_SCALE=0.1,1 go test ./cmd/pricewatch -run '^$' -bench ScaleCommands -benchmem -benchtime 5x -timeout 3h
//
// Skipped without PRICEWATCH_SCALE. peak-heap-MB samples the Go heap while
// the command runs.
func BenchmarkScaleCommands(b *testing.B) {
	shares := scalegen.Shares()
	if len(shares) == 0 {
		b.Skip("set PRICEWATCH_SCALE=0.1,1,3 to run the scale benchmark")
	}
	for _, share := range shares {
		d := scalegen.Default(share)
		cached, err := scalegen.Cached(context.Background(), d, os.Stderr)
		if err != nil {
			b.Fatal(err)
		}
		// A copy: opening a database from another process's cache must
		// not leave WAL files beside it.
		path, err := scalegen.CopyTo(cached, b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		configs := map[string]string{"sqlite": "path: " + path}
		// With PRICEWATCH_TEST_POSTGRES the same history, copied into a
		// schema of its own (storage.Copy), is read through database.url.
		if os.Getenv(storagetest.PostgresEnv) != "" {
			configs["postgres"] = "url: " + copyToPostgres(b, path)
		}
		for _, backend := range []string{"sqlite", "postgres"} {
			if configs[backend] != "" {
				scaleCommands(b, share, backend, configs[backend])
			}
		}
	}
}

// copyToPostgres copies the SQLite history at path into a fresh schema and
// returns its DSN.
func copyToPostgres(b *testing.B, path string) string {
	dsn := storagetest.PostgresDSN(b)
	ctx := context.Background()
	// From a copy: the cache must not be migrated or left with WAL files
	// by this process.
	path, err := scalegen.CopyTo(path, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	src, err := storage.Open(ctx, path, storage.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	dst, err := storage.OpenPostgres(ctx, dsn, storage.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer dst.Close()
	if _, err := storage.Copy(ctx, src, dst, storage.CopyOptions{}); err != nil {
		b.Fatal(err)
	}
	if err := dst.Vacuum(ctx); err != nil { // the planner's statistics
		b.Fatal(err)
	}
	return dsn
}

func scaleCommands(b *testing.B, share float64, backend, database string) {
	{
		cfg := filepath.Join(b.TempDir(), "pricewatch.yaml")
		if err := os.WriteFile(cfg, []byte(fmt.Sprintf("database:\n  %s\nlog:\n  level: error\nfx:\n  enabled: false\n", database)), 0o600); err != nil {
			b.Fatal(err)
		}
		now := scalegen.Start.Add(time.Duration(share * float64(scalegen.Year))).Format(time.RFC3339)
		for _, c := range []struct {
			name string
			args []string
		}{
			{"digest", []string{"digest", "--now", now}},
			{"trends-90d", []string{"trends", "--window", "90d", "--now", now}},
			{"trends-90d-H100", []string{"trends", "--window", "90d", "--gpu", "H100", "--now", now}},
			{"compare-H100", []string{"compare", "--gpu", "H100", "--now", now}},
			{"savings", []string{"savings", "Standard_H100x8_v3", "--now", now}},
			{"history-json", []string{"history", scalegen.BusiestType, "--format", "json"}},
			{"history-region-json", []string{"history", scalegen.BusiestType, "--region", scalegen.BusiestRegion, "--format", "json"}},
			{"history-table", []string{"history", scalegen.BusiestType, "--since", "all"}},
		} {
			b.Run(fmt.Sprintf("year=%g/%s/%s", share, backend, c.name), func(b *testing.B) {
				args := append([]string{"--config", cfg}, c.args...)
				cpu := scalegen.CPUTime()
				peak := scalegen.PeakHeap(func() {
					for b.Loop() {
						if code := run(context.Background(), args, io.Discard, io.Discard); code != 0 {
							b.Fatalf("%v exited %d", c.args, code)
						}
					}
				})
				b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
				// CPU time beside wall time: the machine may be shared.
				b.ReportMetric(float64(scalegen.CPUTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
			})
		}
	}
}
