package fetchers

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestBackoffDoublesCapsAndJitters(t *testing.T) {
	tests := []struct {
		base, maxDelay time.Duration
		attempt        int
		full           time.Duration // the wait before jitter
	}{
		{time.Second, time.Minute, 1, time.Second},
		{time.Second, time.Minute, 3, 4 * time.Second},
		{time.Second, time.Minute, 10, time.Minute},
		{time.Second, time.Minute, 80, time.Minute}, // the shift overflows
		{time.Second, 0, 4, 8 * time.Second},
		{0, time.Minute, 1, time.Minute}, // as the clients always did: no base waits the cap
	}
	for _, tt := range tests {
		for range 50 {
			got := Backoff(tt.base, tt.maxDelay, tt.attempt)
			if got < tt.full/2 || got > tt.full {
				t.Errorf("Backoff(%s, %s, %d) = %s, want within [%s, %s]", tt.base, tt.maxDelay, tt.attempt, got, tt.full/2, tt.full)
			}
		}
	}
}

func TestSleepEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep on a cancelled context: %v", err)
	}
	if err := Sleep(context.Background(), 0); err != nil {
		t.Errorf("Sleep(0): %v", err)
	}
}
