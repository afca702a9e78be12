package web

import (
	"bytes"
	"cmp"
	gz "compress/gzip"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
)

// staleServer serves /x through the kept answers: its answer names the
// data version it was computed at, and a computation waits while gate is
// closed.
type staleServer struct {
	s        *Server
	version  atomic.Pointer[string]
	computed atomic.Int32
	idle     atomic.Int32 // rounds of the refresher ended
	waiting  atomic.Int32 // computations that reached the closed gate
	mu       sync.Mutex
	gate     chan struct{}
}

func newStaleServer(t *testing.T) *staleServer {
	ss := &staleServer{}
	ss.setVersion("v1")
	ss.s = &Server{FX: func() report.FX { return report.FX{Currency: "USD"} },
		Now:      func() time.Time { return time.Date(2026, 12, 5, 11, 19, 0, 0, time.UTC) },
		Versions: NewVersions(func(context.Context) (string, error) { return *ss.version.Load(), nil }),
		Idle:     func() { ss.idle.Add(1) }}
	mux := http.NewServeMux()
	mux.Handle("GET /x", ss.s.cached(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, _ := ss.s.dataVersion(r.Context())
		ss.mu.Lock()
		gate := ss.gate
		ss.mu.Unlock()
		if gate != nil {
			ss.waiting.Add(1)
			<-gate
		}
		ss.computed.Add(1)
		w.Write([]byte("answer of " + v))
	})))
	following(t, ss.s, mux)
	return ss
}

// following serves mux as s's handler, s following the data versions.
func following(t *testing.T, s *Server, mux http.Handler) {
	t.Helper()
	s.handler = mux
	if _, err := s.Versions.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.followVersions()
}

// heldAtV2 is a server that answered v1, then heard of v2 with its
// computations held.
func heldAtV2(t *testing.T) *staleServer {
	t.Helper()
	ss := newStaleServer(t)
	if got := ss.getWithin(t, 5*time.Second); got != "answer of v1" {
		t.Fatalf("first view: %q", got)
	}
	ss.hold()
	ss.move(t, "v2")
	return ss
}

// newClockedServer is newStaleServer on a clock the test moves, in
// minutes from its start.
func newClockedServer(t *testing.T) (*staleServer, *atomic.Int64) {
	ss := newStaleServer(t)
	clock := new(atomic.Int64)
	base := time.Date(2026, 12, 5, 11, 19, 0, 0, time.UTC)
	ss.s.Now = func() time.Time { return base.Add(time.Duration(clock.Load()) * time.Minute) }
	return ss, clock
}

func (ss *staleServer) setVersion(v string) { ss.version.Store(&v) }

// move stores a run: the version moves and the server hears of it.
func (ss *staleServer) move(t *testing.T, v string) {
	ss.setVersion(v)
	if _, err := ss.s.Versions.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func (ss *staleServer) hold() {
	ss.mu.Lock()
	ss.gate = make(chan struct{})
	ss.mu.Unlock()
}

func (ss *staleServer) release() {
	ss.mu.Lock()
	close(ss.gate)
	ss.gate = nil
	ss.mu.Unlock()
}

// getWithin answers /x, failing the test when it takes longer than d. A
// view that waited behind a held computation would wait forever, so d is
// generous: under -race on two busy cores a served view can take a second.
func (ss *staleServer) getWithin(t *testing.T, d time.Duration) string {
	t.Helper()
	done := make(chan string, 1)
	go func() {
		rec := httptest.NewRecorder()
		ss.s.handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/x", nil))
		done <- rec.Body.String()
	}()
	select {
	case body := <-done:
		return body
	case <-time.After(d):
		t.Fatalf("/x waited more than %s", d)
		return ""
	}
}

// Issue 30: when a run stores, a view is answered at once from the kept
// answer while its successor is computed beside it (never waiting behind
// the computation), the successor replaces it when done, and versions
// that move faster than the computation do not stack computations.
func TestKeptAnswerServedWhileSuccessorComputes(t *testing.T) {
	ss := heldAtV2(t)
	// The refresher is computing v2 behind the gate: views get v1 at once.
	for range 3 {
		if got := ss.getWithin(t, 5*time.Second); got != "answer of v1" {
			t.Fatalf("while v2 computes: %q", got)
		}
	}
	// Two more runs store meanwhile.
	ss.move(t, "v3")
	ss.move(t, "v4")
	ss.release()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := ss.getWithin(t, 5*time.Second)
		if got == "answer of v4" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("v4 never served; last %q", got)
		}
		time.Sleep(5 * time.Millisecond)
	}
	// v2's computation (held), then one for the newest version: v3 was
	// superseded while queued and never computed on its own.
	if n := ss.computed.Load(); n > 3 {
		t.Errorf("%d computations for 4 versions; want at most 3 (v1, the held one, v4)", n)
	}
}

