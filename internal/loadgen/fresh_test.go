package loadgen

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/storage"
)

// The probe times how long a commit takes to change each answer (its
// ETag, or /metrics' Azure line), and counts an answer that never changed
// within its limit as missed rather than as a time.
func TestFreshProbeFollowsACommit(t *testing.T) {
	var version atomic.Value
	version.Store("v1")
	var shed atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if shed.Load() && r.URL.Path == "/offers" {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		v := version.Load().(string)
		if r.URL.Path == "/metrics" {
			// The last successful run's line: a run's start leaves it.
			fmt.Fprintf(w, "go_goroutines 12\n%s %s\n", freshMetric, strings.TrimSuffix(v, "-started"))
			return
		}
		w.Header().Set(storage.DataVersionHeader, v)
		fmt.Fprint(w, "page")
	}))
	defer srv.Close()
	ctx := context.Background()

	p := newFreshProbe(srv.URL, 5*time.Second)
	p.setPhase("team")
	p.note("v1")
	before := p.mark(ctx)
	// The run's start moves the version before its prices are stored:
	// answers of that version do not show the run.
	p.note("v1-started")
	version.Store("v1-started")
	committed := time.Now()
	time.AfterFunc(150*time.Millisecond, func() { version.Store("v2") })
	p.follow(ctx, before, committed)
	// Noted after the commit: not before it.
	p.note("v2")
	if p.mark(ctx) != nil {
		t.Error("marked while a probe ran: a later commit would be timed by this one's change")
	}
	res := p.results()
	if len(res) != 2*len(FreshPaths) || res[0].Profile != "" || res[len(res)-1].Profile != "team" {
		t.Errorf("results %+v: want every path over every commit, then during the team profile", res)
	}
	for _, f := range res {
		if f.Runs != 1 || f.Missed != 0 {
			t.Errorf("%s (%q): %d runs, %d missed; want 1, 0", f.Path, f.Profile, f.Runs, f.Missed)
		}
		if f.Max < 150*time.Millisecond || f.Max > 3*time.Second {
			t.Errorf("%s: showed the commit after %s; want 150 ms and a little", f.Path, f.Max)
		}
	}

	p = newFreshProbe(srv.URL, 200*time.Millisecond)
	p.note("v2")
	p.follow(ctx, p.mark(ctx), time.Now()) // nothing changes
	for _, f := range p.results() {
		if f.Runs != 1 || f.Missed != 1 || f.Max != 0 {
			t.Errorf("%s unchanged: %d runs, %d missed, max %s; want 1, 1, 0", f.Path, f.Runs, f.Missed, f.Max)
		}
	}

	// An answer that cannot be read before the commit (shed with a 503)
	// would make any later one look like the commit: none is followed.
	shed.Store(true)
	if m := newFreshProbe(srv.URL, time.Second).mark(ctx); m != nil {
		t.Errorf("marked %v with /offers unread", m)
	}
}
