package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/internal/testing/wait"
	"github.com/pricewatch/pricewatch/leader/leadertest"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/storage/storagetest"
)

// haTakeover is the replicas' ha.takeover in these tests: beat every
// 1 s, step down after 2 s without one, take over from a heartbeat 4 s
// old. At 3 s (a 1 s step-down) a leader under CI's load (two replicas,
// PostgreSQL and the race detector on two cores) once stepped down on its
// own before posting, so the follower posted what the test meant the
// leader to: no duplicate, but not the case under test.
const haTakeover = 6 * time.Second

// haAzure is the fake Azure in front of two replicas: each replica's
// endpoint starts with its name (/a/api/retail/prices), NextPageLink
// included, so every request says which replica made it.
type haAzure struct {
	*httptest.Server
	az *fakeAzure

	mu   sync.Mutex
	reqs []haRequest
}

type haRequest struct {
	replica, page string
	at            time.Time
}

func newHAAzure(t *testing.T) *haAzure {
	t.Helper()
	h := &haAzure{az: newFakeAzure(t)}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		replica, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		page := "1"
		if r.URL.Query().Get("$skip") == "1000" {
			page = "2"
		}
		h.mu.Lock()
		h.reqs = append(h.reqs, haRequest{replica, page, time.Now()})
		h.mu.Unlock()
		inner := r.Clone(r.Context())
		inner.URL.Path = "/" + rest
		rec := httptest.NewRecorder()
		h.az.serve(rec, inner)
		body := bytes.ReplaceAll(rec.Body.Bytes(), []byte(h.az.URL+"/api/"), []byte(h.URL+"/"+replica+"/api/"))
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *haAzure) requests() []haRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]haRequest(nil), h.reqs...)
}

// replica is one `pricewatch run` of a replicated test.
type replica struct {
	name string
	*daemonProcess
}

// haWorld is two replicas' surroundings: the binary, one PostgreSQL
// schema, the fakes and a folder per replica.
type haWorld struct {
	bin   string
	dsn   string
	az    *haAzure
	slack *slackAPI
	db    *storage.DB
}

func newHAWorld(t *testing.T) *haWorld {
	t.Helper()
	if testing.Short() {
		t.Skip("starts two real daemons on PostgreSQL")
	}
	dsn := storagetest.PostgresDSN(t) // skips without PRICEWATCH_TEST_POSTGRES
	w := &haWorld{bin: buildBinary(t), dsn: dsn, az: newHAAzure(t), slack: newSlackAPI(t)}
	return w
}

// start starts replica name on the database at dsn (the world's, or a
// proxy's in front of it).
func (w *haWorld) start(t *testing.T, name, dsn string) *replica {
	t.Helper()
	cfg := writeReplicaConfig(t, filepath.Join(t.TempDir(), name), name, dsn, w.az.URL, w.slack.URL, `alerts:
  rules:
    - name: h100-drops
      events: [price_drop]
      gpu_models: [H100]
      min_change_pct: 5
`)
	return &replica{name: name, daemonProcess: startDaemon(t, w.bin, cfg, "PRICEWATCH_SLACK_TOKEN="+alertsToken)}
}

// writeReplicaConfig writes replica name's config into dir and returns
// its path: JSON logs at info, a listener on a free port, Azure through
// the fake at azURL every second and Slack at slackURL (each under
// /name, so that the fakes know whose call it was), the alerts YAML, ha
// naming the replica, and PostgreSQL at dsn.
func writeReplicaConfig(t *testing.T, dir, name, dsn, azURL, slackURL, alerts string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	yaml := testConfig{
		logLevel: "info",
		logJSON:  true,
		http:     "http:\n  listen: 127.0.0.1:0\n",
		clouds:   []cloud{azureCloud(azURL+"/"+name, "    schedule: \"@every 1s\"\n"+westus2)},
		slack:    fakeSlackSection(slackURL+"/"+name, "C0ALERTS"),
		alerts:   alerts,
		extra:    fmt.Sprintf("ha:\n  takeover: %s\n  replica: %s\n", haTakeover, name),
	}.yaml(dir)
	// The same config, on PostgreSQL: database.url instead of the path.
	yaml = strings.Replace(yaml, "database:\n  path: "+filepath.Join(dir, "pw.db")+"\n", "database:\n  url: "+dsn+"\n", 1)
	cfg := filepath.Join(dir, "pricewatch.yaml")
	writeFile(t, cfg, yaml)
	return cfg
}

