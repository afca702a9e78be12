// Package run performs one provider run: take the provider's lease, fetch,
// judge the prices (guard), apply the hardware overrides, and store the
// snapshot in one transaction with the alerts it queues. `pricewatch fetch`
// and the daemon both run providers through it; its inputs are plain
// values, and it declares the store it needs (Store).
package run

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/guard"
	"github.com/pricewatch/pricewatch/hardware"
	"github.com/pricewatch/pricewatch/secret"
	"github.com/pricewatch/pricewatch/storage"
)

// Job is one configured cloud ready to fetch.
type Job struct {
	Name    string
	Fetcher fetchers.Fetcher
	Timeout time.Duration
	// LeaseWait bounds the wait for another run of the provider (another
	// process) to finish (fetch.lease_wait).
	LeaseWait time.Duration
	// Owner names the process in the run lease ("pricewatch fetch").
	Owner string
	// LeaseTTL is how long the provider's lease stands without a renewal
	// (storage.LeaseOptions.TTL; zero: the default).
	LeaseTTL time.Duration
	// SummaryReports is set when the caller prints the run's summary line
	// (`pricewatch fetch`): the failure is reported there, once, and not
	// logged as well.
	SummaryReports bool
	// Scrub masks the configured secrets in the run's error before it is
	// logged, recorded or printed (the fetchers scrub where they build
	// errors; this is the second line).
	Scrub *secret.Set
	// Hardware holds the config's hardware.overrides, applied to every
	// fetched offer and availability record before they are stored.
	Hardware hardware.Overrides
	// Guard holds implausible prices back before they are stored.
	Guard *guard.Guard
}

// Status values of a Summary.
const (
	StatusOK = "ok"
	// StatusPartial: the run stored, but some part of the provider could
	// not be read (Summary.Unread says which and why); that part's stored
	// prices stay as they were.
	StatusPartial = "partial"
	StatusFailed  = "failed"
	StatusSkipped = "skipped"
	// StatusOverlap: another run of the provider held its lease.
	StatusOverlap = "overlap"
	// StatusNotStarted: the run could not even be recorded (database
	// locked or failing).
	StatusNotStarted = "not_started"
)

// Summary is what one provider run did, for the CLI line and metrics.
type Summary struct {
	Provider string
	Status   string
	Result   *storage.Result
	Err      error
	Duration time.Duration
	// UnknownHardware counts the instance types the run stored whose GPU
	// is unknown or not in the catalogue (after hardware.overrides).
	UnknownHardware int
	// Unread are the regions a partial run could not read, and why.
	Unread []pricewatch.Unread
}

// Lease is a run's hold on its provider (storage.Lease).
type Lease interface {
	ID() int64
	// Context is done when the lease is lost.
	Context() context.Context
	Release()
}

// Store is what a run reads and writes: the lease, what the fetcher saw
// last time, the run's record and the snapshot, and what the guard judges
// prices against.
type Store interface {
	BeginRun(ctx context.Context, provider string, opts storage.LeaseOptions) (Lease, error)
	RecordUnstartedRun(ctx context.Context, provider string, at time.Time, errText string) error
	Versions(ctx context.Context, provider string) (map[string]string, error)
	FetcherState(ctx context.Context, provider string) ([]byte, error)
	FinishRun(ctx context.Context, runID int64, status, errText string) error
	SaveSnapshot(ctx context.Context, runID int64, snap *pricewatch.Snapshot, opts storage.SaveOptions) (*storage.Result, error)
	guard.Store
}

// DB is the Store of a storage database: its BeginRun returns the concrete
// lease, which has its run ID as a field.
func DB(db *storage.DB) Store { return dbStore{db} }

type dbStore struct{ *storage.DB }

func (s dbStore) BeginRun(ctx context.Context, provider string, opts storage.LeaseOptions) (Lease, error) {
	l, err := s.DB.BeginRun(ctx, provider, opts)
	if err != nil {
		return nil, err
	}
	return dbLease{l}, nil
}

type dbLease struct{ *storage.Lease }

func (l dbLease) ID() int64 { return l.RunID }

