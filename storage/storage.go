// Package storage keeps pricewatch's history in SQLite or PostgreSQL
// (postgres.go): prices and availability as validity intervals, fetch runs,
// source versions, detected changes, exchange rates and the alert outbox.
// Both hold the same schema and stored texts behind one DB type; Copy moves
// a history between them.
//
// On SQLite one writer connection serialises writes (SQLite allows one writer at a
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

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/mattn/go-sqlite3" // also registers the "sqlite3" driver

	"github.com/pricewatch/pricewatch/retry"
	"github.com/pricewatch/pricewatch/secret"
)

//go:embed migrations/*.sql
var migrations embed.FS

// DB is the pricewatch database.
type DB struct {
	write *sql.DB
	read  *sql.DB
	// path is the SQLite file, or the PostgreSQL DSN without its password.
	path string
	// pg: the database is PostgreSQL (OpenPostgres); read and write are
	// then one pool over pool, and secrets hold the DSN's password, kept
	// out of errors.
	pg      bool
	pool    *pgxpool.Pool
	secrets *secret.Set
	// Now is the clock; tests replace it.
	Now func() time.Time
	// Replica names this process among several sharing one database
	// (ha.replica); every run it records carries it (Run.Replica). Set it
	// before the first run; "" for a single process.
	Replica string
	// marks are outbox outcomes not written yet (see outbox.go).
	marks outboxMarks
	// version is the data version as last read (DataVersion).
	version dataVersion
}

// readPoolSize is how many reads run at once, across every caller of one
// DB (the dashboard's and the API's requests, the metrics scrape, the
// daemon's own reads). A read holds one connection at a time (see
// EachPrice), so callers beyond it wait their turn rather than deadlock.
// The HTTP server runs at most 4 heavy reads at once (web.Limits), so the
// light ones (runs, alerts, /readyz, a scrape) always find a connection.
const readPoolSize = 8

// SQLiteSoftHeapLimit is the soft limit on what SQLite allocates in the
// whole process (PRAGMA soft_heap_limit): past it, each connection's page
// cache reuses its least recently used pages rather than growing. The
// read pool's connections (2 MB of cache each) and the writer's 16 MB
// could otherwise all fill at once. Issue 30, a load test on the share-1
// database: the daemon's anonymous memory besides Go's at most 34 MB
// against 58, the high-water RSS 131 MB against 167; the refresh round
// (BenchmarkScaleRound, share 0.25, two runs each) 2,062-2,119 ms of CPU
// against 1,915-2,089, and a stored Azure run 155-177 ms against
// 152-167: within the runs' spread. The pages evicted are still in the
// operating system's file cache. Lowered from 12 to 4 MiB (issue 30: RSS
// under 100 MB on share 1) once the read model had taken the reads off
// the database: with the unit's MALLOC_ARENA_MAX=2 the daemon's C memory
// peaked at 17.0 MB against 21.3 in the share-1 load test; a stored Azure
// run on share 1 (storage BenchmarkScale, two runs of ten each) took
// 125-138 ms against 141-148 changed and 101-108 against 110-113
// unchanged, and wrote 3.93 MB against 3.55 when changed (the writer's
// cache spills to the WAL sooner).
const SQLiteSoftHeapLimit = 4 << 20

// Options tune Open.
type Options struct {
	BusyTimeout time.Duration // default 5s
	// Progress, if set, hears how a migration of a large database goes,
	// statement by statement (building an index over a year of history
	// takes a while, and a silent CLI looks hung).
	Progress func(msg string)
	// Replica names this process among replicas sharing a PostgreSQL
	// database (ha.replica): OpenPostgres sets DB.Replica to it and tells
	// the server leader.ApplicationName(Replica) as every connection's
	// application_name, by which a replica taking over from a stale leader
	// finds and ends that leader's sessions. SQLite ignores it (one file,
	// one process: its runs name no replica).
	Replica string
}