// logged is when replica first logged msg (a prefix of the message), and
// whether it has.
func (r *replica) logged(msg string) (at time.Time, ok bool) {
	r.scanLog(func(line []byte) bool {
		var e struct {
			TS  string `json:"ts"`
			Msg string `json:"msg"`
		}
		if json.Unmarshal(line, &e) != nil || !strings.HasPrefix(e.Msg, msg) {
			return false
		}
		var err error
		at, err = time.Parse("2006-01-02T15:04:05.000Z0700", e.TS)
		ok = err == nil
		return ok
	})
	return at, ok
}

// scanLog calls found with each line the replica has logged so far, until
// it returns true.
func (r *replica) scanLog(found func(line []byte) bool) {
	sc := bufio.NewScanner(strings.NewReader(r.stderr.String()))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if found(sc.Bytes()) {
			return
		}
	}
}

func (r *replica) waitLogged(t *testing.T, msg string, within time.Duration) time.Time {
	t.Helper()
	var at time.Time
	wait.For(t, r.name+" to log "+msg, within, func() bool {
		var ok bool
		at, ok = r.logged(msg)
		return ok
	})
	return at
}

// addr is the replica's listener, from its log.
func (r *replica) addr(t *testing.T) string {
	t.Helper()
	var addr string
	wait.For(t, r.name+"'s listener", 20*time.Second, func() bool {
		r.scanLog(func(line []byte) bool {
			var e struct {
				Msg  string `json:"msg"`
				Addr string `json:"addr"`
			}
			if json.Unmarshal(line, &e) == nil && e.Msg == "http listening" {
				addr = e.Addr
			}
			return addr != ""
		})
		return addr != ""
	})
	return addr
}

// role is what the replica's /readyz and pricewatch_leader say.
func (r *replica) role(t *testing.T) (readyz string, gauge string) {
	t.Helper()
	base := "http://" + r.addr(t)
	resp, err := http.Get(base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Role string `json:"role"`
	}
	json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	resp, err = http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "pricewatch_leader "); ok {
			gauge = v
		}
	}
	return body.Role, gauge
}

// checkRoles wants leader to say leader and follower to say follower.
func checkRoles(t *testing.T, lead, follow *replica) {
	t.Helper()
	if role, g := lead.role(t); role != "leader" || g != "1" {
		t.Errorf("%s: /readyz role %q, pricewatch_leader %s; want leader, 1", lead.name, role, g)
	}
	if role, g := follow.role(t); role != "follower" || g != "0" {
		t.Errorf("%s: /readyz role %q, pricewatch_leader %s; want follower, 0", follow.name, role, g)
	}
}

// openDB opens the replicas' database as a third process would.
func (w *haWorld) openDB(t *testing.T) *storage.DB {
	t.Helper()
	if w.db == nil {
		db, err := storage.OpenURL(context.Background(), w.dsn, storage.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		w.db = db
	}
	return w.db
}

// okRuns counts the runs of replica that stored.
func (w *haWorld) okRuns(t *testing.T, replica string) int {
	t.Helper()
	runs, err := w.openDB(t).Runs(context.Background(), 10000)
	if err != nil {
		return 0
	}
	n := 0
	for _, r := range runs {
		if r.Status == pricewatch.RunOK && r.Replica == replica {
			n++
		}
	}
	return n
}

// checkOneFetcher wants every request to the fake Azure before switch to
// come from before and every one after it from after: one replica
// fetches per cycle, never two.
func checkOneFetcher(t *testing.T, reqs []haRequest, before, after string, switchAt time.Time) {
	t.Helper()
	var nb, na int
	for _, r := range reqs {
		switch {
		case r.replica == before && !r.at.After(switchAt):
			nb++
		case r.replica == after && r.at.After(switchAt):
			na++
		default:
			t.Errorf("%s fetched page %s at %s (the leader changed from %s to %s at %s)", r.replica, r.page,
				r.at.Format("15:04:05.000"), before, after, switchAt.Format("15:04:05.000"))
		}
	}
	if nb == 0 || na == 0 {
		t.Errorf("requests: %d by %s before the switch, %d by %s after it; want both", nb, before, na, after)
	}
}

// checkOnce wants key posted exactly once and nothing else posted twice.
func checkOnce(t *testing.T, posts []slackPost, key string) slackPost {
	t.Helper()
	seen := map[string]int{}
	var got slackPost
	for _, p := range posts {
		seen[p.key]++
		if p.key == key {
			got = p
		}
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("message %s posted %d times", k, n)
		}
	}
	if seen[key] != 1 {
		t.Errorf("the H100 drop (%s) reached Slack %d times, want once; posts %+v", key, seen[key], posts)
	}
	return got
}

