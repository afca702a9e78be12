// Package retry holds the waits between attempts: the one back-off and the
// one context-aware sleep that fetchers and the alert dispatcher share.
package retry

import (
	"context"
	"math"
	"math/rand/v2"
	"time"
)

// Delay is the wait before retry number attempt (1 for the first retry):
// base doubled with each attempt, capped at maxDelay when it is positive.
// A base of zero or less waits the cap. It never overflows, however many
// attempts there were.
func Delay(base, maxDelay time.Duration, attempt int) time.Duration {
	if base <= 0 {
		return max(maxDelay, 0)
	}
	d := base
	for i := 1; i < attempt && (maxDelay <= 0 || d < maxDelay); i++ {
		if d > math.MaxInt64/2 {
			d = math.MaxInt64
			break
		}
		d *= 2
	}
	if maxDelay > 0 {
		d = min(d, maxDelay)
	}
	return d
}

// Backoff is Delay with jitter (half of it fixed, half random), so that
// concurrent workers and several pricewatch instances do not retry in
// lockstep into the same quota. Every fetcher's retries use it.
func Backoff(base, maxDelay time.Duration, attempt int) time.Duration {
	d := Delay(base, maxDelay, attempt)
	if d <= 0 {
		return 0
	}
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

// Sleep waits d, or returns ctx's error as soon as ctx is done. A wait of
// zero or less returns at once, with ctx's error if it is already done.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
