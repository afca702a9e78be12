package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/internal/scalegen"
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
			configs["postgres"] = "url: " + scalegen.CopyToPostgres(b, path)
		}
		for _, backend := range []string{"sqlite", "postgres"} {
			if configs[backend] != "" {
				scaleCommands(b, share, backend, configs[backend])
			}
		}
	}
}

func scaleCommands(b *testing.B, share float64, backend, database string) {
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

// BenchmarkScaleBinary runs the history reads of issue 26 as the built
// binary, each in a process of its own through /usr/bin/time, on the
// simulated history at each share of PRICEWATCH_SCALE:
//
//	PRICEWATCH_SCALE=1 go test ./cmd/pricewatch -run '^$' -bench ScaleBinary -benchtime 5x -timeout 3h
//
// The targets (issue 26 item 4): `trends --window 90d` on a year under
// 1 s of CPU (cpu-ms/op), the digest on a year under 80 MB of peak RSS
// (peak-RSS-MB, the highest of the runs) with the daemon unit's
// GOMEMLIMIT=64MiB. /usr/bin/time measures the binary alone: a child
// forked from this test process would count the parent's pages.
func BenchmarkScaleBinary(b *testing.B) {
	shares := scalegen.Shares()
	if len(shares) == 0 {
		b.Skip("set PRICEWATCH_SCALE=0.1,1 to run the scale benchmark")
	}
	timeBin := "/usr/bin/time"
	if _, err := os.Stat(timeBin); err != nil {
		b.Skip("needs /usr/bin/time to measure peak RSS")
	}
	bin := filepath.Join(b.TempDir(), "pricewatch")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	for _, share := range shares {
		cached, err := scalegen.Cached(context.Background(), scalegen.Default(share), os.Stderr)
		if err != nil {
			b.Fatal(err)
		}
		path, err := scalegen.CopyTo(cached, b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		cfg := filepath.Join(b.TempDir(), "pricewatch.yaml")
		if err := os.WriteFile(cfg, []byte("database:\n  path: "+path+"\nlog:\n  level: error\nfx:\n  enabled: false\n"), 0o600); err != nil {
			b.Fatal(err)
		}
		now := scalegen.Start.Add(time.Duration(share * float64(scalegen.Year))).Format(time.RFC3339)
		// Once unmeasured: the copy is migrated to the current schema and
		// the file is in the page cache.
		if out, err := exec.Command(bin, "--config", cfg, "trends", "--window", "90d", "--now", now).CombinedOutput(); err != nil {
			b.Fatalf("trends: %v\n%s", err, out)
		}
		for _, c := range []struct {
			name string
			env  []string
			args []string
		}{
			{"digest-GOMEMLIMIT=64MiB", []string{"GOMEMLIMIT=64MiB"}, []string{"digest", "--now", now}},
			{"trends-90d", nil, []string{"trends", "--window", "90d", "--now", now}},
		} {
			b.Run(fmt.Sprintf("year=%g/%s", share, c.name), func(b *testing.B) {
				report := filepath.Join(b.TempDir(), "time.txt")
				var cpu time.Duration
				var peakKB int64
				for b.Loop() {
					cmd := exec.Command(timeBin, append([]string{"-o", report, "-f", "%U %S %M", bin, "--config", cfg}, c.args...)...)
					cmd.Env = append(os.Environ(), c.env...)
					if out, err := cmd.CombinedOutput(); err != nil {
						b.Fatalf("%v: %v\n%s", c.args, err, out)
					}
					t, err := os.ReadFile(report)
					if err != nil {
						b.Fatal(err)
					}
					var user, sys float64
					var kb int64
					if _, err := fmt.Sscanf(strings.TrimSpace(string(t)), "%f %f %d", &user, &sys, &kb); err != nil {
						b.Fatalf("reading %q: %v", t, err)
					}
					cpu += time.Duration((user + sys) * float64(time.Second))
					peakKB = max(peakKB, kb)
				}
				// CPU time beside wall time: the machine may be shared.
				b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
				b.ReportMetric(float64(peakKB)/1024, "peak-RSS-MB")
			})
		}
	}
}
