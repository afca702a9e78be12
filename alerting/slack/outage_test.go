package slack

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/alerting/alertingtest"
	"github.com/pricewatch/pricewatch/alerting/outboxstore"
	"github.com/pricewatch/pricewatch/storage"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// dawn is the clock the process tests start on: 06:00 UTC, Monday 30
// November 2026.
func dawn() *alertingtest.Clock {
	return alertingtest.NewClock(time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC))
}

// site is where the process tests run: one database file, its clock
// (starting at dawn) and one fake Slack, shared by every process started
// there.
type site struct {
	path string
	clk  *alertingtest.Clock
	fake *fakeSlack
}

func newSite(t *testing.T) *site {
	return &site{path: filepath.Join(t.TempDir(), "pw.db"), clk: dawn(), fake: newFakeSlack(t, testToken)}
}

// process is one pricewatch process: its own database handle, notifier
// and dispatcher, as `pricewatch fetch` or the daemon builds them.
type process struct {
	db   *storage.DB
	d    *alerting.Dispatcher
	opts storage.SaveOptions
}

// start starts a process on the site's database.
func (s *site) start(t *testing.T) *process {
	t.Helper()
	db, err := storage.Open(t.Context(), s.path, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Now = s.clk.Now
	n, err := New(Config{Token: testToken, APIURL: s.fake.apiURL()})
	if err != nil {
		t.Fatal(err)
	}
	rules, err := alerting.NewRules(alerting.RulesConfig{FlapWindow: 6 * time.Hour, DefaultChannel: "C0DEFAULT", Rules: []alerting.RuleSpec{
		{Name: "capacity", Events: []string{"availability_new", "back_in_stock"}, Channel: "C0CAPACITY"},
		{Name: "price-drops", Events: []string{"price_drop"}, MinChangePct: 5, Channel: "C0PRICES"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return &process{db: db, opts: storage.SaveOptions{Outbox: outboxstore.SaveFunc(rules), Policy: alerting.NewPolicy(0, 2)},
		d: outboxstore.NewDispatcher(db, n, zap.NewNop(), alerting.DispatcherOptions{Sleep: s.clk.Sleep})}
}

// run stores one provider run, which queues its alerts.
func (p *process) run(t *testing.T, snap *pricewatch.Snapshot) {
	t.Helper()
	id, err := p.db.StartRun(t.Context(), snap.Provider)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.db.SaveSnapshot(t.Context(), id, snap, p.opts); err != nil {
		t.Fatal(err)
	}
}

func azurePrices(eastus string) *pricewatch.Snapshot {
	return &pricewatch.Snapshot{Provider: pricewatch.Azure, Offers: []pricewatch.Offer{azureOffer(eastus)},
		Coverage: []pricewatch.Scope{{Region: pricewatch.AllRegions}}}
}

func tencentZones(states ...pricewatch.AvailabilityState) *pricewatch.Snapshot {
	s := &pricewatch.Snapshot{Provider: pricewatch.Tencent, Coverage: []pricewatch.Scope{{Region: "ap-guangzhou", Availability: true}}}
	for i, st := range states {
		if st == "" {
			continue
		}
		a := tencentGN10Xp(fmt.Sprintf("ap-guangzhou-%d", i+3))
		a.State = st
		s.Availability = append(s.Availability, a)
	}
	return s
}

// TestOutageAndRestart: Slack fails with 500s and 429s for hours, the
// process restarts in the middle (once with a message claimed by a sender
// that died before posting it), more alerts are queued, Slack recovers:
// every alert arrives exactly once, and in order in each channel.
func TestOutageAndRestart(t *testing.T) {
	st := newSite(t)
	in, out := pricewatch.InStock, pricewatch.SoldOut

	p := st.start(t)
	p.run(t, azurePrices("98.32"))  // baselines
	p.run(t, tencentZones(in, out)) //
	// Slack goes down: five 500s, then rate limits, then 500s for hours.
	st.fake.then(reply{status: 500}, reply{status: 502}, reply{status: 503}, reply{status: 500}, reply{status: 500},
		reply{status: 429, retryAfter: "20"}, reply{status: 429, retryAfter: "20"}, reply{}, reply{})
	for i := 0; i < 40; i++ {
		st.fake.then(reply{status: 503})
	}

	st.clk.Sleep(t.Context(), 7*time.Hour)
	p.run(t, azurePrices("88.488"))                             // drop 10%: C0PRICES
	p.run(t, tencentZones(in, in, in))                          // zone 4 back in stock, zone 5 new: C0CAPACITY
	st.clk.Sleep(t.Context(), time.Hour)                        //
	p.run(t, azurePrices("79.6392"))                            // drop 10% again: C0PRICES
	rep, err := p.d.Deliver(t.Context(), 30*time.Second, false) // `pricewatch fetch`: bounded wait
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sent != 0 || rep.Pending != 4 {
		t.Fatalf("during the outage: %+v", rep)
	}
	rep, err = p.d.Deliver(t.Context(), 10*time.Minute, false) // the daemon keeps going
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sent != 2 || rep.Pending != 2 {
		t.Fatalf("after the rate limits: %+v; want 2 sent before the 503s", rep)
	}

	// A sender claims the next message and dies before posting it; then
	// the process is restarted.
	heads, _ := p.db.PendingHeads(t.Context())
	if len(heads) == 0 {
		t.Fatalf("pending heads %+v", heads)
	}
	if ok, err := p.db.ClaimMessage(t.Context(), heads[0].ID, st.clk.Now(), st.clk.Now().Add(2*time.Minute), true); err != nil || !ok {
		t.Fatalf("claim: %v %v", ok, err)
	}
	if err := p.db.Close(); err != nil {
		t.Fatal(err)
	}

	p = st.start(t)
	defer p.db.Close()
	st.clk.Sleep(t.Context(), 3*time.Hour)
	p.run(t, tencentZones(out, out, in)) // zones 3 and 4 sell out: no rule; nothing queued
	st.clk.Sleep(t.Context(), 7*time.Hour)
	p.run(t, tencentZones(in, in, in)) // zones 3 and 4 back after 7h: one C0CAPACITY message
	p.run(t, azurePrices("70"))        // drop ≥ 5%: C0PRICES
	if rep, err := p.d.Deliver(t.Context(), time.Minute, false); err != nil || rep.Sent != 0 {
		t.Fatalf("Slack still down: %+v %v", rep, err)
	}
	// Slack recovers (the script runs out: every answer is ok).
	st.fake.mu.Lock()
	st.fake.script = nil
	st.fake.mu.Unlock()
	st.clk.Sleep(t.Context(), 2*time.Hour)
	rep, err = p.d.Deliver(t.Context(), time.Hour, false)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Pending != 0 {
		t.Fatalf("after recovery: %+v", rep)
	}

	all, err := p.db.ListOutbox(t.Context(), storage.OutboxFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 6 {
		for _, m := range all {
			t.Log(m.ID, m.DeliveryKey)
		}
		t.Fatalf("%d messages queued, want 6", len(all))
	}
	want := map[string][]string{}
	for _, m := range all {
		if m.Status != storage.OutboxSent {
			t.Errorf("message %d is %s: %s", m.ID, m.Status, m.LastError)
		}
		want[m.Channel] = append(want[m.Channel], m.DeliveryKey)
	}
	got := map[string][]string{}
	seen := map[string]int{}
	for _, p := range st.fake.accepted() {
		got[p.Channel] = append(got[p.Channel], p.DeliveryKey)
		seen[p.DeliveryKey]++
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("%s arrived %d times", k, n)
		}
	}
	for ch, keys := range want {
		if strings.Join(got[ch], " ") != strings.Join(keys, " ") {
			t.Errorf("%s received\n %v\nwant, in queue order,\n %v", ch, got[ch], keys)
		}
	}
	if len(want["C0PRICES"]) != 3 || len(want["C0CAPACITY"]) != 3 {
		t.Errorf("queued per channel: %v", want)
	}
}

// TestTwoSendersNeverDuplicate: the daemon and a `pricewatch alerts
// deliver` drain the same outbox at once, each through its own database
// handle: every message still arrives once, in order.
func TestTwoSendersNeverDuplicate(t *testing.T) {
	if testing.Short() {
		t.Skip("real-time concurrency test")
	}
	path := filepath.Join(t.TempDir(), "pw.db")
	fake := newFakeSlack(t, testToken)
	db, err := storage.Open(t.Context(), path, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var msgs []storage.OutboxMessage
	for i := 0; i < 30; i++ {
		ch := []string{"C0A", "C0B", "C0C"}[i%3]
		b, err := TestMessage(time.Unix(int64(i), 0), "v")
		if err != nil {
			t.Fatal(err)
		}
		key := fmt.Sprintf("k%02d", i)
		// The fake reads the delivery key from the metadata.
		b = []byte(strings.Replace(string(b), `"event_payload":{`, `"event_payload":{"delivery_key":"`+key+`",`, 1))
		msgs = append(msgs, storage.OutboxMessage{DeliveryKey: key, Channel: ch, Kind: "test", Payload: b})
	}
	id, _ := db.StartRun(t.Context(), "azure")
	if _, err := db.SaveSnapshot(t.Context(), id, azurePrices("98.32"), storage.SaveOptions{Outbox: func(*storage.Result) ([]storage.OutboxMessage, error) { return msgs, nil }}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := storage.Open(context.Background(), path, storage.Options{})
			if err != nil {
				t.Error(err)
				return
			}
			defer db.Close()
			n, _ := New(Config{Token: testToken, APIURL: fake.apiURL()})
			d := outboxstore.NewDispatcher(db, n, zap.NewNop(), alerting.DispatcherOptions{ChannelInterval: -1})
			if _, err := d.Deliver(context.Background(), 10*time.Second, true); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	got := map[string][]string{}
	seen := map[string]int{}
	for _, p := range fake.accepted() {
		got[p.Channel] = append(got[p.Channel], p.DeliveryKey)
		seen[p.DeliveryKey]++
	}
	if len(seen) != 30 {
		t.Errorf("%d distinct messages arrived, want 30", len(seen))
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("%s arrived %d times", k, n)
		}
	}
	for ch, keys := range got {
		for i := 1; i < len(keys); i++ {
			if keys[i] < keys[i-1] {
				t.Errorf("%s out of order: %v", ch, keys)
				break
			}
		}
	}
	_ = os.Remove(path)
}
