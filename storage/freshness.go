package storage

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// LastSuccessTimes returns, per provider, when its latest successful run
// finished. It is read from the database, not kept in memory, so that it
// survives a restart in which the provider fails.
func (db *DB) LastSuccessTimes(ctx context.Context) (map[string]time.Time, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT provider, MAX(finished_at) FROM fetch_runs WHERE status = 'ok' AND finished_at IS NOT NULL GROUP BY provider`)
	if err != nil {
		return nil, fmt.Errorf("reading last successful runs: %w", err)
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var p, at string
		if err := rows.Scan(&p, &at); err != nil {
			return nil, fmt.Errorf("reading last successful runs: %w", err)
		}
		t, err := parseTime(at)
		if err != nil {
			return nil, fmt.Errorf("reading last successful run of %s: %w", p, err)
		}
		out[p] = t
	}
	return out, rows.Err()
}

// LastQueued returns when the newest outbox message of a kind (e.g. the
// weekly digest) was queued; ok is false when there is none.
func (db *DB) LastQueued(ctx context.Context, kind string) (at time.Time, ok bool, err error) {
	var s sql.NullString
	if err := db.read.QueryRowContext(ctx, `SELECT MAX(created_at) FROM outbox WHERE kind = ?`, kind).Scan(&s); err != nil {
		return time.Time{}, false, fmt.Errorf("reading last %s message: %w", kind, err)
	}
	if !s.Valid {
		return time.Time{}, false, nil
	}
	t, err := parseTime(s.String)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("reading last %s message: %w", kind, err)
	}
	return t, true, nil
}
