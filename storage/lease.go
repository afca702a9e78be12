package storage

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/pricewatch/pricewatch"
)

// A provider run holds its provider's lease in the database from the moment
// it is recorded until it is finished, so two runs of one provider (the
// daemon's and a CLI fetch, or two CLI fetches) never fetch and store at
// the same time: the later one would store an older observation over a
// newer one. The lease is renewed while the run goes on; a lease whose
// process died is taken over, at once when that process ran on this host,
// else once it was not renewed for leaseTTL.

// Lease timings. The TTL is long against a renewal interval so that a
// holder kept from writing by another process's long transaction (busy
// timeouts) does not lose its lease; a holder that does lose it finds out
// when it stores (SaveSnapshot refuses) or when a renewal finds the lease
// taken, which cancels the run.
const (
	leaseTTL     = 2 * time.Minute
	leaseRenewal = 20 * time.Second
	leasePoll    = 500 * time.Millisecond
)

// ErrRunInProgress: another run of the provider holds its lease.
var ErrRunInProgress = errors.New("another run of this provider is in progress")

// ErrLeaseLost: a run's lease was taken over (its renewals did not get
// through in time), so what it fetched must not be stored.
var ErrLeaseLost = errors.New("the run lost its provider lease to another run")

// RunInProgressError says which run holds the lease. The run that gave way
// is recorded as skipped (SkippedRun) with the same text.
type RunInProgressError struct {
	Provider   string
	HolderRun  int64
	Holder     string // owner, pid and host
	Since      time.Time
	Waited     time.Duration
	SkippedRun int64
}

func (e *RunInProgressError) Error() string {
	return fmt.Sprintf("another %s run (run %d, %s, since %s) is still going; this run was skipped after waiting %s (fetch.lease_wait)",
		e.Provider, e.HolderRun, e.Holder, e.Since.UTC().Format(time.RFC3339), e.Waited.Round(time.Millisecond))
}

func (e *RunInProgressError) Unwrap() error { return ErrRunInProgress }

// LeaseOptions tune BeginRun.
type LeaseOptions struct {
	// Wait bounds how long to wait for another run of the provider to
	// finish; after it the run is recorded as skipped. Zero: do not wait.
	Wait time.Duration
	// Timeout is the run's own limit; a run still 'running' after it is
	// reported as failed. Zero: none.
	Timeout time.Duration
	// Owner names the process in messages ("pricewatch fetch").
	Owner string
	// TTL is how long the lease stands without a renewal (renewed every
	// TTL/6). Zero: DefaultLeaseTTL. Replicas under leader election use
	// ha.takeover, so that a run cut off by a partition blocks its
	// provider about as long as the election takes to hand over, not
	// the default's two minutes.
	TTL time.Duration
}

// DefaultLeaseTTL is LeaseOptions.TTL's default.
const DefaultLeaseTTL = leaseTTL

// minLeaseTTL keeps a renewal (TTL/6) from hammering the database.
const minLeaseTTL = 2 * time.Second

// timings are the lease's lapse and renewal interval for opts.
func (opts LeaseOptions) timings() (ttl, renewal time.Duration) {
	if opts.TTL <= 0 {
		return leaseTTL, leaseRenewal
	}
	ttl = max(opts.TTL, minLeaseTTL)
	return ttl, ttl / 6
}

// Lease is a provider run's hold on its provider. Release it when the run is
// finished (successfully or not).
type Lease struct {
	db       *DB
	Provider string
	RunID    int64
	// StartedAt is when the run was recorded (it held the lease from then).
	StartedAt time.Time

	// ttl and renewal are the lease's lapse and renewal interval.
	ttl, renewal time.Duration

	ctx     context.Context
	cancel  context.CancelCauseFunc
	stop    chan struct{}
	stopped sync.WaitGroup
	once    sync.Once
}

// Context is done when the lease is lost; the run must stop then.
func (l *Lease) Context() context.Context { return l.ctx }

var (
	hostOnce sync.Once
	hostName string
)

func thisHost() string {
	hostOnce.Do(func() {
		hostName, _ = os.Hostname()
		if hostName == "" {
			hostName = "unknown-host"
		}
	})
	return hostName
}

// processAlive reports whether pid runs on this machine. EPERM means it
// exists but belongs to another user.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if pid == os.Getpid() {
		return true
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// holder is the lease row of a provider and the state of its run.
type holder struct {
	runID     int64
	owner     string
	host      string
	pid       int
	acquired  time.Time
	expires   time.Time
	runStatus string
}