// recordWithin bounds how long a run that could not start keeps trying to
// leave its record, so that a CLI on a dead database still exits.
const recordWithin = time.Minute

// Provider performs one provider run: take the provider's lease, fetch,
// then store in one transaction (which also records changes and queues
// alerts). A failed or cancelled run records its failure and stores no
// prices; a run that cannot start is logged, and recorded once the
// database allows. opts are passed to SaveSnapshot as they are (the held
// prices are the guard's).
func Provider(ctx context.Context, db Store, job Job, opts storage.SaveOptions, log *zap.Logger) Summary {
	start := time.Now()
	sum := Summary{Provider: job.Name}
	finish := func(status string, err error) Summary {
		sum.Status, sum.Err, sum.Duration = status, err, time.Since(start)
		return sum
	}
	lease, err := db.BeginRun(ctx, job.Name, storage.LeaseOptions{Wait: job.LeaseWait, Timeout: job.Timeout, Owner: job.Owner, TTL: job.LeaseTTL})
	var busy *storage.RunInProgressError
	if errors.As(err, &busy) {
		log.Warn("another run of this provider is going; this one is skipped", zap.String("provider", job.Name),
			zap.Int64("run", busy.SkippedRun), zap.Int64("holder_run", busy.HolderRun), zap.String("holder", busy.Holder))
		return finish(StatusOverlap, err)
	}
	if err != nil {
		err = job.Scrub.Error(stoppedBy(ctx, err))
		log.Error("fetch run could not start", zap.String("provider", job.Name), zap.Error(err))
		// Recorded also when ctx ended (leadership lost, a stop): the
		// record is what says why the run did not happen.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordWithin)
		defer cancel()
		if rerr := db.RecordUnstartedRun(rctx, job.Name, start.UTC(), err.Error()); rerr != nil {
			log.Error("run that could not start is not recorded", zap.String("provider", job.Name), zap.Error(rerr))
		}
		return finish(StatusNotStarted, fmt.Errorf("run could not start: %w", err))
	}
	defer lease.Release()
	runID := lease.ID()
	prev, err := db.Versions(ctx, job.Name)
	var state []byte
	if err == nil {
		state, err = db.FetcherState(ctx, job.Name)
	}
	if err != nil {
		err = job.Scrub.Error(stoppedBy(ctx, err))
		closeRun(ctx, db, job.Name, runID, pricewatch.RunFailed, err.Error(), log)
		return finish(StatusFailed, err)
	}
	// The run stops when its lease is lost as when it times out.
	runCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	stopOnLoss := context.AfterFunc(lease.Context(), func() { stop(context.Cause(lease.Context())) })
	defer stopOnLoss()
	if job.Timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(runCtx, job.Timeout)
		defer cancel()
	}
	log.Info("fetch started", zap.String("provider", job.Name), zap.Int64("run", runID))
	snap, err := job.Fetcher.Fetch(runCtx, fetchers.Previous{Versions: prev, State: state})
	if err == nil {
		// Between fetch and store: names without control characters
		// (a provider's ESC, BEL or OSC sequence is never stored, and
		// overrides match the names as stored), the user's hardware
		// corrections (the guard judges prices per GPU-hour), then count
		// what is still unknown (stored all the same).
		snap.StripControl()
		for i := range snap.Unread {
			snap.Unread[i].Reason = job.Scrub.String(snap.Unread[i].Reason)
		}
		sum.Unread = snap.Unread
		if n := job.Hardware.Apply(snap); n > 0 {
			log.Info("hardware overrides applied", zap.String("provider", job.Name), zap.Int("types", n))
		}
		sum.UnknownHardware = hardware.UnknownTypes(snap)
		opts.Held, err = job.Guard.Check(runCtx, db, snap)
	}
	if err == nil {
		sum.Result, err = db.SaveSnapshot(runCtx, runID, snap, opts)
	}
	if err != nil {
		status, runStatus := StatusFailed, pricewatch.RunFailed
		if errors.Is(err, fetchers.ErrNoCredentials) {
			status, runStatus = StatusSkipped, pricewatch.RunSkipped
		}
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			err = fmt.Errorf("%w (providers.%s.timeout is %s)", err, job.Name, job.Timeout)
		}
		if cause := context.Cause(runCtx); errors.Is(cause, storage.ErrLeaseLost) && !errors.Is(err, storage.ErrLeaseLost) {
			err = fmt.Errorf("%w (%w)", err, cause)
		}
		err = job.Scrub.Error(stoppedBy(ctx, err))
		closeRun(ctx, db, job.Name, runID, runStatus, err.Error(), log)
		switch {
		case job.SummaryReports:
		case status == StatusSkipped:
			log.Warn("provider skipped", zap.String("provider", job.Name), zap.Error(err))
		default:
			log.Error("fetch failed", zap.String("provider", job.Name), zap.Int64("run", runID), zap.Error(err))
		}
		return finish(status, err)
	}
	r := sum.Result
	log.Info("fetch stored", zap.String("provider", job.Name), zap.Int64("run", runID),
		zap.Int("seen", r.Seen), zap.Int("new", r.New), zap.Int("changed", r.Changed), zap.Int("unchanged", r.Unchanged),
		zap.Int("closed", r.Closed), zap.Int("skipped_regions", r.Skipped), zap.Int("changes", len(r.Changes)),
		zap.Int("held", r.Held), zap.Int("accepted", r.Accepted), zap.Int("moves_awaiting_confirmation", len(r.Awaiting)),
		zap.Int("unknown_hardware_types", sum.UnknownHardware),
		zap.Duration("took", time.Since(start)))
	if len(sum.Unread) > 0 {
		if !job.SummaryReports {
			log.Warn("fetch stored, partly: regions not read", zap.String("provider", job.Name), zap.Int64("run", runID),
				zap.String("not_read", pricewatch.UnreadText(sum.Unread)))
		}
		return finish(StatusPartial, nil)
	}
	return finish(StatusOK, nil)
}

