package storage

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch"
)

// enqueue stores a run whose Outbox function queues msgs, the way the
// alerting rules do.
func enqueue(t *testing.T, db *DB, msgs ...OutboxMessage) *Result {
	t.Helper()
	snap := snapshot(offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.OnDemand, "98.32"))
	res := mustSaveWith(t, db, snap, SaveOptions{Outbox: func(*Result) ([]OutboxMessage, error) { return msgs, nil }})
	return res
}

func msg(key, channel string) OutboxMessage {
	return OutboxMessage{DeliveryKey: key, Channel: channel, Kind: "price_drop", Payload: []byte(`{"text":"` + key + `"}`)}
}

func ids(es []OutboxEntry) []int64 {
	var out []int64
	for _, e := range es {
		out = append(out, e.ID)
	}
	return out
}

func TestOutboxSameKeyQueuedOnce(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		enqueue(t, db, msg("run/1/a", "#a"), msg("run/1/b", "#b"))
		clk.tick()
		// A replayed result yields the same keys: nothing new is queued.
		enqueue(t, db, msg("run/1/a", "#a"))
		all, err := db.ListOutbox(ctx, OutboxFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != 2 {
			t.Fatalf("got %d messages, want 2: %+v", len(all), all)
		}
		if all[0].DeliveryKey != "run/1/a" || all[0].Status != OutboxPending || string(all[0].Payload) != `{"text":"run/1/a"}` {
			t.Errorf("first message = %+v", all[0])
		}
	})
}

func TestOutboxFailedRunQueuesNothing(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, _ := openTestDB(t)
		enqueue(t, db, msg("run/1/a", "#a"))
		// Every offer vanishing is refused as a suspicious drop: the run fails
		// and its messages must not be queued.
		_, err := save(t, db, &pricewatch.Snapshot{Provider: "azure", Coverage: []pricewatch.Scope{{Region: pricewatch.AllRegions}}},
			SaveOptions{Outbox: func(*Result) ([]OutboxMessage, error) { return []OutboxMessage{msg("run/2/a", "#a")}, nil }})
		if !errors.Is(err, ErrSuspiciousDrop) {
			t.Fatalf("err = %v, want ErrSuspiciousDrop", err)
		}
		// An Outbox function that fails rolls the whole run back too.
		_, err = save(t, db, snapshot(offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.OnDemand, "90")),
			SaveOptions{Outbox: func(*Result) ([]OutboxMessage, error) { return nil, fmt.Errorf("boom") }})
		if err == nil {
			t.Fatal("want an error from the failing Outbox function")
		}
		all, err := db.ListOutbox(ctx, OutboxFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != 1 {
			t.Fatalf("got %d messages, want only the first run's", len(all))
		}
	})
}

func TestOutboxDueKeepsChannelOrder(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		enqueue(t, db, msg("k1", "#a"), msg("k2", "#b"), msg("k3", "#a"), msg("k4", "#b"))
		now := clk.t

		due, err := db.DueMessages(ctx, now, false, 10)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(due); fmt.Sprint(got) != "[1 2]" {
			t.Fatalf("due = %v, want the oldest of each channel [1 2]", got)
		}
		// The second message of #a cannot be claimed while the first is pending.
		if ok, err := db.ClaimMessage(ctx, 3, now, now.Add(time.Minute), true); err != nil || ok {
			t.Fatalf("claim of #a's second message = %v, %v; want refused", ok, err)
		}

		// #a's head backs off: #a is not due, #b still is.
		if ok, err := db.ClaimMessage(ctx, 1, now, now.Add(time.Minute), false); err != nil || !ok {
			t.Fatalf("claim 1 = %v, %v", ok, err)
		}
		if err := db.MarkRetry(ctx, 1, now.Add(10*time.Second), "slack server error: 500"); err != nil {
			t.Fatal(err)
		}
		due, _ = db.DueMessages(ctx, now, false, 10)
		if got := ids(due); fmt.Sprint(got) != "[2]" {
			t.Fatalf("due while #a backs off = %v, want [2]", got)
		}
		if heads, err := db.PendingHeads(ctx); err != nil || fmt.Sprint(ids(heads)) != "[1 2]" || !heads[0].NextAttemptAt.Equal(now.Add(10*time.Second)) {
			t.Fatalf("PendingHeads = %+v, %v; want 1 (backing off) and 2", heads, err)
		}
		// force ignores the back-off but not the order.
		due, _ = db.DueMessages(ctx, now, true, 10)
		if got := ids(due); fmt.Sprint(got) != "[1 2]" {
			t.Fatalf("forced due = %v, want [1 2]", got)
		}
		due, _ = db.DueMessages(ctx, now.Add(10*time.Second), false, 10)
		if got := ids(due); fmt.Sprint(got) != "[1 2]" {
			t.Fatalf("due after back-off = %v, want [1 2]", got)
		}

		// Sending #a's head makes its next message the head.
		if ok, _ := db.ClaimMessage(ctx, 1, now.Add(10*time.Second), now.Add(time.Minute), false); !ok {
			t.Fatal("claim 1 after back-off refused")
		}
		if err := db.MarkSent(ctx, 1); err != nil {
			t.Fatal(err)
		}
		due, _ = db.DueMessages(ctx, now.Add(10*time.Second), false, 10)
		if got := ids(due); fmt.Sprint(got) != "[2 3]" {
			t.Fatalf("due after sending 1 = %v, want [2 3]", got)
		}
		if err := db.MarkSent(ctx, 1); err == nil {
			t.Error("marking a sent message sent again must fail")
		}
		sent, _ := db.ListOutbox(ctx, OutboxFilter{Status: OutboxSent})
		if len(sent) != 1 || sent[0].SentAt == nil || !sent[0].SentAt.Equal(now) || sent[0].Attempts != 2 || sent[0].LastError != "" {
			t.Errorf("sent message = %+v", sent)
		}
	})
}