func (h *holder) describe() string {
	return fmt.Sprintf("%s pid %d on %s", h.owner, h.pid, h.host)
}

// live reports whether the holder still runs: its run is 'running', its
// process exists (when on this host) and it renewed the lease in time.
func (h *holder) live(now time.Time) bool {
	if h.runStatus != pricewatch.RunRunning {
		return false
	}
	if h.host == thisHost() && !processAlive(h.pid) {
		return false
	}
	return now.Before(h.expires)
}

// readHolder reads provider's lease; with lock, on PostgreSQL, the lease
// row stays locked until tx ends (renewals and releases wait for it).
func (db *DB) readHolder(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, provider string, lock bool) (*holder, error) {
	h := &holder{}
	var acquired, expires string
	var status sql.NullString
	query := `SELECT l.run_id, l.owner, l.host, l.pid, l.acquired_at, l.expires_at, r.status
		FROM run_leases l LEFT JOIN fetch_runs r ON r.id = l.run_id WHERE l.provider = ?`
	if lock && db.pg {
		query += ` FOR UPDATE OF l`
	}
	err := q.QueryRowContext(ctx, query, provider).
		Scan(&h.runID, &h.owner, &h.host, &h.pid, &acquired, &expires, &status)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	h.runStatus = status.String
	if h.acquired, err = parseTime(acquired); err != nil {
		return nil, err
	}
	if h.expires, err = parseTime(expires); err != nil {
		return nil, err
	}
	return h, nil
}

// abandonedText is the error of a run whose process stopped mid-run.
const abandonedText = "process stopped before the run finished"

// BeginRun records the start of a provider run and takes the provider's
// lease, in one transaction. While another live run holds the lease it
// waits up to opts.Wait, then records this run as skipped and returns a
// *RunInProgressError. A lease left by a dead process is taken over and its
// run closed as abandoned. Any other error means nothing was recorded.
func (db *DB) BeginRun(ctx context.Context, provider string, opts LeaseOptions) (*Lease, error) {
	if opts.Owner == "" {
		opts.Owner = "pricewatch"
	}
	start := time.Now()
	for {
		l, busy, err := db.tryBeginRun(ctx, provider, opts, time.Since(start) >= opts.Wait, time.Since(start))
		switch {
		case err != nil:
			return nil, err
		case l != nil:
			return l, nil
		case busy.SkippedRun != 0:
			return nil, busy
		}
		wait := min(leasePoll, max(opts.Wait-time.Since(start), time.Millisecond))
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("waiting for another %s run (run %d, %s) to finish: %w", provider, busy.HolderRun, busy.Holder, ctx.Err())
		case <-t.C:
		}
	}
}

