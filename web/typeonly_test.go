package web_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/config"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/web"
)

// Issue 30: an instance type's page and history show that type's rows
// alone, so a run of a provider that stored none of it leaves them as
// they are: the refresher keeps them as answers of the new version
// instead of computing them again. A run of the type's own provider, or
// of another that now stores the type too, computes them again. Either
// way each equals a fresh computation, ETag included.
func TestInstanceTypeKeptThroughOthersRuns(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "typeonly.db")
	open := handles(t, storage.Open, path)
	writer, reader := open(), open()
	// Each run finishes a second after the one before (the data version
	// tells runs apart by when they finished), all within one minute of
	// the clock: only the data version moves, never the answers' minute.
	var clock atomic.Pointer[time.Time]
	start := time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC)
	clock.Store(&start)
	now := func() time.Time { return *clock.Load() }
	writer.Now = now
	fx := config.Default().FX
	core, logs := observer.New(zapcore.DebugLevel)
	server := func(versions *web.Versions, log *zap.Logger) http.Handler {
		srv := &web.Server{Store: reader, FX: func() report.FX {
			return report.FX{Currency: fx.Currency, FixedRates: fx.FixedRates, MaxAge: fx.MaxAge}
		}, Now: now, Versions: versions, Log: log}
		mux := http.NewServeMux()
		srv.Mount(mux)
		return mux
	}
	const h100 = "Standard_ND96isr_H100_v5"
	offer := func(provider, typ, hourly string) pricewatch.Offer {
		return pricewatch.Offer{Provider: provider, Region: "eastus", InstanceType: typ, PriceType: pricewatch.OnDemand, OS: pricewatch.Linux,
			Currency: "USD", Hourly: decimal.RequireFromString(hourly), Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8, GPUMemoryGB: 80}}
	}
	spot := func(hourly string) pricewatch.Offer {
		o := offer(pricewatch.Azure, h100, hourly)
		o.PriceType = pricewatch.Spot
		return o
	}
	store := func(provider string, offers ...pricewatch.Offer) {
		t.Helper()
		next := now().Add(time.Second)
		clock.Store(&next)
		id, err := writer.StartRun(ctx, provider)
		if err != nil {
			t.Fatal(err)
		}
		snap := &pricewatch.Snapshot{Provider: provider, Offers: offers, Coverage: []pricewatch.Scope{{Region: pricewatch.AllRegions}}}
		if _, err := writer.SaveSnapshot(ctx, id, snap, storage.SaveOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	store(pricewatch.Azure, offer(pricewatch.Azure, h100, "98.32"), spot("39.10"))
	store(pricewatch.Lambda, offer(pricewatch.Lambda, "gpu_8x_h100_sxm5", "23.92"))

	versions := web.NewVersions(reader.DataVersion)
	if _, err := versions.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	watch, stop := context.WithCancel(ctx)
	defer stop()
	go versions.Watch(watch, 20*time.Millisecond)
	kept := server(versions, zap.New(core))
	// The current state is read first (as the daemon's warm-up does): an
	// answer computed before any was read is never kept through runs.
	get(kept, "/offers")
	paths := []string{"/instance/" + h100, "/api/v1/history/" + h100}
	for _, p := range paths {
		if rec := get(kept, p); rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", p, rec.Code, rec.Body.String())
		}
	}
	keptLogs := func() int {
		return logs.FilterMessageSnippet("kept an instance type's answer").Len()
	}
	for _, step := range []struct {
		name  string
		do    func()
		kept  bool   // carried, not computed again
		shows string // what the page shows after it
	}{
		{"another provider's price", func() { store(pricewatch.Lambda, offer(pricewatch.Lambda, "gpu_8x_h100_sxm5", "21.50")) }, true, "98.32"},
		{"another provider now storing the type", func() {
			store(pricewatch.Lambda, offer(pricewatch.Lambda, "gpu_8x_h100_sxm5", "21.50"), offer(pricewatch.Lambda, h100, "55.10"))
		}, false, "55.1"},
		{"the type's own provider", func() { store(pricewatch.Azure, offer(pricewatch.Azure, h100, "90.04"), spot("35.55")) }, false, "90.04"},
		{"the type's own provider again", func() { store(pricewatch.Azure, offer(pricewatch.Azure, h100, "90.04"), spot("33.07")) }, false, "33.07"},
	} {
		before := keptLogs()
		was, err := writer.DataVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		step.do()
		want, err := writer.DataVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want == was {
			t.Fatalf("%s: the data version did not move", step.name)
		}
		fresh := server(nil, nil)
		for _, p := range paths {
			deadline := time.Now().Add(10 * time.Second)
			for {
				k, f := get(kept, p), get(fresh, p)
				if k.Header().Get(storage.DataVersionHeader) == want && k.Body.String() == f.Body.String() && k.Header().Get("ETag") == f.Header().Get("ETag") {
					if !strings.Contains(k.Body.String(), step.shows) {
						t.Errorf("%s: %s does not show %s", step.name, p, step.shows)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s: %s: the kept answer (version %q) is not a fresh one's (version %q) within 10 s\n%s\n----\n%s", step.name, p,
						k.Header().Get(storage.DataVersionHeader), want, rowsOf(k.Body.String()), rowsOf(f.Body.String()))
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
		// The refresher says what it kept just after it kept it.
		for deadline := time.Now().Add(5 * time.Second); step.kept && keptLogs()-before < len(paths) && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		if got := keptLogs() - before; step.kept && got != len(paths) {
			t.Errorf("%s: %d answers kept through the run, want %d (the page and the history)", step.name, got, len(paths))
		} else if !step.kept && got != 0 {
			t.Errorf("%s: %d answers kept through the run, want them computed again", step.name, got)
		}
	}
}

// rowsOf is a page's table rows and chart lines, to tell two apart.
func rowsOf(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "<td") || strings.Contains(l, "path") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
