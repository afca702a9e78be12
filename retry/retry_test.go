package retry

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"
)

func TestDelayDoublesAndCaps(t *testing.T) {
	tests := []struct {
		base, maxDelay time.Duration
		attempt        int
		want           time.Duration
	}{
		{time.Second, time.Minute, 0, time.Second},
		{time.Second, time.Minute, 1, time.Second},
		{time.Second, time.Minute, 3, 4 * time.Second},
		{5 * time.Second, time.Minute, 4, 40 * time.Second},
		{time.Second, time.Minute, 10, time.Minute},
		{time.Second, time.Minute, 80, time.Minute}, // doubling 80 times would overflow
		{time.Second, 0, 4, 8 * time.Second},
		{time.Second, 0, 200, math.MaxInt64}, // no cap: saturates instead of wrapping
		{0, time.Minute, 1, time.Minute},     // as the clients always did: no base waits the cap
		{0, 0, 3, 0},
	}
	for _, tt := range tests {
		if got := Delay(tt.base, tt.maxDelay, tt.attempt); got != tt.want {
			t.Errorf("Delay(%s, %s, %d) = %s, want %s", tt.base, tt.maxDelay, tt.attempt, got, tt.want)
		}
	}
}

func TestBackoffJittersWithinTheDelay(t *testing.T) {
	tests := []struct {
		base, maxDelay time.Duration
		attempt        int
	}{
		{time.Second, time.Minute, 1},
		{time.Second, time.Minute, 3},
		{time.Second, time.Minute, 80},
		{time.Second, 0, 4},
		{0, time.Minute, 1},
	}
	for _, tt := range tests {
		full := Delay(tt.base, tt.maxDelay, tt.attempt)
		seen := map[time.Duration]bool{}
		for range 50 {
			got := Backoff(tt.base, tt.maxDelay, tt.attempt)
			if got < full/2 || got > full {
				t.Errorf("Backoff(%s, %s, %d) = %s, want within [%s, %s]", tt.base, tt.maxDelay, tt.attempt, got, full/2, full)
			}
			seen[got] = true
		}
		if len(seen) < 2 {
			t.Errorf("Backoff(%s, %s, %d) gave %d distinct waits in 50 tries: no jitter", tt.base, tt.maxDelay, tt.attempt, len(seen))
		}
	}
	if got := Backoff(0, 0, 1); got != 0 {
		t.Errorf("Backoff(0, 0, 1) = %s, want 0", got)
	}
}

func TestSleepEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, d := range []time.Duration{time.Hour, 0, -time.Second} {
		if err := Sleep(ctx, d); !errors.Is(err, context.Canceled) {
			t.Errorf("Sleep(%s) on a cancelled context: %v", d, err)
		}
	}
	for _, d := range []time.Duration{0, -time.Second, time.Nanosecond} {
		if err := Sleep(context.Background(), d); err != nil {
			t.Errorf("Sleep(%s): %v", d, err)
		}
	}
}