// The refresher says when it has computed everything it was given (the
// daemon returns the round's memory there), and not before.
func TestRefresherSaysWhenIdle(t *testing.T) {
	ss := heldAtV2(t)
	ss.getWithin(t, 5*time.Second) // queues v2's computation, held
	deadline := time.Now().Add(5 * time.Second)
	for ss.waiting.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("v2's computation never began")
		}
		time.Sleep(time.Millisecond)
	}
	// An earlier round may have ended since; none may end while v2's
	// computation is held.
	before := ss.idle.Load()
	time.Sleep(50 * time.Millisecond)
	if n := ss.idle.Load(); n != before {
		t.Fatalf("idle while a computation was held (%d -> %d)", before, n)
	}
	ss.release()
	for ss.idle.Load() == before {
		if time.Now().After(deadline) {
			t.Fatal("the refresher never said it was idle")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := ss.getWithin(t, 5*time.Second); got != "answer of v2" {
		t.Errorf("after the round: %q", got)
	}
}

// A kept answer of another minute is served while its successor is
// computed; one older than staleFor is not: the view waits for a fresh one.
func TestKeptAnswerStaleness(t *testing.T) {
	ss, clock := newClockedServer(t)
	ss.getWithin(t, 5*time.Second)
	ss.setVersion("v2") // read per view from here on: no hot refresh
	ss.s.Versions.Refresh(context.Background())
	ss.hold()
	clock.Store(staleFor)
	if got := ss.getWithin(t, 5*time.Second); got != "answer of v1" {
		t.Fatalf("%d minutes old: %q, want the kept answer", staleFor, got)
	}
	ss.release()
	ss.hold()
	clock.Store(3 * staleFor)
	go func() {
		time.Sleep(300 * time.Millisecond)
		ss.release()
	}()
	start := time.Now()
	if got := ss.getWithin(t, 5*time.Second); got != "answer of v2" {
		t.Fatalf("%d minutes old: %q, want a fresh answer", 3*staleFor, got)
	}
	if time.Since(start) < 200*time.Millisecond {
		t.Errorf("a view past staleFor did not wait for its fresh answer")
	}
}

// A server that does not keep the version (pricewatch mcp's, answering
// the API alone) recomputes what it was asked when the data move, never
// the dashboard's WarmPaths nobody asked it for.
func TestNoWarmPathsWithoutVersions(t *testing.T) {
	s := &Server{FX: func() report.FX { return report.FX{Currency: "USD"} },
		Now: func() time.Time { return time.Date(2026, 12, 5, 11, 19, 0, 0, time.UTC) }}
	s.handler = http.NewServeMux()
	minute := s.now().Unix() / 60
	s.answers.advance("v1", minute)
	if moved, _ := s.answers.advance("v2", minute); !moved {
		t.Fatal("the version did not move")
	}
	s.refreshHot()
	s.answers.mu.Lock()
	defer s.answers.mu.Unlock()
	if len(s.answers.queue) != 0 {
		t.Errorf("queued %q without Versions; want nothing", s.answers.queue)
	}
}

// A kept answer is compressed when the client that made it be computed
// takes gzip (and then served so to every client that does, and
// uncompressed for one that does not), and kept plain when it does not:
// pricewatch mcp's asker never takes gzip. It is kept one way only.
func TestKeptAnswerGzipForClientsThatTakeIt(t *testing.T) {
	body := strings.Repeat("a price per GPU-hour ", 200)
	var s *Server
	newServer := func() http.Handler {
		s = &Server{FX: func() report.FX { return report.FX{Currency: "USD"} },
			Now:      func() time.Time { return time.Date(2026, 12, 5, 11, 19, 0, 0, time.UTC) },
			Versions: NewVersions(func(context.Context) (string, error) { return "v1", nil })}
		if _, err := s.Versions.Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
		mux := http.NewServeMux()
		mux.Handle("GET /x", s.cached(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(body)) })))
		return mux
	}
	get := func(h http.Handler, gzip bool) (encoding, got string) {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "/x", nil)
		if gzip {
			req.Header.Set("Accept-Encoding", "gzip")
		}
		h.ServeHTTP(rec, req)
		enc := rec.Header().Get("Content-Encoding")
		b := rec.Body.Bytes()
		if enc == "gzip" {
			zr, err := gz.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if b, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		return enc, string(b)
	}
	for _, c := range []struct {
		name         string
		first        bool // the first client takes gzip
		gzipThen     string
		plainClients string
	}{
		{"computed for a browser", true, "gzip", ""},
		{"computed for an asker without gzip", false, "", ""},
	} {
		h := newServer()
		if _, got := get(h, c.first); got != body {
			t.Fatalf("%s: first answer %d bytes, want %d", c.name, len(got), len(body))
		}
		if enc, got := get(h, true); enc != c.gzipThen || got != body {
			t.Errorf("%s: a gzip client got encoding %q (%d bytes), want %q", c.name, enc, len(got), c.gzipThen)
		}
		if enc, got := get(h, false); enc != c.plainClients || got != body {
			t.Errorf("%s: a plain client got encoding %q (%d bytes)", c.name, enc, len(got))
		}
		s.answers.mu.Lock()
		for k, a := range s.answers.m {
			if (a.plain == nil) == (a.gz == nil) {
				t.Errorf("%s: %s kept with %d plain and %d compressed bytes, want one of them", c.name, k, len(a.plain), len(a.gz))
			}
		}
		s.answers.mu.Unlock()
	}
}

