package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/config"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/storage/storagetest"
	"github.com/pricewatch/pricewatch/web"
)

// keptPaths are the answers compared between the kept ones and a fresh
// computation: the hot pages, the downloads and the API.
var keptPaths = []string{
	"/", "/offers", "/offers?provider=azure&sort=-price", "/offers.csv", "/gpu/", "/gpu/H100", "/gpu/H100?days=90",
	"/instance/Standard_ND96isr_H100_v5", "/commitments",
	"/api/v1/offers?gpu=H100", "/api/v1/offers?gpu=H100&price_type=spot", "/api/v1/offer-table",
	"/api/v1/availability", "/api/v1/runs", "/api/v1/alerts", "/api/v1/trends?window=7d",
	"/api/v1/history/Standard_ND96isr_H100_v5",
}

// Issue 30 items 2 and 4: the answers kept per data version equal a fresh
// computation from the store after every step of a sequence of runs (a
// second cloud, a price change, a closed offer, a new region, a run
// started, a failed run), on both
// backends, once recomputed (the hot answers are, as soon as the version
// moves; within 3× the bound below on this small store, under the race
// detector on a shared machine); what a run stored is served within the version poll (the
// daemon polls every second: 2 s; a PostgreSQL follower, which reads the
// version through its own connections, 5 s); and a repeat view with the
// answer's ETag is a 304.
func TestKeptAnswersFollowRuns(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "kept.db")
		open := handles(t, storage.Open, path)
		keptAnswersFollowRuns(t, open(), open(), 2*time.Second)
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := storagetest.PostgresDSN(t)
		open := handles(t, storage.OpenPostgres, dsn)
		// The writer is the leader; the server reads through a database
		// handle of its own, as a follower replica does.
		keptAnswersFollowRuns(t, open(), open(), 5*time.Second)
	})
}

