package alerting_test

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/alerting/alertingtest"
	"github.com/pricewatch/pricewatch/alerting/outboxstore"
	"github.com/pricewatch/pricewatch/storage"
)

// fileNotifier is an AttachmentNotifier: each call takes the next scripted
// error (nil once the script runs out) and records what arrived.
type fileNotifier struct {
	mu       sync.Mutex
	script   []error
	withFile [][]byte // attachment of every accepted PostWithAttachment
	plain    int      // accepted Post calls
}

func (f *fileNotifier) next() error {
	if len(f.script) == 0 {
		return nil
	}
	err := f.script[0]
	f.script = f.script[1:]
	return err
}

func (f *fileNotifier) Post(_ context.Context, _ string, _ []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.next(); err != nil {
		return err
	}
	f.plain++
	return nil
}

func (f *fileNotifier) PostWithAttachment(_ context.Context, _ string, _, attachment []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	err := f.next()
	var inc *alerting.IncompleteError
	if err == nil || errors.As(err, &inc) {
		f.withFile = append(f.withFile, attachment)
	}
	return err
}

func enqueueDigest(t *testing.T, db *storage.DB, key string, attachment []byte) {
	t.Helper()
	m := storage.OutboxMessage{DeliveryKey: key, Channel: "C0DIGEST", Kind: "digest", Payload: []byte(`{"text":"digest"}`)}
	if ok, err := db.Enqueue(context.Background(), m, attachment); err != nil || !ok {
		t.Fatalf("Enqueue = %v, %v", ok, err)
	}
}

func TestDispatcherSendsAttachmentAfterRetry(t *testing.T) {
	clk := newClock()
	db := alertingtest.OpenDB(t, "", clk)
	png := []byte("\x89PNG chart bytes")
	enqueueDigest(t, db, "digest/2026-W49/C0DIGEST", png)
	queue(t, db, "C0ALERTS:plain-alert")
	n := &fileNotifier{script: []error{errServer}}
	d := outboxstore.NewDispatcher(db, n, nil, alerting.DispatcherOptions{Sleep: clk.Sleep, ChannelInterval: -1})
	rep, err := d.Deliver(context.Background(), 0, false)
	if err != nil {
		t.Fatal(err)
	}
	// The digest (id 1) failed once and waits; the alert went without a file.
	if rep.Sent != 1 || rep.Retrying != 1 || n.plain != 1 || len(n.withFile) != 0 {
		t.Fatalf("first pass: report %+v, plain %d, with file %d", rep, n.plain, len(n.withFile))
	}
	rep, err = d.Deliver(context.Background(), 10*time.Minute, false)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sent != 1 || rep.Incomplete != 0 || len(n.withFile) != 1 || !bytes.Equal(n.withFile[0], png) {
		t.Fatalf("retry: report %+v, attachments %q", rep, n.withFile)
	}
}

func TestDispatcherIncompleteIsSentNotRetried(t *testing.T) {
	clk := newClock()
	db := alertingtest.OpenDB(t, "", clk)
	enqueueDigest(t, db, "digest/2026-W49/C0DIGEST", []byte("png"))
	n := &fileNotifier{script: []error{&alerting.IncompleteError{Err: errors.New("chart not shared: not_in_channel")}}}
	d := outboxstore.NewDispatcher(db, n, nil, alerting.DispatcherOptions{Sleep: clk.Sleep, ChannelInterval: -1})
	rep, err := d.Deliver(context.Background(), 0, true)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sent != 1 || rep.Incomplete != 1 || rep.Failed != 0 || rep.Pending != 0 {
		t.Fatalf("report %+v", rep)
	}
	e, err := db.OutboxByKey(context.Background(), "digest/2026-W49/C0DIGEST")
	if err != nil {
		t.Fatal(err)
	}
	if e.Status != storage.OutboxSent {
		t.Errorf("status %s, want sent", e.Status)
	}
	// Nothing is posted again, forced or not.
	if rep, err := d.Deliver(context.Background(), 0, true); err != nil || rep.Sent != 0 {
		t.Errorf("second delivery: %+v, %v", rep, err)
	}
	if len(n.withFile) != 1 {
		t.Errorf("posted %d times, want 1", len(n.withFile))
	}
}

func TestDispatcherWithoutFileSupportPostsTheMessage(t *testing.T) {
	clk := newClock()
	db := alertingtest.OpenDB(t, "", clk)
	enqueueDigest(t, db, "digest/2026-W49/C0DIGEST", []byte("png"))
	n := &fakeNotifier{}
	d := outboxstore.NewDispatcher(db, n, nil, alerting.DispatcherOptions{Sleep: clk.Sleep, ChannelInterval: -1})
	rep, err := d.Deliver(context.Background(), 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sent != 1 || len(n.accepted()) != 1 || n.accepted()[0] != "C0DIGEST:digest" {
		t.Errorf("report %+v, accepted %q", rep, n.accepted())
	}
}
