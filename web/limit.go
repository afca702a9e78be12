package web

import (
	"context"
	"net/http"
	"runtime"
	"strconv"
	"time"

	"golang.org/x/sync/semaphore"
)

// Limits bound the work of the handlers that read much of the database
// (the dashboard's pages and the API's queries): past them a request is
// shed with 503 and Retry-After rather than queued without end, so that a
// burst of clients slows no one down for long (issue 20 item 19: 200
// clients queued behind each other for 30 s).
type Limits struct {
	// Concurrent is how many such requests run at once (default: the
	// CPUs Go uses, from 2 to 4). Their work is CPU-bound decoding, so more
	// at once only makes each slower; each holds one storage read
	// connection at a time, and the pool keeps more for the light reads.
	Concurrent int
	// QueueWait is how long a request waits for its turn before it is shed
	// (default 300 ms).
	QueueWait time.Duration
	// Budget is how long a request may take once it runs (default 10 s);
	// past it the read is cancelled and the answer is 503.
	Budget time.Duration
	// SharedBudget is how long a shared computation may take once it runs
	// (default 60 s): the one computation of a kept answer that every
	// client asking for it meanwhile waits for. A 503 is not kept, so
	// cutting it at one request's budget on a loaded machine made the next
	// view compute again from the start, and again (issue 30: /gpu/
	// answered 503 on every view); its clients wait as long as it takes,
	// each up to its own client's patience.
	SharedBudget time.Duration
	// RetryAfter is what a shed request is told to wait (default 1 s).
	RetryAfter time.Duration
}

func (l Limits) withDefaults() Limits {
	if l.Concurrent <= 0 {
		l.Concurrent = min(max(runtime.GOMAXPROCS(0), 2), 4)
	}
	if l.QueueWait <= 0 {
		l.QueueWait = 300 * time.Millisecond
	}
	if l.Budget <= 0 {
		l.Budget = 10 * time.Second
	}
	if l.RetryAfter <= 0 {
		l.RetryAfter = time.Second
	}
	if l.SharedBudget <= 0 {
		l.SharedBudget = 60 * time.Second
	}
	return l
}

// Limiter admits at most Limits.Concurrent requests at once, each for at
// most Limits.Budget (Limits.SharedBudget for a shared computation, see
// sharedComputation); one that cannot start within Limits.QueueWait is
// answered by the reject function given to Wrap, with Retry-After set.
type Limiter struct {
	limits Limits
	sem    *semaphore.Weighted
}

// NewLimiter is a limiter of l (zero fields take their defaults).
func NewLimiter(l Limits) *Limiter {
	l = l.withDefaults()
	return &Limiter{limits: l, sem: semaphore.NewWeighted(int64(l.Concurrent))}
}

// RetryAfter is the Retry-After value (whole seconds, at least 1) that
// shed and over-budget answers carry.
func (l *Limiter) RetryAfter() string {
	return strconv.Itoa(max(1, int(l.limits.RetryAfter.Round(time.Second)/time.Second)))
}

// Wrap runs h within the limits. reject answers a request shed before it
// started (Retry-After is already set); the status is the caller's to
// write (503). A request whose client went away while it waited gets no
// answer.
func (l *Limiter) Wrap(h http.Handler, reject func(http.ResponseWriter, *http.Request)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The refresher's computation (its predecessor is served to
		// everyone meanwhile) waits for its turn rather than being shed:
		// shedding it would only leave the kept answer older.
		queueWait := l.limits.QueueWait
		if isShared(r.Context()) && isRefresh(r.Context()) {
			queueWait = l.limits.SharedBudget
		}
		wait, cancel := context.WithTimeout(r.Context(), queueWait)
		err := l.sem.Acquire(wait, 1)
		cancel()
		if err != nil {
			if r.Context().Err() != nil {
				return
			}
			w.Header().Set("Retry-After", l.RetryAfter())
			reject(w, r)
			return
		}
		defer l.sem.Release(1)
		budget := l.limits.Budget
		if isShared(r.Context()) {
			budget = l.limits.SharedBudget
		}
		ctx, stop := context.WithTimeout(r.Context(), budget)
		defer stop()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// sharedKey marks the context of a shared computation.
type sharedKey struct{}

// sharedComputation marks ctx as that of a computation whose answer is
// kept and shared by every client that asks meanwhile: the limiter gives
// it Limits.SharedBudget rather than a single request's budget.
func sharedComputation(ctx context.Context) context.Context {
	return context.WithValue(ctx, sharedKey{}, true)
}

func isShared(ctx context.Context) bool {
	v, _ := ctx.Value(sharedKey{}).(bool)
	return v
}
