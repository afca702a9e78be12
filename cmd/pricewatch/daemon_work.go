package main

import (
	"context"
	"runtime/debug"
	"time"

	"go.uber.org/zap"
)

// deliverLoop delivers queued alerts until ctx is done, restarting the
// dispatcher after a config reload so a new token or channel takes effect.
func (d *daemon) deliverLoop(ctx context.Context) {
	for {
		dctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		st := d.state()
		go func() {
			defer close(done)
			if err := st.app.runDispatcher(dctx, d.db, d.nudge); err != nil && dctx.Err() == nil {
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
func (d *daemon) runDigest(st *daemonState) {
	if !d.startWork() {
		return
	}
	defer d.runs.Done()
	a := st.app
	now := time.Now().UTC()
	dg, err := a.buildDigest(d.ctx, d.db, now)
	// The digest reads weeks of prices once a week: return that memory to
	// the system rather than holding the peak until the next GC cycle.
	defer debug.FreeOSMemory()
	if err != nil {
		d.log.Error("weekly digest not built", zap.Error(err))
		return
	}
	key, queued, err := a.enqueueDigest(d.ctx, d.db, dg, "")
	if err != nil {
		d.log.Error("weekly digest not queued", zap.Error(err))
		return
	}
	if queued {
		d.log.Info("weekly digest queued", zap.String("week", dg.Week), zap.String("delivery_key", key))
	} else {
		d.log.Info("weekly digest already queued this week", zap.String("week", dg.Week), zap.String("delivery_key", key))
	}
	select {
	case d.nudge <- struct{}{}:
	default:
	}
}
