package slack

import (
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/storage"
)

// killedMidPost starts a sender that takes the site's one queued message
// and posts it; Slack takes the message but the sender never hears back,
// as when it is SIGKILLed mid-post. It returns a function that lets the
// hung post finish and waits for the sender (after the test's checks).
func killedMidPost(t *testing.T, st *site) (release func()) {
	t.Helper()
	st.fake.mu.Lock()
	st.fake.hold = make(chan struct{})
	hold := st.fake.hold
	st.fake.mu.Unlock()
	dead := st.start(t)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, _ = dead.d.Deliver(t.Context(), time.Second, false)
	}()
	for deadline := time.Now().Add(5 * time.Second); len(st.fake.accepted()) == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first sender never posted")
		}
	}
	st.fake.mu.Lock()
	st.fake.hold = nil
	st.fake.mu.Unlock()
	return func() {
		close(hold)
		wg.Wait()
		dead.db.Close()
	}
}

// TestRetryAfterKillFindsEarlierPost: Issue 20 item 21: a sender killed
// mid-post held its channel for the 2-minute lease, and the retry posted
// the message again. The next sender takes the message over once the post
// timeout (and the few seconds to record it) has passed, finds the post
// in the channel's history by the delivery key in its metadata, and marks
// it sent without posting it twice.
func TestRetryAfterKillFindsEarlierPost(t *testing.T) {
	st := newSite(t)
	p := st.start(t)
	defer p.db.Close()
	p.run(t, azurePrices("98.32"))
	p.run(t, azurePrices("88.488")) // a 10% drop: one message for C0PRICES
	release := killedMidPost(t, st)
	defer release()

	st.clk.Advance(30*time.Second + 5*time.Second)
	rep, err := p.d.Deliver(t.Context(), time.Second, false)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sent != 1 || rep.Pending != 0 {
		t.Fatalf("35s after the kill: %+v; want the message taken over and done", rep)
	}
	posts := st.fake.accepted()
	if len(posts) != 1 {
		t.Fatalf("Slack got the message %d times, want once", len(posts))
	}
	st.fake.mu.Lock()
	lookups := st.fake.lookups
	st.fake.mu.Unlock()
	if lookups != 1 {
		t.Errorf("%d history lookups, want 1", lookups)
	}
	all, _ := p.db.ListOutbox(t.Context(), storage.OutboxFilter{})
	if len(all) != 1 || all[0].Status != storage.OutboxSent || all[0].DeliveryKey != posts[0].DeliveryKey {
		t.Errorf("outbox %+v", all)
	}
}

// TestRetryAfterKillWithoutHistoryScope: without channels:history Slack
// refuses the lookup; the message is posted again, at least once as
// before, and the token is not asked about history again.
func TestRetryAfterKillWithoutHistoryScope(t *testing.T) {
	st := newSite(t)
	st.fake.historyErr = "missing_scope"
	p := st.start(t)
	defer p.db.Close()
	p.run(t, azurePrices("98.32"))
	p.run(t, azurePrices("88.488"))
	release := killedMidPost(t, st)
	defer release()

	st.clk.Advance(35 * time.Second)
	rep, err := p.d.Deliver(t.Context(), time.Second, false)
	if err != nil || rep.Sent != 1 {
		t.Fatalf("%+v %v", rep, err)
	}
	if n := len(st.fake.accepted()); n != 2 {
		t.Errorf("Slack got the message %d times; without the scope, want it posted again (at least once)", n)
	}
}

// TestHistoryLookupMatchesTheKey: the lookup reads Slack's documented
// answer (testdata/conversations_history.json) and matches the delivery
// key only, not another bot's metadata or a message without any.
func TestHistoryLookupMatchesTheKey(t *testing.T) {
	raw, err := os.ReadFile("testdata/conversations_history.json")
	if err != nil {
		t.Fatal(err)
	}
	fake := newFakeSlack(t, testToken)
	var asked []string
	fake.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		asked = append(asked, r.URL.Path+" channel="+r.PostFormValue("channel")+" include_all_metadata="+r.PostFormValue("include_all_metadata")+" oldest="+r.PostFormValue("oldest"))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(raw)
	})
	n, err := New(Config{Token: testToken, APIURL: fake.apiURL()})
	if err != nil {
		t.Fatal(err)
	}
	queued := time.Unix(1796030200, 0)
	for _, tt := range []struct {
		key   string
		found bool
		ts    string
	}{
		{"run/4711/C0GPUALERTS/price-drops/price_drop", true, "1796030220.000200"},
		{"run/4712/C0GPUALERTS/price-drops/price_drop", false, ""},
		{"TK-2132", false, ""},
	} {
		rcpt, found, err := n.findPosted(t.Context(), "C0GPUALERTS", alerting.Delivery{Key: tt.key, QueuedAt: queued, OutcomeUnknown: true})
		if err != nil || found != tt.found || rcpt.Timestamp != tt.ts {
			t.Errorf("%s: %+v %v %v; want found %v at %q", tt.key, rcpt, found, err, tt.found, tt.ts)
		}
	}
	if want := "/proxy/api/conversations.history channel=C0GPUALERTS include_all_metadata=1 oldest=1796030140.000000"; len(asked) == 0 || asked[0] != want {
		t.Errorf("asked %q, want %q", asked, want)
	}
	// A message whose outcome is known is never looked up.
	if _, found, _ := n.findPosted(t.Context(), "C0GPUALERTS", alerting.Delivery{Key: "run/4711/C0GPUALERTS/price-drops/price_drop"}); found || len(asked) != 3 {
		t.Errorf("looked up a message of known outcome (%d lookups)", len(asked))
	}
}
