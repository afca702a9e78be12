// Package dbtest opens and fills the SQLite databases of tests of the
// packages above storage (storage's own tests cannot import it: it
// imports storage).
package dbtest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/storage/storagetest"
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

// Save stores snap as one complete run with the default save options, as
// a fetch does; an error fails t.
func Save(t testing.TB, db *storage.DB, snap *pricewatch.Snapshot) *storage.Result {
	t.Helper()
	return SaveWith(t, db, snap, storage.SaveOptions{})
}

// SaveWith is Save with opts.
func SaveWith(t testing.TB, db *storage.DB, snap *pricewatch.Snapshot, opts storage.SaveOptions) *storage.Result {
	t.Helper()
	res, err := Store(t, db, snap, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Store saves snap as one run with opts, as a fetch does, and returns
// what the save returned: a save that fails finishes the run failed.
// Only the run's bookkeeping failing fails t.
func Store(t testing.TB, db *storage.DB, snap *pricewatch.Snapshot, opts storage.SaveOptions) (*storage.Result, error) {
	t.Helper()
	return storagetest.Store(t, db, snap, opts, db.SaveSnapshot)
}
