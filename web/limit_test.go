package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"
	"time"
)

// Issue 20 item 19: requests past the limiter's slots wait a short while,
// then are shed with 503 and Retry-After; those admitted run within the
// budget.
func TestLimiterShedsPastItsSlots(t *testing.T) {
	cases := []struct {
		name       string
		limits     Limits
		busy       int // requests holding a slot while the probe is sent
		wantStatus int
		retryAfter string
	}{
		{"a free slot", Limits{Concurrent: 2, QueueWait: 50 * time.Millisecond}, 1, http.StatusOK, ""},
		{"every slot taken", Limits{Concurrent: 2, QueueWait: 50 * time.Millisecond}, 2, http.StatusServiceUnavailable, "1"},
		{"retry after rounds up to whole seconds", Limits{Concurrent: 1, QueueWait: 10 * time.Millisecond, RetryAfter: 2500 * time.Millisecond}, 1,
			http.StatusServiceUnavailable, "3"},
		{"the default: as many as the CPUs", Limits{}, min(max(runtime.GOMAXPROCS(0), 2), 4) - 1, http.StatusOK, ""},
		{"the default: one more is shed", Limits{}, min(max(runtime.GOMAXPROCS(0), 2), 4), http.StatusServiceUnavailable, "1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := NewLimiter(c.limits)
			release := make(chan struct{})
			var started, done sync.WaitGroup
			h := l.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/busy" {
					started.Done()
					<-release
				}
				w.WriteHeader(http.StatusOK)
			}), func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) })
			started.Add(c.busy)
			for range c.busy {
				done.Go(func() { h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/busy", nil)) })
			}
			started.Wait()
			rec := httptest.NewRecorder()
			began := time.Now()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/probe", nil))
			waited := time.Since(began)
			close(release)
			done.Wait()
			if rec.Code != c.wantStatus || rec.Header().Get("Retry-After") != c.retryAfter {
				t.Errorf("%d Retry-After %q, want %d %q", rec.Code, rec.Header().Get("Retry-After"), c.wantStatus, c.retryAfter)
			}
			if wait := l.limits.QueueWait; c.wantStatus == http.StatusServiceUnavailable && (waited < wait || waited > wait+2*time.Second) {
				t.Errorf("shed after %s, want after the queue wait %s", waited, wait)
			}
			// Every slot is free again.
			rec = httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/probe", nil))
			if rec.Code != http.StatusOK {
				t.Errorf("after the busy ones: %d", rec.Code)
			}
		})
	}
}

// Issue 20 item 19: an admitted request runs under the budget's deadline;
// a client that leaves while waiting gets no answer written.
func TestLimiterBudgetAndGoneClient(t *testing.T) {
	l := NewLimiter(Limits{Concurrent: 1, QueueWait: time.Second, Budget: 200 * time.Millisecond})
	var left time.Duration
	h := l.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, ok := r.Context().Deadline()
		if !ok {
			t.Error("no deadline")
		}
		left = time.Until(d)
	}), func(w http.ResponseWriter, r *http.Request) { t.Error("shed") })
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
	if left <= 0 || left > 200*time.Millisecond {
		t.Errorf("deadline in %s, want within the 200 ms budget", left)
	}

	block := make(chan struct{})
	busy := l.Wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-block }), nil)
	go busy.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
	defer close(block)
	for l.sem.TryAcquire(1) {
		l.sem.Release(1) // not taken yet
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec := httptest.NewRecorder()
	shed := false
	l.Wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { t.Error("ran") }),
		func(http.ResponseWriter, *http.Request) { shed = true }).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil).WithContext(ctx))
	if shed || rec.Body.Len() > 0 || rec.Header().Get("Retry-After") != "" {
		t.Errorf("a client gone while waiting got an answer: shed %v, %q", shed, rec.Body.String())
	}
}

// Issue 30: the shared computation of a kept answer runs under its own,
// longer budget; a request of its own keeps the short one.
func TestLimiterSharedBudget(t *testing.T) {
	l := NewLimiter(Limits{Concurrent: 1, QueueWait: time.Second, Budget: 200 * time.Millisecond, SharedBudget: time.Hour})
	for _, c := range []struct {
		name     string
		ctx      context.Context
		min, max time.Duration
	}{
		{"a request", context.Background(), 0, 200 * time.Millisecond},
		{"a shared computation", sharedComputation(context.Background()), 59 * time.Minute, time.Hour},
	} {
		t.Run(c.name, func(t *testing.T) {
			var left time.Duration
			l.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				d, _ := r.Context().Deadline()
				left = time.Until(d)
			}), func(w http.ResponseWriter, r *http.Request) { t.Error("shed") }).
				ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil).WithContext(c.ctx))
			if left <= c.min || left > c.max {
				t.Errorf("deadline in %s, want in (%s, %s]", left, c.min, c.max)
			}
		})
	}
	if d := NewLimiter(Limits{}).limits.SharedBudget; d != time.Minute {
		t.Errorf("default shared budget %s, want 1m", d)
	}
}

// The kept answer's computation is the shared one: it reaches the
// limiter marked so, and a client going away does not cancel it.
func TestKeptComputationTakesSharedBudget(t *testing.T) {
	l := NewLimiter(Limits{Budget: 200 * time.Millisecond, SharedBudget: time.Hour})
	var left time.Duration
	var canceled error
	h := l.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, _ := r.Context().Deadline()
		left = time.Until(d)
		canceled = r.Context().Err()
		w.Write([]byte("kept"))
	}), func(w http.ResponseWriter, r *http.Request) { t.Error("shed") })
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the client that asked first went away
	s := &Server{}
	a := s.compute(h, httptest.NewRequest(http.MethodGet, "/gpu/", nil).WithContext(ctx), "v1", "/gpu/?", 1)
	if a.status != http.StatusOK || string(a.body()) != "kept" {
		t.Fatalf("answer %d %q", a.status, a.body())
	}
	if left <= 59*time.Minute || canceled != nil {
		t.Errorf("deadline in %s (err %v), want the shared budget of 1h, not cancelled", left, canceled)
	}
}
