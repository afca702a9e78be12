package storage

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"strconv"
	"strings"
	"time"
)

// Copying a history between backends (`pricewatch db copy`): SQLite to
// PostgreSQL when a team outgrows one machine, PostgreSQL to SQLite for a
// backup that is one file. Every table is copied row for row with its ids,
// in id order, in batches that each commit, so an interrupted copy run
// again continues after the last committed batch and never stores a row
// twice; then both sides are counted and checksummed table by table.

// copyTable is a table and its columns, the same on both backends. key is
// its integer id column, or "" for the small keyed tables, which are
// copied whole each time (an upsert on conflict).
type copyTable struct {
	name, key string
	columns   []string
	conflict  string // the primary key, for the upsert of a keyed table
	blob      string // the column holding bytes, not text
}

// copyTables are every table of the schema, parents before children.
var copyTables = []copyTable{
	{name: "fetch_runs", key: "id", columns: cols("id provider started_at finished_at status offers_seen offers_new offers_changed offers_unchanged offers_closed regions_skipped changes source_version error offers_held owner_host owner_pid deadline_at replica")},
	{name: "offers", key: "id", columns: cols("id provider region zone instance_type price_type term payment offering_class os gpu_model gpu_count gpu_memory_gb vcpus memory_gb sku_id sku_price_id product_id region_name interconnect local_storage")},
	{name: "prices", key: "id", columns: cols("id offer_id currency hourly upfront effective_hourly valid_from valid_to last_seen first_run_id last_run_id")},
	{name: "price_days", conflict: "offer_id, day", columns: cols("offer_id day currency open low close changes")},
	{name: "availability", key: "id", columns: cols("id provider region zone instance_type gpu_model gpu_count state stock_detail since until last_seen missing_runs missing_since")},
	{name: "changes", key: "id", columns: cols("id run_id kind at provider region zone instance_type price_type term payment offering_class os currency old_price new_price old_state new_state gpu_model gpu_count")},
	{name: "outbox", key: "id", blob: "attachment", columns: cols("id delivery_key channel kind payload created_at next_attempt_at attempts status last_error sent_at lease_until attachment")},
	{name: "held_prices", key: "id", columns: cols("id provider region zone instance_type price_type term payment offering_class os gpu_model gpu_count currency hourly upfront effective_hourly stored_effective reason detail first_seen last_seen first_run_id last_run_id runs accepted_at")},
	{name: "pending_moves", key: "id", columns: cols("id provider region zone instance_type price_type term payment offering_class os currency old_price new_price gpu_model gpu_count run_id at")},
	{name: "source_versions", conflict: "provider, key", columns: cols("provider key version updated_at")},
	{name: "fx_rates", conflict: "date, currency", columns: cols("date currency rate source fetched_at")},
	{name: "run_leases", conflict: "provider", columns: cols("provider run_id owner host pid acquired_at expires_at")},
	{name: "scope_seen", conflict: "provider, subject, region, price_type", columns: cols("provider subject region price_type run_id seen_at")},
	{name: "fetcher_state", conflict: "provider", columns: cols("provider state updated_at")},
	{name: "signals", key: "id", columns: cols("id provider kind region zone instance_type shape window_start window_end value unit detail source gpu_model gpu_count since until ended_missing run_id")},
}

func cols(s string) []string { return strings.Fields(s) }

// copyBatch is how many rows one committed batch holds (tests shrink it).
var copyBatch = 5000

// CopyOptions tune Copy.
type CopyOptions struct {
	// Progress hears a line per table and per batch of a large table.
	Progress func(msg string)
}

// CopiedTable is one table's outcome: its rows on both sides, how many this
// call copied, and the checksum both sides agree on.
type CopiedTable struct {
	Name     string
	Rows     int64
	Copied   int64
	Checksum string // SHA-256 over the rows in key order, hex
}

// ErrCopyMismatch: after the copy a table's rows differ between source and
// destination (the source was written during the copy, or the destination
// holds another history).
var ErrCopyMismatch = errors.New("source and destination differ")