// Run is Provider over db: one run of j, stored with opts.
func (j Job) Run(ctx context.Context, db *storage.DB, opts storage.SaveOptions, log *zap.Logger) Summary {
	return Provider(ctx, DB(db), j, opts, log)
}

// closeRun records the end of a run that failed. It is written also when
// ctx ended (this replica lost leadership, the daemon stops: the run's
// own record must not stay "running" for another process to close as
// abandoned), and tried again while the database is out of reach (a
// partition), each try bounded, for at most recordWithin.
func closeRun(ctx context.Context, db Store, provider string, runID int64, status, errText string, log *zap.Logger) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordWithin)
	defer cancel()
	wait := 100 * time.Millisecond
	for {
		tctx, tcancel := context.WithTimeout(rctx, closeTry)
		err := db.FinishRun(tctx, runID, status, errText)
		tcancel()
		if err == nil {
			return
		}
		select {
		case <-rctx.Done():
			log.Error("recording failed run", zap.String("provider", provider), zap.Int64("run", runID), zap.Error(err))
			return
		case <-time.After(wait):
		}
		wait = min(wait*2, 5*time.Second)
	}
}

// closeTry bounds one try of closeRun: a statement sent into a partition
// hangs until TCP gives up, minutes later.
const closeTry = 10 * time.Second

// stoppedBy says why err happened when it is ctx's cancellation and ctx
// has a cause of its own (leader.ErrLost: "this replica lost leadership")
// rather than "context canceled".
func stoppedBy(ctx context.Context, err error) error {
	cause := context.Cause(ctx)
	if ctx.Err() == nil || !errors.Is(err, context.Canceled) || cause == nil || errors.Is(err, cause) ||
		cause == context.Canceled {
		return err
	}
	return &stopped{err: err, cause: cause}
}

// stopped is an error cut short by its context's cause; it reads as the
// error with its final "context canceled" replaced by the cause.
type stopped struct{ err, cause error }

func (e *stopped) Error() string {
	return strings.TrimSuffix(e.err.Error(), ": "+context.Canceled.Error()) + ": " + e.cause.Error()
}

func (e *stopped) Unwrap() []error { return []error{e.err, e.cause} }

