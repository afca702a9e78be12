package storage

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// ChangeCount is how many price intervals of one GPU model in one region
// began in a span and replaced a different price of the same offer.
type ChangeCount struct {
	GPUModel, Region string
	N                int
}

// PriceChanges counts, per GPU model and region, the price intervals of
// offers of the OS and models (none: every model) that began after from
// and at or before to where a different effective price of the same offer
// ended (a change; an offer listed again after a gap is not one). It is
// counted in SQL so that the weekly digest, which reads prices only at its
// weekly points, still counts every change of the week without holding the
// week's intervals: each offer's intervals still valid after from are
// reached through its current row and the closed-interval index, and the
// price each replaced by its end time.
func (db *DB) PriceChanges(ctx context.Context, from, to time.Time, os string, models []string) ([]ChangeCount, error) {
	cond, args := "o.os = ?", []any{os}
	if len(models) > 0 {
		cond += " AND o.gpu_model IN (?" + strings.Repeat(", ?", len(models)-1) + ")"
		for _, m := range models {
			args = append(args, m)
		}
	}
	f, t := formatTime(from), formatTime(to)
	q := `WITH o AS (SELECT id, gpu_model, region FROM offers o WHERE ` + cond + `),
	  started AS (
	    SELECT o.gpu_model, o.region, p.offer_id, p.valid_from, p.effective_hourly
	      FROM o JOIN prices p INDEXED BY prices_current ON p.offer_id = o.id AND p.valid_to IS NULL
	     WHERE p.valid_from > ? AND p.valid_from <= ?
	    UNION ALL
	    SELECT o.gpu_model, o.region, p.offer_id, p.valid_from, p.effective_hourly
	      FROM o JOIN prices p INDEXED BY prices_offer_to ON p.offer_id = o.id AND p.valid_to IS NOT NULL AND p.valid_to > ?
	     WHERE p.valid_from > ? AND p.valid_from <= ?)
	SELECT s.gpu_model, s.region, COUNT(*) FROM started s
	  JOIN prices q INDEXED BY prices_offer_to ON q.offer_id = s.offer_id AND q.valid_to IS NOT NULL AND q.valid_to = s.valid_from
	 WHERE q.effective_hourly <> s.effective_hourly
	 GROUP BY s.gpu_model, s.region ORDER BY s.gpu_model, s.region`
	args = append(args, f, t, f, f, t)
	rows, err := db.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("counting price changes: %w", err)
	}
	defer rows.Close()
	out := []ChangeCount{}
	for rows.Next() {
		var c ChangeCount
		if err := rows.Scan(&c.GPUModel, &c.Region, &c.N); err != nil {
			return nil, fmt.Errorf("counting price changes: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("counting price changes: %w", err)
	}
	return out, nil
}
