package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/internal/testing/wait"
	"github.com/pricewatch/pricewatch/leader"
	"github.com/pricewatch/pricewatch/leader/leadertest"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/storage/storagetest"
)

// The HA fault matrix (issue 34, must show): three `pricewatch run` on one
// PostgreSQL schema, each reaching it through a TCP proxy of its own (a
// partition is that proxy forwarding nothing while it keeps the sockets
// open: PostgreSQL never learns the client is gone), one fake Azure, the
// general fake Slack (chat.postMessage and conversations.history with the
// posts' metadata, a post indexed a second after Slack took it) and a
// signed webhook receiver. Before each fault the H100 price moves (every
// move is one alert, to Slack and to the webhook); the fault hits the
// leader or a follower idle, in the middle of a fetch or of a Slack post.
// At the end every alert reached Slack and the webhook exactly once, the
// price intervals hold, no run is left running, and a provider waited for
// a partitioned leader's run at most 2 × ha.takeover.

type faultKind string

const (
	faultKill      faultKind = "SIGKILL"   // restarted at once
	faultStop      faultKind = "SIGSTOP"   // SIGCONT ha.takeover + 1 s later
	faultTerminate faultKind = "terminate" // pg_terminate_backend of every session
	faultPartition faultKind = "partition" // its proxy forwards nothing for ha.takeover + 1 s
	faultTerm      faultKind = "SIGTERM"   // a clean stop; restarted
)

type faultWhen string

const (
	whenIdle      faultWhen = "idle"
	whenFetch     faultWhen = "mid-fetch"       // its run waits on Azure's page 2
	whenPostLost  faultWhen = "mid-post, lost"  // its Slack post hangs; Slack never took it
	whenPostTaken faultWhen = "mid-post, taken" // its Slack post hangs; Slack took it, the answer is lost
	whenPostSlow  faultWhen = "mid-post, slow"  // its Slack post answers after 2 s
)

type faultRow struct {
	kind   faultKind
	leader bool // the leader, else a follower
	when   faultWhen
}

func (f faultRow) String() string {
	who := "follower"
	if f.leader {
		who = "leader"
	}
	return fmt.Sprintf("%s %s %s", f.kind, who, f.when)
}

// haFaults is the matrix. The first 20 (each kind four times, every
// moment) run by default; PRICEWATCH_HA_MATRIX=full runs all 24, which
// takes half a minute more.
var haFaults = []faultRow{
	{faultKill, true, whenFetch},
	{faultKill, true, whenPostLost},
	{faultKill, true, whenPostTaken},
	{faultStop, true, whenIdle},
	{faultTerminate, true, whenIdle},
	{faultPartition, true, whenFetch},
	{faultTerm, true, whenPostSlow},
	{faultKill, false, whenIdle},
	{faultStop, true, whenFetch},
	{faultTerminate, false, whenIdle},
	{faultTerm, true, whenPostLost},
	{faultPartition, false, whenIdle},
	{faultStop, true, whenPostTaken},
	{faultTerminate, true, whenFetch},
	{faultPartition, true, whenFetch},
	{faultPartition, true, whenPostLost},
	{faultTerm, true, whenFetch},
	{faultStop, false, whenIdle},
	{faultTerm, true, whenPostTaken},
	{faultTerminate, true, whenPostTaken},
	// PRICEWATCH_HA_MATRIX=full
	{faultKill, true, whenFetch},
	{faultKill, true, whenPostLost},
	{faultStop, true, whenPostLost},
	{faultKill, true, whenPostTaken},
}

// haMatrixDefault is how many of haFaults run without
// PRICEWATCH_HA_MATRIX=full: what fits CI's three minutes.
const haMatrixDefault = 20

// matrixAzure is the fake Azure in front of the replicas: each asks under
// its own prefix (/a/api/retail/prices, NextPageLink included), so every
// request says who made it, and stallNext holds the next request for page
// 2 (the H100 page) until the client gives up or the test lets it go.
type matrixAzure struct {
	*httptest.Server
	az *fakeAzure

	mu    sync.Mutex
	stall *azureStall
}

type azureStall struct {
	held    chan string   // told the replica whose request is held
	release chan struct{} // closed: the held request is answered
}

