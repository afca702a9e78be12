package storage

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func rawExec(t *testing.T, path string, stmts ...string) {
	t.Helper()
	raw, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, s := range stmts {
		if _, err := raw.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
}

// A SQLite file of another program is refused, and left as it was.
func TestForeignDatabaseIsRefused(t *testing.T) {
	tests := []struct {
		name  string
		stmts []string
	}{
		{"another schema", []string{"CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT)", "INSERT INTO users (email) VALUES ('a@example.com')"}},
		{"another application id", []string{"PRAGMA application_id = 1234", "CREATE TABLE fetch_runs (id INTEGER)"}},
		{"versioned but foreign", []string{"CREATE TABLE notes (body TEXT)", "PRAGMA user_version = 3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "other.db")
			rawExec(t, path, tt.stmts...)
			before, _ := os.ReadFile(path)
			db, err := OpenURL(context.Background(), path, Options{})
			if err == nil {
				db.Close()
			}
			if !errors.Is(err, ErrNotPricewatch) {
				t.Fatalf("Open: %v, want ErrNotPricewatch", err)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
				t.Error("the foreign file was changed")
			}
			if _, err := OpenReadOnly(context.Background(), path, Options{}); !errors.Is(err, ErrNotPricewatch) {
				t.Errorf("OpenReadOnly: %v, want ErrNotPricewatch", err)
			}
		})
	}
}

// A pricewatch file from before application_id was set is recognised by
// its tables and marked.
func TestOlderPricewatchDatabaseIsMarked(t *testing.T) {
	path := string(newStore(t))
	db, err := OpenURL(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	rawExec(t, path, "PRAGMA application_id = 0")
	db, err = OpenURL(context.Background(), path, Options{})
	if err != nil {
		t.Fatalf("older pricewatch file refused: %v", err)
	}
	defer db.Close()
	var id int
	if err := db.read.QueryRow("PRAGMA application_id").Scan(&id); err != nil || id != applicationID {
		t.Errorf("application_id %d (%v), want %d", id, err, applicationID)
	}
}

// Read-only commands open the file read-only: nothing is written (the file
// is byte for byte the same, a write fails), and on a read-only directory
// and file it still reads.
func TestOpenReadOnly(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pw.db")
	db, err := OpenURL(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.StartRun(context.Background(), "azure"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before, _ := os.ReadFile(path)

	check := func(t *testing.T) {
		ro, err := OpenReadOnly(context.Background(), path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		runs, err := ro.Runs(context.Background(), 10)
		if err != nil || len(runs) != 1 {
			t.Errorf("runs %v, %v", runs, err)
		}
		if _, err := ro.StartRun(context.Background(), "aws"); err == nil {
			t.Error("a write through a read-only database succeeded")
		}
		ro.Close()
		if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
			t.Error("the file changed")
		}
	}
	t.Run("writable directory", check)
	t.Run("read-only directory and file", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root writes through read-only modes; run as a user to check read-only media")
		}
		if err := os.Chmod(path, 0o444); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
		check(t)
	})

	// An older schema is left for Open to upgrade.
	rawExec(t, path, "PRAGMA user_version = 1")
	if _, err := OpenReadOnly(context.Background(), path, Options{}); !errors.Is(err, ErrSchemaBehind) {
		t.Errorf("older schema: %v, want ErrSchemaBehind", err)
	}
}
