package storagetest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pricewatch/pricewatch/storage"
)

// Open is a fresh SQLite database in t's temporary directory, with the
// default options, closed when the test ends.
func Open(t testing.TB) *storage.DB {
	t.Helper()
	db, err := storage.Open(context.Background(), filepath.Join(t.TempDir(), "pw.db"), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