// Line is the one line `pricewatch fetch` prints per provider.
func (s Summary) Line() string {
	took := s.Duration.Round(time.Millisecond)
	switch s.Status {
	case StatusOK, StatusPartial:
		r := s.Result
		line := fmt.Sprintf("%-8s %-8s %d offers: %d new, %d changed, %d unchanged, %d closed", s.Provider, s.Status, r.Seen, r.New, r.Changed, r.Unchanged, r.Closed)
		if len(s.Unread) > 0 {
			line += fmt.Sprintf("; %d region(s) not read, their stored prices kept: %s", len(s.Unread), pricewatch.UnreadText(s.Unread))
		}
		if r.Skipped > 0 {
			line += fmt.Sprintf("; %d region(s) skipped as unchanged", r.Skipped)
		}
		if s.UnknownHardware > 0 {
			line += fmt.Sprintf("; %d type(s) with unknown GPU hardware (pricewatch hardware unknown)", s.UnknownHardware)
		}
		if r.Held > 0 {
			line += fmt.Sprintf("; %d held as implausible (%s; see `pricewatch held`)", r.Held, storage.HeldReasonsText(r.HeldReasons))
		}
		if r.Accepted > 0 {
			line += fmt.Sprintf("; %d held price(s) accepted after coming back", r.Accepted)
		}
		if n := len(r.Awaiting); n > 0 {
			line += fmt.Sprintf("; %d large move(s) await confirmation by the next run", n)
		}
		if r.FirstRun {
			line += " (first run: baseline)"
		}
		return line + fmt.Sprintf(" in %s", took)
	case StatusSkipped, StatusOverlap:
		return fmt.Sprintf("%-8s skipped  %v", s.Provider, s.Err)
	case StatusNotStarted:
		return fmt.Sprintf("%-8s FAILED   %v (nothing fetched or stored)", s.Provider, s.Err)
	default:
		return fmt.Sprintf("%-8s FAILED   %v (after %s; nothing stored)", s.Provider, s.Err, took)
	}
}

// Row is one provider's run as `pricewatch fetch --format json|csv` prints
// it (overlap and not started read as skipped and failed; partial as
// itself).
type Row struct {
	Provider        string  `json:"provider"`
	Status          string  `json:"status"`
	OffersSeen      int     `json:"offers_seen"`
	OffersNew       int     `json:"offers_new"`
	OffersChanged   int     `json:"offers_changed"`
	OffersUnchanged int     `json:"offers_unchanged"`
	OffersClosed    int     `json:"offers_closed"`
	RegionsSkipped  int     `json:"regions_skipped"`
	OffersHeld      int     `json:"offers_held"`
	UnknownHardware int     `json:"unknown_hardware"`
	FirstRun        bool    `json:"first_run"`
	DurationSeconds float64 `json:"duration_seconds"`
	// Error is why the run failed or was skipped, or for a partial run
	// which regions were not read and why.
	Error *string `json:"error"`
}

// Rows are the rows of the summaries.
func Rows(sums []Summary) []Row {
	out := make([]Row, 0, len(sums))
	for _, s := range sums {
		status := s.Status
		if status == StatusNotStarted {
			status = StatusFailed
		}
		if status == StatusOverlap {
			status = StatusSkipped
		}
		r := Row{Provider: s.Provider, Status: status, UnknownHardware: s.UnknownHardware,
			DurationSeconds: s.Duration.Round(time.Millisecond).Seconds()}
		if res := s.Result; res != nil {
			r.OffersSeen, r.OffersNew, r.OffersChanged, r.OffersUnchanged, r.OffersClosed = res.Seen, res.New, res.Changed, res.Unchanged, res.Closed
			r.RegionsSkipped, r.OffersHeld, r.FirstRun = res.Skipped, res.Held, res.FirstRun
		}
		if s.Err != nil {
			msg := s.Err.Error()
			r.Error = &msg
		}
		if len(s.Unread) > 0 {
			msg := storage.NotReadText(s.Unread)
			r.Error = &msg
		}
		out = append(out, r)
	}
	return out
}
