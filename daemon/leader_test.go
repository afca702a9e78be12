package daemon

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/pricewatch/pricewatch/internal/testing/wait"
	"github.com/pricewatch/pricewatch/run"
	"github.com/pricewatch/pricewatch/web"
)

// fakeElector grants and revokes leadership when the test says so, as
// package leader's Postgres would on winning and losing the lock.
type fakeElector struct {
	grant    chan struct{}
	revoke   chan struct{}
	returned chan struct{} // lead returned (the step-down finished)
}

func (e *fakeElector) Run(ctx context.Context, lead func(context.Context)) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-e.grant:
		}
		lctx, cancel := context.WithCancel(ctx)
		go func() {
			select {
			case <-e.revoke:
			case <-lctx.Done():
			}
			cancel()
		}()
		lead(lctx)
		cancel()
		e.returned <- struct{}{}
	}
}

// Issue 24 item 3: a follower schedules but runs nothing and delivers
// nothing; elected, it catches up and delivers; stepping down cancels its
// run in flight and stops its delivery before lead returns (before the
// elector lets go of the lock). /readyz and pricewatch_leader follow.
func TestFollowerLeadsOnlyWhenElected(t *testing.T) {
	ev := &events{}
	alpha := &blockingFetcher{name: "alpha", ev: ev, started: make(chan struct{})}
	snap := &Snapshot{Jobs: []Job{{Job: run.Job{Name: "alpha", Fetcher: alpha}, Schedule: "@every 1s"}}, Alerts: &fakeAlerts{name: "s", ev: ev}}
	build := func() (*Snapshot, error) { return withSettings(snap, "first"), nil }
	el := &fakeElector{grant: make(chan struct{}), revoke: make(chan struct{}), returned: make(chan struct{}, 1)}
	core, _ := observer.New(zapcore.InfoLevel)
	d := New(Options{Build: build, DB: openDB(t, filepath.Join(t.TempDir(), "pw.db")), Log: zap.New(core),
		Elect: func() (Elector, error) { return el, nil }})
	if err := d.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	role := func() string {
		rd, err := d.readiness(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return rd.Role
	}

	// Following: ticks come (every second) but no run starts, no
	// dispatcher.
	wait.For(t, "the scheduler's heartbeat", 10*time.Second, func() bool { return d.health.heartbeat.Load() != 0 })
	if d.startWork() {
		t.Error("a follower counted a run in")
	}
	if got := role(); got != web.RoleFollower {
		t.Errorf("/readyz role %q while following", got)
	}
	if ev.index("s dispatcher started") >= 0 {
		t.Errorf("a follower delivers: %v", ev.all())
	}

	// Elected: the catch-up run starts, the dispatcher runs.
	el.grant <- struct{}{}
	<-alpha.started
	wait.For(t, "the dispatcher", 10*time.Second, func() bool { return ev.index("s dispatcher started") >= 0 })
	if got := role(); got != web.RoleLeader {
		t.Errorf("/readyz role %q while leading", got)
	}

	// Stepping down: by the time lead returns, the run has ended and the
	// dispatcher has stopped.
	el.revoke <- struct{}{}
	<-el.returned
	if ev.index("alpha fetch ended") < 0 || ev.index("s dispatcher stopped") < 0 {
		t.Errorf("lead returned before its work stopped: %v", ev.all())
	}
	if got := role(); got != web.RoleFollower {
		t.Errorf("/readyz role %q after stepping down", got)
	}
	if d.startWork() {
		t.Error("a run was counted in after stepping down")
	}
	if err := d.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if ev.count("s deliver force=true") != 0 {
		t.Errorf("a follower made the last delivery pass at stop: %v", ev.all())
	}
}
