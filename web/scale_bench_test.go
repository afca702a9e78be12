package web_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/config"
	"github.com/pricewatch/pricewatch/internal/heappeak"
	"github.com/pricewatch/pricewatch/internal/scalegen"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/web"
)

// BenchmarkScaleOffers times the offers table (issue 25 item 4: every
// filter on, under 300 ms server time, the page under 300 kB compressed)
// on a simulated deployment's history (internal/scalegen: ~50k current
// offers of Azure and AWS) at each share of a year in PRICEWATCH_SCALE:
//
//	PRICEWATCH_SCALE=1 go test ./web -run '^$' -bench ScaleOffers -benchtime 5x -timeout 1h
//
// Without PRICEWATCH_SCALE it is skipped (a year takes minutes to build;
// the databases are cached under os.UserCacheDir).
func BenchmarkScaleOffers(b *testing.B) {
	shares := scalegen.SharesOrSkip(b, "0.1,1", "the offers table's scale benchmark")
	for _, share := range shares {
		mux := benchServer(scalegen.OpenCopy(b, share), nil)
		for _, path := range []string{
			"/offers",
			"/offers?sort=-vcpus",
			// Every filter on.
			"/offers?provider=aws&provider=azure&region=*east*&gpu=H100&gpus_min=1&gpus_max=8&price_type=on_demand&price_type=spot&native_currency=USD&available_only=false&marketplace=exclude&q=e&sort=-price",
			"/offers?limit=20000",
			"/api/v1/offer-table?gpu=H100&price_type=on_demand",
			"/gpu/",
		} {
			b.Run(fmt.Sprintf("year=%g%s", share, path), func(b *testing.B) {
				cpu := scalegen.CPUTime()
				var size, gz int
				for b.Loop() {
					rec := serveOK(b, mux, path)
					gz = rec.Body.Len()
					size = gz
					if rec.Header().Get("Content-Encoding") == "gzip" {
						zr, err := gzip.NewReader(bytes.NewReader(rec.Body.Bytes()))
						if err != nil {
							b.Fatal(err)
						}
						var plain bytes.Buffer
						if _, err := plain.ReadFrom(zr); err != nil {
							b.Fatal(err)
						}
						size = plain.Len()
					}
				}
				b.ReportMetric(float64(size), "body-bytes")
				b.ReportMetric(float64(gz), "sent-bytes")
				b.ReportMetric(float64(scalegen.CPUTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
			})
		}
	}
}

// scaleServer is a server over a copy of the cached scale database of
// share, with the daemon's memory limit, and a function telling a stored
// run to it (the daemon refreshes its version after each of its runs).
func scaleServer(b *testing.B, share float64) (http.Handler, *scalegen.Sim, func()) {
	ctx := context.Background()
	sim := scalegen.OpenCopy(b, share)
	scalegen.LimitMemory(b)
	versions := web.NewVersions(sim.DB.DataVersion)
	if _, err := versions.Refresh(ctx); err != nil {
		b.Fatal(err)
	}
	return benchServer(sim, versions), sim, func() { versions.Refresh(ctx) }
}

// benchServer serves sim's database at its simulated clock, with the
// default FX settings. The machine is shared: a slow answer is measured,
// not a 503. With versions nil nothing is kept between requests.
func benchServer(sim *scalegen.Sim, versions *web.Versions) http.Handler {
	fx := config.Default().FX
	now := sim.Now
	srv := &web.Server{Store: sim.DB, FX: func() report.FX {
		return report.FX{Currency: fx.Currency, FixedRates: fx.FixedRates, MaxAge: fx.MaxAge}
	}, Now: func() time.Time { return now }, Versions: versions, Limits: web.Limits{Budget: 5 * time.Minute}}
	mux := http.NewServeMux()
	srv.Mount(mux)
	return mux
}

// scalePaths are the hot answers (issue 30 "must show").
var scalePaths = []string{
	"/",
	"/offers",
	"/offers?provider=azure&gpu=H100&price_type=spot&sort=-price",
	"/gpu/H100?days=90",
	"/api/v1/offers?gpu=H100",
	"/api/v1/trends?window=90d",
}

func serveOK(b *testing.B, h http.Handler, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("Accept-Encoding", "gzip")
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		b.Fatalf("%s: %d %s", path, rec.Code, rec.Body.String())
	}
	return rec
}

// BenchmarkScaleKept is issue 30's CPU per request on the scale database:
// "kept" is a view of an answer already computed for the data version
// (every view but the first after a run stores), "cold" the first view
// after a run stored (a stored run is simulated by computing under a new
// clock minute, which the kept answers are also keyed by).
//
//	PRICEWATCH_SCALE=0.25 go test ./web -run '^$' -bench ScaleKept -benchtime 20x -timeout 1h
func BenchmarkScaleKept(b *testing.B) {
	shares := scalegen.SharesOrSkip(b, "0.25", "the kept answers' scale benchmark")
	for _, share := range shares {
		h, sim, _ := scaleServer(b, share)
		// What a run storing costs the current-state views once, shared
		// by every answer of the new version (report.CurrentState).
		b.Run(fmt.Sprintf("year=%g/current-state", share), func(b *testing.B) {
			cpu := scalegen.CPUTime()
			var c *report.CurrentState
			for b.Loop() {
				var err error
				if c, err = report.ReadCurrentState(context.Background(), sim.DB, "bench"); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(scalegen.CPUTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
			b.ReportMetric(float64(c.Offers()), "offers")
			// What holding the snapshot costs: the live heap with it less
			// the live heap without it (issue 30's memory budget).
			var with, without runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&with)
			runtime.KeepAlive(c)
			c = nil
			runtime.GC()
			runtime.ReadMemStats(&without)
			b.ReportMetric(float64(int64(with.HeapAlloc)-int64(without.HeapAlloc))/(1<<20), "held-MiB")
		})
		// What a stored Azure run then costs the state: its providers'
		// prices read again, the others' kept (the load test's writer).
		b.Run(fmt.Sprintf("year=%g/current-state-after-an-azure-run", share), func(b *testing.B) {
			ctx := context.Background()
			c, err := report.ReadCurrentState(ctx, sim.DB, "bench")
			if err != nil {
				b.Fatal(err)
			}
			var cpu time.Duration
			for b.Loop() {
				storeAzureRun(ctx, b, sim)
				before := scalegen.CPUTime()
				if c, err = c.Update(ctx, sim.DB, "bench"); err != nil {
					b.Fatal(err)
				}
				cpu += scalegen.CPUTime() - before
			}
			b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
			b.ReportMetric(float64(c.Offers()), "offers")
		})
		for _, path := range scalePaths {
			b.Run(fmt.Sprintf("year=%g/kept%s", share, path), func(b *testing.B) {
				serveOK(b, h, path)
				cpu := scalegen.CPUTime()
				var rec *httptest.ResponseRecorder
				for b.Loop() {
					rec = serveOK(b, h, path)
				}
				b.ReportMetric(float64(scalegen.CPUTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
				b.ReportMetric(float64(rec.Body.Len()), "sent-bytes")
			})
		}
		for _, path := range scalePaths {
			b.Run(fmt.Sprintf("year=%g/cold%s", share, path), func(b *testing.B) {
				cpu := scalegen.CPUTime()
				i := 0
				for b.Loop() {
					// A query of its own each time: nothing kept answers it.
					i++
					sep := "?"
					if strings.Contains(path, "?") {
						sep = "&"
					}
					serveOK(b, h, fmt.Sprintf("%s%snow=%s", path, sep, time.Date(2026, 12, 5, 0, i, 0, 0, time.UTC).Format(time.RFC3339)))
				}
				b.ReportMetric(float64(scalegen.CPUTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
			})
		}
	}
}

// BenchmarkScaleConcurrent is issue 30 item 1's measurement: n clients
// ask for the same page at once, each answer computed (not kept: every
// request has a query of its own), beside a process-wide block and mutex
// profile and runtime/metrics' GC share of the CPU. PRICEWATCH_PROFILE_DIR
// names where block.pprof, mutex.pprof and cpu.pprof of each case go.
//
//	PRICEWATCH_SCALE=0.25 go test ./web -run '^$' -bench ScaleConcurrent -benchtime 3x -timeout 1h
func BenchmarkScaleConcurrent(b *testing.B) {
	shares := scalegen.SharesOrSkip(b, "0.25", "the concurrency benchmark")
	for _, share := range shares {
		h, _, _ := scaleServer(b, share)
		for _, path := range []string{"/", "/offers"} {
			for _, c := range []struct {
				n      int
				shared bool
			}{{1, false}, {2, false}, {2, true}} {
				n := c.n
				mode := ""
				if c.shared {
					// Both clients ask for the same new answer: one
					// computation serves both.
					mode = "-same-answer"
				}
				b.Run(fmt.Sprintf("year=%g%s/clients=%d%s", share, path, n, mode), func(b *testing.B) {
					runtime.SetBlockProfileRate(int(time.Microsecond))
					runtime.SetMutexProfileFraction(1)
					defer runtime.SetBlockProfileRate(0)
					defer runtime.SetMutexProfileFraction(0)
					dir := os.Getenv("PRICEWATCH_PROFILE_DIR")
					name := strings.NewReplacer("/", "_", "?", "_").Replace(fmt.Sprintf("%s-%d%s", path, n, mode))
					if dir != "" {
						f, err := os.Create(filepath.Join(dir, name+"-cpu.pprof"))
						if err != nil {
							b.Fatal(err)
						}
						pprof.StartCPUProfile(f)
						defer func() { pprof.StopCPUProfile(); f.Close() }()
					}
					samples := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}, {Name: "/cpu/classes/total:cpu-seconds"},
						{Name: "/sync/mutex/wait/total:seconds"}, {Name: "/gc/cycles/total:gc-cycles"}}
					metrics.Read(samples)
					before := make([]metrics.Sample, len(samples))
					copy(before, samples)
					cpu := scalegen.CPUTime()
					var wall time.Duration
					i := 0
					for b.Loop() {
						began := time.Now()
						var wg sync.WaitGroup
						if c.shared {
							i++
						}
						for range n {
							if !c.shared {
								i++
							}
							at := time.Date(2026, 12, 5, 0, 0, i, 0, time.UTC).Format(time.RFC3339)
							wg.Go(func() { serveOK(b, h, path+"?now="+at) })
						}
						wg.Wait()
						wall += time.Since(began)
					}
					metrics.Read(samples)
					f := func(i int) float64 {
						if samples[i].Value.Kind() == metrics.KindUint64 {
							return float64(samples[i].Value.Uint64() - before[i].Value.Uint64())
						}
						return samples[i].Value.Float64() - before[i].Value.Float64()
					}
					b.ReportMetric(float64(wall)/float64(b.N)/1e6, "wall-ms/round")
					b.ReportMetric(float64(scalegen.CPUTime()-cpu)/float64(b.N*n)/1e6, "cpu-ms/req")
					b.ReportMetric(f(0)/f(1), "gc-cpu-share")
					b.ReportMetric(f(2)*1e3/float64(b.N), "mutex-wait-ms/round")
					b.ReportMetric(f(3)/float64(b.N*n), "gc-cycles/req")
					if dir != "" {
						for _, p := range []string{"block", "mutex"} {
							f, err := os.Create(filepath.Join(dir, name+"-"+p+".pprof"))
							if err != nil {
								b.Fatal(err)
							}
							pprof.Lookup(p).WriteTo(f, 0)
							f.Close()
						}
					}
				})
			}
		}
	}
}

// BenchmarkScaleCharts times the charts' pages (issue 30 item 3: the GPU
// page's 7/30/90 days, the instance page's 30/90/365 days, at most a point
// per offer and day from the daily summary) on the simulated deployment,
// CPU per request beside the wall time:
//
//	PRICEWATCH_SCALE=0.25 go test ./web -run '^$' -bench ScaleCharts -benchtime 5x -timeout 1h
func BenchmarkScaleCharts(b *testing.B) {
	shares := scalegen.SharesOrSkip(b, "0.25", "the charts' scale benchmark")
	for _, share := range shares {
		mux := benchServer(scalegen.OpenCopy(b, share), nil)
		for _, path := range []string{
			"/gpu/H100?days=7", "/gpu/H100?days=30", "/gpu/H100?days=90",
			"/instance/p4.H100x8?since=30d", "/instance/p4.H100x8?since=90d", "/instance/p4.H100x8?since=365d",
		} {
			b.Run(fmt.Sprintf("year=%g%s", share, path), func(b *testing.B) {
				cpu := scalegen.CPUTime()
				for b.Loop() {
					rec := httptest.NewRecorder()
					mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
					if rec.Code != http.StatusOK {
						b.Fatalf("%s: %d %s", path, rec.Code, rec.Body.String())
					}
				}
				b.ReportMetric(float64(scalegen.CPUTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
			})
		}
	}
}

// BenchmarkScaleHeld is what a server keeps between requests on the
// scale database (issue 30's memory budget): after one view of each hot
// answer, the live heap and the runtime's view of what the process holds.
// PRICEWATCH_PROFILE_DIR names where held-heap.pprof goes.
//
//	PRICEWATCH_SCALE=0.25 go test ./web -run '^$' -bench ScaleHeld -benchtime 1x -timeout 1h
func BenchmarkScaleHeld(b *testing.B) {
	shares := scalegen.SharesOrSkip(b, "0.25", "the held memory's scale benchmark")
	for _, share := range shares {
		b.Run(fmt.Sprintf("year=%g", share), func(b *testing.B) {
			h, _, _ := scaleServer(b, share)
			// Collections this often keep the heap near what is live,
			// so that its high-water mark is what a view holds at once
			// rather than where the collector happened to run.
			defer debug.SetGCPercent(debug.SetGCPercent(5))
			for b.Loop() {
				for _, path := range scalePaths {
					// The heap's high-water mark during each first view:
					// what the answer's computation holds at once.
					runtime.GC()
					base := heapObjects()
					peak, stop := base, make(chan struct{})
					done := make(chan struct{})
					go func() {
						defer close(done)
						t := time.NewTicker(time.Millisecond)
						defer t.Stop()
						for {
							select {
							case <-stop:
								return
							case <-t.C:
								peak = max(peak, heapObjects())
							}
						}
					}()
					serveOK(b, h, path)
					close(stop)
					<-done
					b.Logf("%s: heap %.1f MiB before, %.1f MiB at most during the first view", path, float64(base)/(1<<20), float64(peak)/(1<<20))
				}
			}
			var m runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&m)
			b.ReportMetric(float64(m.HeapAlloc)/(1<<20), "live-MiB")
			b.ReportMetric(float64(m.Sys)/(1<<20), "sys-MiB")
			if dir := os.Getenv("PRICEWATCH_PROFILE_DIR"); dir != "" {
				f, err := os.Create(filepath.Join(dir, fmt.Sprintf("held-heap-%g.pprof", share)))
				if err != nil {
					b.Fatal(err)
				}
				defer f.Close()
				if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
					b.Fatal(err)
				}
			}
			runtime.KeepAlive(h)
		})
	}
}

// heapObjects is the bytes of heap objects, live or not yet swept.
func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// roundPaths are what a refresh round recomputes after a run stores in
// the load test's team profile: its pages, panels and API answers.
var roundPaths = []string{
	"/",
	"/offers",
	"/gpu/",
	"/gpu/H100?days=90",
	"/instance/" + scalegen.BusiestType + "?since=365d",
	"/api/v1/offers?gpu=H100",
	"/api/v1/trends?window=90d",
}

// BenchmarkScaleRound is what a stored Azure run costs the answers a
// team keeps asking for (issue 30: a stored run visible within 2 s of
// its commit): the current state's update, then each answer computed
// once at the new version, one after the other as the daemon's
// refresher does, under the daemon's memory limit. CPU per answer and
// per round; the round's CPU bounds how soon the last of them shows a
// run.
//
//	PRICEWATCH_SCALE=0.25 go test ./web -run '^$' -bench ScaleRound -benchtime 3x -timeout 1h
func BenchmarkScaleRound(b *testing.B) {
	shares := scalegen.SharesOrSkip(b, "0.25", "the refresh round's scale benchmark")
	ctx := context.Background()
	for _, share := range shares {
		b.Run(fmt.Sprintf("year=%g", share), func(b *testing.B) {
			sim := scalegen.OpenCopy(b, share)
			scalegen.LimitMemory(b)
			fx := config.Default().FX
			// No Versions: nothing is computed in the background, each
			// answer when asked; an hour between runs makes every kept
			// answer too old to be served while its successor computes.
			srv := &web.Server{Store: sim.DB, FX: func() report.FX {
				return report.FX{Currency: fx.Currency, FixedRates: fx.FixedRates, MaxAge: fx.MaxAge}
			}, Now: func() time.Time { return sim.Now }, Limits: web.Limits{Budget: 5 * time.Minute}}
			mux := http.NewServeMux()
			srv.Mount(mux)
			for _, p := range roundPaths {
				serveOK(b, mux, p)
			}
			cpu := map[string]time.Duration{}
			var store time.Duration
			for b.Loop() {
				before := scalegen.CPUTime()
				storeAzureRun(ctx, b, sim)
				store += scalegen.CPUTime() - before
				start := scalegen.CPUTime()
				srv.CurrentReads(ctx)
				cpu["current-state"] += scalegen.CPUTime() - start
				for _, p := range roundPaths {
					start := scalegen.CPUTime()
					serveOK(b, mux, p)
					cpu[p] += scalegen.CPUTime() - start
				}
			}
			var total time.Duration
			for _, name := range append([]string{"current-state"}, roundPaths...) {
				total += cpu[name]
				b.Logf("%s: %.0f ms of CPU a round", name, float64(cpu[name])/float64(b.N)/1e6)
			}
			b.ReportMetric(float64(total)/float64(b.N)/1e6, "round-cpu-ms")
			// The run's own store, between the rounds' reads: what the
			// readers' memory leaves the writer's page cache.
			b.ReportMetric(float64(store)/float64(b.N)/1e6, "store-cpu-ms")
		})
	}
}

// storeAzureRun stores an Azure run an hour after the last, outside the
// benchmark's timer: the load test's writer, as the benchmarks measure
// what it costs the readers.
func storeAzureRun(ctx context.Context, b *testing.B, sim *scalegen.Sim) {
	storeAzureRunAfter(ctx, b, sim, time.Hour)
}

// storeAzureRunAfter stores an Azure run after the last, outside the
// benchmark's timer.
func storeAzureRunAfter(ctx context.Context, b *testing.B, sim *scalegen.Sim, after time.Duration) {
	b.StopTimer()
	defer b.StartTimer()
	sim.Now = sim.Now.Add(after)
	if _, err := sim.AzureRun(ctx, true); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkScaleRefreshRound is the refresher's round after a stored
// Azure run as the daemon has it with runs 5 s apart (the load test's
// writer): the version moves, and the refresher computes the answers a
// team asked for lately, each once, one after the other. Within one
// minute of the clock the overview's and GPU index's parts of the
// providers that did not run are kept (BenchmarkScaleRound moves the
// clock an hour a run, so every part is built again there). CPU per
// round, the whole process's: of every answer of a round, and of the
// overview or the GPU index alone (each with the current state's
// update).
//
//	PRICEWATCH_SCALE=0.25 go test ./web -run '^$' -bench ScaleRefreshRound -benchtime 5x -timeout 1h
func BenchmarkScaleRefreshRound(b *testing.B) {
	shares := scalegen.SharesOrSkip(b, "0.25", "the refresher's scale benchmark")
	ctx := context.Background()
	for _, share := range shares {
		for _, asked := range []struct {
			name  string
			paths []string
		}{
			{"round", roundPaths},
			// Each answer of the round alone: which one's heap sets the
			// round's high-water (GOGC=10 makes live-above-MiB dense).
			{"overview", []string{"/"}}, {"offers", []string{"/offers"}}, {"gpu-index", []string{"/gpu/"}},
			{"gpu-page", []string{"/gpu/H100?days=90"}}, {"instance", []string{roundPaths[4]}},
			{"api-offers", []string{"/api/v1/offers?gpu=H100"}}, {"trends", []string{"/api/v1/trends?window=90d"}},
		} {
			b.Run(fmt.Sprintf("year=%g/%s", share, asked.name), func(b *testing.B) {
				sim := scalegen.OpenCopy(b, share)
				scalegen.LimitMemory(b)
				// The clock starts at a minute's beginning: 5 runs 5 s apart
				// stay within it.
				sim.Now = sim.Now.Truncate(time.Minute).Add(time.Minute)
				fx := config.Default().FX
				idle := make(chan struct{}, 1)
				srv := &web.Server{Store: sim.DB, FX: func() report.FX {
					return report.FX{Currency: fx.Currency, FixedRates: fx.FixedRates, MaxAge: fx.MaxAge}
				}, Now: func() time.Time { return sim.Now }, Limits: web.Limits{Budget: 5 * time.Minute},
					Versions: web.NewVersions(sim.DB.DataVersion),
					Idle: func() {
						select {
						case idle <- struct{}{}:
						default:
						}
					}}
				if _, err := srv.Versions.Refresh(ctx); err != nil {
					b.Fatal(err)
				}
				mux := http.NewServeMux()
				srv.Mount(mux)
				// Asked twice, each answer is one a team asks for (the first
				// asking computes it, the second counts).
				for range 2 {
					for _, p := range asked.paths {
						serveOK(b, mux, p)
					}
				}
				drain := func() {
					for {
						select {
						case <-idle:
						case <-time.After(time.Second):
							return
						}
					}
				}
				drain()
				var cpu time.Duration
				// The heap a round holds at once above what was held before
				// it: what the daemon's resident memory rises by at each
				// stored run (issue 30: under 100 MB on share 1).
				var held, above, liveAbove uint64
				for b.Loop() {
					storeAzureRunAfter(ctx, b, sim, 5*time.Second)
					b.StopTimer()
					base := heappeak.Held()
					stop := heappeak.Start()
					stopLive := heappeak.StartLive()
					b.StartTimer()
					start := scalegen.CPUTime()
					if _, err := srv.Versions.Refresh(ctx); err != nil {
						b.Fatal(err)
					}
					select {
					case <-idle:
					case <-time.After(time.Minute):
						b.Fatal("the refresher did not go idle within a minute")
					}
					cpu += scalegen.CPUTime() - start
					peak := stop()
					lp := stopLive()
					liveAbove = max(liveAbove, lp-min(lp, base))
					held, above = max(held, base), max(above, peak-min(peak, base))
				}
				b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "round-cpu-ms")
				b.ReportMetric(float64(held)/(1<<20), "held-MiB")
				b.ReportMetric(float64(above)/(1<<20), "round-peak-above-MiB")
				b.ReportMetric(float64(liveAbove)/(1<<20), "live-above-MiB")
			})
		}
	}
}
