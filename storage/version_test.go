package storage

import (
	"testing"

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
		steps := []struct {
			name string
			do   func() error
		}{
			{"a run started here", func() error { _, err := db.StartRun(ctx, "azure"); return err }},
			{"a run started by another handle", func() error { _, err := other.StartRun(ctx, "lambda"); return err }},
			{"a snapshot stored by another handle", func() error {
				id, err := other.StartRun(ctx, "azure")
				if err != nil {
					return err
				}
				o := offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.OnDemand, "98.32")
				_, err = other.SaveSnapshot(ctx, id, snapshot(o), SaveOptions{})
				return err
			}},
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
			prev = v
		}
	})
}
