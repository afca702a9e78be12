package scalegen

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/storage"
)

// A few simulated days: runs store, the second look at an unchanged
// catalogue changes nothing, and prices do move.
func TestBuildAndReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sim.db")
	if p := os.Getenv("SCALEGEN_KEEP"); p != "" {
		path = p
	}
	d := Default(2.0 / 365)
	began := time.Now()
	sim, err := Build(ctx, path, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("built 2 days in %s", time.Since(began))
	if err := sim.Close(); err != nil {
		t.Fatal(err)
	}
	sim, err = Open(ctx, path, d)
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	sim.Now = sim.Now.Add(time.Hour)
	res, err := sim.AzureRun(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	az, _ := sim.Offers()
	if res.Unchanged != az || res.Changed != 0 || res.New != 0 {
		t.Errorf("unchanged Azure run after reopening: %+v, want %d unchanged", res, az)
	}
	res, err = sim.AWSRun(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed == 0 {
		t.Errorf("AWS run with change moved nothing: %+v", res)
	}
	closed, err := sim.DB.Prices(ctx, storage.PriceFilter{Providers: []string{"aws"}, Since: sim.Now.Add(-time.Hour)})
	if err != nil || len(closed) == 0 {
		t.Fatalf("prices: %d, %v", len(closed), err)
	}
}

// TestBuildCache builds (or finds) the cached databases of the shares in
// PRICEWATCH_SCALE (e.g. "0.1,1,3"), so that the benchmarks find them;
// without it there is nothing to do.
func TestBuildCache(t *testing.T) {
	shares := Shares()
	if len(shares) == 0 {
		t.Skip("set PRICEWATCH_SCALE=0.1,1,3 to build the scale benchmark's databases")
	}
	for _, share := range shares {
		began := time.Now()
		path, err := Cached(context.Background(), Default(share), os.Stderr)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := os.Stat(path)
		t.Logf("share %g: %s (%d bytes) in %s", share, path, st.Size(), time.Since(began).Round(time.Second))
	}
}

// Shift moves every stored time by whole days, the time of day kept, and
// the history still opens and reads.
func TestShift(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sim.db")
	d := Default(1.0 / 365)
	sim, err := Build(ctx, path, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	before, err := sim.DB.Prices(ctx, storage.PriceFilter{Providers: []string{"aws"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Close(); err != nil {
		t.Fatal(err)
	}
	end := Start.Add(24*time.Hour).AddDate(0, 0, 10).Add(3 * time.Hour)
	days, err := Shift(ctx, path, d, end)
	if err != nil || days != 10 {
		t.Fatalf("shifted %d days (%v), want 10", days, err)
	}
	db, err := storage.Open(ctx, path, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	after, err := db.Prices(ctx, storage.PriceFilter{Providers: []string{"aws"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) || len(after) == 0 {
		t.Fatalf("%d intervals after, %d before", len(after), len(before))
	}
	for i := range after {
		if want := before[i].ValidFrom.AddDate(0, 0, 10); !after[i].ValidFrom.Equal(want) {
			t.Fatalf("interval %d starts %s, want %s", i, after[i].ValidFrom, want)
		}
	}
	runs, err := db.LastRuns(ctx)
	if err != nil || len(runs) == 0 || runs[0].StartedAt.Before(Start.AddDate(0, 0, 10)) {
		t.Fatalf("runs %+v (%v): not moved", runs, err)
	}
}