// orderServer is a server at a fixed clock whose store is at version,
// for the refresh order's tests: the clock's Unix second and minute, and
// a request to keep answers of.
func orderServer(version string) (s *Server, now, minute int64, req *http.Request) {
	s = &Server{FX: func() report.FX { return report.FX{Currency: "USD"} },
		Now:      func() time.Time { return time.Date(2026, 12, 5, 11, 19, 30, 0, time.UTC) },
		Versions: NewVersions(func(context.Context) (string, error) { return version, nil })}
	now = s.now().Unix()
	return s, now, now / 60, httptest.NewRequest(http.MethodGet, "/x", nil)
}

// The refresher recomputes the hot answers cheapest per asking first
// (Smith's rule), so that the views of a new version are fresh soonest.
func TestRefreshOrderCostPerAsking(t *testing.T) {
	s, now, minute, req := orderServer("v1")
	for _, a := range []struct {
		key       string
		cost      time.Duration
		now, prev int   // askings in the minute last asked and the one before
		ago       int64 // minutes since last asked
		secs      int64 // seconds since last asked (0: 20, not recent)
		history   bool  // charts history (drawsHistory)
	}{
		{"/overview", time.Second, 6, 4, 0, 0, false},       // 100 ms an asking
		{"/api", 50 * time.Millisecond, 10, 0, 0, 3, false}, // 5 ms, asked now
		// Asked once, 10 s ago: 2 s an asking, but asked now, before
		// every answer that was not.
		{"/now", 2 * time.Second, 1, 0, 0, 10, false},
		// Asked now and cheap, but a chart: after the prices now asked
		// now, before every answer that was not asked now.
		{"/chart", 10 * time.Millisecond, 10, 0, 0, 3, true},
		// A chart asked lately, not now: after the other answers asked
		// lately, before those asked minutes ago.
		{"/trends", time.Millisecond, 50, 0, 0, 0, true},
		{"/offers", 500 * time.Millisecond, 2, 0, 0, 0, false}, // 250 ms
		{"/gpu", 200 * time.Millisecond, 1, 3, 0, 0, false},    // 50 ms
		{"/cold", time.Millisecond, 100, 0, hotFor + 1, 0, false},
		{"/same", 200 * time.Millisecond, 4, 0, 0, 0, false}, // as /gpu: by key
		// Asked 40 times last minute, and 1000 the minute before: 25 ms
		// an asking (counted since first kept: 1 ms, before all).
		{"/last", time.Second, 40, 1000, 1, 0, false},
		// Asked 10,000 times, but 2 minutes ago: after every answer asked
		// since, cheapest first.
		{"/burst", 30 * time.Millisecond, 10000, 0, 2, 0, false},
		{"/burst2", 20 * time.Millisecond, 10000, 0, 3, 0, false},
	} {
		s.answers.put(a.key, &answer{version: "v1", seq: 1, minute: minute, cost: a.cost, req: req, history: a.history})
		k := s.answers.m[a.key]
		k.askedNow, k.askedPrev, k.lastAsked, k.askedAt = a.now, a.prev, minute-a.ago, now-a.ago*60-cmp.Or(a.secs, 20)
	}
	// Held, so that the queue is read before the refresher takes from it.
	s.answers.mu.Lock()
	s.answers.refreshers = maxRefreshers
	// Left from a round the move overtook: ordered with this round's.
	s.enqueueLocked("/offers", req)
	s.answers.mu.Unlock()
	s.refreshHot()
	s.answers.mu.Lock()
	defer s.answers.mu.Unlock()
	want := []string{"/api", "/now", "/chart", "/last", "/gpu", "/same", "/overview", "/offers", "/trends", "/burst2", "/burst"}
	if kept := keptQueued(t, &s.answers); !slices.Equal(kept, want) {
		t.Errorf("refresh order %q, want %q", kept, want)
	}
	if slices.Contains(s.answers.queue, "/cold") {
		t.Errorf("queued /cold, not asked for %d minutes", hotFor+1)
	}
}

// TestRefreshOrderOvertakenFirst: a move overtook the last round before
// the overview's turn came, so its kept answer is two versions old where
// the others' are one. It goes before the cheaper answers of the prices
// now this time, or it would wait behind them in every round while runs
// store faster than a round ends; a chart left over still waits for the
// prices now.
func TestRefreshOrderOvertakenFirst(t *testing.T) {
	s, now, minute, req := orderServer("v3")
	s.answers.advance("v1", minute)
	s.answers.advance("v2", minute)
	for _, a := range []struct {
		key     string
		version string
		seq     uint64
		cost    time.Duration
		history bool
	}{
		{"/overview", "v1", 1, 500 * time.Millisecond, false}, // left by the round of v2
		{"/api", "v2", 2, 50 * time.Millisecond, false},
		{"/gpu", "v2", 2, 150 * time.Millisecond, false},
		{"/chart", "v1", 1, 10 * time.Millisecond, true}, // left as well
		{"/trends", "v2", 2, 5 * time.Millisecond, true},
	} {
		s.answers.put(a.key, &answer{version: a.version, seq: a.seq, minute: minute, cost: a.cost, req: req, history: a.history})
		k := s.answers.m[a.key]
		k.askedNow, k.lastAsked, k.askedAt = 5, minute, now-3
	}
	s.answers.mu.Lock()
	s.answers.refreshers = maxRefreshers
	s.answers.mu.Unlock()
	s.advance("v3")
	s.answers.mu.Lock()
	defer s.answers.mu.Unlock()
	want := []string{"/overview", "/api", "/gpu", "/chart", "/trends"}
	if kept := keptQueued(t, &s.answers); !slices.Equal(kept, want) {
		t.Errorf("refresh order %q, want %q", kept, want)
	}
}

