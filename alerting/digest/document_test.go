package digest

import (
	"bytes"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/analysis/digest"
)

// TestQueuedDigestRendersAsBuilt: the digest's data goes through the
// outbox document and back, and the Slack notifier's rendering of it at
// send time is byte for byte the rendering of the digest as it was built,
// in each chart mode.
func TestQueuedDigestRendersAsBuilt(t *testing.T) {
	in := baseInput(t)
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no tzdata:", err)
	}
	in.Location = berlin
	d, err := digest.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	const key = "digest/2022-W29/C0DIGEST"
	tests := []struct {
		name                string
		chart               bool
		webhook, attachment bool
		want                ChartMode
	}{
		{"bot token, chart stored", true, false, true, ChartAttached},
		{"incoming webhook", true, true, false, ChartWebhook},
		{"digest.chart off", false, false, false, ChartOff},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stored, err := Document(d, key, tt.chart)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := alerting.DecodeDocument(stored)
			if err != nil || doc.Type != alerting.TypeDigest {
				t.Fatalf("stored %s: %v", stored, err)
			}
			got, err := RenderSlack(doc.Digest, tt.webhook, tt.attachment)
			if err != nil {
				t.Fatal(err)
			}
			want, err := SlackPayload(d, SlackOptions{DeliveryKey: key, Chart: tt.want})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("rendered from the queue:\n%s\nwant:\n%s", got, want)
			}
		})
	}
	stored, _ := Document(d, key, true)
	doc, _ := alerting.DecodeDocument(stored)
	// Every renderer reads the queued data as it read the built digest.
	q, err := decode(doc.Digest)
	if err != nil {
		t.Fatal(err)
	}
	var was, is bytes.Buffer
	if err := WriteText(&was, d); err != nil {
		t.Fatal(err)
	}
	if err := WriteText(&is, q.Digest); err != nil {
		t.Fatal(err)
	}
	if was.String() != is.String() {
		t.Errorf("text from the queue:\n%s\nwant:\n%s", is.String(), was.String())
	}
	if s := Summary(doc.Digest); s == "" || !bytes.Contains([]byte(s), []byte(d.Week)) {
		t.Errorf("summary %q", s)
	}
}
