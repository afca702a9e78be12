package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/internal/testing/wait"
	"github.com/pricewatch/pricewatch/run"
	"github.com/pricewatch/pricewatch/secret"
	"github.com/pricewatch/pricewatch/storage"
)

// events is the order things happened in, across goroutines.
type events struct {
	mu   sync.Mutex
	list []string
}

func (e *events) add(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.list = append(e.list, s)
}

func (e *events) index(s string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Index(e.list, s)
}

func (e *events) all() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.list)
}

func (e *events) count(s string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, x := range e.list {
		if x == s {
			n++
		}
	}
	return n
}

// blockingFetcher is a cloud whose download lasts until the run is
// cancelled; quickFetcher is one that answers a snapshot at once.
type blockingFetcher struct {
	name    string
	ev      *events
	started chan struct{}
	once    sync.Once
}

func (f *blockingFetcher) Provider() string { return f.name }

func (f *blockingFetcher) Fetch(ctx context.Context, _ fetchers.Previous) (*pricewatch.Snapshot, error) {
	f.once.Do(func() { close(f.started) })
	<-ctx.Done()
	f.ev.add(f.name + " fetch ended")
	return nil, fmt.Errorf("downloading %s: %w", f.name, ctx.Err())
}

type quickFetcher struct {
	name string
	ev   *events
}

func (f *quickFetcher) Provider() string { return f.name }

func (f *quickFetcher) Fetch(context.Context, fetchers.Previous) (*pricewatch.Snapshot, error) {
	f.ev.add(f.name + " fetched")
	return &pricewatch.Snapshot{Provider: f.name, Coverage: []pricewatch.Scope{{Region: "r1"}}}, nil
}

// fakeAlerts records the dispatcher's life and the last delivery pass.
type fakeAlerts struct {
	name string
	ev   *events
}

func (a *fakeAlerts) RunDispatcher(ctx context.Context, _ *storage.DB, _ <-chan struct{}) error {
	a.ev.add(a.name + " dispatcher started")
	<-ctx.Done()
	a.ev.add(a.name + " dispatcher stopped")
	return nil
}

func (a *fakeAlerts) Deliver(_ context.Context, db *storage.DB, _ time.Duration, force bool) (alerting.Report, error) {
	// The database is still open for the last pass.
	if err := db.Ping(context.Background()); err != nil {
		a.ev.add(a.name + " deliver: database closed")
	}
	a.ev.add(fmt.Sprintf("%s deliver force=%v", a.name, force))
	return alerting.Report{}, nil
}

type fakeDigests struct {
	mu    sync.Mutex
	calls int
}

func (f *fakeDigests) QueueDigest(context.Context, *storage.DB, time.Time) (string, string, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	return "2026-W49", "digest/2026-W49/default", f.calls == 1, nil
}

