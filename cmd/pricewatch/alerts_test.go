package main

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
)

const alertsToken = "xoxb-9999-8888-TopSecretBotToken"

// slackAPI is a fake Slack Web API: chat.postMessage, whose answers a
// test scripts ("" is ok, "500" an HTTP 500, "429" a rate limit with
// Retry-After: 1, anything else an ok:false error), and
// conversations.history, which returns what was posted with its message
// metadata as Slack does (see slackhistory_test.go). It serves the methods
// under /api/ or under a prefix naming the poster (/a/api/…), so that
// several replicas can share it and each post says whose it was. It
// dedupes nothing, so a duplicate post shows.
type slackAPI struct {
	*httptest.Server
	mu     sync.Mutex
	script []string
	posts  []slackPost
	// now stamps each post's ts (its Unix second, as Slack's ts is) and
	// what conversations.history can see; nil is time.Now.
	now func() time.Time
	// indexDelay is how long after Slack took a post it shows in
	// conversations.history: Slack indexes a message after answering.
	indexDelay time.Duration
	// hold, when set, is what the next post meets (see holdNext).
	hold    *slackHold
	lookups int // conversations.history calls
}

type slackPost struct {
	channel, text, key string
	// poster is the path prefix the post came under ("" for /api/).
	poster string
	// ts is what Slack answered; metadata what conversations.history
	// returns with include_all_metadata; at when Slack took the post.
	ts       string
	metadata json.RawMessage
	at       time.Time
}

// slackHold is a post that does not answer at once: it hangs until the
// poster gives up (delay 0) or answers after delay; takes says whether
// Slack keeps the message when the poster gives up (it took it, the
// answer was lost) or not (lost on the way).
type slackHold struct {
	takes bool
	delay time.Duration
	// held is told the poster; ended, when the post's request ended
	// unanswered (the poster gave up).
	held  chan string
	ended chan time.Time
}

// holdNext makes the next chat.postMessage a slackHold.
func (s *slackAPI) holdNext(takes bool, delay time.Duration) *slackHold {
	h := &slackHold{takes: takes, delay: delay, held: make(chan string, 1), ended: make(chan time.Time, 1)}
	s.mu.Lock()
	s.hold = h
	s.mu.Unlock()
	return h
}

func newSlackAPI(t *testing.T) *slackAPI {
	t.Helper()
	s := &slackAPI{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := strings.LastIndex(r.URL.Path, "/api/")
		if i < 0 || r.ParseForm() != nil {
			http.NotFound(w, r)
			return
		}
		poster, method := strings.Trim(r.URL.Path[:i], "/"), r.URL.Path[i+len("/api/"):]
		switch method {
		case "chat.postMessage":
			s.postMessage(w, r, poster)
		case "conversations.history":
			s.history(w, r)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *slackAPI) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now()
}

func (s *slackAPI) postMessage(w http.ResponseWriter, r *http.Request, poster string) {
	s.mu.Lock()
	answer := ""
	if len(s.script) > 0 {
		answer, s.script = s.script[0], s.script[1:]
	}
	if r.PostFormValue("token") != alertsToken {
		answer = "invalid_auth"
	}
	switch answer {
	case "":
	case "500":
		s.mu.Unlock()
		w.WriteHeader(http.StatusInternalServerError)
		return
	case "429":
		s.mu.Unlock()
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusTooManyRequests)
		return
	default:
		s.mu.Unlock()
		fmt.Fprintf(w, `{"ok":false,"error":%q}`, answer)
		return
	}
	var meta struct {
		EventPayload struct {
			DeliveryKey string `json:"delivery_key"`
		} `json:"event_payload"`
	}
	if m := r.PostFormValue("metadata"); m != "" && json.Unmarshal([]byte(m), &meta) != nil {
		s.mu.Unlock()
		fmt.Fprint(w, `{"ok":false,"error":"invalid_metadata_format"}`)
		return
	}
	now := s.clock()
	p := slackPost{channel: r.PostFormValue("channel"), text: r.PostFormValue("text"), key: meta.EventPayload.DeliveryKey, poster: poster,
		ts: fmt.Sprintf("%d.%06d", now.Unix(), len(s.posts)+1), metadata: json.RawMessage(r.PostFormValue("metadata")), at: now}
	h := s.hold
	s.hold = nil
	if h == nil || h.takes || h.delay > 0 {
		s.posts = append(s.posts, p)
	}
	s.mu.Unlock()
	if h != nil {
		h.held <- poster
		if h.delay == 0 {
			<-r.Context().Done()
			h.ended <- time.Now()
			return
		}
		select {
		case <-time.After(h.delay):
		case <-r.Context().Done():
			h.ended <- time.Now()
			return
		}
	}
	fmt.Fprintf(w, `{"ok":true,"channel":%q,"ts":%q}`, p.channel, p.ts)
}