// Copy copies src's whole history into dst, which must be empty or a copy
// of src interrupted earlier (its rows a prefix of src's). The source must
// not be written meanwhile: stop the daemon first. It returns each table's
// verified counts and checksums; a difference is an error wrapping
// ErrCopyMismatch.
func Copy(ctx context.Context, src, dst *DB, opts CopyOptions) ([]CopiedTable, error) {
	progress := opts.Progress
	if progress == nil {
		progress = func(string) {}
	}
	if err := sameHistory(ctx, src, dst); err != nil {
		return nil, err
	}
	var out []CopiedTable
	for _, t := range copyTables {
		n, err := copyRows(ctx, src, dst, t, progress)
		if err != nil {
			return nil, fmt.Errorf("copying %s from %s to %s: %w", t.name, src.path, dst.path, err)
		}
		out = append(out, CopiedTable{Name: t.name, Copied: n})
	}
	if dst.pg {
		// Rows came with their ids: the identities continue after them.
		for _, t := range copyTables {
			if t.key == "" {
				continue
			}
			if _, err := dst.write.ExecContext(ctx, `SELECT setval(pg_get_serial_sequence('`+t.name+`', 'id'), COALESCE(MAX(id), 1), MAX(id) IS NOT NULL) FROM `+t.name); err != nil {
				return nil, fmt.Errorf("continuing the ids of %s: %w", t.name, dst.scrub(err))
			}
		}
	}
	var bad []string
	for i, t := range copyTables {
		sn, ssum, err := checksum(ctx, src, t)
		if err != nil {
			return nil, fmt.Errorf("verifying %s in %s: %w", t.name, src.path, err)
		}
		dn, dsum, err := checksum(ctx, dst, t)
		if err != nil {
			return nil, fmt.Errorf("verifying %s in %s: %w", t.name, dst.path, err)
		}
		out[i].Rows, out[i].Checksum = sn, ssum
		if sn != dn || ssum != dsum {
			bad = append(bad, fmt.Sprintf("%s (%d rows, sha256 %.12s… in the source; %d, %.12s… in the destination)", t.name, sn, ssum, dn, dsum))
			continue
		}
		progress(fmt.Sprintf("verified %s: %d rows, sha256 %.16s…", t.name, sn, ssum))
	}
	if len(bad) > 0 {
		return out, fmt.Errorf("copy from %s to %s: %w: %s (was the source written during the copy? stop the daemon and run the copy again)",
			src.path, dst.path, ErrCopyMismatch, strings.Join(bad, "; "))
	}
	// The planner's statistics of tables filled in one go: without them
	// PostgreSQL guessed 29 offers of a type where there were 576 and read a
	// type's history by scanning every price (on the CLI-built year, 2.3×
	// SQLite's time before ANALYZE, 1.8× after); autovacuum gets there only
	// later. SQLite is left as pricewatch always runs it, without
	// statistics, so that its plans stay the ones measured.
	if dst.pg {
		progress("updating the planner's statistics")
		names := make([]string, 0, len(copyTables))
		for _, t := range copyTables {
			names = append(names, t.name)
		}
		if _, err := dst.write.ExecContext(ctx, `ANALYZE `+strings.Join(names, ", ")); err != nil {
			return out, fmt.Errorf("updating the statistics of %s: %w", dst.path, dst.scrub(err))
		}
	}
	return out, nil
}

// sameHistory refuses a destination holding runs that are not src's: its
// first run must be src's first run.
func sameHistory(ctx context.Context, src, dst *DB) error {
	first := func(db *DB) (string, error) {
		var s string
		err := db.read.QueryRowContext(ctx, `SELECT id || ' ' || provider || ' ' || started_at FROM fetch_runs ORDER BY id LIMIT 1`).Scan(&s)
		if errors.Is(err, sql.ErrNoRows) {
			return "", nil
		}
		if err != nil {
			return "", fmt.Errorf("reading the first run of %s: %w", db.path, db.scrub(err))
		}
		return s, nil
	}
	d, err := first(dst)
	if err != nil || d == "" {
		return err
	}
	s, err := first(src)
	if err != nil {
		return err
	}
	if s != d {
		return fmt.Errorf("%s already holds another history (its first run is %q, the source's %q): copy into an empty database", dst.path, d, s)
	}
	return nil
}