func newMatrixAzure(t *testing.T) *matrixAzure {
	t.Helper()
	m := &matrixAzure{az: newFakeAzure(t)}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		replica, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		if r.URL.Query().Get("$skip") == "1000" {
			m.mu.Lock()
			s := m.stall
			m.stall = nil
			m.mu.Unlock()
			if s != nil {
				s.held <- replica
				select {
				case <-r.Context().Done():
					return
				case <-s.release:
				}
			}
		}
		inner := r.Clone(r.Context())
		inner.URL.Path = "/" + rest
		rec := httptest.NewRecorder()
		m.az.serve(rec, inner)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(strings.ReplaceAll(rec.Body.String(), m.az.URL+"/api/", m.URL+"/"+replica+"/api/")))
	}))
	t.Cleanup(m.Close)
	return m
}

func (m *matrixAzure) stallNext() *azureStall {
	s := &azureStall{held: make(chan string, 1), release: make(chan struct{})}
	m.mu.Lock()
	m.stall = s
	m.mu.Unlock()
	return s
}

// matrixReplica is one replica of the matrix: its config, its proxy to
// PostgreSQL and the process now running it.
type matrixReplica struct {
	name  string
	cfg   string
	proxy *leadertest.Proxy
	proc  *replica
	// stopped: SIGSTOPped, not to be asked anything.
	stopped bool
}

type matrixWorld struct {
	bin   string
	dsn   string
	az    *matrixAzure
	slack *slackAPI
	hook  *webhookReceiver
	db    *storage.DB
	rs    []*matrixReplica
}

func (w *matrixWorld) start(t *testing.T, r *matrixReplica) {
	t.Helper()
	// startDaemon's cleanup logs each process's stderr if the test fails.
	r.proc = &replica{name: r.name, daemonProcess: startDaemon(t, w.bin, r.cfg, "PRICEWATCH_SLACK_TOKEN="+alertsToken)}
}

// roleOf is the replica's /readyz role, "" when it does not answer.
func (w *matrixWorld) roleOf(r *matrixReplica) string {
	if r.stopped {
		return ""
	}
	addr, ok := listenAddr(r.proc)
	if !ok {
		return ""
	}
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get("http://" + addr + "/readyz")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var body struct {
		Role string `json:"role"`
	}
	json.NewDecoder(resp.Body).Decode(&body)
	return body.Role
}

// listenAddr is the replica's listener from its log, if it logged it.
func listenAddr(r *replica) (string, bool) {
	for _, line := range strings.Split(r.stderr.String(), "\n") {
		var e struct {
			Msg  string `json:"msg"`
			Addr string `json:"addr"`
		}
		if json.Unmarshal([]byte(line), &e) == nil && e.Msg == "http listening" {
			return e.Addr, true
		}
	}
	return "", false
}

// leaders are the replicas that say they lead.
func (w *matrixWorld) leaders() []*matrixReplica {
	var out []*matrixReplica
	for _, r := range w.rs {
		if w.roleOf(r) == "leader" {
			out = append(out, r)
		}
	}
	return out
}