// history answers conversations.history as Slack does for a bot token
// with channels:history: the channel's messages with a ts after oldest
// and before latest (inclusive=1 takes the bounds too), newest first,
// limit at a time (default 100, at most 999) with a next_cursor while
// more are left, and each message's metadata only when
// include_all_metadata is set. A post shows once Slack indexed it.
func (s *slackAPI) history(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	answer := func(v any) { _ = json.NewEncoder(w).Encode(v) }
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lookups++
	channel := r.PostFormValue("channel")
	switch {
	case r.PostFormValue("token") != alertsToken:
		answer(map[string]any{"ok": false, "error": "invalid_auth"})
		return
	case channel == "":
		answer(map[string]any{"ok": false, "error": "channel_not_found"})
		return
	}
	now := s.clock()
	inclusive := formBool(r.PostFormValue("inclusive"))
	oldest, latest := r.PostFormValue("oldest"), r.PostFormValue("latest")
	if latest == "" {
		latest = fmt.Sprintf("%d.%06d", now.Unix()+1, 0)
	}
	limit, err := strconv.Atoi(r.PostFormValue("limit"))
	if err != nil || limit <= 0 {
		limit = 100
	}
	limit = min(limit, 999)
	// The cursor is Slack's: base64 of "next_ts:" and the ts to go on
	// from (older than the last message returned).
	if c := r.PostFormValue("cursor"); c != "" {
		raw, err := base64.StdEncoding.DecodeString(c)
		next, ok := strings.CutPrefix(string(raw), "next_ts:")
		if err != nil || !ok {
			answer(map[string]any{"ok": false, "error": "invalid_cursor"})
			return
		}
		latest, inclusive = next, true
	}
	msgs := []map[string]any{}
	next := ""
	for i := len(s.posts) - 1; i >= 0; i-- {
		p := s.posts[i]
		if p.channel != channel || p.at.Add(s.indexDelay).After(now) {
			continue
		}
		if c := tsCompare(p.ts, latest); c > 0 || (c == 0 && !inclusive) {
			continue
		}
		if c := tsCompare(p.ts, oldest); oldest != "" && (c < 0 || (c == 0 && !inclusive)) {
			continue
		}
		if len(msgs) == limit {
			next = base64.StdEncoding.EncodeToString([]byte("next_ts:" + p.ts))
			break
		}
		m := map[string]any{"type": "message", "subtype": "bot_message", "text": p.text, "ts": p.ts, "bot_id": "B0PRICEWATCH", "app_id": "A0PRICEWATCH"}
		if formBool(r.PostFormValue("include_all_metadata")) && len(p.metadata) > 0 {
			m["metadata"] = p.metadata
		}
		msgs = append(msgs, m)
	}
	answer(map[string]any{"ok": true, "messages": msgs, "has_more": next != "", "pin_count": 0, "channel_actions_ts": nil, "channel_actions_count": 0,
		"response_metadata": map[string]any{"next_cursor": next}})
}

// formBool reads a Slack boolean argument: "1" or "true".
func formBool(v string) bool { return v == "1" || v == "true" }

// tsCompare orders two Slack timestamps ("1796030220.000001"): by the
// second, then by the fraction.
func tsCompare(a, b string) int {
	as, af, _ := strings.Cut(a, ".")
	bs, bf, _ := strings.Cut(b, ".")
	ai, _ := strconv.ParseInt(as, 10, 64)
	bi, _ := strconv.ParseInt(bs, 10, 64)
	if c := cmp.Compare(ai, bi); c != 0 {
		return c
	}
	af, bf = (af + "000000")[:6], (bf + "000000")[:6]
	return strings.Compare(af, bf)
}

func (s *slackAPI) received() []slackPost {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]slackPost(nil), s.posts...)
}

// alertsConfig writes a config for the fake Azure and the fake Slack with
// the example's price-drop rule.
func alertsConfig(t *testing.T, azureURL, slackURL, extra string) string {
	t.Helper()
	return writeConfig(t, t.TempDir(), azureURL, fakeSlackSection(slackURL, "C0GPUALERTS"), `alerts:
  fetch_delivery_wait: 2s
  rules:
    - name: price-drops
      events: [price_drop]
      gpu_models: [H100, H200, B200, A100]
      price_types: [on_demand, reserved, savings_plan]
      min_change_pct: 5
`, extra)
}

