package storage

import (
	"context"
	"fmt"
)

// DataVersion is a token that changes whenever a fetch run commits (or
// fails, or starts), an alert is queued or its delivery state moves, or a
// day of exchange rates is stored: what the API's ETags are derived from.
// It reads a few aggregates over indexed tables, so it is cheap to ask on
// every request.
func (db *DB) DataVersion(ctx context.Context) (string, error) {
	var v string
	err := db.read.QueryRowContext(ctx, `SELECT
		(SELECT COALESCE(MAX(id), 0) || '.' || COUNT(*) || '.' || COALESCE(MAX(finished_at), '') FROM fetch_runs) || '/' ||
		(SELECT COALESCE(MAX(id), 0) || '.' || COALESCE(SUM(attempts), 0) || '.' || COUNT(CASE WHEN status = 'sent' THEN 1 END) || '.' || COUNT(CASE WHEN status = 'failed' THEN 1 END) FROM outbox) || '/' ||
		(SELECT COUNT(*) FROM fx_rates)`).Scan(&v)
	if err != nil {
		return "", fmt.Errorf("reading data version: %w", err)
	}
	return v, nil
}
