package web

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Versions is the data version (storage's DataVersion: it moves when a run
// commits or fails, an alert is queued or delivered, or a day of rates is
// stored) as requests read it: from memory, not from the database. The
// daemon refreshes it as soon as one of its own runs stores (Refresh) and
// polls it every second (Watch), which is how a replica following a
// PostgreSQL leader, or a daemon beside a `pricewatch fetch` writing the
// same SQLite file, learns that the data moved.
type Versions struct {
	read func(ctx context.Context) (string, error)
	cur  atomic.Pointer[string]

	mu   sync.Mutex // serialises reads, so that subscribers hear versions in order
	subs []func(version string)
}

// NewVersions reads the version with read (storage.DB.DataVersion).
func NewVersions(read func(ctx context.Context) (string, error)) *Versions {
	return &Versions{read: read}
}

// Current is the version last read, and false before the first read.
func (v *Versions) Current() (string, bool) {
	p := v.cur.Load()
	if p == nil {
		return "", false
	}
	return *p, true
}

// OnChange registers fn to hear every new version (after the first), in
// the goroutine that read it: fn must return quickly.
func (v *Versions) OnChange(fn func(version string)) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.subs = append(v.subs, fn)
}

// Refresh reads the version now and tells the subscribers when it moved.
func (v *Versions) Refresh(ctx context.Context) (string, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	ver, err := v.read(ctx)
	if err != nil {
		return "", err
	}
	old := v.cur.Swap(&ver)
	if old != nil && *old != ver {
		for _, fn := range v.subs {
			fn(ver)
		}
	}
	return ver, nil
}

// Watch refreshes the version every interval until ctx ends; a failed
// read keeps the last version (the next tick tries again).
func (v *Versions) Watch(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			rctx, cancel := context.WithTimeout(ctx, every*5)
			v.Refresh(rctx)
			cancel()
		}
	}
}