// At a new minute every kept answer is of an earlier one: the first view
// of the minute queues the hot answers in the refresher's order, not
// each as its next view comes (the most viewed, often the dearest, first).
func TestNewMinuteRefreshesInOrder(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Date(2026, 12, 5, 11, 19, 0, 0, time.UTC).Unix())
	s := &Server{FX: func() report.FX { return report.FX{Currency: "USD"} },
		Now:      func() time.Time { return time.Unix(now.Load(), 0) },
		Versions: NewVersions(func(context.Context) (string, error) { return "v1", nil })}
	if _, err := s.Versions.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	h := s.cached(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(r.URL.Path)) }))
	costs := map[string]time.Duration{"/dear": time.Second, "/cheap": 10 * time.Millisecond, "/middle": 100 * time.Millisecond}
	keys := map[string]string{}
	for _, p := range []string{"/dear", "/cheap", "/middle"} {
		req := httptest.NewRequest(http.MethodGet, p, nil)
		// Asked twice: computed, then asked for again (hot).
		h.ServeHTTP(httptest.NewRecorder(), req)
		h.ServeHTTP(httptest.NewRecorder(), req)
		keys[p] = s.answerKey(req)
		s.answers.mu.Lock()
		s.answers.m[keys[p]].cost = costs[p]
		s.answers.mu.Unlock()
	}
	// Held, so that the queue is read before the refresher takes from it.
	s.answers.mu.Lock()
	s.answers.refreshers = maxRefreshers
	s.answers.mu.Unlock()
	now.Add(60)
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/dear", nil))
	s.answers.mu.Lock()
	defer s.answers.mu.Unlock()
	want := []string{keys["/cheap"], keys["/middle"], keys["/dear"]}
	if got := keptQueued(t, &s.answers); !slices.Equal(got, want) {
		t.Errorf("queued %q at the new minute, want %q", got, want)
	}
}

// keptQueued is the refresher's queue of answers kept (held under c.mu).
// The WarmPaths nothing is kept of must come before them: their askers
// wait for them.
func keptQueued(t *testing.T, c *answers) []string {
	t.Helper()
	var kept []string
	for _, k := range c.queue {
		if c.m[k] == nil {
			if len(kept) > 0 {
				t.Errorf("%q, of which nothing is kept, queued after kept answers: %q", k, c.queue)
			}
			continue
		}
		kept = append(kept, k)
	}
	return kept
}

// Issue 30: a run's start (storage.OnlyStarts) commits before its fetch
// and changes only what shows the runs. The answers that show none are
// carried to the new version, served as of it with its ETag and never
// computed again; those that show runs are; a run's prices compute every
// answer again. Also an answer whose computation a start overtook.
func TestRunStartCarriesAnswersThatShowNoRuns(t *testing.T) {
	const (
		stored  = "7.7.2026-12-05T11:00:00.000000Z/0.0.0.0/0"
		started = "8.8.2026-12-05T11:00:00.000000Z/0.0.0.0/0" // a run started
		priced  = "8.8.2026-12-05T11:00:05.000000Z/0.0.0.0/0" // its prices stored
		again   = "9.9.2026-12-05T11:00:05.000000Z/0.0.0.0/0" // another started
	)
	var version atomic.Pointer[string]
	set := func(v string) { version.Store(&v) }
	set(stored)
	s := &Server{FX: func() report.FX { return report.FX{Currency: "USD"} },
		Now:      func() time.Time { return time.Date(2026, 12, 5, 11, 19, 0, 0, time.UTC) },
		Versions: NewVersions(func(context.Context) (string, error) { return *version.Load(), nil })}
	var computed sync.Map // path → *atomic.Int32
	count := func(p string) *atomic.Int32 {
		n, _ := computed.LoadOrStore(p, new(atomic.Int32))
		return n.(*atomic.Int32)
	}
	// While hold is set, /slow's computation waits at it, having said so
	// on holding.
	var hold atomic.Pointer[chan struct{}]
	holding := make(chan struct{}, 1)
	mux := http.NewServeMux()
	for _, p := range []string{"/prices", "/runs", "/slow"} {
		mux.Handle("GET "+p, s.cached(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if p == "/runs" {
				showsRuns(r.Context())
			}
			v, _ := s.dataVersion(r.Context())
			if h := hold.Load(); p == "/slow" && h != nil {
				holding <- struct{}{}
				<-*h
			}
			count(p).Add(1)
			w.Write([]byte(p + " of " + v))
		})))
	}
	s.handler = mux
	ctx := context.Background()
	if _, err := s.Versions.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	s.followVersions()
	move := func(v string) {
		set(v)
		if _, err := s.Versions.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// servedAt waits until p is served as of version v (with that
	// version's ETag), and is its body.
	servedAt := func(p, v string) string {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			rec := httptest.NewRecorder()
			mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p, nil))
			if rec.Header().Get(storage.DataVersionHeader) == v {
				if want := answerETag(v, rec.Body.Bytes()); rec.Header().Get("ETag") != want {
					t.Errorf("%s as of %s: ETag %s, want %s", p, v, rec.Header().Get("ETag"), want)
				}
				return rec.Body.String()
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s never served as of %s; last of %s", p, v, rec.Header().Get(storage.DataVersionHeader))
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	for _, p := range []string{"/prices", "/runs", "/slow"} {
		servedAt(p, stored)
	}

	move(started)
	if got := servedAt("/prices", started); got != "/prices of "+stored {
		t.Errorf("/prices after a start: %q, want the stored version's answer carried", got)
	}
	if got := servedAt("/runs", started); got != "/runs of "+started {
		t.Errorf("/runs after a start: %q, want it computed again", got)
	}
	servedAt("/slow", started)
	if n := count("/prices").Load(); n != 1 {
		t.Errorf("/prices computed %d times; want once, carried across the start", n)
	}

	// A run's prices compute everything again. /slow's computation of
	// them is overtaken by another start: its answer is kept as one of
	// the newest version, not computed a third time.
	h := make(chan struct{})
	hold.Store(&h)
	move(priced)
	<-holding
	move(again)
	hold.Store(nil)
	close(h)
	if got := servedAt("/slow", again); got != "/slow of "+priced {
		t.Errorf("/slow: %q, want its computation of the prices' version kept", got)
	}
	if got := servedAt("/prices", again); got == "/prices of "+stored {
		t.Errorf("/prices after a run's prices: %q, not computed again", got)
	}
	servedAt("/runs", again)
	if n := count("/slow").Load(); n != 2 {
		t.Errorf("/slow computed %d times; want twice (the first version, the prices')", n)
	}
}

