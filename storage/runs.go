package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/pricewatch/pricewatch"
)

// NotReadText is the error a partial run records: "not read: us-west-2
// (…)". The regions' stored prices were kept.
func NotReadText(unread []pricewatch.Unread) string {
	if len(unread) == 0 {
		return ""
	}
	return "not read: " + pricewatch.UnreadText(unread)
}

// overdue turns a run still 'running' past its deadline into a failed one,
// as the digest and /readyz must show it: its process died without a trace
// (a killed CLI fetch) and no later run has closed it yet.
func overdue(r *pricewatch.Run, now time.Time) {
	if r.Status != pricewatch.RunRunning || r.Deadline == nil || now.Before(*r.Deadline) {
		return
	}
	r.Status = pricewatch.RunFailed
	r.Error = fmt.Sprintf("still marked running %s after its timeout (started %s); its process probably stopped",
		now.Sub(*r.Deadline).Round(time.Second), r.StartedAt.Format(time.RFC3339))
}

// StartRun records the start of a provider run and returns its id. It
// takes no lease: pricewatch's own runs use BeginRun.
func (db *DB) StartRun(ctx context.Context, provider string) (int64, error) {
	var id int64
	if err := db.write.QueryRowContext(ctx, `INSERT INTO fetch_runs (provider, started_at, status, replica) VALUES (?, ?, 'running', ?) RETURNING id`,
		provider, formatTime(db.Now()), db.Replica).Scan(&id); err != nil {
		return 0, fmt.Errorf("recording start of %s run: %w", provider, err)
	}
	return id, nil
}

// FinishRun records a run that stored nothing: failed or skipped. A
// successful run is finished by SaveSnapshot, in its own transaction.
// errText must already be free of secrets.
func (db *DB) FinishRun(ctx context.Context, runID int64, status, errText string) error {
	if status != pricewatch.RunFailed && status != pricewatch.RunSkipped {
		return fmt.Errorf("finishing run %d: status %q is set by SaveSnapshot", runID, status)
	}
	// The caller passes a context that outlives the run's (run.closeRun
	// detaches and bounds it): the record of the failure must be written
	// after the run was cancelled, and a try into a partition must end.
	_, err := db.write.ExecContext(ctx, `UPDATE fetch_runs SET status = ?, finished_at = ?, error = ? WHERE id = ?`,
		status, formatTime(db.Now()), errText, runID)
	if err != nil {
		return fmt.Errorf("recording end of run %d: %w", runID, err)
	}
	return nil
}

// LastRuns returns the latest run of each provider, successful or not.
func (db *DB) LastRuns(ctx context.Context) ([]pricewatch.Run, error) {
	return db.queryRuns(ctx, `SELECT `+runColumns+` FROM fetch_runs WHERE id IN (SELECT MAX(id) FROM fetch_runs GROUP BY provider) ORDER BY provider`)
}

// LastSuccess returns the latest successful run of provider, or nil.
func (db *DB) LastSuccess(ctx context.Context, provider string) (*pricewatch.Run, error) {
	runs, err := db.queryRuns(ctx, `SELECT `+runColumns+` FROM fetch_runs WHERE provider = ? AND status = 'ok' ORDER BY id DESC LIMIT 1`, provider)
	if err != nil || len(runs) == 0 {
		return nil, err
	}
	return &runs[0], nil
}

// Runs returns the most recent runs, newest first.
func (db *DB) Runs(ctx context.Context, limit int) ([]pricewatch.Run, error) {
	return db.queryRuns(ctx, `SELECT `+runColumns+` FROM fetch_runs ORDER BY id DESC LIMIT ?`, limit)
}

const runColumns = `id, provider, started_at, finished_at, status, offers_seen, offers_new, offers_changed, offers_unchanged, offers_closed, regions_skipped, offers_held, changes, source_version, error, deadline_at, replica`

func (db *DB) queryRuns(ctx context.Context, q string, args ...any) ([]pricewatch.Run, error) {
	return queryAll(ctx, db.read, "reading fetch runs", q, args, func(rows *sql.Rows) (pricewatch.Run, error) {
		var r pricewatch.Run
		var started string
		var finished, deadline sql.NullString
		if err := rows.Scan(&r.ID, &r.Provider, &started, &finished, &r.Status, &r.Seen, &r.New, &r.Changed, &r.Unchanged, &r.Closed, &r.RegionsSkipped, &r.Held, &r.Changes, &r.SourceVersion, &r.Error, &deadline, &r.Replica); err != nil {
			return r, fmt.Errorf("reading fetch runs: %w", err)
		}
		if err := parseTimes(timeAt(started, &r.StartedAt), nullTimeAt(finished, &r.FinishedAt), nullTimeAt(deadline, &r.Deadline)); err != nil {
			return r, fmt.Errorf("reading fetch run %d: %w", r.ID, err)
		}
		overdue(&r, db.Now().UTC())
		return r, nil
	})
}

// Versions returns the source versions remembered for provider.
func (db *DB) Versions(ctx context.Context, provider string) (map[string]string, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT key, version FROM source_versions WHERE provider = ?`, provider)
	if err != nil {
		return nil, fmt.Errorf("reading %s source versions: %w", provider, err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("reading %s source versions: %w", provider, err)
		}
		out[k] = v
	}
	return out, rows.Err()
}

// FetcherState returns the state the provider's fetcher stored with its
// last successful run (Snapshot.State), or nil when there is none.
func (db *DB) FetcherState(ctx context.Context, provider string) ([]byte, error) {
	var state string
	err := db.read.QueryRowContext(ctx, `SELECT state FROM fetcher_state WHERE provider = ?`, provider).Scan(&state)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s fetcher state: %w", provider, err)
	}
	return []byte(state), nil
}

// CurrentOfferCounts returns, per provider, how many offers have a current price.
func (db *DB) CurrentOfferCounts(ctx context.Context) (map[string]int, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT o.provider, COUNT(*) FROM prices p JOIN offers o ON o.id = p.offer_id WHERE p.valid_to IS NULL GROUP BY o.provider`)
	if err != nil {
		return nil, fmt.Errorf("counting current offers: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var p string
		var n int
		if err := rows.Scan(&p, &n); err != nil {
			return nil, fmt.Errorf("counting current offers: %w", err)
		}
		out[p] = n
	}
	return out, rows.Err()
}

// RunMark is where the runs stood when it was read: the newest run's id
// and the latest finish (as stored). A reader that keeps what it read at
// a mark asks ProvidersRunSince which providers to read again.
type RunMark struct {
	ID       int64
	Finished string
}

// RunMark reads where the runs stand now.
func (db *DB) RunMark(ctx context.Context) (RunMark, error) {
	var m RunMark
	err := db.read.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0), COALESCE(MAX(finished_at), '') FROM fetch_runs`).Scan(&m.ID, &m.Finished)
	if err != nil {
		return RunMark{}, fmt.Errorf("reading the runs' mark: %w", err)
	}
	return m, nil
}

// ProvidersRunSince lists the providers with a run begun or finished
// after m: every provider whose stored prices, availability or signals may
// differ from what was read at m.
func (db *DB) ProvidersRunSince(ctx context.Context, m RunMark) ([]string, error) {
	return queryAll(ctx, db.read, "reading providers run since a mark",
		`SELECT DISTINCT provider FROM fetch_runs WHERE id > ? OR finished_at > ? ORDER BY provider`, []any{m.ID, m.Finished},
		func(rows *sql.Rows) (string, error) {
			var p string
			err := rows.Scan(&p)
			return p, err
		})
}