// largeMigration is how many stored prices make a migration worth
// reporting step by step.
const largeMigration = 100_000

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
	// The writer compares each run with every current price; 16 MB of page
	// cache keeps those pages between hourly runs (the default is 2 MB).
	writeParams.Set("_cache_size", "-16384")
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
	r.SetMaxOpenConns(readPoolSize)
	// Kept open between bursts (the default keeps two): a new connection
	// starts with an empty page cache.
	r.SetMaxIdleConns(readPoolSize)
	db := &DB{write: w, read: r, path: path, Now: func() time.Time { return time.Now().UTC() }}
	if err := db.migrate(ctx, opts.Progress); err != nil {
		db.Close()
		return nil, err
	}
	if _, err := w.ExecContext(ctx, fmt.Sprintf("PRAGMA soft_heap_limit = %d", SQLiteSoftHeapLimit)); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening database %s: %w", path, err)
	}
	// A checkpoint leaves the WAL at most this big (the writer's setting).
	if _, err := w.ExecContext(ctx, fmt.Sprintf("PRAGMA journal_size_limit = %d", JournalSizeLimit)); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening database %s: %w", path, err)
	}
	return db, nil
}

// pingWhileBusy opens the first connection, retrying while another process
// holds the file: switching a new file to WAL answers "database is locked"
// at once rather than waiting on the busy timeout, which is what two
// processes starting together (the daemon and a CLI) would otherwise see.
func pingWhileBusy(ctx context.Context, db *sql.DB, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for attempt := 1; ; attempt++ {
		err := db.PingContext(ctx)
		var se sqlite3.Error
		if err == nil || !errors.As(err, &se) || (se.Code != sqlite3.ErrBusy && se.Code != sqlite3.ErrLocked) || time.Now().After(deadline) {
			return err
		}
		// The one back-off and sleep (package retry): 5 ms doubling to 200 ms.
		if err := retry.Sleep(ctx, retry.Delay(5*time.Millisecond, 200*time.Millisecond, attempt)); err != nil {
			return err
		}
	}
}

// Close closes both connection pools, after one last try at writing the
// outcomes of posted messages that could not be recorded yet.
func (db *DB) Close() error {
	db.flushMarks(context.Background())
	verErr := db.closeVersion()
	if db.pg {
		err := db.write.Close()
		db.pool.Close()
		return errors.Join(verErr, err)
	}
	return errors.Join(verErr, db.write.Close(), db.read.Close())
}

// Postgres reports whether the database is PostgreSQL (else SQLite).
func (db *DB) Postgres() bool { return db.pg }

// Path is the database file, or for PostgreSQL its URL without the
// password.
func (db *DB) Path() string { return db.path }

// Ping checks that the database answers (used by health checks).
func (db *DB) Ping(ctx context.Context) error {
	var one int
	if err := db.read.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return fmt.Errorf("database %s: %w", db.path, db.scrub(err))
	}
	return nil
}