// handles opens a database handle of its own to where on each call,
// closed when t ends.
func handles(t *testing.T, open func(context.Context, string, storage.Options) (*storage.DB, error), where string) func() *storage.DB {
	return func() *storage.DB {
		db, err := open(context.Background(), where, storage.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
}

func keptAnswersFollowRuns(t *testing.T, writer, reader *storage.DB, within time.Duration) {
	ctx := context.Background()
	var clock atomic.Pointer[time.Time]
	setClock := func(at time.Time) { clock.Store(&at) }
	now := func() time.Time { return *clock.Load() }
	setClock(time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC))
	writer.Now = now
	fx := config.Default().FX
	server := func(versions *web.Versions) http.Handler {
		srv := &web.Server{Store: reader, FX: func() report.FX {
			return report.FX{Currency: fx.Currency, FixedRates: fx.FixedRates, MaxAge: fx.MaxAge}
		}, Now: now, Versions: versions,
			// The overview's freshness shows Azure's last run, a running one too.
			Expected: func(time.Time) map[string]time.Duration { return map[string]time.Duration{pricewatch.Azure: time.Hour} }}
		mux := http.NewServeMux()
		srv.Mount(mux)
		return mux
	}
	versions := web.NewVersions(reader.DataVersion)
	if _, err := versions.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	watch, stop := context.WithCancel(ctx)
	defer stop()
	go versions.Watch(watch, time.Second)
	kept := server(versions)

	offer := func(region, typ, model string, pt pricewatch.PriceType, hourly string) pricewatch.Offer {
		return pricewatch.Offer{Provider: pricewatch.Azure, Region: region, InstanceType: typ, PriceType: pt, OS: pricewatch.Linux,
			Currency: "USD", Hourly: decimal.RequireFromString(hourly), Hardware: pricewatch.Hardware{GPUModel: model, GPUCount: 8, GPUMemoryGB: 80, VCPUs: 96, MemoryGB: 1900}}
	}
	h100, a100 := "Standard_ND96isr_H100_v5", "Standard_ND96amsr_A100_v4"
	base := []pricewatch.Offer{
		offer("eastus", h100, "H100", pricewatch.OnDemand, "98.32"),
		offer("eastus", h100, "H100", pricewatch.Spot, "39.10"),
		offer("eastus", a100, "A100-80GB", pricewatch.OnDemand, "32.77"),
		offer("westus2", h100, "H100", pricewatch.OnDemand, "98.32"),
	}
	storeOf := func(provider string, regions []string, offers []pricewatch.Offer) {
		t.Helper()
		snap := &pricewatch.Snapshot{Provider: provider, Offers: offers}
		for _, r := range regions {
			snap.Coverage = append(snap.Coverage, pricewatch.Scope{Region: r})
		}
		id, err := writer.StartRun(ctx, provider)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := writer.SaveSnapshot(ctx, id, snap, storage.SaveOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	store := func(regions []string, offers []pricewatch.Offer) { storeOf(pricewatch.Azure, regions, offers) }
	steps := []struct {
		name string
		do   func()
		// shows is what the kept offers table must show once the step is
		// served (empty: nothing to look for).
		shows string
		// sameMinute: the step comes within the previous one's minute of
		// the clock, so only the data version moves.
		sameMinute bool
	}{
		{"first run", func() { store([]string{"eastus", "westus2"}, base) }, `39.1`, false},
		// A second cloud, whose part of the overview is kept through
		// Azure's runs below.
		{"another cloud", func() {
			o := offer("us-east-1", "gpu_8x_h100_sxm5", "H100", pricewatch.OnDemand, "23.92")
			o.Provider = pricewatch.Lambda
			storeOf(pricewatch.Lambda, []string{"us-east-1"}, []pricewatch.Offer{o})
		}, `gpu_8x_h100_sxm5`, false},
		{"price change", func() {
			changed := append([]pricewatch.Offer(nil), base...)
			changed[1] = offer("eastus", h100, "H100", pricewatch.Spot, "35.55")
			store([]string{"eastus", "westus2"}, changed)
		}, `35.55`, false},
		{"closed offer", func() {
			// westus2's H100 is no longer offered: its interval closes.
			store([]string{"eastus", "westus2"}, []pricewatch.Offer{base[0], offer("eastus", h100, "H100", pricewatch.Spot, "35.55"), base[2]})
		}, "", false},
		{"new region", func() {
			store([]string{"eastus", "westus2", "swedencentral"}, []pricewatch.Offer{base[0], offer("eastus", h100, "H100", pricewatch.Spot, "35.55"), base[2],
				offer("swedencentral", h100, "H100", pricewatch.OnDemand, "91.04")})
		}, `"swedencentral"`, false},
		// A run's start alone, in the same minute: the answers that show
		// no runs are carried to its version, the overview and the runs
		// computed again; either way each equals a fresh computation.
		{"run started", func() {
			if _, err := writer.StartRun(ctx, pricewatch.Azure); err != nil {
				t.Fatal(err)
			}
		}, "", true},
		{"failed run", func() {
			id, err := writer.StartRun(ctx, pricewatch.Azure)
			if err != nil {
				t.Fatal(err)
			}
			if err := writer.FinishRun(ctx, id, pricewatch.RunFailed, "the cloud answered 503"); err != nil {
				t.Fatal(err)
			}
		}, "", false},
	}
	for i, step := range steps {
		if !step.sameMinute {
			setClock(time.Date(2026, 11, 2+3*i, 6, 0, 0, 0, time.UTC))
		}
		// Seen before the step: the kept answers are of the previous version.
		get(kept, "/api/v1/offer-table")
		before, _ := versions.Current()
		step.do()
		committed := time.Now()
		want, err := writer.DataVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want == before {
			t.Fatalf("%s: the data version did not move", step.name)
		}
		// Served within the poll: the kept table shows the step.
		for {
			rec := get(kept, "/api/v1/offer-table")
			v, _ := versions.Current()
			if v == want && strings.Contains(rec.Body.String(), step.shows) {
				break
			}
			if time.Since(committed) > within {
				t.Fatalf("%s: not served %s after its commit (version %q, want %q)", step.name, within, v, want)
			}
			time.Sleep(20 * time.Millisecond)
		}
		// Every kept answer is what a fresh computation answers, once the
		// refresher has recomputed it (meanwhile the previous version's is
		// served): the answers asked for in the previous step are hot, and
		// recomputed as soon as the version moved.
		fresh := server(nil)
		for _, p := range keptPaths {
			f := get(fresh, p)
			k := get(kept, p)
			// The previous version's answer may have the same body (a page
			// the step does not change) and still its own ETag.
			for k.Code != f.Code || k.Body.String() != f.Body.String() || k.Header().Get("ETag") != f.Header().Get("ETag") {
				if time.Since(committed) > 3*within {
					t.Errorf("%s: %s: kept answer %d (%d bytes) differs from a fresh one %d (%d bytes) %s after the commit", step.name, p, k.Code, k.Body.Len(), f.Code, f.Body.Len(), 3*within)
					break
				}
				time.Sleep(20 * time.Millisecond)
				k = get(kept, p)
			}
			if k.Code != http.StatusOK {
				t.Errorf("%s: %s: %d %s", step.name, p, k.Code, k.Body.String())
				continue
			}
			if got := k.Header().Get(storage.DataVersionHeader); got != want {
				t.Errorf("%s: %s: kept answer of data version %q, want %q", step.name, p, got, want)
			}
			etag := k.Header().Get("ETag")
			if etag == "" || etag != f.Header().Get("ETag") {
				t.Errorf("%s: %s: ETag %q, fresh %q", step.name, p, etag, f.Header().Get("ETag"))
			}
			req := httptest.NewRequest(http.MethodGet, p, nil)
			req.Header.Set("If-None-Match", etag)
			rec := httptest.NewRecorder()
			kept.ServeHTTP(rec, req)
			if rec.Code != http.StatusNotModified || rec.Body.Len() != 0 {
				t.Errorf("%s: %s with If-None-Match: %d, %d bytes; want 304 and nothing", step.name, p, rec.Code, rec.Body.Len())
			}
		}
	}
}
