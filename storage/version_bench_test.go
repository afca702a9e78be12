package storage

import (
	"context"
	"path/filepath"
	"testing"
)

// BenchmarkDataVersion is what the daemon's poll of the data version
// (daemon.VersionPoll, four times a second) costs a database of years of
// runs when nothing was committed since the last (most polls): 200,000
// runs (twenty clouds every hour for a year) and 50,000 alerts queued.
// The aggregates alone are 17 ms; the gate is 12 µs (2026-12-06).
//
//	go test ./storage -run '^$' -bench DataVersion
func BenchmarkDataVersion(b *testing.B) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(b.TempDir(), "v.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 200000)
		 INSERT INTO fetch_runs (provider, started_at, finished_at, status) SELECT 'azure', '2026-01-01T00:00:00Z', '2026-01-01T00:01:00Z', 'ok' FROM n`,
		`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 50000)
		 INSERT INTO outbox (delivery_key, channel, kind, payload, created_at, next_attempt_at, attempts, status)
		 SELECT 'k' || i, 'slack', 'price_change', '{}', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 1, 'sent' FROM n`,
	} {
		if _, err := db.write.ExecContext(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if _, err := db.DataVersion(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
