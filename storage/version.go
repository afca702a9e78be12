package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// DataVersionHeader is the HTTP header naming the data version an answer
// was computed at: the dashboard's and the API's kept answers carry it
// (web), and the load test times a stored run's showing by it.
const DataVersionHeader = "Pricewatch-Data-Version"

// versionQuery reads the data version: a few aggregates over the runs,
// the outbox and the rates.
const versionQuery = `SELECT
		(SELECT COALESCE(MAX(id), 0) || '.' || COUNT(*) || '.' || COALESCE(MAX(finished_at), '') FROM fetch_runs) || '/' ||
		(SELECT COALESCE(MAX(id), 0) || '.' || COALESCE(SUM(attempts), 0) || '.' || COUNT(CASE WHEN status = 'sent' THEN 1 END) || '.' || COUNT(CASE WHEN status = 'failed' THEN 1 END) FROM outbox) || '/' ||
		(SELECT COUNT(*) FROM fx_rates)`

// OnlyStarts reports whether the data version moved from old to new by
// runs starting and nothing else: rows added to the runs, none of them
// finished, and the outbox and the rates as they were. Such a move
// changes only what shows the runs themselves (their list, the
// overview's "running"): a run's start commits before its fetch, which
// takes seconds to minutes, so the answers that show prices are the same
// at both versions and need not be computed again (web keeps them). A
// version it cannot read is never a start.
func OnlyStarts(old, new string) bool {
	o, ok1 := versionParts(old)
	n, ok2 := versionParts(new)
	return ok1 && ok2 && n.maxID > o.maxID && o.content() == n.content()
}

// ContentVersion is what version says of everything but the runs'
// starts: two versions that runs' starts alone tell apart (OnlyStarts)
// have the same one, and what reads no runs (prices, availability,
// signals, alerts, rates) is the same at both. A version it cannot read
// is its own.
func ContentVersion(version string) string {
	p, ok := versionParts(version)
	if !ok {
		return version
	}
	return p.content()
}

// runsPart is the runs' part of a data version (versionQuery) and the
// rest of it.
type runsPart struct {
	maxID, count int64
	finished     string
	rest         string
}

// content leaves out the runs' starts: a start moves MAX(id) and COUNT(*)
// alike; a run finished moves MAX(finished_at), a run removed the count
// alone.
func (p runsPart) content() string {
	return fmt.Sprintf("%d.%s/%s", p.maxID-p.count, p.finished, p.rest)
}

func versionParts(v string) (runsPart, bool) {
	runs, rest, ok := strings.Cut(v, "/")
	if !ok {
		return runsPart{}, false
	}
	f := strings.SplitN(runs, ".", 3)
	if len(f) != 3 {
		return runsPart{}, false
	}
	maxID, err1 := strconv.ParseInt(f[0], 10, 64)
	count, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil {
		return runsPart{}, false
	}
	return runsPart{maxID: maxID, count: count, finished: f[2], rest: rest}, true
}

// dataVersion is the version last read and the database's own change
// counter it was read at.
type dataVersion struct {
	mu   sync.Mutex
	conn *sql.Conn // SQLite: the connection the counter is read on
	gate string
	last string
}

// DataVersion is a token that changes whenever a fetch run commits (or
// fails, or starts), an alert is queued or its delivery state moves, or a
// day of exchange rates is stored: what the API's ETags are derived from.
//
// Its aggregates scan the runs and the outbox: 17 ms on a database of
// years (BenchmarkDataVersion: 200,000 runs, 50,000 alerts), which a
// daemon polling four times a second (daemon.VersionPoll) would spend for
// nothing almost every time. They are read again only when the database
// says something was committed since the last read: SQLite's
// data_version (on one connection held for it: the counter is each
// connection's own), PostgreSQL's WAL position (the insert position on
// a primary, the replayed one on a standby), both a lookup.
func (db *DB) DataVersion(ctx context.Context) (string, error) {
	v := &db.version
	v.mu.Lock()
	defer v.mu.Unlock()
	gate, on, err := db.versionGate(ctx)
	if err != nil {
		// Read the aggregates without a gate; the next call tries again.
		gate, on = "", db.read
	}
	if gate != "" && gate == v.gate && v.last != "" {
		return v.last, nil
	}
	var ver string
	if err := on.QueryRowContext(ctx, versionQuery).Scan(&ver); err != nil {
		return "", fmt.Errorf("reading data version: %w", err)
	}
	v.gate, v.last = gate, ver
	return ver, nil
}

// queryRower is a pool or a connection.
type queryRower interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// versionGate is the database's change counter, and what to read the
// version on so that the two agree.
func (db *DB) versionGate(ctx context.Context) (string, queryRower, error) {
	var gate string
	if db.pg {
		err := db.read.QueryRowContext(ctx,
			`SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_insert_lsn() END)::text`).Scan(&gate)
		return gate, db.read, err
	}
	v := &db.version
	if v.conn == nil {
		c, err := db.read.Conn(ctx)
		if err != nil {
			return "", nil, err
		}
		v.conn = c
	}
	if err := v.conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&gate); err != nil {
		// A broken connection: the next call takes a new one (whose
		// counter is not comparable with this one's).
		v.conn.Close()
		v.conn, v.gate = nil, ""
		return "", nil, err
	}
	return gate, v.conn, nil
}

// closeVersion gives back the connection held for the data version.
func (db *DB) closeVersion() error {
	v := &db.version
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.conn == nil {
		return nil
	}
	err := v.conn.Close()
	v.conn = nil
	if errors.Is(err, sql.ErrConnDone) {
		return nil
	}
	return err
}
