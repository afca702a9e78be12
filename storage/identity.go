package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"slices"
	"strconv"
	"time"
)

// applicationID marks a SQLite file as pricewatch's (PRAGMA
// application_id, "PWAT"), so that a database.path pointing at another
// program's file is refused instead of being migrated into.
const applicationID = 0x50574154

// ErrNotPricewatch: the file is a SQLite database of something else.
var ErrNotPricewatch = errors.New("not a pricewatch database")

// pricewatchTables are tables every pricewatch schema has had; a file from
// before application_id was set is recognised by them.
var pricewatchTables = []string{"fetch_runs", "offers", "prices", "availability"}

type querier interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}

// identify reports whether the file at q is pricewatch's (or new and
// empty), and whether its application_id still has to be set.
func identify(ctx context.Context, q querier, path string) (stamp bool, err error) {
	var appID, version int
	if err := q.QueryRowContext(ctx, "PRAGMA application_id").Scan(&appID); err != nil {
		return false, fmt.Errorf("reading database %s: %w", path, err)
	}
	if appID == applicationID {
		return false, nil
	}
	if appID != 0 {
		return false, fmt.Errorf("%s: %w (its application_id is 0x%08x): point database.path at a pricewatch database or a new file", path, ErrNotPricewatch, appID)
	}
	if err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return false, fmt.Errorf("reading database %s: %w", path, err)
	}
	rows, err := q.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		return false, fmt.Errorf("reading database %s: %w", path, err)
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return false, fmt.Errorf("reading database %s: %w", path, err)
		}
		tables = append(tables, n)
	}
	if err := rows.Close(); err != nil {
		return false, fmt.Errorf("reading database %s: %w", path, err)
	}
	if len(tables) == 0 && version == 0 {
		return true, nil // a new file
	}
	ours := version > 0
	for _, t := range pricewatchTables {
		ours = ours && slices.Contains(tables, t)
	}
	if !ours {
		shown := tables
		if len(shown) > 5 {
			shown = append(shown[:5:5], "…")
		}
		return false, fmt.Errorf("%s: %w (schema version %d, tables %v): point database.path at a pricewatch database or a new file", path, ErrNotPricewatch, version, shown)
	}
	return true, nil // pricewatch's, from before application_id
}

// ErrSchemaBehind: a read-only open found a database older than this
// binary; it must be opened for writing once to be upgraded.
var ErrSchemaBehind = errors.New("database schema is older than this pricewatch")

// OpenReadOnly opens an existing database for reading only, without
// migrating or writing anything, so read-only commands work on read-only
// media and never take the write lock. A file whose schema is older than
// this binary gives ErrSchemaBehind (Open upgrades it); a missing file,
// fs.ErrNotExist. Every write through the result fails.
func OpenReadOnly(ctx context.Context, path string, opts Options) (*DB, error) {
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = 5 * time.Second
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("opening database %s: %w", path, err)
	}
	fileURI := "file:" + (&url.URL{Path: path}).EscapedPath()
	params := url.Values{}
	params.Set("mode", "ro")
	params.Set("_busy_timeout", strconv.FormatInt(opts.BusyTimeout.Milliseconds(), 10))
	params.Set("_query_only", "1")
	r, err := openChecked(ctx, fileURI+"?"+params.Encode())
	if err != nil {
		// On read-only media SQLite cannot create the WAL index beside
		// the file; nothing can be writing it either, so read it as
		// immutable.
		params.Set("immutable", "1")
		var err2 error
		if r, err2 = openChecked(ctx, fileURI+"?"+params.Encode()); err2 != nil {
			return nil, fmt.Errorf("opening database %s read-only: %w", path, errors.Join(err, err2))
		}
	}
	db := &DB{write: r, read: r, path: path, Now: func() time.Time { return time.Now().UTC() }}
	if _, err := identify(ctx, r, path); err != nil {
		r.Close()
		return nil, err
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("listing migrations: %w", err)
	}
	var version int
	if err := r.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		r.Close()
		return nil, fmt.Errorf("reading schema version: %w", err)
	}
	switch {
	case version > len(names):
		r.Close()
		return nil, fmt.Errorf("database %s has schema version %d but this pricewatch knows only %d: use a newer pricewatch", path, version, len(names))
	case version < len(names):
		r.Close()
		return nil, fmt.Errorf("database %s has schema version %d, this pricewatch %d: %w", path, version, len(names), ErrSchemaBehind)
	}
	return db, nil
}

func openChecked(ctx context.Context, dsn string) (*sql.DB, error) {
	r, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, err
	}
	r.SetMaxOpenConns(4)
	var n int
	if err := r.QueryRowContext(ctx, "SELECT COUNT(*) FROM sqlite_master").Scan(&n); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// probeExisting refuses an existing file that is not pricewatch's before
// Open touches it: the writer's first connection would already switch the
// file to WAL.
func probeExisting(ctx context.Context, path string) error {
	st, err := os.Stat(path)
	if err != nil || st.Size() == 0 {
		return nil // new, or Open reports what is wrong
	}
	r, err := openChecked(ctx, "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro")
	if err != nil {
		return nil // not readable as SQLite now (e.g. busy); the writer's open says why
	}
	defer r.Close()
	_, err = identify(ctx, r, path)
	if errors.Is(err, ErrNotPricewatch) {
		return err
	}
	return nil
}
