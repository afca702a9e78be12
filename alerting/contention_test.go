package alerting_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/alerting/alertingtest"
	"github.com/pricewatch/pricewatch/alerting/outboxstore"
	"github.com/pricewatch/pricewatch/storage"
)

// slowSlack takes its time over the first post and, while it does, lets
// another process take the database's write lock.
type slowSlack struct {
	mu      sync.Mutex
	posted  []string
	posting chan struct{} // closed when the first post arrives
	answer  chan struct{} // closed when the first post may return
	once    sync.Once
}

func (s *slowSlack) Post(ctx context.Context, channel string, payload []byte) error {
	s.once.Do(func() {
		close(s.posting)
		<-s.answer
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	s.posted = append(s.posted, string(payload))
	return nil
}

// TestDeliveryUnderLockContention: Slack is slow to answer and, meanwhile,
// another process holds the write lock for longer than the busy timeout
// and the message's lease. Marking the message sent is retried until the
// lock is free; a second dispatcher of the same process (the daemon's,
// after a reload) sees the expired lease but does not post the message
// again. Every message is delivered once and none is left leased.
func TestDeliveryUnderLockContention(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pw.db")
	db, err := storage.Open(context.Background(), path, storage.Options{BusyTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	queue(t, db, "#a:one", "#a:two", "#a:three")

	slack := &slowSlack{posting: make(chan struct{}), answer: make(chan struct{})}
	opts := alerting.DispatcherOptions{Lease: 100 * time.Millisecond, ChannelInterval: -1}
	first := outboxstore.NewDispatcher(db, slack, zap.NewNop(), opts)
	second := outboxstore.NewDispatcher(db, slack, zap.NewNop(), opts)

	var wg sync.WaitGroup
	var firstErr error
	wg.Go(func() { _, firstErr = first.Deliver(t.Context(), 0, false) })
	<-slack.posting

	// Another process takes the write lock while Slack is answering.
	raw, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	conn, err := raw.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	close(slack.answer)
	// Marking now fails for the lock; wait past the lease, then let the
	// second dispatcher try the same outbox.
	time.Sleep(300 * time.Millisecond)
	if n := db.UnrecordedOutcomes(); n != 1 {
		t.Errorf("%d outcomes held while the database is locked, want 1", n)
	}
	var secondErr error
	wg.Go(func() { _, secondErr = second.Deliver(t.Context(), 0, false) })
	time.Sleep(200 * time.Millisecond)
	if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	wg.Wait()
	if firstErr != nil || secondErr != nil {
		t.Fatalf("deliveries: %v, %v", firstErr, secondErr)
	}
	// Whatever the second pass left is delivered now.
	if _, err := first.Deliver(t.Context(), 0, false); err != nil {
		t.Fatal(err)
	}

	slices.Sort(slack.posted)
	if want := []string{`{"text":"one"}`, `{"text":"three"}`, `{"text":"two"}`}; !slices.Equal(slack.posted, want) {
		t.Errorf("posted %q, want each message once: %q", slack.posted, want)
	}
	msgs, err := db.ListOutbox(context.Background(), storage.OutboxFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if m.Status != storage.OutboxSent || m.LeaseUntil != nil {
			t.Errorf("message %s: %s, lease %v; want sent and not leased", m.DeliveryKey, m.Status, m.LeaseUntil)
		}
	}
	if n := db.UnrecordedOutcomes(); n != 0 {
		t.Errorf("%d outcomes still unrecorded", n)
	}
}

// A hostile Retry-After (100,000,000 s) is cut to MaxRetryAfter and logged;
// the channel is tried again within the cap. Issue 20 item 22: a negative
// one (garbled, or overflowed on the way in) waited the whole cap; it is
// taken as absent (30s), and logged.
func TestRetryAfterIsCapped(t *testing.T) {
	for name, tt := range map[string]struct {
		after, want time.Duration
		log         string
	}{
		"100,000,000 s":         {100000000 * time.Second, 10 * time.Minute, "max_retry_after"},
		"overflowed (negative)": {-5 * time.Second, 30 * time.Second, "negative"},
	} {
		t.Run(name, func(t *testing.T) { testRetryAfterCap(t, tt.after, tt.want, tt.log) })
	}
}

func testRetryAfterCap(t *testing.T, after, want time.Duration, logged string) {
	clk := newClock()
	db := alertingtest.OpenDB(t, "", clk)
	queue(t, db, "#a:one")
	n := &fakeNotifier{clk: clk, start: clk.Now(), script: map[string][]error{
		"#a": {alerting.RetryAfter(errors.New("Slack rate limit (HTTP 429)"), after)},
	}}
	core, logs := observer.New(zapcore.WarnLevel)
	d := outboxstore.NewDispatcher(db, n, zap.New(core), alerting.DispatcherOptions{Sleep: clk.Sleep, MaxRetryAfter: 10 * time.Minute})
	if _, err := d.Deliver(t.Context(), 0, false); err != nil {
		t.Fatal(err)
	}
	heads, err := db.PendingHeads(context.Background())
	if err != nil || len(heads) != 1 {
		t.Fatalf("%v, %v", heads, err)
	}
	if wait := heads[0].NextAttemptAt.Sub(clk.Now()); wait != want {
		t.Errorf("next attempt in %s, want %s", wait, want)
	}
	if logs.FilterMessageSnippet(logged).Len() != 1 {
		t.Errorf("wait not logged (%q): %v", logged, logs.All())
	}
	rep, err := d.Deliver(t.Context(), time.Hour, false)
	if err != nil || rep.Sent != 1 {
		t.Errorf("after the cap: %+v, %v; want it delivered", rep, err)
	}
}
