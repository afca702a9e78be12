package fetchers

import (
	"context"
	"math/rand/v2"
	"time"
)

// Backoff is the wait before retry number attempt (1 for the first retry):
// base doubled with each attempt, capped at maxDelay (when positive), with
// jitter (half of it fixed, half random), so that concurrent workers and
// several pricewatch instances do not retry in lockstep into the same
// quota. Every fetcher's retries use it.
func Backoff(base, maxDelay time.Duration, attempt int) time.Duration {
	d := base << max(attempt-1, 0)
	if maxDelay > 0 && (d > maxDelay || d <= 0) {
		d = maxDelay
	}
	if d <= 0 {
		return 0
	}
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

// Sleep waits d, or returns ctx's error as soon as ctx is done.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