// An answer's demand is its askings of this minute and the one before.
func TestDemandCountsTwoMinutes(t *testing.T) {
	var a answer
	for _, step := range []struct {
		ask    []int64 // minutes asked at
		at     int64
		demand int
	}{
		{[]int64{10, 10, 10}, 10, 3},
		{[]int64{11}, 11, 4}, // 1 now, 3 the minute before
		{nil, 12, 1},         // the minute before: 1
		{nil, 13, 0},
		{[]int64{14, 14}, 14, 2}, // a gap: what came before it is gone
		{[]int64{13}, 14, 3},     // an asking of an earlier minute counts now
	} {
		for _, m := range step.ask {
			a.ask(m)
		}
		if got := a.demandAt(step.at); got != step.demand {
			t.Errorf("after asking at %v: demand at minute %d = %d, want %d", step.ask, step.at, got, step.demand)
		}
	}
}

// The refresher's own askings do not keep an answer hot: one nobody has
// asked for in hotFor minutes is not computed again when a run stores,
// however often the refresher computed it before.
func TestRefresherKeepsNothingHot(t *testing.T) {
	ss, clock := newClockedServer(t)
	// Asked twice at minute 0: computed, then asked again (hot).
	ss.getWithin(t, 5*time.Second)
	ss.getWithin(t, 5*time.Second)
	computed := ss.computed.Load()
	// A run stores every minute; nobody asks for /x again.
	for m := int64(1); m <= hotFor+3; m++ {
		clock.Store(m)
		before := ss.idle.Load()
		ss.move(t, fmt.Sprintf("v%d", m+1))
		deadline := time.Now().Add(5 * time.Second)
		for ss.idle.Load() == before {
			if time.Now().After(deadline) {
				t.Fatalf("minute %d: the refresher never went idle", m)
			}
			time.Sleep(time.Millisecond)
		}
	}
	if got := ss.computed.Load() - computed; got != hotFor {
		t.Errorf("/x computed again at %d of %d runs, want the %d within hotFor of its last asking", got, hotFor+3, hotFor)
	}
}

// The WarmPaths are computed at start; a move computes them again only
// once a client has asked for them: a replica nobody views computes
// nothing per run.
func TestWarmPathsWaitForAsking(t *testing.T) {
	var version atomic.Pointer[string]
	v1 := "v1"
	version.Store(&v1)
	var idle atomic.Int32
	s := &Server{FX: func() report.FX { return report.FX{Currency: "USD"} },
		Now:      func() time.Time { return time.Date(2026, 12, 5, 11, 19, 0, 0, time.UTC) },
		Versions: NewVersions(func(context.Context) (string, error) { return *version.Load(), nil }),
		Idle:     func() { idle.Add(1) }}
	mux := http.NewServeMux()
	page := s.cached(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, _ := s.dataVersion(r.Context())
		w.Write([]byte(r.URL.Path + " of " + v))
	}))
	for _, p := range WarmPaths {
		mux.Handle("GET "+p, page)
	}
	s.handler = mux
	if _, err := s.Versions.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.followVersions()
	waitRound := func(before int32) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for idle.Load() == before {
			if time.Now().After(deadline) {
				t.Fatal("the refresher never went idle")
			}
			time.Sleep(time.Millisecond)
		}
	}
	before := idle.Load()
	s.warm()
	waitRound(before)
	kept := func(p string) *answer {
		s.answers.mu.Lock()
		defer s.answers.mu.Unlock()
		return s.answers.m[s.answerKey(httptest.NewRequest(http.MethodGet, p, nil))]
	}
	move := func(v string) {
		t.Helper()
		before := idle.Load()
		version.Store(&v)
		if _, err := s.Versions.Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
		waitRound(before)
	}
	for _, p := range WarmPaths {
		if a := kept(p); a == nil || a.version != "v1" {
			t.Fatalf("at start %s is kept as %+v, want it computed at v1", p, a)
		}
	}
	// Nobody asks: a move leaves them as they are (/api/v1/runs, asked
	// twice, makes the round the test waits for).
	mux.Handle("GET /api/v1/runs", page)
	for range 2 {
		s.handler.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/api/v1/runs", nil))
	}
	move("v2")
	for _, p := range WarmPaths {
		if a := kept(p); a.version != "v1" {
			t.Errorf("%s, asked by nobody, computed again at %s", p, a.version)
		}
	}
	// Asked twice (served the kept one, then hot): the next move computes it.
	for range 2 {
		s.handler.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
	}
	move("v3")
	if a := kept("/"); a.version != "v3" || string(a.body()) != "/ of v3" {
		t.Errorf("/, asked, kept as %q of %s after the move to v3", a.body(), a.version)
	}
}

