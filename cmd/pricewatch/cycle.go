package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/guard"
	"github.com/pricewatch/pricewatch/hardware"
	"github.com/pricewatch/pricewatch/secret"
	"github.com/pricewatch/pricewatch/storage"
)

// providerJob is one configured cloud ready to fetch.
type providerJob struct {
	name     string
	fetcher  fetchers.Fetcher
	timeout  time.Duration
	schedule string
	// leaseWait bounds the wait for another run of the provider (another
	// process) to finish (fetch.lease_wait).
	leaseWait time.Duration
	// owner names the process in the run lease ("pricewatch fetch").
	owner string
	// summaryReports is set when the caller prints the run's summary line
	// (`pricewatch fetch`): the failure is reported there, once, and not
	// logged as well.
	summaryReports bool
	// scrub masks the configured secrets in the run's error before it is
	// logged, recorded or printed (the fetchers scrub where they build
	// errors; this is the second line).
	scrub *secret.Scrubber
	// hardware holds the config's hardware.overrides, applied to every
	// fetched offer and availability record before they are stored.
	hardware hardware.Overrides
	// guard holds implausible prices back before they are stored.
	guard *guard.Guard
}

// runStatus values in a summary.
const (
	statusOK      = "ok"
	statusFailed  = "failed"
	statusSkipped = "skipped"
	// statusOverlap: another run of the provider held its lease.
	statusOverlap = "overlap"
	// statusNotStarted: the run could not even be recorded (database
	// locked or failing).
	statusNotStarted = "not_started"
)

// runSummary is what one provider run did, for the CLI line and metrics.
type runSummary struct {
	Provider string
	Status   string
	Result   *storage.Result
	Err      error
	Duration time.Duration
	// UnknownHardware counts the instance types the run stored whose GPU
	// is unknown or not in the catalogue (after hardware.overrides).
	UnknownHardware int
}

// recordWithin bounds how long a run that could not start keeps trying to
// leave its record, so that a CLI on a dead database still exits.
const recordWithin = time.Minute