func openDB(t *testing.T, path string) *storage.DB {
	t.Helper()
	db, err := storage.Open(context.Background(), path, storage.Options{BusyTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// withSettings is s with the settings a test daemon runs on: a loopback
// listener on any port, no digest, no maintenance.
func withSettings(s *Snapshot, source string) *Snapshot {
	c := *s
	c.Source, c.LogLevel = source, "info"
	c.HTTP = HTTP{Listen: "127.0.0.1:0", Loopback: true}
	return &c
}

// Issue 21 item 2: the daemon starts, reloads and stops without the
// binary, on fake jobs: the catch-up run of the first snapshot carries on
// through a reload while the second snapshot's schedule runs its own job;
// a config that cannot be built keeps the running one; Stop cancels the
// run in flight and waits for it, stops delivery, makes the last
// delivery pass on the open database, then stops the listener and closes
// the database — in that order — and nothing starts after it.
func TestStartReloadStop(t *testing.T) {
	ev := &events{}
	path := filepath.Join(t.TempDir(), "pw.db")
	alpha := &blockingFetcher{name: "alpha", ev: ev, started: make(chan struct{})}
	snaps := map[string]*Snapshot{
		"first": {Jobs: []Job{{Job: run.Job{Name: "alpha", Fetcher: alpha}, Schedule: "@hourly"}},
			Alerts: &fakeAlerts{name: "first", ev: ev}, Secrets: []string{"first-secret"}},
		"second": {Jobs: []Job{{Job: run.Job{Name: "beta", Fetcher: &quickFetcher{name: "beta", ev: ev}}, Schedule: "@every 1s"}},
			Alerts: &fakeAlerts{name: "second", ev: ev}, Secrets: []string{"second-secret"}},
	}
	build := func(source string) func() (*Snapshot, error) {
		return func() (*Snapshot, error) {
			s, ok := snaps[source]
			if !ok {
				return nil, errors.New("alert rule price-drops: unknown event")
			}
			return withSettings(s, source), nil
		}
	}
	core, logs := observer.New(zapcore.InfoLevel)
	secrets := secret.New()
	var levels []string
	d := New(Options{Build: build("first"), DB: openDB(t, path), Log: zap.New(core), Secrets: secrets,
		SetLogLevel: func(l string) error { levels = append(levels, l); return nil }, Version: "test"})
	if err := d.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-alpha.started // the catch-up run of alpha, which never succeeded
	var addr string
	wait.For(t, "the listener", 10*time.Second, func() bool {
		if l := logs.FilterMessage("http listening").All(); len(l) > 0 {
			addr = l[0].ContextMap()["addr"].(string)
		}
		return addr != ""
	})
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || body["ready"] != true {
		t.Errorf("/readyz while running: %d %v", resp.StatusCode, body)
	}

	if err := d.Reload(build("broken")); err == nil || d.state().Source != "first" {
		t.Fatalf("a config that does not build: %v, running %s", err, d.state().Source)
	}
	if err := d.Reload(build("second")); err != nil {
		t.Fatal(err)
	}
	wait.For(t, "the second snapshot's schedule to run and store beta", 10*time.Second, func() bool {
		last, err := d.db.LastSuccess(context.Background(), "beta")
		return err == nil && last != nil
	})
	wait.For(t, "the second snapshot's dispatcher", 10*time.Second, func() bool { return ev.index("second dispatcher started") >= 0 })
	if ev.index("first dispatcher stopped") < 0 || ev.index("alpha fetch ended") >= 0 {
		t.Errorf("after the reload: %v (the first dispatcher stops, alpha's run carries on)", ev.all())
	}
	if added := secrets.Values(); !slices.Equal(added, []string{"first-secret", "second-secret"}) || !slices.Equal(levels, []string{"info"}) {
		t.Errorf("secrets added %q, log levels %q", added, levels)
	}

	if err := d.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	ended, stopped, delivered := ev.index("alpha fetch ended"), ev.index("second dispatcher stopped"), ev.index("second deliver force=true")
	if ended < 0 || stopped < ended || delivered < stopped || ev.index("second deliver: database closed") >= 0 {
		t.Errorf("stop order %v: want alpha's run ended, then delivery stopped, then the last pass on the open database", ev.all())
	}
	if ev.count("first deliver force=true") != 0 {
		t.Errorf("the old snapshot delivered at stop: %v", ev.all())
	}
	if _, err := http.Get("http://" + addr + "/healthz"); err == nil {
		t.Error("the listener still answers after Stop")
	}
	if err := d.db.Ping(context.Background()); err == nil {
		t.Error("the database is still open after Stop")
	}
	// Nothing is counted in after Stop: no run, no digest.
	if d.startWork() {
		t.Error("a run could start after Stop")
	}
	logged := func(msg string) int {
		for i, e := range logs.All() {
			if e.Message == msg {
				return i
			}
		}
		return -1
	}
	if s, f, x := logged("stopping"), logged("fetch failed"), logged("stopped"); s < 0 || f < s || x < f {
		t.Errorf("log order: stopping %d, fetch failed %d, stopped %d", s, f, x)
	}

	db := openDB(t, path)
	defer db.Close()
	runs, err := db.LastRuns(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]pricewatch.Run{}
	for _, r := range runs {
		status[r.Provider] = r
	}
	if r := status["alpha"]; r.Status != pricewatch.RunFailed || !strings.Contains(r.Error, "context canceled") {
		t.Errorf("alpha's run recorded %s %q, want failed (cancelled)", r.Status, r.Error)
	}
	// beta ticks every second: its last run may be the one Stop cancelled,
	// but the one waited for above stayed stored.
	if last, err := db.LastSuccess(context.Background(), "beta"); err != nil || last == nil {
		t.Errorf("no stored run of beta (%v); its last run %s %q", err, status["beta"].Status, status["beta"].Error)
	}
}

// A listener that cannot be bound fails the start, naming the key, and
// no run starts: before, the daemon logged it and fetched on without its
// API and /metrics, and whoever held the port answered in its place.
func TestStartFailsOnATakenPort(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	ev := &events{}
	build := func() (*Snapshot, error) {
		s := withSettings(&Snapshot{Jobs: []Job{{Job: run.Job{Name: "beta", Fetcher: &quickFetcher{name: "beta", ev: ev}}, Schedule: "@every 1s"}},
			Alerts: &fakeAlerts{name: "only", ev: ev}}, "only")
		s.HTTP.Listen = held.Addr().String()
		return s, nil
	}
	d := New(Options{Build: build, DB: openDB(t, filepath.Join(t.TempDir(), "pw.db")), Log: zap.NewNop(), Secrets: secret.New(),
		SetLogLevel: func(string) error { return nil }, Version: "test"})
	err = d.Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), `http.listen "`+held.Addr().String()+`"`) {
		t.Fatalf("Start with the port taken: %v, want an error naming http.listen and the address", err)
	}
	// The schedule and the catch-up runs start after the listener.
	if d.health.ready.Load() || len(ev.all()) != 0 {
		t.Errorf("after a failed start: ready %v, events %v", d.health.ready.Load(), ev.all())
	}
}

// Issue 21 item 2: the digest trigger is counted as work, wakes the
// dispatcher on each trigger, and does nothing once Stop has begun.
func TestDigestTriggerNudges(t *testing.T) {
	db := openDB(t, filepath.Join(t.TempDir(), "pw.db"))
	defer db.Close()
	dg := &fakeDigests{}
	d := New(Options{DB: db, Log: zap.NewNop()})
	d.ctx, d.cancelRuns = context.WithCancel(context.Background())
	defer d.cancelRuns()
	st := &state{Snapshot: withSettings(&Snapshot{Digests: dg}, "first")}
	for i := 0; i < 2; i++ {
		d.runDigest(st)
		select {
		case <-d.nudge:
		default:
			t.Errorf("trigger %d did not nudge the dispatcher", i+1)
		}
	}
	d.mu.Lock()
	d.stopping = true
	d.mu.Unlock()
	d.runDigest(st)
	if dg.calls != 2 {
		t.Errorf("QueueDigest called %d times, want 2 (none after stopping)", dg.calls)
	}
}

// TestIsStale: a provider is due when its schedule fired since its last
// success.
func TestIsStale(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 30, 0, 0, time.UTC)
	for _, tt := range []struct {
		spec string
		last time.Time
		want bool
	}{
		{"", now.Add(-20 * time.Minute), false},
		{"", now.Add(-90 * time.Minute), true},
		{"0 6 * * *", now.Add(-3 * time.Hour), false},
		{"0 6 * * *", now.Add(-5 * time.Hour), true},
		{"not a schedule", now, true},
	} {
		if got := isStale(tt.spec, tt.last, now); got != tt.want {
			t.Errorf("isStale(%q, %s) = %v, want %v", tt.spec, tt.last, got, tt.want)
		}
	}
}
