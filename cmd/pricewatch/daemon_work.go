package main

import (
	"context"

	"go.uber.org/zap"
)

// deliverLoop delivers queued alerts until ctx is done, restarting the
// dispatcher after a config reload so a new token or channel takes effect.
func (d *daemon) deliverLoop(ctx context.Context) {
	for {
		dctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		d.mu.Lock()
		snapshot := *d.a
		d.mu.Unlock()
		go func() {
			defer close(done)
			if err := snapshot.runDispatcher(dctx, d.db, d.nudge); err != nil && dctx.Err() == nil {
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

// runDigest queues the weekly FinOps digest.
func (d *daemon) runDigest() {}
