package run

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/storage/storagetest"
)

// A run that cannot start on the real database (another process holds the
// write lock past the busy timeout) is logged at error, reported as not
// started and recorded once the database allows.
func TestRunThatCannotStartLeavesATrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pw.db")
	db, err := storage.Open(context.Background(), path, storage.Options{BusyTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	core, logs := observer.New(zapcore.ErrorLevel)
	release := storagetest.HoldWriteLock(t, path)
	go func() {
		// The lock outlasts many busy timeouts, then goes.
		time.Sleep(500 * time.Millisecond)
		release()
	}()
	sum := Provider(context.Background(), DB(db), Job{Name: "fake", Fetcher: &fakeFetcher{snap: snapshot()}}, storage.SaveOptions{}, zap.New(core))
	if sum.Status != StatusNotStarted || !strings.Contains(sum.Line(), "could not start") {
		t.Fatalf("summary %q (%s), want not started", sum.Line(), sum.Status)
	}
	if logs.FilterMessage("fetch run could not start").Len() != 1 {
		t.Errorf("not logged at error: %v", logs.All())
	}
	runs, err := db.LastRuns(context.Background())
	if err != nil || len(runs) != 1 {
		t.Fatalf("%+v, %v", runs, err)
	}
	if r := runs[0]; r.Status != pricewatch.RunFailed || !strings.Contains(r.Error, "run could not start") {
		t.Errorf("run record %s %q, want failed: run could not start", r.Status, r.Error)
	}
}