// loadApp sets up an app on the config as a command would.
func loadApp(t *testing.T, cfgPath string) (*app, *storage.DB) {
	t.Helper()
	var out, errOut strings.Builder
	a := newApp(&out, &errOut)
	a.configFlag = cfgPath
	if err := a.loadConfig(); err != nil {
		t.Fatal(err)
	}
	db, err := a.openDB(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.close)
	return a, db
}

// fetchOnce is one provider run with the alert outbox wired in, as
// `pricewatch fetch` does, followed by delivery.
func fetchOnce(t *testing.T, a *app, db *storage.DB) string {
	t.Helper()
	jobs, err := a.wiring().Jobs(nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := a.wiring().SaveOptions()
	if opts.Outbox, err = a.wiring().OutboxFunc(); err != nil {
		t.Fatal(err)
	}
	for _, job := range jobs {
		if sum := job.Run(context.Background(), db, opts, a.log); sum.Err != nil {
			t.Fatalf("%s: %v", job.Name, sum.Err)
		}
	}
	return a.deliverAfterFetch(context.Background(), db)
}

// slackPriceDrop wires alerts to a fake Slack and stores a first Azure
// run (it has nothing to deliver), then drops the fake's NC40ads H100
// 6.98 → 6.5 (−6.88%) and scripts Slack's answers to the next posts: the
// test's next fetchOnce meets both.
func slackPriceDrop(t *testing.T, script ...string) (*app, *storage.DB, *slackAPI) {
	t.Helper()
	t.Setenv(envSlackToken, alertsToken)
	az := newFakeAzure(t)
	slack := newSlackAPI(t)
	a, db := loadApp(t, alertsConfig(t, az.URL, slack.URL, ""))
	if line := fetchOnce(t, a, db); line != "" {
		t.Errorf("baseline run: %q, want nothing to deliver", line)
	}
	az.setH100(t, "6.98", "6.5")
	slack.mu.Lock()
	slack.script = script
	slack.mu.Unlock()
	return a, db, slack
}

// TestPriceDropReachesSlack: the fake Azure's H100 price falls 6.98 → 6.5
// (−6.88%); the run queues one message and the fetch delivers it, after
// Slack first answers 429 with Retry-After.
func TestPriceDropReachesSlack(t *testing.T) {
	a, db, slack := slackPriceDrop(t, "429")
	line := fetchOnce(t, a, db)
	if line != "alerts   1 sent" {
		t.Errorf("summary line %q", line)
	}
	got := slack.received()
	if len(got) != 1 || got[0].channel != "C0GPUALERTS" || !strings.Contains(got[0].text, "Standard_NC40ads_H100_v5 westus2 on-demand 6.98 → 6.50 USD/h (−6.88%)") {
		t.Fatalf("Slack received %+v", got)
	}
	if !strings.HasPrefix(got[0].key, "run/2/C0GPUALERTS/price-drops/price_drop") {
		t.Errorf("delivery key %q", got[0].key)
	}

	// `alerts list` shows it sent.
	out, errOut, code := runCLI(t, "--config", a.configFlag, "alerts", "list", "--format", "json")
	if code != 0 {
		t.Fatalf("alerts list: %d %s", code, errOut)
	}
	var rows []report.AlertRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Status != "sent" || rows[0].Attempts != 2 || !strings.HasPrefix(rows[0].Summary, "🔻 Price drop: 1 price on Azure") {
		t.Errorf("alerts list: %+v", rows)
	}
}

func TestAlertsListRetryDeliver(t *testing.T) {
	a, db, slack := slackPriceDrop(t, "not_in_channel")
	cfg := a.configFlag
	if line := fetchOnce(t, a, db); !strings.Contains(line, "1 failed") {
		t.Errorf("fetch line %q", line)
	}

	out, _, code := runCLI(t, "--config", cfg, "alerts", "list", "--failed")
	if code != 0 || !strings.Contains(out, "failed") || !strings.Contains(out, "invite the bot to C0GPUALERTS") {
		t.Errorf("alerts list --failed (%d):\n%s", code, out)
	}
	out, _, _ = runCLI(t, "--config", cfg, "alerts", "list", "--pending", "--format", "csv")
	if strings.Count(out, "\n") != 1 {
		t.Errorf("no pending alerts expected:\n%s", out)
	}
	if _, errOut, code := runCLI(t, "--config", cfg, "alerts", "retry"); code == 0 || !strings.Contains(errOut, "--failed") {
		t.Errorf("retry without IDs: %d %s", code, errOut)
	}
	if out, errOut, code := runCLI(t, "--config", cfg, "alerts", "retry", "--failed"); code != 0 || !strings.Contains(out, "requeued 1 alerts") {
		t.Fatalf("retry --failed: %d %s %s", code, out, errOut)
	}
	// The bot was invited: deliver sends it.
	out, errOut, code := runCLI(t, "--config", cfg, "alerts", "deliver")
	if code != 0 || strings.TrimSpace(out) != "alerts: 1 sent" {
		t.Fatalf("deliver: %d %q %s", code, out, errOut)
	}
	if len(slack.received()) != 1 {
		t.Errorf("Slack received %d", len(slack.received()))
	}
	if _, errOut, code := runCLI(t, "--config", cfg, "alerts", "retry", "1"); code == 0 || !strings.Contains(errOut, "already delivered") {
		t.Errorf("retrying a delivered alert: %d %s", code, errOut)
	}
	// Nothing left: deliver succeeds with nothing to do.
	if out, _, code := runCLI(t, "--config", cfg, "alerts", "deliver"); code != 0 || strings.TrimSpace(out) != "alerts: 0 sent" {
		t.Errorf("empty deliver: %d %q", code, out)
	}
}

func TestAlertsDeliverLeavesPendingWhenSlackIsDown(t *testing.T) {
	a, db, slack := slackPriceDrop(t, "500", "500", "500", "500", "500", "500")
	cfg := a.configFlag
	start := time.Now()
	line := fetchOnce(t, a, db)
	if !strings.Contains(line, "0 sent, 1 pending") {
		t.Errorf("fetch line %q", line)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("fetch waited %s for Slack; alerts.fetch_delivery_wait is 2s", took)
	}
	out, _, code := runCLI(t, "--config", cfg, "alerts", "deliver", "--wait", "0s")
	if code != 1 || !strings.Contains(out, "1 pending") {
		t.Errorf("deliver while Slack is down: %d %q", code, out)
	}
	slack.mu.Lock()
	slack.script = nil
	slack.mu.Unlock()
	// deliver ignores the back-off the failures left.
	if out, _, code := runCLI(t, "--config", cfg, "alerts", "deliver", "--wait", "0s"); code != 0 || !strings.Contains(out, "1 sent") {
		t.Errorf("deliver after recovery: %d %q", code, out)
	}
}

func TestAlertsTest(t *testing.T) {
	slack := newSlackAPI(t)
	slack.now = func() time.Time { return time.Unix(1796030220, 0) }
	cfg := alertsConfig(t, "http://127.0.0.1:1", slack.URL, "")

	t.Setenv(envSlackToken, alertsToken)
	out, errOut, code := runCLI(t, "--config", cfg, "alerts", "test")
	if code != 0 || !strings.Contains(out, "Slack accepted the test message via bot token (chat.postMessage): channel C0GPUALERTS, ts 1796030220.000001") {
		t.Fatalf("alerts test: %d %q %q", code, out, errOut)
	}
	slack.mu.Lock()
	slack.script = []string{"channel_not_found"}
	slack.mu.Unlock()
	out, errOut, code = runCLI(t, "--config", cfg, "alerts", "test", "--channel", "#nope")
	if code != 1 || !strings.Contains(errOut, "Slack said channel_not_found") || !strings.Contains(errOut, "fix: channel #nope was not found") {
		t.Errorf("refused test: %d %q %q", code, out, errOut)
	}
	for _, s := range []string{out, errOut} {
		if strings.Contains(s, alertsToken) {
			t.Errorf("token printed: %s", s)
		}
	}
	// A wrong token: Slack says invalid_auth; the token is not printed.
	t.Setenv(envSlackToken, "xoxb-wrong-but-still-secret")
	out, errOut, code = runCLI(t, "--config", cfg, "alerts", "test")
	if code != 1 || !strings.Contains(errOut, "invalid_auth") || strings.Contains(out+errOut, "still-secret") {
		t.Errorf("bad token: %d %q %q", code, out, errOut)
	}

	// Without Slack: a clear message, not a post.
	t.Setenv(envSlackToken, "")
	_, errOut, code = runCLI(t, "--config", cfg, "alerts", "test")
	if code != 1 || !strings.Contains(errOut, "slack is not configured") {
		t.Errorf("no Slack: %d %q", code, errOut)
	}
}

func TestAlertsTestWebhookAndTokenFile(t *testing.T) {
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/revoked") {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, "no_service")
			return
		}
		fmt.Fprint(w, "ok")
	}))
	defer hook.Close()
	t.Setenv(envSlackToken, "")
	cfg := alertsConfig(t, "http://127.0.0.1:1", "http://127.0.0.1:1", "")
	withHook := func(path string) string {
		b, _ := os.ReadFile(cfg)
		s := strings.Replace(string(b), "slack:\n", "slack:\n  webhook_url: "+hook.URL+"/services/T0/B0/"+path+"\n", 1)
		p := filepath.Join(t.TempDir(), "hook.yaml")
		os.WriteFile(p, []byte(s), 0o600)
		return p
	}
	out, errOut, code := runCLI(t, "--config", withHook("HookSecret"), "alerts", "test")
	if code != 0 || !strings.Contains(out, "via incoming webhook") {
		t.Errorf("webhook test: %d %q %q", code, out, errOut)
	}
	out, errOut, code = runCLI(t, "--config", withHook("HookSecret/revoked"), "alerts", "test")
	if code != 1 || !strings.Contains(errOut, "no_service") || !strings.Contains(errOut, "create a new webhook") || strings.Contains(out+errOut, "HookSecret") {
		t.Errorf("revoked webhook: %d %q %q", code, out, errOut)
	}

	// token_file, as systemd's LoadCredential= provides it.
	slack := newSlackAPI(t)
	credDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(credDir, "slack-token"), []byte(alertsToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CREDENTIALS_DIRECTORY", credDir)
	b, _ := os.ReadFile(alertsConfig(t, "http://127.0.0.1:1", slack.URL, ""))
	s := strings.Replace(string(b), "slack:\n", "slack:\n  token_file: slack-token\n", 1)
	p := filepath.Join(t.TempDir(), "file.yaml")
	os.WriteFile(p, []byte(s), 0o600)
	if out, errOut, code := runCLI(t, "--config", p, "alerts", "test"); code != 0 || !strings.Contains(out, "accepted") {
		t.Errorf("token_file: %d %q %q", code, out, errOut)
	}
}

