package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/internal/testing/wait"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/storage/storagetest"
)

// TestE2EConcurrentFetchesUnderLockContention is the reproduction
// through the binary: three `pricewatch fetch` processes started 0.3 s
// apart while another process holds the write lock, against an Azure whose
// price moves with every listing, over several rounds. Runs of the provider
// never interleave (each either stores or is skipped naming the holder),
// and the stored history keeps its interval invariants.
func TestE2EConcurrentFetchesUnderLockContention(t *testing.T) {
	bin := shortSkipsBinary(t, "runs the binary")
	az := newFakeAzure(t)
	var listings atomic.Int64
	prices := []string{`"retailPrice": 32.77,`, `"retailPrice": 30.11,`, `"retailPrice": 34.02,`}
	// Each listing of page 1 moves the on-demand A100 price, slowly enough
	// that the fetches overlap.
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("$skip") == "" {
			n := listings.Add(1)
			cur := prices[(n-1)%3]
			az.setPrice(t, "1", cur, prices[n%3])
			time.Sleep(300 * time.Millisecond)
		}
		// The next page is ours too (pricewatch follows links only to the
		// configured origin).
		rec := httptest.NewRecorder()
		az.serve(rec, r)
		w.Header().Set("Content-Type", "application/json")
		w.Write(bytes.ReplaceAll(rec.Body.Bytes(), []byte(az.URL), []byte(srv.URL)))
	}))
	defer srv.Close()
	dir := t.TempDir()
	cfg := writeConfig(t, dir, srv.URL)
	replaceInFile(t, cfg, "database:\n", "database:\n  busy_timeout: 20s\n")
	replaceInFile(t, cfg, "fx:\n", "fetch:\n  lease_wait: 30s\nfx:\n")
	dbPath := filepath.Join(dir, "pw.db")
	if out, err := exec.Command(bin, "fetch", "--config", cfg).CombinedOutput(); err != nil {
		t.Fatalf("baseline fetch: %v\n%s", err, out)
	}

	for round := range 3 {
		release := storagetest.HoldWriteLock(t, dbPath)
		var wg sync.WaitGroup
		outs := make([]bytes.Buffer, 3)
		errs := make([]error, 3)
		for i := range 3 {
			wg.Go(func() {
				cmd := exec.Command(bin, "fetch", "--config", cfg)
				cmd.Stdout, cmd.Stderr = &outs[i], &outs[i]
				errs[i] = cmd.Run()
			})
			time.Sleep(300 * time.Millisecond)
		}
		time.Sleep(500 * time.Millisecond)
		release()
		wg.Wait()
		for i := range 3 {
			out := outs[i].String()
			if errs[i] != nil {
				t.Errorf("round %d fetch %d: %v\n%s", round, i, errs[i], out)
			}
			if !strings.Contains(out, "azure    ok") && !strings.Contains(out, "azure    skipped  another azure run") {
				t.Errorf("round %d fetch %d: neither stored nor skipped for the lease:\n%s", round, i, out)
			}
		}
	}

	db := openTestDB(t, dbPath)
	defer db.Close()
	bad, err := db.IntervalViolations(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bad {
		t.Error(b)
	}
	runs, err := db.Runs(context.Background(), 100)
	if err != nil {
		t.Fatal(err)
	}
	var last time.Time
	for i := len(runs) - 1; i >= 0; i-- {
		r := runs[i]
		switch r.Status {
		case pricewatch.RunOK:
			if !r.FinishedAt.After(last) {
				t.Errorf("run %d stored at %s, not after the run before it (%s)", r.ID, r.FinishedAt, last)
			}
			last = *r.FinishedAt
		case pricewatch.RunSkipped:
			if !strings.Contains(r.Error, "is still going") {
				t.Errorf("run %d skipped without saying why: %q", r.ID, r.Error)
			}
		default:
			t.Errorf("run %d: %s %s", r.ID, r.Status, r.Error)
		}
	}
}

