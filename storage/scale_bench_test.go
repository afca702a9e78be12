package storage_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/internal/heappeak"
	"github.com/pricewatch/pricewatch/internal/scalegen"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/storage/storagetest"
)

// BenchmarkScale times the store step and history reads on a simulated
// deployment's history (internal/scalegen) at each share of a year named
// in PRICEWATCH_SCALE, e.g.
//
//	PRICEWATCH_SCALE=0.1,1,3 go test ./storage -run '^$' -bench Scale -benchmem -benchtime 20x -timeout 3h
//
// Without PRICEWATCH_SCALE it is skipped: building a year takes minutes
// (the databases are cached under os.UserCacheDir).
func BenchmarkScale(b *testing.B) {
	shares := scalegen.Shares()
	if len(shares) == 0 {
		b.Skip("set PRICEWATCH_SCALE=0.1,1,3 to run the scale benchmark")
	}
	ctx := context.Background()
	for _, share := range shares {
		d := scalegen.Default(share)
		cached, err := scalegen.Cached(ctx, d, os.Stderr)
		if err != nil {
			b.Fatal(err)
		}
		// On PostgreSQL (with PRICEWATCH_TEST_POSTGRES) the cached history
		// is copied once into a schema of its own (storage.Copy), which the
		// benchmarks then share: a store run's few rows stay for the next.
		pgDSN := ""
		if os.Getenv(storagetest.PostgresEnv) != "" {
			pgDSN = scalegen.CopyToPostgres(b, cached)
		}
		for _, backend := range []string{"sqlite", "postgres"} {
			if backend == "postgres" && pgDSN == "" {
				continue
			}
			open := func(b *testing.B) *scalegen.Sim { return scalegen.OpenCopy(b, share) }
			if backend == "postgres" {
				open = func(b *testing.B) *scalegen.Sim { return scalegen.OpenPath(b, pgDSN, share) }
			}
			scaleBenchmarks(b, fmt.Sprintf("year=%g/%s", share, backend), open)
		}
	}
}

func scaleBenchmarks(b *testing.B, prefix string, open func(*testing.B) *scalegen.Sim) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		change bool
	}{{"store-unchanged", false}, {"store-changed", true}} {
		b.Run(prefix+"/"+tc.name, func(b *testing.B) {
			sim := open(b)
			var written int64
			cpu := scalegen.CPUTime()
			for b.Loop() {
				sim.Now = sim.Now.Add(time.Hour)
				before := scalegen.WrittenBytes()
				if _, err := sim.AzureRun(ctx, tc.change); err != nil {
					b.Fatal(err)
				}
				written += scalegen.WrittenBytes() - before
			}
			b.ReportMetric(float64(written)/float64(b.N), "written-B/run")
			// CPU time beside wall time: the machine may be shared.
			b.ReportMetric(float64(scalegen.CPUTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
	// The file as the daemon keeps it: the default retention (changes
	// older than 90 days pruned) applied, then vacuumed.
	b.Run(prefix+"/size-after-retention", func(b *testing.B) {
		sim := open(b)
		before, err := sim.DB.Stats(ctx)
		if err != nil {
			b.Fatal(err)
		}
		var res storage.MaintainResult
		for b.Loop() {
			if res, err = sim.DB.Maintain(ctx, storage.Retention{ChangesMaxAge: 90 * 24 * time.Hour}); err != nil {
				b.Fatal(err)
			}
			if err := sim.DB.Vacuum(ctx); err != nil {
				b.Fatal(err)
			}
		}
		after, err := sim.DB.Stats(ctx)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(before.FileBytes)/1e6, "MB-before")
		b.ReportMetric(float64(after.FileBytes)/1e6, "MB-after")
		b.ReportMetric(float64(after.PriceIntervals), "intervals")
		b.ReportMetric(float64(res.ChangesPruned), "changes-pruned")
	})
	b.Run(prefix+"/history-type", func(b *testing.B) {
		sim := open(b)
		var n int
		cpu := scalegen.CPUTime()
		peak := scalegen.PeakHeap(func() {
			for b.Loop() {
				n = 0
				err := sim.DB.EachPrice(ctx, storage.PriceFilter{InstanceType: scalegen.BusiestType}, func(*storage.PriceInterval) error {
					n++
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
		b.ReportMetric(float64(scalegen.CPUTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
		b.ReportMetric(float64(n), "intervals")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	})
	// The read a 90-day trends answer streams (report.ComputeTrends): every
	// offer's intervals on a daily grid, one offer after another. What it
	// holds at once beside the interval handed out is what the daemon's
	// round holds while the trends are computed.
	b.Run(prefix+"/trends-read-90d", func(b *testing.B) {
		sim := open(b)
		to := sim.Now
		from := to.Add(-90 * 24 * time.Hour)
		f := storage.PriceFilter{Since: from, ByOffer: true, EffectiveOnly: true,
			Samples: &storage.SampleGrid{From: from, To: to, Step: 24 * time.Hour}}
		var n int
		cpu := scalegen.CPUTime()
		// The live heap as collections this often mark it: what the read
		// holds at once, not the garbage it leaves between collections.
		defer debug.SetGCPercent(debug.SetGCPercent(5))
		runtime.GC()
		live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		metrics.Read(live)
		held := live[0].Value.Uint64()
		stop := heappeak.StartLive()
		for b.Loop() {
			n = 0
			err := sim.DB.EachPrice(ctx, f, func(*storage.PriceInterval) error {
				n++
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		peak := stop()
		b.ReportMetric(float64(scalegen.CPUTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
		b.ReportMetric(float64(n), "intervals")
		b.ReportMetric((float64(peak)-float64(held))/(1<<20), "live-over-held-MB")
	})
}
