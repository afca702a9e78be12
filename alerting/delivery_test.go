package alerting_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/alerting/alertingtest"
	"github.com/pricewatch/pricewatch/alerting/outboxstore"
)

// deliveryNotifier fails each post with the next scripted error and
// records the Delivery each attempt was told.
type deliveryNotifier struct {
	mu     sync.Mutex
	script map[string][]error // per channel
	seen   []alerting.Delivery
}

func (n *deliveryNotifier) Post(ctx context.Context, channel string, _ []byte) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	d, _ := alerting.DeliveryOf(ctx)
	n.seen = append(n.seen, d)
	s := n.script[channel]
	if len(s) == 0 {
		return nil
	}
	n.script[channel] = s[1:]
	return s[0]
}

// TestOutcomeUnknownTold: Issue 20 item 21: the notifier learns the
// message's delivery key, and whether an earlier attempt may have reached
// the service: after a timed-out post, and on every attempt after that
// until it is delivered; not after an answer that says it was refused
// (a rate limit). An abandoned claim counts too (TestAbandonedClaim...).
func TestOutcomeUnknownTold(t *testing.T) {
	clk := newClock()
	db := alertingtest.OpenDB(t, "", clk)
	queue(t, db, "#a:one", "#b:two")
	timeout := errors.New("chat.postMessage to #a: timed out: context deadline exceeded")
	n := &deliveryNotifier{script: map[string][]error{
		"#a": {timeout, errors.New("Slack answered HTTP 503")},
		"#b": {alerting.RetryAfter(errors.New("rate limit"), time.Second)},
	}}
	d := outboxstore.NewDispatcher(db, n, nil, alerting.DispatcherOptions{Sleep: clk.Sleep, ChannelInterval: -1})
	rep, err := d.Deliver(t.Context(), time.Hour, false)
	if err != nil || rep.Sent != 2 {
		t.Fatalf("%+v %v", rep, err)
	}
	got := map[string][]string{}
	for _, s := range n.seen {
		got[s.Key] = append(got[s.Key], fmt.Sprint(s.OutcomeUnknown))
	}
	want := map[string][]string{"#a:one": {"false", "true", "true"}, "#b:two": {"false", "false"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("attempts were told\n %v\nwant\n %v", got, want)
	}
	for _, s := range n.seen {
		if s.QueuedAt.IsZero() {
			t.Errorf("no queue time: %+v", s)
		}
	}
}

// TestAbandonedClaimTakenOverAfterPostTimeout: Issue 20 item 21: a sender
// that died mid-post held the channel for 2 minutes. Its claim now runs
// out with the post timeout and the seconds to record it (35s by
// default), and the next attempt is told its outcome is unknown.
func TestAbandonedClaimTakenOverAfterPostTimeout(t *testing.T) {
	clk := newClock()
	db := alertingtest.OpenDB(t, "", clk)
	queue(t, db, "#a:one")
	clk.Advance(time.Second)
	// The dying sender: a dispatcher with the default options claims the
	// message; its post never returns an outcome (SIGKILL), so only the
	// claim is left in the database.
	hang := make(chan struct{})
	dying := outboxstore.NewDispatcher(db, hangNotifier(hang), nil, alerting.DispatcherOptions{Sleep: clk.Sleep, ChannelInterval: -1})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = dying.Deliver(ctx, 0, false)
	}()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		if heads, _ := db.PendingHeads(t.Context()); len(heads) == 1 && heads[0].LeaseUntil != nil {
			if got := heads[0].LeaseUntil.Sub(clk.Now()); got != 35*time.Second {
				t.Errorf("claimed for %s, want 35s (post timeout 30s + 5s)", got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("never claimed")
		}
	}
	n := &deliveryNotifier{}
	next := outboxstore.NewDispatcher(db, n, nil, alerting.DispatcherOptions{Sleep: clk.Sleep, ChannelInterval: -1})
	defer func() {
		close(hang)
		cancel()
		<-done
	}()
	clk.Advance(34 * time.Second)
	if rep, err := next.Deliver(t.Context(), 0, false); err != nil || rep.Sent != 0 {
		t.Fatalf("within the lease: %+v %v", rep, err)
	}
	clk.Advance(time.Second)
	if rep, err := next.Deliver(t.Context(), time.Second, false); err != nil || rep.Sent != 1 {
		t.Fatalf("after the lease: %+v %v", rep, err)
	}
	if len(n.seen) != 1 || !n.seen[0].OutcomeUnknown || n.seen[0].Key != "#a:one" {
		t.Errorf("the take-over was told %+v", n.seen)
	}
}

type hangNotifier chan struct{}

func (h hangNotifier) Post(ctx context.Context, _ string, _ []byte) error {
	<-h
	return nil
}
