package web

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
)

// WarmCurrent leaves the data version's current state read, so that a
// one-shot process's first view (pricewatch mcp's first cheapest) does
// not read it while its client waits.
func TestWarmCurrentReadsTheCurrentState(t *testing.T) {
	ctx := context.Background()
	db, err := storage.Open(ctx, filepath.Join(t.TempDir(), "warm.db"), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s := &Server{Store: db, FX: func() report.FX { return report.FX{Currency: "USD"} }}
	if s.current.Load() != nil {
		t.Fatal("a current state before any view")
	}
	s.WarmCurrent(ctx)
	want, err := db.DataVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c := s.current.Load(); c == nil || c.Version != want {
		t.Fatalf("after WarmCurrent: %+v, want the state of version %q", c, want)
	}
}