// dropKey waits for the H100 drop's message in the outbox and returns its
// delivery key.
func (w *haWorld) dropKey(t *testing.T) string {
	t.Helper()
	var key string
	wait.For(t, "the H100 drop queued", 30*time.Second, func() bool {
		msgs, err := w.openDB(t).ListOutbox(context.Background(), storage.OutboxFilter{})
		if err != nil {
			return false
		}
		for _, m := range msgs {
			if strings.Contains(m.DeliveryKey, "h100-drops") {
				key = m.DeliveryKey
				return true
			}
		}
		return false
	})
	return key
}

// Issue 24 (must show): two `pricewatch run` on one PostgreSQL database;
// the leader is SIGKILLed between the run that saw an H100 price drop and
// the drop's delivery (its post to Slack hangs: lost, or taken with the
// answer lost). The other replica leads within ha.takeover and the drop
// reaches Slack exactly once; the fake Azure saw one replica fetch per
// cycle, never two.
func TestHAFailoverSIGKILL(t *testing.T) {
	for _, c := range []struct {
		name  string
		takes bool // Slack took the hung post
	}{
		{"post lost", false},
		{"post taken, answer lost", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			w := newHAWorld(t)
			a := w.start(t, "a", w.dsn)
			a.waitLogged(t, "leading", 20*time.Second)
			b := w.start(t, "b", w.dsn)
			b.waitLogged(t, "pricewatch running", 20*time.Second)
			wait.For(t, "a's baseline runs", 30*time.Second, func() bool { return w.okRuns(t, "a") >= 2 })
			checkRoles(t, a, b)

			hold := w.slack.holdNext(c.takes, 0)
			w.az.az.setH100(t, "6.98", "6.5")
			key := w.dropKey(t)
			var poster string
			select {
			case poster = <-hold.held:
			case <-time.After(30 * time.Second):
				t.Fatal("the drop was never posted")
			}
			if poster != "a" {
				t.Fatalf("the drop was posted by %s, want the leader a", poster)
			}
			a.cmd.Process.Signal(syscall.SIGKILL)
			killed := time.Now()
			<-a.exited
			a.exited <- nil

			led := b.waitLogged(t, "leading", 2*haTakeover)
			if d := led.Sub(killed); d > haTakeover {
				t.Errorf("b led %s after a was killed, want within ha.takeover (%s)", d, haTakeover)
			}
			t.Logf("b led %s after a was killed", led.Sub(killed).Round(time.Millisecond))
			// The hung post's claim lapses (post timeout and 5 s), b looks
			// in the channel's history and posts only what is not there.
			wait.For(t, "the drop delivered", 60*time.Second, func() bool {
				m, err := w.openDB(t).OutboxByKey(context.Background(), key)
				return err == nil && m.Status == storage.OutboxSent
			})
			wait.For(t, "b's runs", 20*time.Second, func() bool { return w.okRuns(t, "b") >= 2 })
			got := checkOnce(t, w.slack.received(), key)
			if want := map[bool]string{false: "b", true: "a"}[c.takes]; got.poster != want {
				t.Errorf("the drop reached Slack through %s, want %s", got.poster, want)
			}
			if !strings.Contains(got.text, "Standard_NC40ads_H100_v5") {
				t.Errorf("the drop's text %q does not name the H100 size", got.text)
			}
			checkOneFetcher(t, w.az.requests(), "a", "b", killed)
			if role, g := b.role(t); role != "leader" || g != "1" {
				t.Errorf("b after the takeover: role %q, pricewatch_leader %s", role, g)
			}
			// pricewatch runs names the replica of each provider's last run.
			out, errOut, code := runCLI(t, "--config", b.cmd.Args[3], "runs", "--format", "json")
			if code != 0 || !strings.Contains(out, `"replica": "b"`) {
				t.Errorf("pricewatch runs: exit %d %s%s, want azure's last run by b", code, out, errOut)
			}
			b.stop(t, 20*time.Second)
		})
	}
}