func replaceInFile(t *testing.T, path, old, new string) {
	t.Helper()
	b := readFile(t, path)
	if !strings.Contains(b, old) {
		t.Fatalf("%s has no %q", path, old)
	}
	writeFile(t, path, strings.Replace(b, old, new, 1))
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestE2EDaemonDeliversOnceUnderLockContention is the duplicate-
// alert reproduction through the binary: the daemon delivers a backlog to
// a Slack that is slow to answer while another process holds the write
// lock for many busy timeouts. Every message arrives exactly once, and
// none is left pending or leased.
func TestE2EDaemonDeliversOnceUnderLockContention(t *testing.T) {
	bin := shortSkipsBinary(t, "starts a real daemon")
	az := newFakeAzure(t)
	slackAPI := newSlackAPI(t)
	var posts atomic.Int64
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posts.Add(1)
		time.Sleep(200 * time.Millisecond)
		slackAPI.Config.Handler.ServeHTTP(w, r)
	}))
	defer slow.Close()
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "pw.db")
	cfgPath := filepath.Join(dir, "pricewatch.yaml")
	writeFile(t, cfgPath, daemonConfig(dir, az.URL, slow.URL, "C0ALERTS", ""))
	replaceInFile(t, cfgPath, "database:\n", "database:\n  busy_timeout: 100ms\n")
	replaceInFile(t, cfgPath, `schedule: "@every 1s"`, `schedule: "@every 1h"`)

	// The backlog: messages queued by runs the daemon did not see.
	ctx := context.Background()
	db := openTestDB(t, dbPath)
	defer db.Close()
	const backlog = 8
	for i := range backlog {
		key := fmt.Sprintf("backlog/%d", i)
		payload := fmt.Sprintf(`{"text":"backlog %d","blocks":[],"metadata":{"event_type":"pricewatch_alert","event_payload":{"delivery_key":%q}}}`, i, key)
		if _, err := db.Enqueue(ctx, storage.OutboxMessage{DeliveryKey: key, Channel: "C0ALERTS", Kind: "price_drop", Payload: []byte(payload)}, nil); err != nil {
			t.Fatal(err)
		}
	}

	daemon := startDaemon(t, bin, cfgPath, "PRICEWATCH_SLACK_TOKEN="+alertsToken)

	// Once Slack is answering the first post, another process holds the
	// write lock for 30 busy timeouts.
	wait.For(t, "the first post", 30*time.Second, func() bool { return posts.Load() >= 1 })
	release := storagetest.HoldWriteLock(t, dbPath)
	time.Sleep(3 * time.Second)
	release()

	wait.For(t, "the whole backlog", 60*time.Second, func() bool {
		sent, err := db.ListOutbox(ctx, storage.OutboxFilter{Status: storage.OutboxSent})
		return err == nil && len(sent) == backlog
	})
	daemon.stop(t, 20*time.Second)

	keys := map[string]int{}
	for _, p := range slackAPI.received() {
		keys[p.key]++
	}
	for i := range backlog {
		if k := fmt.Sprintf("backlog/%d", i); keys[k] != 1 {
			t.Errorf("%s delivered %d times, want once", k, keys[k])
		}
	}
	msgs, err := db.ListOutbox(ctx, storage.OutboxFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if m.Status != storage.OutboxSent || m.LeaseUntil != nil {
			t.Errorf("%s: %s, lease %v; want sent, not leased", m.DeliveryKey, m.Status, m.LeaseUntil)
		}
	}
}

// TestE2EKilledFetchIsClosedByTheNextOne: a `pricewatch fetch` killed
// (SIGKILL) in the middle of its run leaves a 'running' record and its
// lease; the next `pricewatch fetch` takes the lease over at once (the
// process is gone), closes the dead run as abandoned and stores its own.
func TestE2EKilledFetchIsClosedByTheNextOne(t *testing.T) {
	bin := shortSkipsBinary(t, "runs the binary")
	az := newFakeAzure(t)
	var hang atomic.Bool
	hang.Store(true)
	requested := make(chan struct{}, 10)
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hang.Load() {
			requested <- struct{}{}
			<-r.Context().Done()
			return
		}
		rec := httptest.NewRecorder()
		az.serve(rec, r)
		w.Write(bytes.ReplaceAll(rec.Body.Bytes(), []byte(az.URL), []byte(srv.URL)))
	}))
	defer srv.Close()
	dir := t.TempDir()
	cfg := writeConfig(t, dir, srv.URL)

	first := exec.Command(bin, "fetch", "--config", cfg)
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-requested: // the run is recorded and fetching
	case <-time.After(30 * time.Second):
		first.Process.Kill()
		t.Fatal("the first fetch never asked Azure")
	}
	first.Process.Kill()
	first.Wait()

	hang.Store(false)
	start := time.Now()
	out, err := exec.Command(bin, "fetch", "--config", cfg).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "azure    ok") {
		t.Fatalf("fetch after the kill: %v\n%s", err, out)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("the second fetch took %s: it waited for the dead run's lease", took)
	}
	db := openTestDB(t, filepath.Join(dir, "pw.db"))
	defer db.Close()
	runs, err := db.Runs(context.Background(), 10)
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs %+v, %v", runs, err)
	}
	if runs[1].Status != pricewatch.RunAbandoned || runs[0].Status != pricewatch.RunOK {
		t.Errorf("runs: killed %s %q, next %s; want abandoned, ok", runs[1].Status, runs[1].Error, runs[0].Status)
	}
	bad, err := db.IntervalViolations(context.Background())
	if err != nil || len(bad) > 0 {
		t.Errorf("%v %v", bad, err)
	}
}
