package main

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch"
	pwdaemon "github.com/pricewatch/pricewatch/daemon"

	"github.com/pricewatch/pricewatch/internal/testing/wait"
	"github.com/pricewatch/pricewatch/storage"
)

// TestDaemonStopAfterReloadDuringRun: a provider run hangs (a long AWS-like
// download), SIGHUP reloads the config under it, then SIGTERM. The run
// started by the old snapshot is cancelled and waited for: it ends recorded
// as failed (cancelled) within the stop timeout, not left running for the
// next start to call abandoned; the alert Slack refused before the signal is
// tried again on the way out and delivered; the database is closed last.
// stopGrace is the daemon's stop timeout.
const stopGrace = pwdaemon.StopGrace

func TestDaemonStopAfterReloadDuringRun(t *testing.T) {
	w := newDaemonWorld(t)
	bin, az, slack, dir, cfgPath := w.bin, w.az, w.slack, w.dir, w.cfgPath
	w.writeConfig(t, "C0ALERTS")
	ctx := context.Background()
	db := openTestDB(t, filepath.Join(dir, "pw.db"))
	defer db.Close()
	runs := func() []pricewatch.Run {
		rs, err := db.Runs(ctx, 1000)
		if err != nil {
			return nil
		}
		return rs
	}
	okRuns := func() int {
		n := 0
		for _, r := range runs() {
			if r.Status == pricewatch.RunOK {
				n++
			}
		}
		return n
	}

	daemon := startDaemon(t, bin, cfgPath, "PRICEWATCH_SLACK_TOKEN="+alertsToken)
	wait.For(t, "the baseline run", 30*time.Second, func() bool { return okRuns() >= 2 })

	// Slack goes down; a price drops, and its alert is queued and refused.
	const refusals = 10000
	slack.mu.Lock()
	slack.script = make([]string, refusals)
	for i := range slack.script {
		slack.script[i] = "500"
	}
	slack.mu.Unlock()
	az.setPrice(t, "1", `"retailPrice": 32.77,`, `"retailPrice": 29.0,`)
	az.setPrice(t, "1", `"unitPrice": 32.77,`, `"unitPrice": 29.0,`)
	wait.For(t, "the drop's alert to be refused", 30*time.Second, func() bool {
		slack.mu.Lock()
		defer slack.mu.Unlock()
		return len(slack.script) < refusals
	})

	// The next run hangs on its first request.
	az.mu.Lock()
	az.stall = true
	az.mu.Unlock()
	wait.For(t, "a run to hang", 20*time.Second, func() bool {
		az.mu.Lock()
		defer az.mu.Unlock()
		return az.stalled > 0
	})
	var hung pricewatch.Run
	for _, r := range runs() {
		if r.Status == pricewatch.RunRunning {
			hung = r
		}
	}
	if hung.ID == 0 {
		t.Fatal("no run is running while Azure hangs")
	}

	// SIGHUP under the run: a new snapshot (alerts to another channel).
	w.writeConfig(t, "C0NEWCHAN")
	daemon.cmd.Process.Signal(syscall.SIGHUP)
	wait.For(t, "the reload", 10*time.Second, func() bool { return strings.Contains(daemon.stderr.String(), "config reloaded") })

	// Slack recovers just as the daemon is told to stop.
	slack.mu.Lock()
	slack.script = nil
	slack.mu.Unlock()
	if took := daemon.stop(t, stopGrace+10*time.Second); took > stopGrace {
		t.Errorf("stopping took %s, more than the stop timeout %s", took, stopGrace)
	}

	// The hung run ended as failed by cancellation, recorded by the daemon.
	var got pricewatch.Run
	for _, r := range runs() {
		if r.ID == hung.ID {
			got = r
		}
		if r.Status == pricewatch.RunRunning {
			t.Errorf("run %d of %s left running", r.ID, r.Provider)
		}
	}
	if got.Status != pricewatch.RunFailed || !strings.Contains(got.Error, "context canceled") {
		t.Errorf("the run hung at SIGTERM ended %q with %q, want failed by cancellation", got.Status, got.Error)
	}
	// The refused alert was tried again on the way out and delivered once.
	posts := slack.received()
	if len(posts) != 1 || !strings.Contains(posts[0].text, "Standard_ND96amsr_A100_v4") {
		t.Errorf("Slack got %+v, want the ND96amsr drop once", posts)
	}
	pending, err := db.ListOutbox(ctx, storage.OutboxFilter{Status: "pending"})
	if err != nil {
		t.Fatal(err)
	}
	if len(pending) != 0 {
		t.Errorf("%d messages still pending after the daemon stopped", len(pending))
	}
	// The stop order as the log tells it.
	log := daemon.stderr.String()
	for _, pair := range [][2]string{
		{`"stopping"`, `"fetch failed"`},
		{`"fetch failed"`, `"alerts delivered"`},
		{`"alerts delivered"`, `"stopped"`},
	} {
		a, b := strings.Index(log, pair[0]), strings.LastIndex(log, pair[1])
		if a < 0 || b < 0 || a > b {
			t.Errorf("log: want %s before %s", pair[0], pair[1])
		}
	}

	// The next start finds nothing abandoned.
	az.mu.Lock()
	az.stall = false
	az.mu.Unlock()
	again := startDaemon(t, bin, cfgPath, "PRICEWATCH_SLACK_TOKEN="+alertsToken)
	wait.For(t, "a run after the restart", 30*time.Second, func() bool { return okRuns() >= 4 })
	again.stop(t, stopGrace+10*time.Second)
	for _, r := range runs() {
		if r.Status == pricewatch.RunAbandoned {
			t.Errorf("run %d of %s was found abandoned at the next start: %s", r.ID, r.Provider, r.Error)
		}
	}
}