// copyRows copies t's rows dst lacks: those after its highest id (batches
// commit in id order, so what an interrupted copy stored is a prefix), or
// for a keyed table every row, upserted.
func copyRows(ctx context.Context, src, dst *DB, t copyTable, progress func(string)) (int64, error) {
	list := strings.Join(t.columns, ", ")
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(t.columns)), ", ")
	insert := `INSERT INTO ` + t.name + ` (` + list + `) VALUES (` + marks + `) ON CONFLICT `
	if t.key != "" {
		insert += `DO NOTHING`
	} else {
		var set []string
		for _, c := range t.columns {
			set = append(set, c+" = excluded."+c)
		}
		insert += `(` + t.conflict + `) DO UPDATE SET ` + strings.Join(set, ", ")
	}
	var after int64
	var total int64
	if t.key != "" {
		if err := dst.read.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) FROM `+t.name).Scan(&after); err != nil {
			return 0, dst.scrub(err)
		}
		if err := src.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+t.name+` WHERE id > ?`, after).Scan(&total); err != nil {
			return 0, src.scrub(err)
		}
		if after > 0 {
			progress(fmt.Sprintf("%s: resuming after id %d, %d rows to go", t.name, after, total))
		}
	}
	var copied int64
	began := time.Now()
	for {
		q := `SELECT ` + list + ` FROM ` + t.name
		var args []any
		if t.key != "" {
			q += ` WHERE id > ? ORDER BY id LIMIT ` + strconv.Itoa(copyBatch)
			args = append(args, after)
		}
		rows, err := readRows(ctx, src, t, q, args)
		if err != nil {
			return copied, err
		}
		if len(rows) > 0 {
			if err := writeRows(ctx, dst, insert, rows); err != nil {
				return copied, err
			}
			copied += int64(len(rows))
		}
		if t.key == "" || len(rows) < copyBatch {
			break
		}
		after = rows[len(rows)-1][0].(int64)
		progress(fmt.Sprintf("%s: %d/%d rows (%s)", t.name, copied, total, time.Since(began).Round(time.Second)))
	}
	progress(fmt.Sprintf("copied %s: %d rows", t.name, copied))
	return copied, nil
}

// readRows reads q's rows as values both drivers take: integers as int64,
// reals as float64, text as string, bytes only for the blob column.
func readRows(ctx context.Context, db *DB, t copyTable, q string, args []any) ([][]any, error) {
	rows, err := db.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, db.scrub(err)
	}
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(t.columns))
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		for i, v := range vals {
			if b, ok := v.([]byte); ok && t.columns[i] != t.blob {
				vals[i] = string(b)
			}
		}
		if t.key != "" {
			id, ok := vals[0].(int64)
			if !ok {
				return nil, fmt.Errorf("%s: id %v is not an integer", t.name, vals[0])
			}
			vals[0] = id
		}
		out = append(out, vals)
	}
	return out, rows.Err()
}

// writeRows inserts one batch in one transaction.
func writeRows(ctx context.Context, db *DB, insert string, rows [][]any) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return db.scrub(err)
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, insert)
	if err != nil {
		return db.scrub(err)
	}
	defer st.Close()
	for _, r := range rows {
		if _, err := st.ExecContext(ctx, r...); err != nil {
			return db.scrub(err)
		}
	}
	return db.scrub(tx.Commit())
}

// checksum counts t's rows and hashes them in key order, each value in a
// form both backends give alike.
func checksum(ctx context.Context, db *DB, t copyTable) (int64, string, error) {
	order := t.key
	if order == "" {
		order = t.conflict
	}
	rows, err := db.read.QueryContext(ctx, `SELECT `+strings.Join(t.columns, ", ")+` FROM `+t.name+` ORDER BY `+order)
	if err != nil {
		return 0, "", db.scrub(err)
	}
	defer rows.Close()
	h := sha256.New()
	var n int64
	vals := make([]any, len(t.columns))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return 0, "", err
		}
		for _, v := range vals {
			hashValue(h, v)
		}
		h.Write([]byte{'\n'})
		n++
	}
	if err := rows.Err(); err != nil {
		return 0, "", err
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

func hashValue(h hash.Hash, v any) {
	switch x := v.(type) {
	case nil:
		h.Write([]byte("\x00N"))
	case int64:
		h.Write([]byte("\x00i" + strconv.FormatInt(x, 10)))
	case float64:
		h.Write([]byte("\x00f" + strconv.FormatFloat(x, 'g', -1, 64)))
	case string:
		h.Write([]byte("\x00s" + strconv.Itoa(len(x)) + ":" + x))
	case []byte:
		h.Write([]byte("\x00s" + strconv.Itoa(len(x)) + ":"))
		h.Write(x)
	case bool:
		h.Write([]byte("\x00i" + map[bool]string{false: "0", true: "1"}[x]))
	default:
		fmt.Fprintf(h, "\x00?%v", x)
	}
}
