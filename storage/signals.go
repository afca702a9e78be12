package storage

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pricewatch/pricewatch"
)

// Capacity signals (issue 23) are kept as intervals in table signals
// (migration 0011), written in the run's transaction like prices. The SQL
// here is portable: ? placeholders, times as fixed-width TEXT, no
// functions of one engine.

// SignalInterval is one stored signal value, from Since until Until (nil
// while current).
type SignalInterval struct {
	ID int64
	pricewatch.Signal
	Since time.Time
	Until *time.Time
	// EndedMissing: the interval ended because a complete answer no longer
	// listed the signal (a block bought or past, a type gone from the Spot
	// Advisor), not because its value changed.
	EndedMissing bool
	RunID        int64
}

// SignalFilter selects signal intervals. Empty fields match everything.
type SignalFilter struct {
	Providers    []string
	Kinds        []pricewatch.SignalKind
	InstanceType string
	Regions      []string // a region or a zone
	// GPUModels, when not nil, keeps only signals of these stored models.
	GPUModels []string
	// CurrentOnly keeps only intervals without an end.
	CurrentOnly bool
	// Since keeps intervals still valid at or after this time.
	Since time.Time
	// Limit, when positive, keeps the newest Limit intervals (by start).
	Limit int
}

// storeSignals writes the snapshot's signals: an unchanged value writes
// nothing; another value closes the current interval and opens one; a
// signal new to storage opens one. Current signals inside the snapshot's
// SignalCoverage that it does not list end quietly. It returns the changes
// found, for the alerts (they are not rows of table changes: the signals'
// own intervals are their history).
func (s *saver) storeSignals(snap *pricewatch.Snapshot) ([]pricewatch.Change, error) {
	if len(snap.Signals) == 0 && len(snap.SignalCoverage) == 0 {
		return nil, nil
	}
	current, err := loadCurrentSignals(s.ctx, s.tx, snap.Provider)
	if err != nil {
		return nil, err
	}
	var changes []pricewatch.Change
	listed := make(map[pricewatch.SignalKey]bool, len(snap.Signals))
	for _, sg := range snap.Signals {
		k := sg.Key()
		listed[k] = true
		cur, ok := current[k]
		if ok && cur.Value == sg.Value && cur.Unit == sg.Unit {
			continue
		}
		ch := pricewatch.Change{At: s.now, Place: sg.Place(), Hardware: sg.Hardware, Signal: &pricewatch.SignalChange{Signal: sg}}
		switch {
		case ok:
			if _, err := s.exec(`UPDATE signals SET until = ? WHERE id = ?`, s.ts, cur.ID); err != nil {
				return nil, err
			}
			ch.Kind, ch.Signal.OldValue = pricewatch.SignalChanged, cur.Value
		case sg.Kind == pricewatch.CapacityBlock:
			ch.Kind = pricewatch.CapacityBlockAvailable
		default:
			ch.Kind = pricewatch.SignalNew
		}
		changes = append(changes, ch)
		if _, err := s.exec(`INSERT INTO signals (provider, kind, region, zone, instance_type, shape, window_start, window_end,
			value, unit, detail, source, gpu_model, gpu_count, since, run_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			sg.Provider, string(sg.Kind), sg.Region, sg.Zone, sg.InstanceType, sg.Shape, windowTime(sg.Start), windowTime(sg.End),
			sg.Value, sg.Unit, sg.Detail, sg.Source, sg.GPUModel, sg.GPUCount, s.ts, s.runID); err != nil {
			return nil, err
		}
	}
	var ended []int64
	for k, cur := range current {
		if listed[k] {
			continue
		}
		if slices.ContainsFunc(snap.SignalCoverage, func(sc pricewatch.SignalScope) bool { return sc.Covers(k) }) {
			ended = append(ended, cur.ID)
		}
	}
	slices.Sort(ended)
	for _, id := range ended {
		if _, err := s.exec(`UPDATE signals SET until = ?, ended_missing = 1 WHERE id = ?`, s.ts, id); err != nil {
			return nil, err
		}
	}
	return changes, nil
}

func windowTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return formatTime(t)
}

func parseWindowTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	return parseTime(s)
}

const signalColumns = `id, provider, kind, region, zone, instance_type, shape, window_start, window_end, value, unit, detail, source,
	gpu_model, gpu_count, since, until, ended_missing, run_id`

func scanSignal(rows *sql.Rows) (SignalInterval, error) {
	var si SignalInterval
	var kind, start, end, since string
	var until sql.NullString
	var endedMissing int
	if err := rows.Scan(&si.ID, &si.Provider, &kind, &si.Region, &si.Zone, &si.InstanceType, &si.Shape, &start, &end,
		&si.Value, &si.Unit, &si.Detail, &si.Source, &si.GPUModel, &si.GPUCount, &since, &until, &endedMissing, &si.RunID); err != nil {
		return si, err
	}
	si.Kind = pricewatch.SignalKind(kind)
	si.EndedMissing = endedMissing != 0
	var err error
	if si.Start, err = parseWindowTime(start); err != nil {
		return si, fmt.Errorf("signal %d window start: %w", si.ID, err)
	}
	if si.End, err = parseWindowTime(end); err != nil {
		return si, fmt.Errorf("signal %d window end: %w", si.ID, err)
	}
	if si.Since, err = parseTime(since); err != nil {
		return si, fmt.Errorf("signal %d since: %w", si.ID, err)
	}
	if si.Until, err = parseNullTime(until); err != nil {
		return si, fmt.Errorf("signal %d until: %w", si.ID, err)
	}
	return si, nil
}

func loadCurrentSignals(ctx context.Context, tx *sql.Tx, provider string) (map[pricewatch.SignalKey]SignalInterval, error) {
	rows, err := tx.QueryContext(ctx, `SELECT `+signalColumns+` FROM signals WHERE provider = ? AND until IS NULL`, provider)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[pricewatch.SignalKey]SignalInterval{}
	for rows.Next() {
		si, err := scanSignal(rows)
		if err != nil {
			return nil, err
		}
		out[si.Key()] = si
	}
	return out, rows.Err()
}

// Signals returns the intervals matching f, by provider, kind, type, place,
// shape and time.
func (db *DB) Signals(ctx context.Context, f SignalFilter) ([]SignalInterval, error) {
	var where []string
	var args []any
	in := func(col string, vals []string) {
		if vals == nil {
			return
		}
		if len(vals) == 0 {
			where = append(where, "1 = 0")
			return
		}
		where = append(where, col+" IN ("+strings.TrimSuffix(strings.Repeat("?, ", len(vals)), ", ")+")")
		for _, v := range vals {
			args = append(args, v)
		}
	}
	if len(f.Providers) > 0 {
		in("provider", f.Providers)
	}
	if len(f.Kinds) > 0 {
		kinds := make([]string, len(f.Kinds))
		for i, k := range f.Kinds {
			kinds[i] = string(k)
		}
		in("kind", kinds)
	}
	in("gpu_model", f.GPUModels)
	if f.InstanceType != "" {
		where = append(where, "instance_type = ?")
		args = append(args, f.InstanceType)
	}
	if len(f.Regions) > 0 {
		marks := strings.TrimSuffix(strings.Repeat("?, ", len(f.Regions)), ", ")
		where = append(where, "(region IN ("+marks+") OR zone IN ("+marks+"))")
		for range 2 {
			for _, r := range f.Regions {
				args = append(args, r)
			}
		}
	}
	if f.CurrentOnly {
		where = append(where, "until IS NULL")
	} else if !f.Since.IsZero() {
		where = append(where, "(until IS NULL OR until >= ?)")
		args = append(args, formatTime(f.Since))
	}
	q := `SELECT ` + signalColumns + ` FROM signals`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	if f.Limit > 0 {
		q = `SELECT * FROM (` + q + ` ORDER BY since DESC, id DESC LIMIT ?) newest`
		args = append(args, f.Limit)
	}
	q += ` ORDER BY provider, kind, instance_type, region, zone, shape, window_start, since, id`
	return queryAll(ctx, db.read, "reading signals", q, args, func(rows *sql.Rows) (SignalInterval, error) {
		si, err := scanSignal(rows)
		if err != nil {
			return si, fmt.Errorf("reading signals: %w", err)
		}
		return si, nil
	})
}

// pruneSignals deletes signal intervals that ended before cutoff: a
// signal's past value matters for weeks (did the band move?), not forever.
// Current intervals are never pruned.
func (db *DB) pruneSignals(ctx context.Context, cutoff time.Time) (int64, error) {
	res, err := db.write.ExecContext(ctx, `DELETE FROM signals WHERE until IS NOT NULL AND until < ?`, formatTime(cutoff))
	if err != nil {
		return 0, fmt.Errorf("pruning signals: %w", err)
	}
	return res.RowsAffected()
}
