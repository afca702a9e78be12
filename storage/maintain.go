package storage

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"time"
)

// JournalSizeLimit caps the WAL file left behind after a checkpoint: a
// burst (a first run, a migration) may grow it, but it does not stay big.
const JournalSizeLimit = 64 << 20

// Retention says what history is thinned or pruned. Price intervals are
// kept forever unless SpotThinAfter is set: they are the product.
type Retention struct {
	// ChangesMaxAge: detected changes older than this are deleted once
	// every alert queued with them has been delivered (or failed for
	// good). Zero keeps them forever.
	ChangesMaxAge time.Duration
	// SpotThinAfter: spot price intervals that ended longer ago than this
	// are thinned to one per offer per SpotThinStep (the first price of
	// each step stands for the step). Zero keeps every spot interval.
	SpotThinAfter time.Duration
	// SpotThinStep is the thinned resolution (default 24h).
	SpotThinStep time.Duration
	// SignalsMaxAge: capacity-signal intervals that ended longer ago than
	// this are deleted (signals.go). Zero keeps them forever.
	SignalsMaxAge time.Duration
}

// MinChangesAge is the least age Maintain prunes changes at, whatever
// ChangesMaxAge says: the weekly digest counts the week's price changes
// from them (PriceChanges), and a week and a day covers a late digest.
const MinChangesAge = 8 * 24 * time.Hour

// MaintainResult says what Maintain removed.
type MaintainResult struct {
	// SignalsPruned counts the capacity-signal intervals deleted.
	SignalsPruned       int64
	ChangesPruned       int64
	SpotIntervalsMerged int64
}

// Maintain applies the retention policy and truncates the WAL. The daemon
// runs it on storage.maintenance_schedule.
func (db *DB) Maintain(ctx context.Context, r Retention) (MaintainResult, error) {
	var res MaintainResult
	now := db.Now().UTC()
	if r.ChangesMaxAge > 0 {
		n, err := db.pruneChanges(ctx, now.Add(-max(r.ChangesMaxAge, MinChangesAge)))
		if err != nil {
			return res, err
		}
		res.ChangesPruned = n
	}
	if r.SpotThinAfter > 0 {
		step := r.SpotThinStep
		if step <= 0 {
			step = 24 * time.Hour
		}
		n, err := db.thinSpot(ctx, now.Add(-r.SpotThinAfter), step)
		if err != nil {
			return res, err
		}
		res.SpotIntervalsMerged = n
	}
	if r.SignalsMaxAge > 0 {
		n, err := db.pruneSignals(ctx, now.Add(-r.SignalsMaxAge))
		if err != nil {
			return res, err
		}
		res.SignalsPruned = n
	}
	return res, db.Checkpoint(ctx)
}