func TestOutboxLease(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		enqueue(t, db, msg("k1", "#a"))
		now := clk.t
		if ok, _ := db.ClaimMessage(ctx, 1, now, now.Add(2*time.Minute), false); !ok {
			t.Fatal("first claim refused")
		}
		// Another sender, even forcing, cannot take a leased message.
		if ok, _ := db.ClaimMessage(ctx, 1, now.Add(time.Minute), now.Add(3*time.Minute), true); ok {
			t.Fatal("second claim of a leased message succeeded")
		}
		if due, _ := db.DueMessages(ctx, now.Add(time.Minute), true, 10); len(due) != 0 {
			t.Fatalf("leased message listed as due: %v", ids(due))
		}
		if heads, _ := db.PendingHeads(ctx); len(heads) != 1 || heads[0].LeaseUntil == nil || !heads[0].LeaseUntil.Equal(now.Add(2*time.Minute)) {
			t.Fatalf("PendingHeads = %+v; want the message with its lease", heads)
		}
		// The holder died: after the lease the message is tried again.
		if ok, _ := db.ClaimMessage(ctx, 1, now.Add(2*time.Minute), now.Add(4*time.Minute), false); !ok {
			t.Fatal("claim after the lease expired refused")
		}
	})
}

func TestOutboxConcurrentClaims(t *testing.T) {
	backends(t, func(t *testing.T) {
		dir := t.TempDir()
		ctx := context.Background()
		path := filepath.Join(dir, "pw.db")
		db1, err := OpenURL(ctx, path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db1.Close()
		db2, err := OpenURL(ctx, path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db2.Close()
		enqueue(t, db1, msg("k1", "#a"))
		now := db1.Now()
		var wg sync.WaitGroup
		wins := make(chan bool, 20)
		for i := 0; i < 20; i++ {
			db := db1
			if i%2 == 1 {
				db = db2
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok, err := db.ClaimMessage(ctx, 1, now, now.Add(time.Minute), true)
				if err != nil {
					t.Error(err)
				}
				wins <- ok
			}()
		}
		wg.Wait()
		close(wins)
		n := 0
		for ok := range wins {
			if ok {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("%d senders claimed the message, want exactly 1", n)
		}
	})
}

func TestOutboxFailAndRetry(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		enqueue(t, db, msg("k1", "#a"), msg("k2", "#a"), msg("k3", "#b"))
		now := clk.t
		for _, id := range []int64{1, 2} {
			if ok, _ := db.ClaimMessage(ctx, id, now, now.Add(time.Minute), false); !ok {
				t.Fatalf("claim %d refused", id)
			}
			if err := db.MarkFailed(ctx, id, "channel_not_found"); err != nil {
				t.Fatal(err)
			}
		}
		if ok, _ := db.ClaimMessage(ctx, 3, now, now.Add(time.Minute), false); !ok {
			t.Fatal("claim 3 refused")
		}
		if err := db.MarkSent(ctx, 3); err != nil {
			t.Fatal(err)
		}
		st, err := db.OutboxCounts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.Pending != 0 || st.Failed != 2 || st.Sent != 1 || st.OldestPending != nil {
			t.Fatalf("counts = %+v", st)
		}
		failed, _ := db.ListOutbox(ctx, OutboxFilter{Status: OutboxFailed})
		if fmt.Sprint(ids(failed)) != "[1 2]" || failed[0].LastError != "channel_not_found" {
			t.Fatalf("failed = %+v", failed)
		}
		if _, err := db.RetryFailed(ctx, []int64{3}); err == nil || !strings.Contains(err.Error(), "already delivered") {
			t.Errorf("retrying a sent message: err = %v", err)
		}
		if _, err := db.RetryFailed(ctx, []int64{99}); !errors.Is(err, ErrOutboxNotFound) {
			t.Errorf("retrying an unknown message: err = %v", err)
		}
		clk.tick()
		if n, err := db.RetryFailed(ctx, []int64{2}); err != nil || n != 1 {
			t.Fatalf("RetryFailed(2) = %d, %v", n, err)
		}
		if n, err := db.RetryFailed(ctx, nil); err != nil || n != 1 {
			t.Fatalf("RetryFailed(all) = %d, %v; want the one still failed", n, err)
		}
		due, _ := db.DueMessages(ctx, clk.t, false, 10)
		if fmt.Sprint(ids(due)) != "[1]" || due[0].Attempts != 0 || !due[0].NextAttemptAt.Equal(clk.t) {
			t.Fatalf("due after retry = %+v", due)
		}
		st, _ = db.OutboxCounts(ctx)
		if st.Pending != 2 || st.OldestPending == nil || !st.OldestPending.Equal(now) {
			t.Fatalf("counts after retry = %+v", st)
		}
		if got, _ := db.ListOutbox(ctx, OutboxFilter{Limit: 2}); fmt.Sprint(ids(got)) != "[2 3]" {
			t.Errorf("ListOutbox(limit 2) = %v, want the two most recent in id order", ids(got))
		}
		if got, _ := db.ListOutbox(ctx, OutboxFilter{Channel: "#b"}); fmt.Sprint(ids(got)) != "[3]" {
			t.Errorf("ListOutbox(#b) = %v", ids(got))
		}
	})
}