// Issue 24 (must show): the partition. The leader reaches the database
// through a TCP proxy that stops forwarding but keeps the sockets open, so
// PostgreSQL never frees its lock; its post of the H100 drop hangs. It
// steps down before the other replica leads, its hung post ends within
// its claim (ha.takeover, issue 34 item 8), the other replica terminates
// its sessions and posts the drop once; nothing is posted twice, nothing
// is lost, the provider waits at most 2 × ha.takeover for a cut-off run's
// lease (issue 34 item 9), and when the network heals the old leader
// follows, having closed every run record it started.
func TestHAPartition(t *testing.T) {
	t.Parallel()
	w := newHAWorld(t)
	u, err := url.Parse(w.dsn)
	if err != nil {
		t.Fatal(err)
	}
	proxy := leadertest.NewProxy(t, u.Host)
	a := w.start(t, "a", proxy.Via(t, w.dsn))
	a.waitLogged(t, "leading", 20*time.Second)
	b := w.start(t, "b", w.dsn)
	b.waitLogged(t, "pricewatch running", 20*time.Second)
	wait.For(t, "a's baseline runs", 30*time.Second, func() bool { return w.okRuns(t, "a") >= 2 })
	checkRoles(t, a, b)

	hold := w.slack.holdNext(false, 0)
	w.az.az.setH100(t, "6.98", "6.5")
	key := w.dropKey(t)
	select {
	case poster := <-hold.held:
		if poster != "a" {
			t.Fatalf("the drop was posted by %s, want the leader a", poster)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the drop was never posted")
	}
	cut := time.Now()
	proxy.Block()

	down := a.waitLogged(t, "leader election: stepped down", 2*haTakeover)
	led := b.waitLogged(t, "leading", 3*haTakeover)
	if !down.Before(led) {
		t.Errorf("a stepped down at %s, b led at %s: a must step down first", down.Format("15:04:05.000"), led.Format("15:04:05.000"))
	}
	if d := led.Sub(cut); d > haTakeover+time.Second {
		t.Errorf("b led %s after the cut, want within ha.takeover (%s) and a poll", d, haTakeover)
	}
	t.Logf("a stepped down %s after the cut, b led %s after it", down.Sub(cut).Round(time.Millisecond), led.Sub(cut).Round(time.Millisecond))

	wait.For(t, "the drop delivered by b", 60*time.Second, func() bool {
		m, err := w.openDB(t).OutboxByKey(context.Background(), key)
		return err == nil && m.Status == storage.OutboxSent
	})
	got := checkOnce(t, w.slack.received(), key)
	if got.poster != "b" || !got.at.After(down) {
		t.Errorf("the drop reached Slack through %s at %s (a stepped down at %s), want b, after", got.poster, got.at.Format("15:04:05.000"), down.Format("15:04:05.000"))
	}
	// The old leader's post, finished rather than cancelled at its
	// step-down, ended within its claim: before b could post.
	var cancelled time.Time
	select {
	case cancelled = <-hold.ended:
	default:
	}
	if cancelled.IsZero() || !cancelled.Before(got.at) {
		t.Errorf("a's hung post ended at %v, b posted at %s: the old leader's post must end within its claim", cancelled, got.at.Format("15:04:05.000"))
	}

	// The network heals: a reconnects and follows; b keeps leading and
	// fetching, and nothing is posted again.
	proxy.Unblock()
	// A run of a's cut off mid-way leaves its provider lease behind; a
	// lives on, so b waits out the lease, which lapses ha.takeover after
	// its last renewal (it was 2 minutes).
	wait.For(t, "b's runs", 60*time.Second, func() bool { return w.okRuns(t, "b") >= 2 })
	time.Sleep(2 * haTakeover)
	runs, err := w.openDB(t).Runs(context.Background(), 10000)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if r.Replica == "a" && (r.Status == pricewatch.RunRunning || r.Status == pricewatch.RunAbandoned) {
			t.Errorf("a's run %d of %s is %s (%s): a replica that loses leadership closes the runs it started", r.ID, r.Provider, r.Status, r.Error)
		}
	}
	var first *pricewatch.Run
	for i := range runs {
		// A skipped run gave way to the lease: the first that held it
		// says how long the provider was blocked.
		if r := &runs[i]; r.Replica == "b" && r.Status == pricewatch.RunOK && r.StartedAt.After(cut) && (first == nil || r.StartedAt.Before(first.StartedAt)) {
			first = r
		}
	}
	if first == nil || first.StartedAt.Sub(cut) > 2*haTakeover {
		t.Errorf("b's first run after the cut: %+v; want one within 2 × ha.takeover (%s) of the cut", first, 2*haTakeover)
	} else {
		t.Logf("b's first run (%s) started %s after the cut", first.Provider, first.StartedAt.Sub(cut).Round(time.Millisecond))
	}
	checkRoles(t, b, a)
	checkOneFetcher(t, w.az.requests(), "a", "b", down)
	checkOnce(t, w.slack.received(), key)
	pending, err := w.openDB(t).ListOutbox(context.Background(), storage.OutboxFilter{Status: storage.OutboxPending})
	if err != nil || len(pending) != 0 {
		t.Errorf("pending after the partition: %d, %v; want none", len(pending), err)
	}
	b.stop(t, 20*time.Second)
	a.stop(t, 20*time.Second)
}
