package scalegen

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	_ "github.com/mattn/go-sqlite3" // the "sqlite3" driver
)

// Shift moves every stored time of the SQLite history at path forward by
// whole days, so that a history simulated from Start ends on the day of
// end (the load test serves it as today's: a 90-day chart then covers 90
// days of it). Whole days keep each time of day, so the daily summary's
// days move with them. It works on the file directly: any table with a
// column of a known time name is moved, whatever the schema version.
func Shift(ctx context.Context, path string, d Deployment, end time.Time) (days int, err error) {
	simEnd := Start.Add(time.Duration(d.Share * float64(Year)))
	days = int(end.Sub(simEnd) / (24 * time.Hour))
	if days <= 0 {
		return 0, nil
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL&_busy_timeout=5000")
	if err != nil {
		return 0, fmt.Errorf("opening %s to shift its times: %w", path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("shifting %s: %w", path, err)
	}
	defer tx.Rollback()
	tables, err := columnsOf(ctx, tx)
	if err != nil {
		return 0, fmt.Errorf("shifting %s: %w", path, err)
	}
	by := fmt.Sprintf("'+%d days'", days)
	for table, cols := range tables {
		for _, c := range cols {
			var set string
			switch {
			case timeColumns[c]:
				// "2006-01-02T15:04:05" moved, the fraction and Z kept.
				set = fmt.Sprintf(`%[1]s = strftime('%%Y-%%m-%%dT%%H:%%M:%%S', substr(%[1]s, 1, 19), %[2]s) || substr(%[1]s, 20) WHERE length(%[1]s) = 27`, c, by)
			case dateColumns[c]:
				// Through a prefix, so that no row takes a key another
				// still holds (the day is part of the key).
				if _, err := tx.ExecContext(ctx, fmt.Sprintf(`UPDATE %s SET %[2]s = 'x' || date(%[2]s, %s) WHERE length(%[2]s) = 10`, table, c, by)); err != nil {
					return 0, fmt.Errorf("shifting %s.%s: %w", table, c, err)
				}
				set = fmt.Sprintf(`%[1]s = substr(%[1]s, 2) WHERE length(%[1]s) = 11`, c)
			default:
				continue
			}
			if _, err := tx.ExecContext(ctx, `UPDATE `+table+` SET `+set); err != nil {
				return 0, fmt.Errorf("shifting %s.%s: %w", table, c, err)
			}
		}
	}
	return days, tx.Commit()
}

// timeColumns and dateColumns are the names pricewatch's schema gives
// stored times ("2006-01-02T15:04:05.000000Z") and dates ("2006-01-02").
var (
	timeColumns = map[string]bool{}
	dateColumns = map[string]bool{"date": true, "day": true}
)

func init() {
	for _, c := range []string{"started_at", "finished_at", "deadline_at", "valid_from", "valid_to", "last_seen", "since", "until",
		"missing_since", "at", "created_at", "next_attempt_at", "sent_at", "lease_until", "first_seen", "accepted_at", "updated_at",
		"fetched_at", "acquired_at", "expires_at", "seen_at", "window_start", "window_end"} {
		timeColumns[c] = true
	}
}

// columnsOf lists each table's columns.
func columnsOf(ctx context.Context, tx *sql.Tx) (map[string][]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT m.name, p.name FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table'`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var t, c string
		if err := rows.Scan(&t, &c); err != nil {
			return nil, err
		}
		out[t] = append(out[t], c)
	}
	return out, rows.Err()
}
