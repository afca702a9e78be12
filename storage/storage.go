// Package storage keeps pricewatch's history in SQLite: prices and
// availability as validity intervals, fetch runs, source versions, detected
// changes, exchange rates and the alert outbox.
//
// One writer connection serialises writes (SQLite allows one writer at a
// time, and BEGIN IMMEDIATE avoids the busy-without-retry trap of deferred
// transactions); a separate pool serves readers, so the CLI can read while
// the daemon writes (WAL mode).
package storage

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mattn/go-sqlite3" // also registers the "sqlite3" driver
)

//go:embed migrations/*.sql
var migrations embed.FS

// DB is the pricewatch database.
type DB struct {
	write *sql.DB
	read  *sql.DB
	path  string
	// Now is the clock; tests replace it.
	Now func() time.Time
	// marks are outbox outcomes not written yet (see outbox.go).
	marks outboxMarks
}

// Options tune Open.
type Options struct {
	BusyTimeout time.Duration // default 5s
}

// Open opens (creating if needed) the database at path and applies any
// migrations the file does not have yet.
func Open(ctx context.Context, path string, opts Options) (*DB, error) {
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = 5 * time.Second
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, fmt.Errorf("creating database directory %s: %w", dir, err)
		}
	}
	if err := probeExisting(ctx, path); err != nil {
		return nil, err
	}
	// Per-connection settings live in the DSN so every pooled connection
	// gets them, not just the one that happened to run a PRAGMA.
	params := url.Values{}
	params.Set("_journal_mode", "WAL")
	params.Set("_busy_timeout", strconv.FormatInt(opts.BusyTimeout.Milliseconds(), 10))
	params.Set("_foreign_keys", "on")
	params.Set("_synchronous", "NORMAL")
	writeParams := url.Values{}
	for k, v := range params {
		writeParams[k] = v
	}
	writeParams.Set("_txlock", "immediate")
	fileURI := "file:" + (&url.URL{Path: path}).EscapedPath()

	w, err := sql.Open("sqlite3", fileURI+"?"+writeParams.Encode())
	if err != nil {
		return nil, fmt.Errorf("opening database %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	// The writer must open first: only a read-write connection can switch
	// the file to WAL.
	if err := pingWhileBusy(ctx, w, opts.BusyTimeout); err != nil {
		w.Close()
		return nil, fmt.Errorf("opening database %s: %w", path, err)
	}
	r, err := sql.Open("sqlite3", fileURI+"?"+params.Encode()+"&_query_only=1")
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("opening database %s for reading: %w", path, err)
	}
	r.SetMaxOpenConns(4)
	db := &DB{write: w, read: r, path: path, Now: func() time.Time { return time.Now().UTC() }}
	if err := db.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// pingWhileBusy opens the first connection, retrying while another process
// holds the file: switching a new file to WAL answers "database is locked"
// at once rather than waiting on the busy timeout, which is what two
// processes starting together (the daemon and a CLI) would otherwise see.
func pingWhileBusy(ctx context.Context, db *sql.DB, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for wait := 5 * time.Millisecond; ; wait = min(wait*2, 200*time.Millisecond) {
		err := db.PingContext(ctx)
		var se sqlite3.Error
		if err == nil || !errors.As(err, &se) || (se.Code != sqlite3.ErrBusy && se.Code != sqlite3.ErrLocked) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// Close closes both connection pools, after one last try at writing the
// outcomes of posted messages that could not be recorded yet.
func (db *DB) Close() error {
	db.flushMarks(context.Background())
	return errors.Join(db.write.Close(), db.read.Close())
}

// Path is the database file.
func (db *DB) Path() string { return db.path }

// Ping checks that the database answers (used by health checks).
func (db *DB) Ping(ctx context.Context) error {
	var one int
	if err := db.read.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return fmt.Errorf("database %s: %w", db.path, err)
	}
	return nil
}

// migrate applies embedded migrations in file-name order, each in its own
// transaction, recording the version in PRAGMA user_version. A database
// newer than this binary is refused rather than half-understood.
func (db *DB) migrate(ctx context.Context) error {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("listing migrations: %w", err)
	}
	sort.Strings(names)
	// A file of another program is refused before anything is written.
	stamp, err := identify(ctx, db.write, db.path)
	if err != nil {
		return err
	}
	if stamp {
		if _, err := db.write.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", applicationID)); err != nil {
			return fmt.Errorf("marking database %s as pricewatch's: %w", db.path, err)
		}
	}
	var current int
	if err := db.write.QueryRowContext(ctx, "PRAGMA user_version").Scan(&current); err != nil {
		return fmt.Errorf("reading schema version: %w", err)
	}
	if current > len(names) {
		return fmt.Errorf("database %s has schema version %d but this pricewatch knows only %d: use a newer pricewatch", db.path, current, len(names))
	}
	for i, name := range names {
		version := i + 1
		if n, err := migrationNumber(name); err != nil || n != version {
			return fmt.Errorf("migration %s: want number %04d (migrations are numbered from 0001 without gaps)", name, version)
		}
		if version <= current {
			continue
		}
		body, err := migrations.ReadFile(name)
		if err != nil {
			return fmt.Errorf("reading migration %s: %w", name, err)
		}
		tx, err := db.write.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("applying migration %s: %w", name, err)
		}
		// Another process (the daemon and a CLI started together) may have
		// applied it while we waited for the write lock.
		var now int
		if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&now); err != nil {
			tx.Rollback()
			return fmt.Errorf("reading schema version: %w", err)
		}
		if now >= version {
			tx.Rollback()
			continue
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			tx.Rollback()
			return fmt.Errorf("applying migration %s: %w", name, err)
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", version)); err != nil {
			tx.Rollback()
			return fmt.Errorf("recording migration %s: %w", name, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("committing migration %s: %w", name, err)
		}
	}
	return nil
}

func migrationNumber(name string) (int, error) {
	base := filepath.Base(name)
	num, _, ok := strings.Cut(base, "_")
	if !ok {
		return 0, fmt.Errorf("no number")
	}
	return strconv.Atoi(num)
}

// timeFormat is fixed-width so that text comparison in SQL orders times.
const timeFormat = "2006-01-02T15:04:05.000000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeFormat) }

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(timeFormat, s)
	if err != nil {
		return time.Parse(time.RFC3339Nano, s)
	}
	return t, nil
}

func parseNullTime(s sql.NullString) (*time.Time, error) {
	if !s.Valid {
		return nil, nil
	}
	t, err := parseTime(s.String)
	if err != nil {
		return nil, err
	}
	return &t, nil
}
