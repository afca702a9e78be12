package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/daemon/metrics"
	providerrun "github.com/pricewatch/pricewatch/run"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/storage/storagetest"
)

// A run that cannot start (another process holds the write lock past the
// busy timeout) is logged at error, reported as not started (the metric's
// result) and recorded once the database allows.
func TestRunThatCannotStartLeavesATrace(t *testing.T) {
	az := newFakeAzure(t)
	dir := t.TempDir()
	cfg := testConfig{database: "  busy_timeout: 50ms\n", clouds: []cloud{azureCloud(az.URL, westus2)}}.write(t, dir)
	a, db := loadApp(t, cfg)
	jobs, err := a.wiring().Jobs(nil)
	if err != nil {
		t.Fatal(err)
	}
	core, logs := observer.New(zapcore.ErrorLevel)
	release := storagetest.HoldWriteLock(t, filepath.Join(dir, "pw.db"))
	go func() {
		// The lock outlasts many busy timeouts, then goes.
		time.Sleep(500 * time.Millisecond)
		release()
	}()
	sum := providerrun.Provider(context.Background(), providerrun.DB(db), jobs[0].Job, a.wiring().SaveOptions(), zap.New(core))
	if sum.Status != providerrun.StatusNotStarted || !strings.Contains(sum.Line(), "could not start") {
		t.Fatalf("summary %q (%s), want not started", sum.Line(), sum.Status)
	}
	if logs.FilterMessage("fetch run could not start").Len() != 1 {
		t.Errorf("not logged at error: %v", logs.All())
	}
	m := metrics.New(db, buildVersion())
	m.Observe(sum)
	if got := counterValue(t, m, "pricewatch_fetch_runs_total", "not_started"); got != 1 {
		t.Errorf("pricewatch_fetch_runs_total{result=not_started} = %v, want 1", got)
	}
	runs, err := db.LastRuns(context.Background())
	if err != nil || len(runs) != 1 {
		t.Fatalf("%+v, %v", runs, err)
	}
	if r := runs[0]; r.Status != storage.RunFailed || !strings.Contains(r.Error, "run could not start") {
		t.Errorf("run record %s %q, want failed: run could not start", r.Status, r.Error)
	}
}

func counterValue(t *testing.T, m *metrics.Metrics, name, result string) float64 {
	t.Helper()
	families, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, s := range f.GetMetric() {
			for _, l := range s.GetLabel() {
				if l.GetName() == "result" && l.GetValue() == result {
					return s.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}
