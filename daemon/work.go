package daemon

import (
	"context"
	"runtime/debug"
	"time"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch/internal/cmalloc"
)

// deliverLoop delivers queued alerts until ctx is done, restarting the
// dispatcher after a config reload so a new token or channel takes effect.
func (d *Daemon) deliverLoop(ctx context.Context) {
	for {
		dctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		st := d.state()
		go func() {
			defer close(done)
			if st.Alerts == nil {
				<-dctx.Done()
				return
			}
			if err := st.Alerts.RunDispatcher(dctx, d.db, d.nudge); err != nil && dctx.Err() == nil {
				d.log.Error("alert delivery is not running; alerts stay queued", zap.Error(err))
			}
		}()
		select {
		case <-ctx.Done():
			cancel()
			<-done
			return
		case <-d.reloaded:
			cancel()
			<-done
		}
	}
}

// runDigest queues the weekly FinOps digest and wakes the dispatcher. The
// week's delivery key makes a second trigger in the same week (a restart,
// a reload, a manual `digest --send`) queue nothing.
func (d *Daemon) runDigest(st *state) {
	ctx, ok := d.startWorkIn()
	if !ok {
		return
	}
	defer d.runs.Done()
	// The digest reads weeks of prices once a week: return that memory to
	// the system rather than holding the peak until the next GC cycle.
	defer freeMemory()
	week, key, queued, err := st.Digests.QueueDigest(ctx, d.db, time.Now().UTC())
	if err != nil {
		d.log.Error("weekly digest not queued", zap.Error(err))
		return
	}
	if queued {
		d.log.Info("weekly digest queued", zap.String("week", week), zap.String("delivery_key", key))
	} else {
		d.log.Info("weekly digest already queued this week", zap.String("week", week), zap.String("delivery_key", key))
	}
	select {
	case d.nudge <- struct{}{}:
	default:
	}
}

// runMaintenance applies storage.retention and truncates the WAL.
func (d *Daemon) runMaintenance(st *state) {
	ctx, ok := d.startWorkIn()
	if !ok {
		return
	}
	defer d.runs.Done()
	res, err := d.db.Maintain(ctx, st.Retention)
	if err != nil {
		d.log.Error("storage maintenance failed", zap.Error(err))
		return
	}
	if res.ChangesPruned > 0 || res.SpotIntervalsMerged > 0 {
		d.log.Info("storage retention applied", zap.Int64("changes_pruned", res.ChangesPruned), zap.Int64("spot_intervals_merged", res.SpotIntervalsMerged))
	}
	// Pruning reads many rows once; hand the memory back.
	freeMemory()
}

// freeMemory hands what the Go heap and the C heap (SQLite's) hold free
// back to the system after a burst of work. Issue 30: in the share-1 load
// test glibc kept 3-4 MB that SQLite had freed (malloc_trim(0) in a
// debugger took the daemon's C memory from 14.1 to 10.7 MB).
func freeMemory() {
	debug.FreeOSMemory()
	cmalloc.Release()
}
