package fetchers

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

func TestBoundedLimitsAndStopsAtTheFirstError(t *testing.T) {
	var running, peak atomic.Int32
	var mu sync.Mutex
	// The first two jobs wait for each other: with a limit of two they
	// must run side by side.
	var barrier sync.WaitGroup
	barrier.Add(2)
	jobs := make([]func(context.Context) error, 6)
	for i := range jobs {
		jobs[i] = func(ctx context.Context) error {
			n := running.Add(1)
			defer running.Add(-1)
			mu.Lock()
			peak.Store(max(peak.Load(), n))
			mu.Unlock()
			if i < 2 {
				barrier.Done()
				barrier.Wait()
			}
			return nil
		}
	}
	if err := Bounded(context.Background(), 2, jobs); err != nil {
		t.Fatal(err)
	}
	if p := peak.Load(); p != 2 {
		t.Errorf("peak concurrency %d, want 2", p)
	}

	boom := errors.New("boom")
	var started atomic.Int32
	failing := make([]func(context.Context) error, 10)
	for i := range failing {
		failing[i] = func(ctx context.Context) error {
			started.Add(1)
			if i == 0 {
				return boom
			}
			<-ctx.Done()
			return ctx.Err()
		}
	}
	if err := Bounded(context.Background(), 1, failing); !errors.Is(err, boom) {
		t.Errorf("error %v, want the first job's", err)
	}
	if n := started.Load(); n != 1 {
		t.Errorf("%d jobs started after the first failed with limit 1", n)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Bounded(ctx, 2, jobs); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