func TestOutboxFuncNeedsAChannelWithAToken(t *testing.T) {
	t.Setenv(envSlackToken, alertsToken)
	cfg := alertsConfig(t, "http://127.0.0.1:1", "http://127.0.0.1:1", "")
	b, _ := os.ReadFile(cfg)
	os.WriteFile(cfg, []byte(strings.Replace(string(b), "  channel: C0GPUALERTS\n", "", 1)), 0o600)
	a, _ := loadApp(t, cfg)
	if _, err := a.wiring().OutboxFunc(); err == nil || !strings.Contains(err.Error(), "price-drops have no channel") {
		t.Errorf("err = %v", err)
	}
	// Through SaveOptions.Outbox the error fails the run: nothing stored
	// without its alert.
	if _, err := a.wiring().AlertOutbox()(&storage.Result{}); err == nil || !strings.Contains(err.Error(), "no channel") {
		t.Errorf("alertOutbox: err = %v", err)
	}
	// Without Slack the alerts go to the log: no channel needed.
	t.Setenv(envSlackToken, "")
	if fn, err := a.wiring().OutboxFunc(); err != nil || fn == nil {
		t.Errorf("without Slack: %v", err)
	}
}

func TestRunDispatcherDeliversUntilCancelled(t *testing.T) {
	t.Setenv(envSlackToken, alertsToken)
	az := newFakeAzure(t)
	slack := newSlackAPI(t)
	a, db := loadApp(t, alertsConfig(t, az.URL, slack.URL, ""))
	jobs, _ := a.wiring().Jobs(nil)
	opts := a.wiring().SaveOptions()
	opts.Outbox, _ = a.wiring().OutboxFunc()
	jobs[0].Run(context.Background(), db, opts, a.log)

	ctx, cancel := context.WithCancel(context.Background())
	nudge := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() { done <- a.wiring().RunDispatcher(ctx, db, nudge) }()
	az.setH100(t, "6.98", "6.5")
	jobs[0].Run(context.Background(), db, opts, a.log)
	nudge <- struct{}{}
	deadline := time.Now().Add(5 * time.Second)
	for len(slack.received()) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(slack.received()) != 1 {
		t.Fatalf("daemon delivered %d alerts, want 1", len(slack.received()))
	}
}
