package slack

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/alerting/outboxstore"
	"github.com/pricewatch/pricewatch/storage"
)

// fixedTemplate is a "new release" of the renderer: the same Block Kit
// with a reworded header, as a template fix would ship.
type fixedTemplate struct{ Renderer }

func (r fixedTemplate) Render(g alerting.Group) ([]byte, error) {
	b, err := r.Renderer.Render(g)
	if err != nil {
		return nil, err
	}
	var p Payload
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, err
	}
	p.Text = strings.Replace(p.Text, "pricewatch: ", "pricewatch (fixed template): ", 1)
	return marshal(p)
}

// TestTemplateChangeReachesQueuedMessage: a message queued while the old
// renderer was in use is delivered, after the upgrade, with the new one —
// the outbox holds the alert's data, and the notifier renders it when it
// sends.
func TestTemplateChangeReachesQueuedMessage(t *testing.T) {
	st := newSite(t)

	// The old process queues the drop and stops before delivering it.
	old := st.start(t)
	defer old.db.Close()
	old.run(t, azurePrices("98.32"))
	old.run(t, azurePrices("88.488"))
	queued, err := old.db.ListOutbox(t.Context(), storage.OutboxFilter{})
	if err != nil || len(queued) != 1 {
		t.Fatalf("outbox: %v, %v", queued, err)
	}
	doc, err := alerting.DecodeDocument(queued[0].Payload)
	if err != nil || doc.Alert == nil {
		t.Fatalf("the outbox holds %s (%v), want an alert document", queued[0].Payload, err)
	}
	oldRendering, err := Renderer{}.Render(*doc.Alert)
	if err != nil {
		t.Fatal(err)
	}

	// The upgrade: same database, new renderer.
	n, err := New(Config{Token: testToken, APIURL: st.fake.apiURL(), Renderer: fixedTemplate{}})
	if err != nil {
		t.Fatal(err)
	}
	st.clk.Sleep(t.Context(), time.Hour)
	rep, err := outboxstore.NewDispatcher(old.db, n, zap.NewNop(), alerting.DispatcherOptions{Sleep: st.clk.Sleep}).Deliver(t.Context(), 0, true)
	if err != nil || rep.Sent != 1 {
		all, _ := old.db.ListOutbox(t.Context(), storage.OutboxFilter{})
		t.Fatalf("new process: %+v, %v; outbox %+v", rep, err, all)
	}
	got := st.fake.accepted()
	if len(got) != 1 {
		t.Fatalf("Slack got %d messages", len(got))
	}
	if !strings.HasPrefix(got[0].Text, "pricewatch (fixed template): 🔻 Price drop: 1 price on Azure") {
		t.Errorf("delivered with the old template: %q", got[0].Text)
	}
	var was Payload
	if err := json.Unmarshal(oldRendering, &was); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(was.Text, "fixed template") || strings.TrimPrefix(got[0].Text, "pricewatch (fixed template): ") != strings.TrimPrefix(was.Text, "pricewatch: ") {
		t.Errorf("new rendering %q should differ from the old %q in the header only", got[0].Text, was.Text)
	}
	if got[0].DeliveryKey != doc.Alert.Key {
		t.Errorf("delivery key %q, want %q", got[0].DeliveryKey, doc.Alert.Key)
	}
}

// TestLegacyBlockKitStillDelivered: a message queued by a pricewatch older
// than the outbox document (Block Kit bytes, rendered at queue time) is
// sent as it was stored, exactly once, after the upgrade.
func TestLegacyBlockKitStillDelivered(t *testing.T) {
	st := newSite(t)
	p := st.start(t)
	defer p.db.Close()

	// What the old build stored: its renderer's bytes.
	msgs := render(t, alerting.RuleSpec{Name: "price-drops", Events: []string{"price_drop"}, MinChangePct: 5}, "azure",
		priceChange(pricewatch.PriceChanged, azureOffer("98.32"), "98.32", "88.488"))
	if len(msgs) != 1 {
		t.Fatalf("rendered %d messages", len(msgs))
	}
	legacy := msgs[0].Payload
	if _, err := alerting.DecodeDocument(legacy); err == nil {
		t.Fatal("the old build's payload must not read as a document")
	}
	if _, err := p.db.Enqueue(t.Context(), storage.OutboxMessage{DeliveryKey: msgs[0].DeliveryKey, Channel: "C0PRICES", Kind: msgs[0].Kind, Payload: legacy}, nil); err != nil {
		t.Fatal(err)
	}
	rep, err := p.d.Deliver(t.Context(), 0, false)
	if err != nil || rep.Sent != 1 || rep.Failed != 0 {
		t.Fatalf("deliver: %+v, %v", rep, err)
	}
	var want Payload
	if err := json.Unmarshal(legacy, &want); err != nil {
		t.Fatal(err)
	}
	got := st.fake.accepted()
	if len(got) != 1 || got[0].Text != want.Text || got[0].Channel != "C0PRICES" || got[0].DeliveryKey != msgs[0].DeliveryKey {
		t.Fatalf("Slack got %+v, want the stored text %q", got, want.Text)
	}
	wantBlocks, _ := json.Marshal(want.Blocks)
	if !sameJSON(t, got[0].Blocks, string(wantBlocks)) {
		t.Errorf("blocks changed on the way:\n got %s\nwant %s", got[0].Blocks, wantBlocks)
	}
}

func sameJSON(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}