// pruneChanges deletes changes older than cutoff whose run's alerts are
// all delivered: a run's messages are queued in its transaction, with its
// time, so nothing older than the oldest pending message is waiting.
func (db *DB) pruneChanges(ctx context.Context, cutoff time.Time) (int64, error) {
	limit := formatTime(cutoff)
	var oldestPending sql.NullString
	if err := db.write.QueryRowContext(ctx, `SELECT MIN(created_at) FROM outbox WHERE status = 'pending'`).Scan(&oldestPending); err != nil {
		return 0, fmt.Errorf("pruning changes: %w", err)
	}
	if oldestPending.Valid && oldestPending.String < limit {
		limit = oldestPending.String
	}
	// A batch at a time: one DELETE of every old change had SQLite hold
	// the ids of all of them at once (issue 30: the first hourly pruning
	// of the share-1 scale database, 847,247 changes, took the daemon's C
	// memory from 17 to 33 MB, and glibc kept it), and held the write
	// lock until the last was gone.
	var pruned int64
	for {
		res, err := db.write.ExecContext(ctx, `DELETE FROM changes WHERE id IN (SELECT id FROM changes WHERE at < ? LIMIT ?)`, limit, pruneBatch)
		if err != nil {
			return pruned, fmt.Errorf("pruning changes older than %s: %w", limit, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return pruned, fmt.Errorf("pruning changes older than %s: %w", limit, err)
		}
		pruned += n
		if n < pruneBatch {
			return pruned, nil
		}
	}
}

// pruneBatch is how many changes one statement of pruneChanges deletes
// (a test makes it small).
var pruneBatch int64 = 10_000

// thinSpot merges closed spot intervals that ended before cutoff, per
// offer, so that each step holds one interval per unbroken stretch: the
// first price of the step, valid until the stretch's end within the step.
func (db *DB) thinSpot(ctx context.Context, cutoff time.Time, step time.Duration) (int64, error) {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("thinning spot history: %w", err)
	}
	defer tx.Rollback()
	// Two replicas maintaining at once would merge the same rows twice.
	if err := db.lockKey(ctx, tx, "maintain"); err != nil {
		return 0, fmt.Errorf("thinning spot history: %w", err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT p.id, p.offer_id, p.valid_from, p.valid_to, p.last_seen FROM prices p JOIN offers o ON o.id = p.offer_id
		WHERE o.price_type = 'spot' AND p.valid_to IS NOT NULL AND p.valid_to < ? ORDER BY p.offer_id, p.valid_to`, formatTime(cutoff))
	if err != nil {
		return 0, fmt.Errorf("thinning spot history: %w", err)
	}
	type iv struct {
		id, offer      int64
		from, to, seen string
		bucket         int64
	}
	var keep []iv // merged heads to rewrite
	var drop []int64
	var thinned []int64 // offers merged, in order
	var head *iv
	for rows.Next() {
		var x iv
		if err := rows.Scan(&x.id, &x.offer, &x.from, &x.to, &x.seen); err != nil {
			rows.Close()
			return 0, fmt.Errorf("thinning spot history: %w", err)
		}
		from, err := parseTime(x.from)
		if err != nil {
			rows.Close()
			return 0, fmt.Errorf("thinning spot history: price %d: %w", x.id, err)
		}
		x.bucket = from.UnixNano() / int64(step)
		if head != nil && head.offer == x.offer && head.bucket == x.bucket && head.to == x.from {
			head.to, head.seen = x.to, x.seen
			drop = append(drop, x.id)
			if len(thinned) == 0 || thinned[len(thinned)-1] != x.offer {
				thinned = append(thinned, x.offer)
			}
			continue
		}
		if head != nil {
			keep = append(keep, *head)
		}
		head = &x
	}
	if head != nil {
		keep = append(keep, *head)
	}
	if err := rows.Close(); err != nil {
		return 0, fmt.Errorf("thinning spot history: %w", err)
	}
	if len(drop) == 0 {
		return 0, nil
	}
	del, err := tx.PrepareContext(ctx, `DELETE FROM prices WHERE id = ?`)
	if err != nil {
		return 0, fmt.Errorf("thinning spot history: %w", err)
	}
	defer del.Close()
	// Delete first: a head's new end must not overlap a row still there.
	for _, id := range drop {
		if _, err := del.ExecContext(ctx, id); err != nil {
			return 0, fmt.Errorf("thinning spot history: %w", err)
		}
	}
	upd, err := tx.PrepareContext(ctx, `UPDATE prices SET valid_to = ?, last_seen = ? WHERE id = ? AND (valid_to <> ? OR last_seen <> ?)`)
	if err != nil {
		return 0, fmt.Errorf("thinning spot history: %w", err)
	}
	defer upd.Close()
	for _, k := range keep {
		if _, err := upd.ExecContext(ctx, k.to, k.seen, k.id, k.to, k.seen); err != nil {
			return 0, fmt.Errorf("thinning spot history: %w", err)
		}
	}
	// The merged offers' lows are gone from their intervals: their daily
	// summary is made again from what is left.
	if err := rebuildDays(ctx, tx, thinned); err != nil {
		return 0, fmt.Errorf("thinning spot history: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("thinning spot history: %w", err)
	}
	return int64(len(drop)), nil
}

// Checkpoint copies the WAL into the database and truncates it, and caps
// what a later checkpoint leaves behind (journal_size_limit).
func (db *DB) Checkpoint(ctx context.Context) error {
	if db.pg {
		return nil // PostgreSQL checkpoints by itself
	}
	if _, err := db.write.ExecContext(ctx, fmt.Sprintf("PRAGMA journal_size_limit = %d", JournalSizeLimit)); err != nil {
		return fmt.Errorf("limiting the WAL: %w", err)
	}
	var busy, logPages, done int
	if err := db.write.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logPages, &done); err != nil {
		return fmt.Errorf("checkpointing the WAL: %w", err)
	}
	return nil
}

// Vacuum rebuilds the database file without free pages (after pruning),
// then truncates the WAL. It needs free disk space about the size of the
// database and holds the write lock while it runs.
func (db *DB) Vacuum(ctx context.Context) error {
	if db.pg {
		// Space freed by pruning is reused by PostgreSQL's own vacuum;
		// this one also refreshes the planner's statistics.
		if _, err := db.write.ExecContext(ctx, "VACUUM (ANALYZE)"); err != nil {
			return fmt.Errorf("vacuuming %s: %w", db.path, db.scrub(err))
		}
		return nil
	}
	if _, err := db.write.ExecContext(ctx, "VACUUM"); err != nil {
		return fmt.Errorf("vacuuming %s: %w", db.path, err)
	}
	return db.Checkpoint(ctx)
}

// TableStats describes one table.
type TableStats struct {
	Name string `json:"name"`
	Rows int64  `json:"rows"`
	// PayloadBytes is the stored bytes of the rows' values (no b-tree
	// overhead, no indexes): how the file divides between tables.
	PayloadBytes int64 `json:"payload_bytes"`
}

// Stats describes the database: files, tables, intervals, oldest data.
type Stats struct {
	Path             string       `json:"path"`
	FileBytes        int64        `json:"file_bytes"`
	WALBytes         int64        `json:"wal_bytes"`
	PageSize         int64        `json:"page_size"`
	Pages            int64        `json:"pages"`
	FreePages        int64        `json:"free_pages"`
	Tables           []TableStats `json:"tables"`
	PriceIntervals   int64        `json:"price_intervals"`
	CurrentPrices    int64        `json:"current_prices"`
	Offers           int64        `json:"offers"`
	AvailabilityRows int64        `json:"availability_intervals"`
	Runs             int64        `json:"runs"`
	OldestPrice      *time.Time   `json:"oldest_price"`
	OldestChange     *time.Time   `json:"oldest_change"`
	OldestRun        *time.Time   `json:"oldest_run"`
	NewestRun        *time.Time   `json:"newest_run"`
}

// statsTables are the tables Stats sizes, with the columns whose values it
// sums.
var statsTables = []struct {
	name    string
	columns string
}{
	{"prices", "id, offer_id, currency, hourly, upfront, effective_hourly, valid_from, valid_to, last_seen, first_run_id, last_run_id"},
	{"changes", "id, run_id, kind, at, provider, region, zone, instance_type, price_type, term, payment, offering_class, os, currency, old_price, new_price, old_state, new_state, gpu_model, gpu_count"},
	{"offers", "id, provider, region, zone, instance_type, price_type, term, payment, offering_class, os, gpu_model, gpu_count, gpu_memory_gb, vcpus, memory_gb, interconnect, local_storage"},
	{"availability", "id, provider, region, zone, instance_type, gpu_model, gpu_count, state, stock_detail, since, until, last_seen, missing_runs, missing_since"},
	{"fetch_runs", "id, provider, started_at, finished_at, status, source_version, error"},
	{"outbox", "id, delivery_key, channel, kind, payload, created_at, next_attempt_at, status, last_error, sent_at, attachment"},
	{"fx_rates", "date, currency, rate, source, fetched_at"},
	{"source_versions", "provider, key, version, updated_at"},
	{"scope_seen", "provider, subject, region, price_type, run_id, seen_at"},
}

// Stats reads sizes and counts. It scans every table once.
func (db *DB) Stats(ctx context.Context) (Stats, error) {
	st := Stats{Path: db.path}
	if fi, err := os.Stat(db.path); err == nil {
		st.FileBytes = fi.Size()
	}
	if fi, err := os.Stat(db.path + "-wal"); err == nil {
		st.WALBytes = fi.Size()
	}
	q := func(query string, dst ...any) error {
		if err := db.read.QueryRowContext(ctx, query).Scan(dst...); err != nil {
			return fmt.Errorf("reading database statistics (%s): %w", query, err)
		}
		return nil
	}
	length := "length"
	if db.pg {
		// The schema's tables and indexes stand for the file; pages are
		// PostgreSQL's blocks, and free space is its own business.
		st.FileBytes = 0
		if err := q(`SELECT current_setting('block_size')::bigint, COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::bigint
			FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'r'`, &st.PageSize, &st.FileBytes); err != nil {
			return st, err
		}
		st.Pages = st.FileBytes / max(st.PageSize, 1)
		length = "pg_column_size"
	} else {
		if err := q("PRAGMA page_size", &st.PageSize); err != nil {
			return st, err
		}
		if err := q("PRAGMA page_count", &st.Pages); err != nil {
			return st, err
		}
		if err := q("PRAGMA freelist_count", &st.FreePages); err != nil {
			return st, err
		}
	}
	for _, t := range statsTables {
		ts := TableStats{Name: t.name}
		sum := ""
		for i, c := range splitColumns(t.columns) {
			if i > 0 {
				sum += " + "
			}
			sum += "COALESCE(" + length + "(" + c + "), 0)"
		}
		if err := q("SELECT COUNT(*), COALESCE(SUM("+sum+"), 0) FROM "+t.name, &ts.Rows, &ts.PayloadBytes); err != nil {
			return st, err
		}
		st.Tables = append(st.Tables, ts)
		switch t.name {
		case "prices":
			st.PriceIntervals = ts.Rows
		case "offers":
			st.Offers = ts.Rows
		case "availability":
			st.AvailabilityRows = ts.Rows
		case "fetch_runs":
			st.Runs = ts.Rows
		}
	}
	if err := q("SELECT COUNT(*) FROM prices WHERE valid_to IS NULL", &st.CurrentPrices); err != nil {
		return st, err
	}
	for _, o := range []struct {
		query string
		dst   **time.Time
	}{
		{"SELECT MIN(valid_from) FROM prices", &st.OldestPrice},
		{"SELECT MIN(at) FROM changes", &st.OldestChange},
		{"SELECT MIN(started_at) FROM fetch_runs", &st.OldestRun},
		{"SELECT MAX(started_at) FROM fetch_runs", &st.NewestRun},
	} {
		var s sql.NullString
		if err := q(o.query, &s); err != nil {
			return st, err
		}
		t, err := parseNullTime(s)
		if err != nil {
			return st, fmt.Errorf("reading database statistics: %w", err)
		}
		*o.dst = t
	}
	return st, nil
}

func splitColumns(s string) []string {
	var out []string
	for _, c := range strings.Split(s, ",") {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}