// tryBeginRun makes one attempt. With giveUp it records a skipped run when
// the lease is held; without, it returns the holder so the caller waits.
func (db *DB) tryBeginRun(ctx context.Context, provider string, opts LeaseOptions, giveUp bool, waited time.Duration) (*Lease, *RunInProgressError, error) {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("recording start of %s run: %w", provider, err)
	}
	defer tx.Rollback()
	if err := db.lockProvider(ctx, tx, provider); err != nil {
		return nil, nil, fmt.Errorf("recording start of %s run: %w", provider, err)
	}
	// Read the clock once the write lock is held, like SaveSnapshot.
	now := db.Now().UTC()
	h, err := db.readHolder(ctx, tx, provider, true)
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s run lease: %w", provider, err)
	}
	if h != nil && h.live(now) {
		busy := &RunInProgressError{Provider: provider, HolderRun: h.runID, Holder: h.describe(), Since: h.acquired, Waited: waited}
		if !giveUp {
			return nil, busy, nil
		}
		if err := tx.QueryRowContext(ctx, `INSERT INTO fetch_runs (provider, started_at, finished_at, status, error, owner_host, owner_pid, replica)
			VALUES (?, ?, ?, 'skipped', ?, ?, ?, ?) RETURNING id`, provider, formatTime(now), formatTime(now), busy.Error(), thisHost(), os.Getpid(), db.Replica).Scan(&busy.SkippedRun); err != nil {
			return nil, nil, fmt.Errorf("recording skipped %s run: %w", provider, err)
		}
		if err := tx.Commit(); err != nil {
			return nil, nil, fmt.Errorf("recording skipped %s run: %w", provider, err)
		}
		return nil, busy, nil
	}
	if h != nil && h.runStatus == pricewatch.RunRunning {
		if _, err := tx.ExecContext(ctx, `UPDATE fetch_runs SET status = 'abandoned', finished_at = ?, error = ? WHERE id = ? AND status = 'running'`,
			formatTime(now), abandonedText+" (its lease was taken over)", h.runID); err != nil {
			return nil, nil, fmt.Errorf("closing abandoned %s run %d: %w", provider, h.runID, err)
		}
	}
	var deadline any
	if opts.Timeout > 0 {
		deadline = formatTime(now.Add(opts.Timeout))
	}
	ttl, renewal := opts.timings()
	var runID int64
	if err := tx.QueryRowContext(ctx, `INSERT INTO fetch_runs (provider, started_at, status, owner_host, owner_pid, deadline_at, replica) VALUES (?, ?, 'running', ?, ?, ?, ?) RETURNING id`,
		provider, formatTime(now), thisHost(), os.Getpid(), deadline, db.Replica).Scan(&runID); err != nil {
		return nil, nil, fmt.Errorf("recording start of %s run: %w", provider, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO run_leases (provider, run_id, owner, host, pid, acquired_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (provider) DO UPDATE SET run_id = excluded.run_id, owner = excluded.owner, host = excluded.host, pid = excluded.pid,
		acquired_at = excluded.acquired_at, expires_at = excluded.expires_at`,
		provider, runID, opts.Owner, thisHost(), os.Getpid(), formatTime(now), formatTime(now.Add(ttl))); err != nil {
		return nil, nil, fmt.Errorf("taking %s run lease: %w", provider, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, nil, fmt.Errorf("recording start of %s run: %w", provider, err)
	}
	l := &Lease{db: db, Provider: provider, RunID: runID, StartedAt: now, stop: make(chan struct{}), ttl: ttl, renewal: renewal}
	l.ctx, l.cancel = context.WithCancelCause(context.WithoutCancel(ctx))
	l.stopped.Add(1)
	go l.renew()
	return l, nil, nil
}

// renew extends the lease until Release. A renewal that fails for a busy
// database is tried again at the next tick (the TTL allows several); one
// that finds the lease gone cancels the run.
func (l *Lease) renew() {
	defer l.stopped.Done()
	t := time.NewTicker(l.renewal)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		// Each try is bounded by the renewal interval: one hung in a
		// partition must not hold back the next.
		rctx, cancel := context.WithTimeout(l.ctx, l.renewal)
		res, err := l.db.write.ExecContext(rctx, `UPDATE run_leases SET expires_at = ? WHERE provider = ? AND run_id = ?`,
			formatTime(l.db.Now().UTC().Add(l.ttl)), l.Provider, l.RunID)
		cancel()
		if err != nil {
			continue
		}
		if n, err := res.RowsAffected(); err == nil && n == 0 {
			l.cancel(fmt.Errorf("%s run %d: %w", l.Provider, l.RunID, ErrLeaseLost))
			return
		}
	}
}

// Release stops renewing and frees the lease. It returns once the renewal
// goroutine has stopped. A failed delete is harmless: a lease whose run is
// no longer 'running' is free.
func (l *Lease) Release() {
	l.once.Do(func() {
		close(l.stop)
		l.stopped.Wait()
		l.cancel(nil)
		// Bounded: in a partition the lease lapses by itself (its TTL),
		// and the run must not hang on its way out.
		ctx, cancel := context.WithTimeout(context.Background(), max(l.ttl, time.Second))
		defer cancel()
		_, _ = l.db.write.ExecContext(ctx, `DELETE FROM run_leases WHERE provider = ? AND run_id = ?`, l.Provider, l.RunID)
	})
}

// runTime is the time a run stores under, read inside SaveSnapshot's
// transaction, i.e. once the write lock is held: a time read before
// waiting for the lock could precede what another writer stored meanwhile.
// It is never before the newest stored time of the provider (the clock of
// another process or host may lag), so intervals cannot end before they
// start. It also refuses a run that is no longer the provider's lease
// holder or no longer 'running' (closed as abandoned by another process).
func (db *DB) runTime(ctx context.Context, tx *sql.Tx, now time.Time, provider string, runID int64) (time.Time, error) {
	var status string
	if err := tx.QueryRowContext(ctx, `SELECT status FROM fetch_runs WHERE id = ?`, runID).Scan(&status); err != nil {
		return now, fmt.Errorf("reading run %d: %w", runID, err)
	}
	if status != pricewatch.RunRunning {
		return now, fmt.Errorf("run %d is %s, not running (another process closed it): %w", runID, status, ErrLeaseLost)
	}
	h, err := db.readHolder(ctx, tx, provider, false)
	if err != nil {
		return now, fmt.Errorf("reading %s run lease: %w", provider, err)
	}
	if h != nil && h.runID != runID && h.runStatus == pricewatch.RunRunning {
		return now, fmt.Errorf("run %d is held by %s since %s: %w", h.runID, h.describe(), h.acquired.Format(time.RFC3339), ErrLeaseLost)
	}
	var newest sql.NullString
	if err := tx.QueryRowContext(ctx, `SELECT MAX(finished_at) FROM fetch_runs WHERE provider = ? AND status = 'ok'`, provider).Scan(&newest); err != nil {
		return now, fmt.Errorf("reading newest %s run: %w", provider, err)
	}
	if newest.Valid {
		t, err := parseTime(newest.String)
		if err != nil {
			return now, fmt.Errorf("reading newest %s run: %w", provider, err)
		}
		if !now.After(t) {
			now = t.Add(time.Microsecond) // the stored resolution
		}
	}
	return now, nil
}

// CloseAbandonedRuns marks runs left 'running' by a process that died
// mid-run: every running run that is not its provider's live lease holder.
// The daemon and `pricewatch fetch` call it at start; a run of a live
// process holds its lease and is left alone.
func (db *DB) CloseAbandonedRuns(ctx context.Context) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("closing abandoned runs: %w", err)
	}
	defer tx.Rollback()
	now := db.Now().UTC()
	rows, err := tx.QueryContext(ctx, `SELECT id, provider FROM fetch_runs WHERE status = 'running'`)
	if err != nil {
		return fmt.Errorf("closing abandoned runs: %w", err)
	}
	type run struct {
		id       int64
		provider string
	}
	var running []run
	for rows.Next() {
		var r run
		if err := rows.Scan(&r.id, &r.provider); err != nil {
			rows.Close()
			return fmt.Errorf("closing abandoned runs: %w", err)
		}
		running = append(running, r)
	}
	if err := rows.Close(); err != nil {
		return fmt.Errorf("closing abandoned runs: %w", err)
	}
	closed := 0
	// On PostgreSQL another process may start or store a run meanwhile:
	// each provider's runs are locked (in provider order, so that two of
	// these never wait on each other) before its lease is judged, and a
	// run is closed only while it is still running.
	slices.SortFunc(running, func(a, b run) int { return cmp.Compare(a.provider, b.provider) })
	for _, r := range running {
		if err := db.lockProvider(ctx, tx, r.provider); err != nil {
			return fmt.Errorf("closing abandoned runs: %w", err)
		}
		h, err := db.readHolder(ctx, tx, r.provider, true)
		if err != nil {
			return fmt.Errorf("closing abandoned runs: %w", err)
		}
		if h != nil && h.runID == r.id && h.live(now) {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE fetch_runs SET status = 'abandoned', finished_at = ?, error = ? WHERE id = ? AND status = 'running'`,
			formatTime(now), abandonedText, r.id); err != nil {
			return fmt.Errorf("closing abandoned run %d: %w", r.id, err)
		}
		closed++
	}
	if closed == 0 {
		return nil
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("closing abandoned runs: %w", err)
	}
	return nil
}

// RecordUnstartedRun records a run that could not even start (the database
// was locked past its busy timeout, or failed), as failed with errText. It
// retries until it succeeds or ctx is done: the run must leave a trace as
// soon as the database allows. errText must already be free of secrets.
func (db *DB) RecordUnstartedRun(ctx context.Context, provider string, at time.Time, errText string) error {
	wait := 50 * time.Millisecond
	for {
		_, err := db.write.ExecContext(context.WithoutCancel(ctx), `INSERT INTO fetch_runs (provider, started_at, finished_at, status, error, owner_host, owner_pid, replica)
			VALUES (?, ?, ?, 'failed', ?, ?, ?, ?)`, provider, formatTime(at), formatTime(db.Now().UTC()), "run could not start: "+errText, thisHost(), os.Getpid(), db.Replica)
		if err == nil {
			return nil
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("recording %s run that could not start: %w", provider, err)
		case <-t.C:
		}
		wait = min(wait*2, 2*time.Second)
	}
}
