package storage

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// queryAll runs q on db (the read pool) and scans each row with scan, in
// order: the one loop of every read that lists rows. A failed query or
// read of the rows reads "<doing>: …" ("reading fetch runs: …"); scan
// wraps its own errors.
func queryAll[T any](ctx context.Context, db *sql.DB, doing, q string, args []any, scan func(*sql.Rows) (T, error)) ([]T, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", doing, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", doing, err)
	}
	return out, nil
}

// storedTime is a time column as read (s, NULL when !s.Valid) and the
// field it parses into: at for a NOT NULL column, null for a nullable one.
type storedTime struct {
	s    sql.NullString
	at   *time.Time
	null **time.Time
}

func timeAt(s string, at *time.Time) storedTime {
	return storedTime{s: sql.NullString{String: s, Valid: true}, at: at}
}

func nullTimeAt(s sql.NullString, null **time.Time) storedTime { return storedTime{s: s, null: null} }

// parseTimes parses the stored times of one row in order and returns the
// first error.
func parseTimes(ts ...storedTime) error {
	for _, t := range ts {
		if t.null != nil {
			v, err := parseNullTime(t.s)
			if err != nil {
				return err
			}
			*t.null = v
			continue
		}
		v, err := parseTime(t.s.String)
		if err != nil {
			return err
		}
		*t.at = v
	}
	return nil
}
