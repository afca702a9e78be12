package storage

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/pricewatch/pricewatch"
)

// ChangeCount is how many price changes of one GPU model in one region
// were detected in a span.
type ChangeCount struct {
	GPUModel, Region string
	// Provider and OfferingClass say whose offers changed, for the
	// digest's providers and sellers (issue 31).
	Provider, OfferingClass string
	N                       int
}

// PriceChanges counts, per GPU model and region, the price changes of
// offers of the OS and models (none: every model) detected after from and
// at or before to: the changes table's price_changed rows, which each run
// writes in the transaction that replaces the price (a price seen for the
// first time, or again after a gap, is price_new, not a change). The weekly
// digest reads prices only at its weekly points, so it counts the week's
// changes here, through the changes_at index, holding nothing but the
// counts. Maintain keeps changes for MinChangesAge at least for this.
func (db *DB) PriceChanges(ctx context.Context, from, to time.Time, os string, models []string) ([]ChangeCount, error) {
	q := `SELECT gpu_model, region, provider, offering_class, COUNT(*) FROM changes WHERE at > ? AND at <= ? AND kind = ? AND os = ?`
	args := []any{formatTime(from), formatTime(to), string(pricewatch.PriceChanged), os}
	if len(models) > 0 {
		q += " AND gpu_model IN (?" + strings.Repeat(", ?", len(models)-1) + ")"
		for _, m := range models {
			args = append(args, m)
		}
	}
	out, err := queryAll(ctx, db.read, "counting price changes", q+` GROUP BY gpu_model, region, provider, offering_class ORDER BY gpu_model, region, provider, offering_class`, args,
		func(rows *sql.Rows) (ChangeCount, error) {
			var c ChangeCount
			if err := rows.Scan(&c.GPUModel, &c.Region, &c.Provider, &c.OfferingClass, &c.N); err != nil {
				return c, fmt.Errorf("counting price changes: %w", err)
			}
			return c, nil
		})
	if err == nil && out == nil {
		out = []ChangeCount{} // none is an empty list, not nil
	}
	return out, err
}