// settle waits until one replica leads and every alert of the moves so
// far is sent, both channels.
func (w *matrixWorld) settle(t *testing.T, moves int, within time.Duration) {
	t.Helper()
	ctx := context.Background()
	var why string
	deadline := time.Now().Add(within)
	for {
		why = ""
		if l := w.leaders(); len(l) != 1 {
			why = fmt.Sprintf("%d replicas lead", len(l))
		} else if msgs, err := w.db.ListOutbox(ctx, storage.OutboxFilter{}); err != nil {
			why = err.Error()
		} else {
			n := map[string]int{}
			for _, m := range msgs {
				if m.Status != storage.OutboxSent {
					why = fmt.Sprintf("%s is %s (%d attempts, %s)", m.DeliveryKey, m.Status, m.Attempts, m.LastError)
				}
				n[m.Channel]++
			}
			if why == "" && (n["C0ALERTS"] != moves || n["webhook"] != moves) {
				why = fmt.Sprintf("%d Slack and %d webhook messages queued for %d price moves", n["C0ALERTS"], n["webhook"], moves)
			}
		}
		if why == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not settled within %s: %s", within, why)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func newMatrixWorld(t *testing.T) *matrixWorld {
	t.Helper()
	if testing.Short() {
		t.Skip("starts three real daemons on PostgreSQL")
	}
	dsn := storagetest.PostgresDSN(t) // skips without PRICEWATCH_TEST_POSTGRES
	w := &matrixWorld{bin: buildBinary(t), dsn: dsn, az: newMatrixAzure(t), slack: newSlackAPI(t), hook: newWebhookReceiver(t)}
	// Slack shows a post in conversations.history a moment after it
	// answered; the dispatcher waits that out before it looks.
	w.slack.indexDelay = time.Second
	db, err := storage.OpenURL(context.Background(), dsn, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	w.db = db
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	secretFile := webhookSecretFile(t, dir)
	for _, name := range []string{"a", "b", "c"} {
		r := &matrixReplica{name: name, proxy: leadertest.NewProxy(t, u.Host)}
		r.cfg = writeReplicaConfig(t, filepath.Join(dir, name), name, r.proxy.Via(t, dsn), w.az.URL, w.slack.URL, fmt.Sprintf(`webhook:
  url: %s/hooks/pricewatch?token=t0ps3cret
  secret_file: %s
alerts:
  rules:
    - name: h100-moves
      events: [price_drop, price_rise]
      gpu_models: [H100]
      min_change_pct: 5
      webhook: true
`, w.hook.URL, secretFile))
		w.rs = append(w.rs, r)
	}
	return w
}

func TestHAFaultMatrix(t *testing.T) {
	faults := haFaults[:haMatrixDefault]
	if os.Getenv("PRICEWATCH_HA_MATRIX") == "full" {
		faults = haFaults
	}
	setup := time.Now()
	w := newMatrixWorld(t)
	began := time.Now()
	t.Logf("built and set up in %s", began.Sub(setup).Round(time.Second))
	for _, r := range w.rs {
		w.start(t, r)
	}
	t.Cleanup(func() {
		for _, r := range w.rs {
			if r.stopped {
				r.proc.cmd.Process.Signal(syscall.SIGCONT)
			}
		}
	})
	w.settle(t, 0, 60*time.Second)
	ctx := context.Background()
	// The prices the first move changes: a move before the first run
	// stores would be a new price, no alert.
	wait.For(t, "the baseline run", 30*time.Second, func() bool {
		runs, err := w.db.Runs(ctx, 10)
		return err == nil && slices.ContainsFunc(runs, func(r pricewatch.Run) bool { return r.Status == pricewatch.RunOK })
	})
	price := []string{"6.98", "6.5"}
	moves := 0
	var blocked []time.Duration
	for i, f := range faults {
		lead := w.leaders()[0]
		target := lead
		if !f.leader {
			for _, r := range w.rs {
				if r != lead {
					target = r
					break
				}
			}
		}
		// Arm the moment, then move the price: the move is this step's
		// alert.
		var stall *azureStall
		var hold *slackHold
		switch f.when {
		case whenFetch:
			stall = w.az.stallNext()
		case whenPostLost:
			hold = w.slack.holdNext(false, 0)
		case whenPostTaken:
			hold = w.slack.holdNext(true, 0)
		case whenPostSlow:
			hold = w.slack.holdNext(true, 2*time.Second)
		}
		w.az.az.setH100(t, price[moves%2], price[(moves+1)%2])
		moves++
		var by string
		select {
		case by = <-heldBy(stall, hold):
		case <-time.After(30 * time.Second):
			t.Fatalf("fault %d (%s): the moment never came", i+1, f)
		}
		if stall != nil || hold != nil {
			// The leader may have changed since it was asked: the
			// fault hits whoever is fetching or posting.
			for _, r := range w.rs {
				if r.name == by && f.leader {
					target = r
				}
			}
		}
		at := time.Now()
		switch f.kind {
		case faultKill:
			target.proc.cmd.Process.Signal(syscall.SIGKILL)
			<-target.proc.exited
			target.proc.exited <- nil
			w.start(t, target)
		case faultTerm:
			target.proc.stop(t, 30*time.Second)
			w.start(t, target)
		case faultStop:
			target.proc.cmd.Process.Signal(syscall.SIGSTOP)
			target.stopped = true
		case faultTerminate:
			leadertest.Terminate(t, w.dsn, leader.ApplicationName(target.name))
		case faultPartition:
			target.proxy.Block()
		}
		if stall != nil {
			close(stall.release)
		}
		switch f.kind {
		case faultStop:
			time.Sleep(haTakeover + time.Second)
			target.proc.cmd.Process.Signal(syscall.SIGCONT)
			target.stopped = false
		case faultPartition:
			time.Sleep(haTakeover + time.Second)
			target.proxy.Unblock()
		}
		w.settle(t, moves, 90*time.Second)
		if f.kind == faultPartition && f.leader {
			d := w.blockedFor(t, target.name, at)
			blocked = append(blocked, d)
			if d > 2*haTakeover {
				t.Errorf("fault %d (%s): azure waited %s for %s's cut-off run, want at most 2 × ha.takeover (%s)", i+1, f, d.Round(time.Millisecond), target.name, 2*haTakeover)
			}
		}
		t.Logf("fault %2d %-32s on %s (leader %s) at +%s; settled +%s", i+1, f, target.name, lead.name, at.Sub(began).Round(time.Second), time.Since(began).Round(time.Second))
	}

	// Every alert once on Slack and once on the webhook; nothing else.
	msgs, err := w.db.ListOutbox(ctx, storage.OutboxFilter{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, m := range msgs {
		want[m.DeliveryKey] = m.Channel
	}
	slackGot := map[string]int{}
	posters := map[string][]string{}
	for _, p := range w.slack.received() {
		slackGot[p.key]++
		posters[p.key] = append(posters[p.key], p.poster+" at "+p.at.Format("15:04:05.000"))
	}
	w.hook.mu.Lock()
	hookGot := map[string]int{}
	for _, h := range w.hook.accepted {
		hookGot[h.delivery]++
	}
	badSig := w.hook.badSig
	w.hook.mu.Unlock()
	var lost, dupSlack, dupHook, unknown int
	for key, ch := range want {
		got := slackGot[key]
		if ch == "webhook" {
			got = hookGot[key]
		}
		switch {
		case got == 0:
			lost++
			t.Errorf("%s (%s) never arrived", key, ch)
		case got > 1 && ch == "webhook":
			dupHook += got - 1
			t.Errorf("%s reached the webhook %d times", key, got)
		case got > 1:
			dupSlack += got - 1
			t.Errorf("%s reached Slack %d times: by %s", key, got, strings.Join(posters[key], ", "))
		}
	}
	for key := range slackGot {
		if want[key] != "C0ALERTS" {
			unknown++
			t.Errorf("Slack got %s, which is not in the outbox", key)
		}
	}
	for key := range hookGot {
		if want[key] != "webhook" {
			unknown++
			t.Errorf("the webhook got %s, which is not in the outbox", key)
		}
	}
	w.slack.mu.Lock()
	lookups := w.slack.lookups
	w.slack.mu.Unlock()
	if lookups == 0 {
		t.Error("no conversations.history lookup: the posts cut short were never looked for")
	}
	if badSig != 0 {
		t.Errorf("%d webhook requests without a valid signature", badSig)
	}
	bad, err := w.db.IntervalViolations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bad {
		t.Errorf("interval: %v", b)
	}
	runs, err := w.db.Runs(ctx, 100000)
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]int{}
	for _, r := range runs {
		status[r.Status]++
	}
	// A run still running now belongs to a live replica's current cycle;
	// wait for every replica's runs to close before counting them.
	wait.For(t, "no run left running", 30*time.Second, func() bool {
		runs, err := w.db.Runs(ctx, 100000)
		if err != nil {
			return false
		}
		old := 0
		for _, r := range runs {
			if r.Status == pricewatch.RunRunning && time.Since(r.StartedAt) > 2*haTakeover {
				old++
			}
		}
		return old == 0
	})
	w.hook.mu.Lock()
	hookRequests := w.hook.attempts
	w.hook.mu.Unlock()
	t.Logf("%d webhook requests for %d webhook messages", hookRequests, len(hookGot))
	t.Logf("%d faults in %s: %d price moves, %d Slack messages and %d webhook posts; lost %d, duplicated %d on Slack and %d on the webhook, %d unknown; %d broken intervals; runs %v; partitioned leader blocked azure %v (limit %s); %d conversations.history lookups",
		len(faults), time.Since(began).Round(time.Second), moves, len(w.slack.received()), len(hookGot), lost, dupSlack, dupHook, unknown, len(bad), status, blocked, 2*haTakeover, lookups)
}

// heldBy is told the replica the armed moment caught; with nothing armed,
// "" at once.
func heldBy(s *azureStall, h *slackHold) <-chan string {
	switch {
	case s != nil:
		return s.held
	case h != nil:
		return h.held
	}
	c := make(chan string, 1)
	c <- ""
	return c
}

// blockedFor is how long after cut azure went without a run stored by a
// replica other than the partitioned one: what its cut-off run blocked.
func (w *matrixWorld) blockedFor(t *testing.T, partitioned string, cut time.Time) time.Duration {
	t.Helper()
	runs, err := w.db.Runs(context.Background(), 100000)
	if err != nil {
		t.Fatal(err)
	}
	var first time.Time
	for _, r := range runs {
		if r.Provider == "azure" && r.Replica != partitioned && r.Status == pricewatch.RunOK && r.StartedAt.After(cut) && (first.IsZero() || r.StartedAt.Before(first)) {
			first = r.StartedAt
		}
	}
	if first.IsZero() {
		t.Errorf("no azure run stored after %s's partition", partitioned)
		return 0
	}
	return first.Sub(cut)
}