// migrate applies embedded migrations in file-name order, each in its own
// transaction, recording the version in PRAGMA user_version. A database
// newer than this binary is refused rather than half-understood.
func (db *DB) migrate(ctx context.Context, progress func(string)) error {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("listing migrations: %w", err)
	}
	sort.Strings(names)
	// A file of another program is refused before anything is written.
	// Its marks are read in one transaction, a snapshot: read one by one,
	// another process's first migration committing between the reads
	// would show its tables beside the version 0 read before it.
	// (On the read pool: a deferred transaction takes no write lock.)
	snap, err := db.read.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("reading database %s: %w", db.path, err)
	}
	stamp, err := identify(ctx, snap, db.path)
	snap.Rollback()
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
	todo, err := pending(migrations, names, current, db.path)
	if err != nil {
		return err
	}
	for _, m := range todo {
		name, version := m.name, m.version
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
		var report func(string)
		if progress != nil && now > 0 {
			var n int64
			if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) FROM prices`).Scan(&n); err == nil && n >= largeMigration {
				report = progress
				report(fmt.Sprintf("migrating %s (%d price intervals) to schema %d with %s", db.path, n, version, filepath.Base(name)))
			}
		}
		if err := applyMigration(ctx, tx, m.body, report); err != nil {
			tx.Rollback()
			return fmt.Errorf("applying migration %s: %w", name, err)
		}
		if err := runMigrationHook(ctx, tx, name); err != nil {
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

// applyMigration runs a migration's statements in tx; with report set, one
// at a time, saying which and how long each took.
func applyMigration(ctx context.Context, tx *sql.Tx, body string, report func(string)) error {
	stmts := splitStatements(body)
	if report == nil || stmts == nil {
		_, err := tx.ExecContext(ctx, body)
		return err
	}
	began := time.Now()
	for i, st := range stmts {
		t := time.Now()
		if _, err := tx.ExecContext(ctx, st); err != nil {
			return err
		}
		first, _, _ := strings.Cut(st, "(")
		report(fmt.Sprintf("  %d/%d %s (%s)", i+1, len(stmts), strings.Join(strings.Fields(first), " "), time.Since(t).Round(time.Millisecond)))
	}
	report(fmt.Sprintf("  done in %s", time.Since(began).Round(time.Millisecond)))
	return nil
}

// splitStatements splits a migration at semicolons ending a line, leaving
// out comment lines; nil for a migration holding a trigger (whose body has
// semicolons of its own), which is then run whole.
func splitStatements(body string) []string {
	if strings.Contains(strings.ToUpper(body), "TRIGGER") {
		return nil
	}
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(body, "\n") {
		if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "--") {
			continue
		}
		cur.WriteString(line)
		cur.WriteString("\n")
		if strings.HasSuffix(strings.TrimSpace(line), ";") {
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		}
	}
	if strings.TrimSpace(cur.String()) != "" {
		out = append(out, strings.TrimSpace(cur.String()))
	}
	return out
}

// migration is one embedded migration a database does not have yet.
type migration struct {
	name    string
	version int
	body    string
}

// pending checks the embedded migrations names (read from fsys, numbered
// from 0001 without gaps) against a database at schema version current
// (path names it in errors) and reads those it does not have yet, in
// order. A database newer than this binary is refused rather than
// half-understood.
func pending(fsys fs.ReadFileFS, names []string, current int, path string) ([]migration, error) {
	if current > len(names) {
		return nil, fmt.Errorf("database %s has schema version %d but this pricewatch knows only %d: use a newer pricewatch", path, current, len(names))
	}
	var out []migration
	for i, name := range names {
		version := i + 1
		if n, err := migrationNumber(name); err != nil || n != version {
			return nil, fmt.Errorf("migration %s: want number %04d (migrations are numbered from 0001 without gaps)", name, version)
		}
		if version <= current {
			continue
		}
		body, err := fsys.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("reading migration %s: %w", name, err)
		}
		out = append(out, migration{name: name, version: version, body: string(body)})
	}
	return out, nil
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
	if t, ok := parseFixedTime(s); ok {
		return t, nil
	}
	t, err := time.Parse(timeFormat, s)
	if err != nil {
		return time.Parse(time.RFC3339Nano, s)
	}
	return t, nil
}

// parseFixedTime reads timeFormat without time.Parse's generality: reading
// a window of history parses three times per interval, hundreds of
// thousands of times.
func parseFixedTime(s string) (time.Time, bool) {
	if len(s) != len(timeFormat) || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != '.' || s[26] != 'Z' {
		return time.Time{}, false
	}
	num := func(from, to int) (int, bool) {
		n := 0
		for i := from; i < to; i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	var v [7]int
	for i, r := range [7][2]int{{0, 4}, {5, 7}, {8, 10}, {11, 13}, {14, 16}, {17, 19}, {20, 26}} {
		n, ok := num(r[0], r[1])
		if !ok {
			return time.Time{}, false
		}
		v[i] = n
	}
	if v[1] < 1 || v[1] > 12 || v[2] < 1 || v[2] > 31 || v[3] > 23 || v[4] > 59 || v[5] > 59 {
		return time.Time{}, false
	}
	t := time.Date(v[0], time.Month(v[1]), v[2], v[3], v[4], v[5], v[6]*1000, time.UTC)
	if t.Day() != v[2] {
		return time.Time{}, false // 31 February: let time.Parse say why
	}
	return t, true
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