// runProvider performs one provider run: take the provider's lease, fetch,
// then store in one transaction (which also records changes and queues
// alerts). A failed or cancelled run records its failure and stores no
// prices; a run that cannot start is logged, and recorded once the
// database allows.
func runProvider(ctx context.Context, db *storage.DB, job providerJob, opts storage.SaveOptions, log *zap.Logger) runSummary {
	start := time.Now()
	sum := runSummary{Provider: job.name}
	finish := func(status string, err error) runSummary {
		sum.Status, sum.Err, sum.Duration = status, err, time.Since(start)
		return sum
	}
	lease, err := db.BeginRun(ctx, job.name, storage.LeaseOptions{Wait: job.leaseWait, Timeout: job.timeout, Owner: job.owner})
	var busy *storage.RunInProgressError
	if errors.As(err, &busy) {
		log.Warn("another run of this provider is going; this one is skipped", zap.String("provider", job.name),
			zap.Int64("run", busy.SkippedRun), zap.Int64("holder_run", busy.HolderRun), zap.String("holder", busy.Holder))
		return finish(statusOverlap, err)
	}
	if err != nil {
		err = job.scrub.Error(err)
		log.Error("fetch run could not start", zap.String("provider", job.name), zap.Error(err))
		rctx, cancel := context.WithTimeout(ctx, recordWithin)
		defer cancel()
		if rerr := db.RecordUnstartedRun(rctx, job.name, start.UTC(), err.Error()); rerr != nil {
			log.Error("run that could not start is not recorded", zap.String("provider", job.name), zap.Error(rerr))
		}
		return finish(statusNotStarted, fmt.Errorf("run could not start: %w", err))
	}
	defer lease.Release()
	runID := lease.RunID
	prev, err := db.Versions(ctx, job.name)
	var state []byte
	if err == nil {
		state, err = db.FetcherState(ctx, job.name)
	}
	if err != nil {
		err = job.scrub.Error(err)
		db.FinishRun(ctx, runID, storage.RunFailed, err.Error())
		return finish(statusFailed, err)
	}
	// The run stops when its lease is lost as when it times out.
	runCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	stopOnLoss := context.AfterFunc(lease.Context(), func() { stop(context.Cause(lease.Context())) })
	defer stopOnLoss()
	if job.timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(runCtx, job.timeout)
		defer cancel()
	}
	log.Info("fetch started", zap.String("provider", job.name), zap.Int64("run", runID))
	snap, err := job.fetcher.Fetch(runCtx, fetchers.Previous{Versions: prev, State: state})
	if err == nil {
		// Between fetch and store: the user's hardware corrections first
		// (the guard judges prices per GPU-hour), then count what is
		// still unknown (stored all the same).
		if n := job.hardware.Apply(snap); n > 0 {
			log.Info("hardware overrides applied", zap.String("provider", job.name), zap.Int("types", n))
		}
		sum.UnknownHardware = hardware.UnknownTypes(snap)
		opts.Held, err = job.guard.Check(runCtx, db, snap)
	}
	if err == nil {
		sum.Result, err = db.SaveSnapshot(runCtx, runID, snap, opts)
	}
	if err != nil {
		status, runStatus := statusFailed, storage.RunFailed
		if errors.Is(err, fetchers.ErrNoCredentials) {
			status, runStatus = statusSkipped, storage.RunSkipped
		}
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			err = fmt.Errorf("%w (providers.%s.timeout is %s)", err, job.name, job.timeout)
		}
		if cause := context.Cause(runCtx); errors.Is(cause, storage.ErrLeaseLost) && !errors.Is(err, storage.ErrLeaseLost) {
			err = fmt.Errorf("%w (%w)", err, cause)
		}
		err = job.scrub.Error(err)
		if ferr := db.FinishRun(ctx, runID, runStatus, err.Error()); ferr != nil {
			log.Error("recording failed run", zap.String("provider", job.name), zap.Error(ferr))
		}
		switch {
		case job.summaryReports:
		case status == statusSkipped:
			log.Warn("provider skipped", zap.String("provider", job.name), zap.Error(err))
		default:
			log.Error("fetch failed", zap.String("provider", job.name), zap.Int64("run", runID), zap.Error(err))
		}
		return finish(status, err)
	}
	r := sum.Result
	log.Info("fetch stored", zap.String("provider", job.name), zap.Int64("run", runID),
		zap.Int("seen", r.Seen), zap.Int("new", r.New), zap.Int("changed", r.Changed), zap.Int("unchanged", r.Unchanged),
		zap.Int("closed", r.Closed), zap.Int("skipped_regions", r.Skipped), zap.Int("changes", len(r.Changes)),
		zap.Int("held", r.Held), zap.Int("accepted", r.Accepted), zap.Int("moves_awaiting_confirmation", len(r.Awaiting)),
		zap.Int("unknown_hardware_types", sum.UnknownHardware),
		zap.Duration("took", time.Since(start)))
	return finish(statusOK, nil)
}

// summaryLine is the one line `pricewatch fetch` prints per provider.
func summaryLine(s runSummary) string {
	took := s.Duration.Round(time.Millisecond)
	switch s.Status {
	case statusOK:
		r := s.Result
		line := fmt.Sprintf("%-8s ok       %d offers: %d new, %d changed, %d unchanged, %d closed", s.Provider, r.Seen, r.New, r.Changed, r.Unchanged, r.Closed)
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
	case statusSkipped, statusOverlap:
		return fmt.Sprintf("%-8s skipped  %v", s.Provider, s.Err)
	case statusNotStarted:
		return fmt.Sprintf("%-8s FAILED   %v (nothing fetched or stored)", s.Provider, s.Err)
	default:
		return fmt.Sprintf("%-8s FAILED   %v (after %s; nothing stored)", s.Provider, s.Err, took)
	}
}