// An answer computed again at the same content (a run's start) keeps the
// cost of its dearer computation: the refresher ranks by what the next
// run's prices will cost, not by what a start's reuse did.
func TestStartKeepsTheCost(t *testing.T) {
	const (
		v1      = "10.10.2026-12-05T00:00:00Z/0.0.0.0/0"
		started = "11.11.2026-12-05T00:00:00Z/0.0.0.0/0" // v1 and a run's start
		v2      = "11.11.2026-12-05T00:05:00Z/0.0.0.0/0" // the run's prices
	)
	var c answers
	for _, step := range []struct {
		version string
		seq     uint64
		minute  int64
		cost    time.Duration
		want    time.Duration
	}{
		{v1, 1, 100, time.Second, time.Second},
		{started, 2, 100, 20 * time.Millisecond, time.Second},
		{v2, 3, 100, 300 * time.Millisecond, 300 * time.Millisecond},
		{v2, 3, 101, 250 * time.Millisecond, 250 * time.Millisecond}, // another minute: computed whole
	} {
		c.put("/", &answer{version: step.version, seq: step.seq, minute: step.minute, cost: step.cost})
		if got := c.m["/"].cost; got != step.want {
			t.Errorf("kept at %s, minute %d, computed in %s: cost %s, want %s", step.version, step.minute, step.cost, got, step.want)
		}
	}
}

// blockingWriter is a response writer whose Write waits for release,
// counting the writers inside Write at once and the most there were.
type blockingWriter struct {
	header  http.Header
	release <-chan struct{}
	inside  *atomic.Int32
	peak    *atomic.Int32
	body    []byte
}

func (w *blockingWriter) Header() http.Header { return w.header }
func (w *blockingWriter) WriteHeader(int)     {}
func (w *blockingWriter) Write(b []byte) (int, error) {
	n := w.inside.Add(1)
	for p := w.peak.Load(); n > p && !w.peak.CompareAndSwap(p, n); p = w.peak.Load() {
	}
	<-w.release
	w.inside.Add(-1)
	w.body = append(w.body, b...)
	return len(b), nil
}

// While the refresher computes and more clients are being served than
// there are cores, kept answers are served GOMAXPROCS−1 at once (at least
// one) and the other askers wait their turn, which leaves the refresher a
// core; as few clients as cores are served at once (two at once should
// cost about one); once the refresher is idle, all at once.
func TestKeptAnswersServedFewAtOnceWhileRefreshing(t *testing.T) {
	gate := int32(max(1, runtime.GOMAXPROCS(0)-1))
	n := gate + 3
	for _, c := range []struct {
		name   string
		conns  *Conns
		busy   int // connections serving a request
		atOnce int32
	}{
		{"connections not counted", nil, 0, gate},
		{"more clients than cores", &Conns{}, runtime.GOMAXPROCS(0) + 1, gate},
		{"as many clients as cores", &Conns{}, runtime.GOMAXPROCS(0), n},
	} {
		t.Run(c.name, func(t *testing.T) {
			for range c.busy {
				a, b := net.Pipe()
				t.Cleanup(func() { a.Close(); b.Close() })
				c.conns.Track(a, http.StateNew)
				c.conns.Track(a, http.StateActive)
			}
			if c.conns != nil && c.conns.Active() != c.busy {
				t.Fatalf("%d connections active, want %d", c.conns.Active(), c.busy)
			}
			keptAnswersServedWhileRefreshing(t, c.conns, n, c.atOnce)
		})
	}
}

// A connection is counted from its first request's first byte until the
// answer is written, and again at its next request.
func TestConnsCountThoseServingARequest(t *testing.T) {
	var c Conns
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	for _, step := range []struct {
		conn  net.Conn
		state http.ConnState
		want  int
	}{
		{a, http.StateNew, 0}, {a, http.StateActive, 1}, {b, http.StateActive, 2}, {a, http.StateActive, 2},
		{a, http.StateIdle, 1}, {a, http.StateActive, 2}, {b, http.StateHijacked, 1}, {a, http.StateClosed, 0},
	} {
		c.Track(step.conn, step.state)
		if got := c.Active(); got != step.want {
			t.Fatalf("after %v: %d active, want %d", step.state, got, step.want)
		}
	}
}

