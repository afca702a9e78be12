// Package storagetest holds what tests of the database's users share.
package storagetest

import (
	"context"
	"database/sql"
	"sync"
	"testing"

	_ "github.com/mattn/go-sqlite3" // the driver storage uses
)

// HoldWriteLock takes the write lock of the SQLite file at path from a
// connection of its own, as another process storing a large run would,
// until the returned func (or the test's end) lets it go.
func HoldWriteLock(t testing.TB, path string) (release func()) {
	t.Helper()
	raw, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := raw.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
				t.Error(err)
			}
			conn.Close()
			raw.Close()
		})
	}
	t.Cleanup(release)
	return release
}
