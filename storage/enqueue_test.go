package storage

import (
	"bytes"
	"errors"
	"testing"
)

// TestEnqueueOnceWithAttachment: a message queued outside a run keeps its
// attachment byte for byte, a second Enqueue under the same key changes
// nothing (even after the first was sent), and alerts without a file read
// back with a nil attachment.
func TestEnqueueOnceWithAttachment(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR binary \x00 with NULs")
		m := OutboxMessage{DeliveryKey: "digest/2026-W45/C0DIGEST", Channel: "C0DIGEST", Kind: "digest", Payload: []byte(`{"text":"digest"}`)}
		queued, err := db.Enqueue(ctx, m, png)
		if err != nil || !queued {
			t.Fatalf("first Enqueue = %v, %v; want queued", queued, err)
		}
		enqueue(t, db, msg("run/1/a", "#a"))

		e, err := db.OutboxByKey(ctx, m.DeliveryKey)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(e.Attachment, png) || e.Kind != "digest" || e.Status != OutboxPending || e.Channel != "C0DIGEST" {
			t.Fatalf("stored = %+v", e)
		}
		alert, err := db.OutboxByKey(ctx, "run/1/a")
		if err != nil {
			t.Fatal(err)
		}
		if alert.Attachment != nil {
			t.Errorf("alert attachment = %q, want nil", alert.Attachment)
		}

		if err := db.MarkSent(ctx, e.ID); err != nil {
			t.Fatal(err)
		}
		clk.tick()
		m.Payload = []byte(`{"text":"a second rendering"}`)
		queued, err = db.Enqueue(ctx, m, nil)
		if err != nil || queued {
			t.Fatalf("second Enqueue = %v, %v; want not queued", queued, err)
		}
		again, err := db.OutboxByKey(ctx, m.DeliveryKey)
		if err != nil {
			t.Fatal(err)
		}
		if again.Status != OutboxSent || string(again.Payload) != `{"text":"digest"}` || !bytes.Equal(again.Attachment, png) {
			t.Errorf("after second Enqueue = %+v", again)
		}
		due, err := db.DueMessages(ctx, clk.now(), true, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range due {
			if d.DeliveryKey == m.DeliveryKey {
				t.Errorf("the sent digest is due again")
			}
		}
	})
}

func TestEnqueueRefusesEmptyKeyAndReportsMissing(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, _ := openTestDB(t)
		if _, err := db.Enqueue(ctx, OutboxMessage{Kind: "digest", Channel: "C1", Payload: []byte(`{}`)}, nil); err == nil {
			t.Error("an empty delivery key was accepted")
		}
		if _, err := db.OutboxByKey(ctx, "digest/none"); !errors.Is(err, ErrOutboxNotFound) {
			t.Errorf("err = %v, want ErrOutboxNotFound", err)
		}
	})
}