// keptAnswersServedWhileRefreshing asks n views at once while the
// refresher computes, atOnce of which must be written at once, then n
// again once it is idle, all at once.
func keptAnswersServedWhileRefreshing(t *testing.T, conns *Conns, n, atOnce int32) {
	ss := heldAtV2(t)
	ss.s.Conns = conns
	// This view queues v2's computation, which waits at the held gate.
	if got := ss.getWithin(t, 5*time.Second); got != "answer of v1" {
		t.Fatalf("while v2 computes: %q", got)
	}
	waitFor(t, "the refresher to reach the held computation", func() bool { return ss.waiting.Load() == 1 })
	// serve asks n views at once, each writing its answer through a
	// blocking writer, and waits until want of them are inside Write.
	serve := func(want int32, wantBody string) {
		t.Helper()
		var inside, peak atomic.Int32
		release := make(chan struct{})
		var wg sync.WaitGroup
		writers := make([]*blockingWriter, n)
		for i := range writers {
			writers[i] = &blockingWriter{header: http.Header{}, release: release, inside: &inside, peak: &peak}
			wg.Go(func() { ss.s.handler.ServeHTTP(writers[i], httptest.NewRequest(http.MethodGet, "/x", nil)) })
		}
		waitFor(t, fmt.Sprintf("%d views inside Write", want), func() bool { return inside.Load() == want })
		time.Sleep(50 * time.Millisecond)
		if got := peak.Load(); got != want {
			t.Errorf("%d of %d views written at once, want %d", got, n, want)
		}
		close(release)
		wg.Wait()
		for _, w := range writers {
			if string(w.body) != wantBody {
				t.Errorf("a view got %q, want %q", w.body, wantBody)
			}
		}
	}
	serve(atOnce, "answer of v1")
	idle := ss.idle.Load()
	ss.release()
	waitFor(t, "the refresher to go idle", func() bool { return ss.idle.Load() > idle })
	serve(n, "answer of v2")
}

// waitFor polls cond for up to 5 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("waited 5 s for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// The answers that chart history say so (drawsHistory), and the pages
// and API answers of the prices now do not: the refresher computes the
// latter first (refreshOrder).
func TestKeptAnswersTellHistoryCharts(t *testing.T) {
	_, s, mux := twoCloudsServer(t)
	for _, c := range []struct {
		path    string
		history bool
	}{
		{"/", false},
		{"/offers", false},
		{"/gpu/", false},
		{"/api/v1/offers?gpu=H100", false},
		{"/api/v1/availability?gpu=H100", false},
		{"/gpu/H100?days=90", true},
		{"/instance/gpu_8x_h100_sxm5?since=365d", true},
		{"/api/v1/trends?window=7d", true},
		{"/api/v1/history/gpu_8x_h100_sxm5?since=30d", true},
	} {
		req := httptest.NewRequest(http.MethodGet, c.path, nil)
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", c.path, rec.Code, rec.Body.String())
		}
		s.answers.mu.Lock()
		a := s.answers.m[s.answerKey(req)]
		s.answers.mu.Unlock()
		if a == nil {
			t.Fatalf("%s: no answer kept", c.path)
		}
		if a.history != c.history {
			t.Errorf("%s: kept as charting history %v, want %v", c.path, a.history, c.history)
		}
		if a.cost <= 0 {
			t.Errorf("%s: cost %v, want the CPU its computation took", c.path, a.cost)
		}
	}
}

// chartServer serves /now (the prices now) and /chart (a chart of
// history), each answer naming the data version it was computed at; a
// chart's computation waits while chartGate is closed, or until it is
// cancelled.
type chartServer struct {
	s         *Server
	version   atomic.Pointer[string]
	clock     atomic.Int64 // seconds from the start
	mu        sync.Mutex
	chartGate chan struct{}
	charts    atomic.Int32 // chart computations that reached the gate
	cut       atomic.Int32 // chart computations cancelled at the gate
}

func newChartServer(t *testing.T) *chartServer {
	cs := &chartServer{}
	v := "v1"
	cs.version.Store(&v)
	base := time.Date(2026, 12, 6, 17, 0, 0, 0, time.UTC)
	cs.s = &Server{FX: func() report.FX { return report.FX{Currency: "USD"} },
		Now:      func() time.Time { return base.Add(time.Duration(cs.clock.Load()) * time.Second) },
		Versions: NewVersions(func(context.Context) (string, error) { return *cs.version.Load(), nil }), Log: zaptest.NewLogger(t)}
	mux := http.NewServeMux()
	mux.Handle("GET /now", cs.s.cached(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, _ := cs.s.dataVersion(r.Context())
		w.Write([]byte("now of " + v))
	})))
	mux.Handle("GET /chart", cs.s.cached(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		drawsHistory(r.Context())
		v, _ := cs.s.dataVersion(r.Context())
		cs.mu.Lock()
		gate := cs.chartGate
		cs.mu.Unlock()
		if gate != nil {
			cs.charts.Add(1)
			select {
			case <-gate:
			case <-r.Context().Done():
				cs.cut.Add(1)
				return // as the handlers do on a cancelled read
			}
		}
		w.Write([]byte("chart of " + v))
	})))
	following(t, cs.s, mux)
	return cs
}

