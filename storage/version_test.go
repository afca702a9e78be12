package storage

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
)

// The data version stays while nothing is committed, and moves with a
// run started and stored, with an alert's delivery, and with what
// another handle on the same database (another process, a leading
// replica) commits: the gate on the database's change counter never
// hides a commit. On both backends.
func TestDataVersionMovesWithEveryCommit(t *testing.T) {
	backends(t, func(t *testing.T) {
		s, db := openStore(t, Options{})
		other := s.open(t, Options{})
		ctx := t.Context()
		version := func() string {
			t.Helper()
			v, err := db.DataVersion(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		v0 := version()
		if v := version(); v != v0 {
			t.Fatalf("nothing committed, yet the version moved: %q then %q", v0, v)
		}
		var failing int64
		steps := []struct {
			name string
			do   func() error
			// onlyStarts: OnlyStarts(before, after) is true.
			onlyStarts bool
		}{
			{"a run started here", func() error { _, err := db.StartRun(ctx, "azure"); return err }, true},
			{"a run started by another handle", func() error {
				var err error
				failing, err = other.StartRun(ctx, "lambda")
				return err
			}, true},
			{"two runs started", func() error {
				for _, p := range []string{"oci", "vastai"} {
					if _, err := db.StartRun(ctx, p); err != nil {
						return err
					}
				}
				return nil
			}, true},
			{"a run failed", func() error { return db.FinishRun(ctx, failing, pricewatch.RunFailed, "HTTP 500") }, false},
			{"an alert queued", func() error {
				_, err := db.Enqueue(ctx, OutboxMessage{DeliveryKey: "run/1/a", Channel: "#a", Kind: "alert", Payload: []byte(`{}`)}, nil)
				return err
			}, false},
			{"a day of rates stored", func() error {
				return db.SaveFXDay(ctx, FXDay{Date: time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC), Source: "ECB",
					PerEUR: map[string]decimal.Decimal{"USD": decimal.RequireFromString("1.0412")}})
			}, false},
			{"a snapshot stored by another handle", func() error {
				id, err := other.StartRun(ctx, "azure")
				if err != nil {
					return err
				}
				o := offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.OnDemand, "98.32")
				_, err = other.SaveSnapshot(ctx, id, snapshot(o), SaveOptions{})
				return err
			}, false},
		}
		prev := v0
		for _, st := range steps {
			if err := st.do(); err != nil {
				t.Fatalf("%s: %v", st.name, err)
			}
			v := version()
			if v == prev {
				t.Errorf("%s: the version stayed %q", st.name, v)
			}
			if again := version(); again != v {
				t.Errorf("%s: read again without a commit, %q then %q", st.name, v, again)
			}
			if got := OnlyStarts(prev, v); got != st.onlyStarts {
				t.Errorf("%s: OnlyStarts(%q, %q) = %v, want %v", st.name, prev, v, got, st.onlyStarts)
			}
			if same := ContentVersion(prev) == ContentVersion(v); same != st.onlyStarts {
				t.Errorf("%s: ContentVersion the same before and after: %v, want %v", st.name, same, st.onlyStarts)
			}
			prev = v
		}
	})
}

// A version OnlyStarts cannot read, or one that did not move, is never a
// start: the answers kept at it are computed again.
func TestOnlyStartsUnreadable(t *testing.T) {
	v := "12.12.2026-12-05T10:00:00.000000Z/3.4.2.1/40"
	for _, c := range []struct{ old, new string }{
		{v, v},
		{"", v},
		{v, "garbage"},
		{"x.12.2026-12-05T10:00:00.000000Z/3.4.2.1/40", "13.13.2026-12-05T10:00:00.000000Z/3.4.2.1/40"},
		{v, "11.13.2026-12-05T10:00:00.000000Z/3.4.2.1/40"}, // a row removed, two added
	} {
		if OnlyStarts(c.old, c.new) {
			t.Errorf("OnlyStarts(%q, %q) = true", c.old, c.new)
		}
	}
	if !OnlyStarts(v, "13.13.2026-12-05T10:00:00.000000Z/3.4.2.1/40") {
		t.Error("one run started: OnlyStarts = false")
	}
	if ContentVersion("garbage") != "garbage" || ContentVersion(v) == ContentVersion("12.11.2026-12-05T10:00:00.000000Z/3.4.2.1/40") {
		t.Error("ContentVersion: an unreadable version is not its own, or a run removed is not told apart")
	}
}