func (cs *chartServer) move(t *testing.T, v string) {
	t.Helper()
	cs.version.Store(&v)
	if _, err := cs.s.Versions.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func (cs *chartServer) get(t *testing.T, path string) string {
	t.Helper()
	rec := httptest.NewRecorder()
	cs.s.handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("%s: %d %s", path, rec.Code, rec.Body.String())
	}
	return rec.Body.String()
}

// A run stored while the refresher computes a chart for the version
// before sets the chart aside: the new round, the prices now first,
// starts at once, and the chart is computed again for the new version.
// Issue 30: on the share-1 database the 90-day trends of the last round
// held the overview's new prices back by up to a second. A chart whose
// kept answer is older than chartLag is finished whatever moves, so that
// runs stored every few seconds cannot keep it from ever being computed.
// Nothing set aside is kept: the chart's last answer stays served.
func TestMoveSetsAsideAChartOfTheVersionBefore(t *testing.T) {
	cs := newChartServer(t)
	// Each asked twice: the first view computes, the second counts, so
	// both are hot and computed again when a run stores.
	for range 2 {
		if cs.get(t, "/now") != "now of v1" || cs.get(t, "/chart") != "chart of v1" {
			t.Fatal("first views")
		}
	}
	cs.mu.Lock()
	cs.chartGate = make(chan struct{})
	cs.mu.Unlock()

	cs.move(t, "v2")
	waitFor(t, "the prices now of v2", func() bool { return cs.get(t, "/now") == "now of v2" })
	waitFor(t, "the chart of v2 computing", func() bool { return cs.charts.Load() == 1 })

	// v3 stores while the chart of v2 computes (its gate still closed):
	// the prices now of v3 are computed without waiting for it.
	cs.move(t, "v3")
	waitFor(t, "the prices now of v3 while a chart of v2 computed", func() bool { return cs.get(t, "/now") == "now of v3" })
	if cs.cut.Load() != 1 {
		t.Errorf("%d chart computations cancelled, want the one of v2", cs.cut.Load())
	}
	if got := cs.get(t, "/chart"); got != "chart of v1" {
		t.Errorf("the chart served after its computation was set aside: %q, want the kept one of v1", got)
	}
	waitFor(t, "the chart of v3 computing", func() bool { return cs.charts.Load() == 2 })

	// The kept chart (of v1) is now older than chartLag: v4 stores, and
	// the chart of v3 is finished before the round of v4.
	cs.clock.Add(chartLag + 1)
	cs.move(t, "v4")
	time.Sleep(50 * time.Millisecond)
	if got := cs.get(t, "/now"); got != "now of v3" {
		t.Errorf("the prices now while a chart past chartLag finished: %q, want v3's until it ends", got)
	}
	if cs.cut.Load() != 1 {
		t.Errorf("%d chart computations cancelled, want still 1: a chart past chartLag is finished", cs.cut.Load())
	}
	cs.mu.Lock()
	close(cs.chartGate)
	cs.chartGate = nil
	cs.mu.Unlock()
	waitFor(t, "the prices now of v4", func() bool { return cs.get(t, "/now") == "now of v4" })
	waitFor(t, "the chart of v4", func() bool { return cs.get(t, "/chart") == "chart of v4" })
}

// A client that joined the refresher's computation (one with no kept
// answer of the key: an answer dropped to make room) gets an answer
// when a move sets that computation aside: its own, computed after.
func TestClientJoiningASetAsideComputationGetsItsOwn(t *testing.T) {
	cs := newChartServer(t)
	cs.mu.Lock()
	cs.chartGate = make(chan struct{})
	cs.mu.Unlock()
	// The refresher's computation of /chart, nothing of it kept.
	ctx, setAside := context.WithCancel(context.WithValue(context.Background(), refreshKey{}, true))
	refreshed := make(chan int, 1)
	go func() {
		rec := httptest.NewRecorder()
		cs.s.handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/chart", nil).WithContext(ctx))
		refreshed <- rec.Code
	}()
	waitFor(t, "the refresher's chart computing", func() bool { return cs.charts.Load() == 1 })
	client := make(chan *httptest.ResponseRecorder, 1)
	go func() {
		rec := httptest.NewRecorder()
		cs.s.handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/chart", nil))
		client <- rec
	}()
	// The client joins the computation under way (singleflight): no
	// second one reaches the gate.
	time.Sleep(50 * time.Millisecond)
	if n := cs.charts.Load(); n != 1 {
		t.Fatalf("%d chart computations at the gate, want the refresher's alone", n)
	}
	setAside()
	if code := <-refreshed; code == http.StatusOK {
		t.Errorf("the set-aside computation answered the refresher 200")
	}
	waitFor(t, "the client's own computation", func() bool { return cs.charts.Load() == 2 })
	cs.mu.Lock()
	close(cs.chartGate)
	cs.chartGate = nil
	cs.mu.Unlock()
	rec := <-client
	if rec.Code != http.StatusOK || rec.Body.String() != "chart of v1" {
		t.Errorf("the client that joined a set-aside computation: %d %q, want 200 \"chart of v1\"", rec.Code, rec.Body.String())
	}
	if got := cs.get(t, "/chart"); got != "chart of v1" {
		t.Errorf("kept after: %q", got)
	}
}
