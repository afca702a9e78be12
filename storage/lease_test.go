package storage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/alerting"
)

// roundSnapshot is writer w's observation in round r: prices move, one type
// comes and goes, so runs open, close and extend intervals.
func roundSnapshot(w, r int) *pricewatch.Snapshot {
	prices := []string{"98.32", "90.00", "95.50"}
	offers := []pricewatch.Offer{
		offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.OnDemand, prices[(w+r)%3]),
		offer("Standard_NC24ads_A100_v4", "eastus", pricewatch.OnDemand, "3.673"),
		offer("Standard_NC24ads_A100_v4", "westus", pricewatch.OnDemand, prices[(w*r)%3]),
	}
	if (w+r)%2 == 0 {
		offers = append(offers, offer("Standard_NC40ads_H100_v5", "eastus", pricewatch.OnDemand, "6.98"))
	}
	snap := snapshot(offers...)
	for _, o := range offers {
		snap.Availability = append(snap.Availability, pricewatch.Availability{Provider: "azure", Region: o.Region,
			InstanceType: o.InstanceType, State: pricewatch.Offered, Hardware: o.Hardware})
	}
	return snap
}

// TestConcurrentWritersKeepHistoryInOrder drives several writers, each its
// own database handle (as separate processes are) with a clock that lags
// by a different amount, while another connection holds the write lock at
// the start and between rounds. Runs of one provider must never overlap,
// and the stored history must keep its interval invariants.
func TestConcurrentWritersKeepHistoryInOrder(t *testing.T) {
	backends(t, func(t *testing.T) {
		path := string(newStore(t))
		ctx := context.Background()
		first, err := OpenURL(ctx, path, Options{BusyTimeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		first.Close()

		const writers, rounds = 4, 5
		release := holdRunLock(t, store(path), "azure")
		var active, maxActive atomic.Int32
		var wg sync.WaitGroup
		errs := make(chan error, writers*rounds)
		started := make(chan struct{}, writers)
		for w := range writers {
			db, err := OpenURL(ctx, path, Options{BusyTimeout: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			// Writer w's host clock lags w×3 s: its "now" is older than what
			// faster writers stored.
			lag := time.Duration(w) * 3 * time.Second
			db.Now = func() time.Time { return time.Now().UTC().Add(-lag) }
			wg.Go(func() {
				started <- struct{}{}
				for r := range rounds {
					l, err := db.BeginRun(ctx, "azure", LeaseOptions{Wait: time.Minute, Timeout: time.Minute, Owner: fmt.Sprintf("writer %d", w)})
					if err != nil {
						errs <- fmt.Errorf("writer %d round %d: %w", w, r, err)
						return
					}
					n := active.Add(1)
					for m := maxActive.Load(); n > m && !maxActive.CompareAndSwap(m, n); m = maxActive.Load() {
					}
					// A run is active until its save commits; the next may begin at
					// once then (PostgreSQL wakes a waiter on the provider's lock at
					// the commit), so a run leaves the count inside its save's
					// transaction (the outbox callback), or when the save fails.
					left := false
					leave := func() {
						if !left {
							left = true
							active.Add(-1)
						}
					}
					_, err = db.SaveSnapshot(ctx, l.RunID, roundSnapshot(w, r), SaveOptions{Policy: alerting.NewPolicy(0, 1),
						Outbox: func(*Result) ([]OutboxMessage, error) { leave(); return nil, nil }})
					leave()
					l.Release()
					if err != nil {
						errs <- fmt.Errorf("writer %d round %d: %w", w, r, err)
						return
					}
				}
			})
		}
		for range writers {
			<-started
		}
		// Every writer is now blocked on the lock (BeginRun takes it); let them
		// pile up a moment, then let go.
		time.Sleep(200 * time.Millisecond)
		release()
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if m := maxActive.Load(); m != 1 {
			t.Errorf("%d runs of one provider were active at once, want 1", m)
		}

		check, err := OpenURL(ctx, path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer check.Close()
		bad, err := check.IntervalViolations(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bad {
			t.Error(b)
		}
		runs, err := check.Runs(ctx, 100)
		if err != nil {
			t.Fatal(err)
		}
		var ok int
		var last time.Time
		for i := len(runs) - 1; i >= 0; i-- { // oldest first
			r := runs[i]
			if r.Status != pricewatch.RunOK {
				t.Errorf("run %d: %s %s", r.ID, r.Status, r.Error)
				continue
			}
			ok++
			// Stored times follow the order the runs stored in, whatever
			// their clocks said.
			if !r.FinishedAt.After(last) {
				t.Errorf("run %d stored at %s, not after the previous run's %s", r.ID, r.FinishedAt, last)
			}
			last = *r.FinishedAt
		}
		if ok != writers*rounds {
			t.Errorf("%d ok runs, want %d", ok, writers*rounds)
		}
	})
}

func TestRunLeaseSkipsASecondRun(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, _ := openTestDB(t)
		l := mustBegin(t, db, "azure", LeaseOptions{Owner: "pricewatch run"})
		// Another provider is not held up.
		other, err := db.BeginRun(ctx, "aws", LeaseOptions{})
		if err != nil {
			t.Fatalf("aws run blocked by azure's lease: %v", err)
		}
		other.Release()

		_, err = db.BeginRun(ctx, "azure", LeaseOptions{Wait: 10 * time.Millisecond, Owner: "pricewatch fetch"})
		var busy *RunInProgressError
		if !errors.As(err, &busy) || !errors.Is(err, ErrRunInProgress) {
			t.Fatalf("second run: %v, want a RunInProgressError", err)
		}
		if busy.HolderRun != l.RunID || !strings.Contains(err.Error(), "pricewatch run pid") {
			t.Errorf("error %q does not name the holder run %d", err, l.RunID)
		}
		runs, err := db.Runs(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		var skipped *pricewatch.Run
		for i := range runs {
			if runs[i].ID == busy.SkippedRun {
				skipped = &runs[i]
			}
		}
		if skipped == nil || skipped.Status != pricewatch.RunSkipped || skipped.Error != busy.Error() {
			t.Fatalf("skipped run record %+v, want status skipped with %q", skipped, busy)
		}

		// Once released, the next run starts at once.
		l.Release()
		l2, err := db.BeginRun(ctx, "azure", LeaseOptions{})
		if err != nil {
			t.Fatalf("run after release: %v", err)
		}
		l2.Release()
	})
}

// A run whose process died leaves a lease and a 'running' record; the next
// run takes the lease over at once (the pid is gone on this host) and
// closes the dead run as abandoned.
func TestRunLeaseOfDeadProcessIsTakenOver(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, _ := openTestDB(t)
		l := mustBegin(t, db, "azure", LeaseOptions{})
		l.Release()
		// Forge a crashed holder: a pid that cannot exist on this host.
		deadPID := 1 << 30
		if _, err := db.write.ExecContext(ctx, `UPDATE fetch_runs SET status = 'running', finished_at = NULL, owner_pid = ? WHERE id = ?`, deadPID, l.RunID); err != nil {
			t.Fatal(err)
		}
		if _, err := db.write.ExecContext(ctx, `INSERT INTO run_leases (provider, run_id, owner, host, pid, acquired_at, expires_at) VALUES ('azure', ?, 'pricewatch fetch', ?, ?, ?, ?)`,
			l.RunID, thisHost(), deadPID, formatTime(db.Now()), formatTime(db.Now().Add(time.Hour))); err != nil {
			t.Fatal(err)
		}
		l2, err := db.BeginRun(ctx, "azure", LeaseOptions{})
		if err != nil {
			t.Fatalf("lease of a dead process not taken over: %v", err)
		}
		defer l2.Release()
		runs, err := db.Runs(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			if r.ID == l.RunID && r.Status != pricewatch.RunAbandoned {
				t.Errorf("dead run is %s, want abandoned", r.Status)
			}
		}
	})
}

// The CLI closes its own dead runs at start as the daemon does, leaving a
// live run (one holding its lease) alone.
func TestCloseAbandonedRunsSparesLiveRuns(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, _ := openTestDB(t)
		live := mustBegin(t, db, "azure", LeaseOptions{})
		defer live.Release()
		dead, err := db.StartRun(ctx, "aws") // no lease: its process is gone
		if err != nil {
			t.Fatal(err)
		}
		if err := db.CloseAbandonedRuns(ctx); err != nil {
			t.Fatal(err)
		}
		runs, err := db.Runs(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		want := map[int64]string{live.RunID: pricewatch.RunRunning, dead: pricewatch.RunAbandoned}
		for _, r := range runs {
			if w, ok := want[r.ID]; ok && r.Status != w {
				t.Errorf("run %d (%s): %s, want %s", r.ID, r.Provider, r.Status, w)
			}
		}
	})
}

// A run still 'running' past its deadline reads as failed wherever the
// latest runs are shown (the digest, /readyz).
func TestOverdueRunReadsAsFailed(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		l := mustBegin(t, db, "azure", LeaseOptions{Timeout: 30 * time.Minute})
		defer l.Release()
		runs, err := db.LastRuns(ctx)
		if err != nil || len(runs) != 1 || runs[0].Status != pricewatch.RunRunning {
			t.Fatalf("fresh run: %+v, %v", runs, err)
		}
		clk.tick()
		runs, err = db.LastRuns(ctx)
		if err != nil || len(runs) != 1 {
			t.Fatalf("%+v, %v", runs, err)
		}
		if runs[0].Status != pricewatch.RunFailed || !strings.Contains(runs[0].Error, "after its timeout") {
			t.Errorf("overdue run: %s %q, want failed past its timeout", runs[0].Status, runs[0].Error)
		}
	})
}

// A run whose clock lags stores after the newest stored time, never before.
func TestRunTimeNeverPrecedesStoredTime(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		store := func() *Result {
			t.Helper()
			l := mustBegin(t, db, "azure", LeaseOptions{})
			defer l.Release()
			res, err := db.SaveSnapshot(ctx, l.RunID, snapshot(offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.OnDemand, "98.32")), SaveOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		first := store()
		clk.t = clk.t.Add(-time.Hour) // this process's clock is an hour behind
		second := store()
		if !second.At.After(first.At) {
			t.Errorf("second run stored at %s, not after the first's %s", second.At, first.At)
		}
		bad, err := db.IntervalViolations(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bad {
			t.Error(b)
		}
	})
}

// A run whose lease was taken over may not store.
func TestSaveRefusesRunWithoutLease(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, _ := openTestDB(t)
		l := mustBegin(t, db, "azure", LeaseOptions{})
		defer l.Release()
		// Another host took the lease over (ours was not renewed in time).
		if _, err := db.write.ExecContext(ctx, `INSERT INTO fetch_runs (provider, started_at, status) VALUES ('azure', ?, 'running')`, formatTime(db.Now())); err != nil {
			t.Fatal(err)
		}
		if _, err := db.write.ExecContext(ctx, `UPDATE run_leases SET run_id = (SELECT MAX(id) FROM fetch_runs), host = 'elsewhere', pid = ? WHERE provider = 'azure'`, os.Getpid()); err != nil {
			t.Fatal(err)
		}
		_, err := db.SaveSnapshot(ctx, l.RunID, snapshot(offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.OnDemand, "98.32")), SaveOptions{})
		if !errors.Is(err, ErrLeaseLost) {
			t.Fatalf("save after losing the lease: %v, want ErrLeaseLost", err)
		}
		n, err := db.CurrentOfferCounts(ctx)
		if err != nil || n["azure"] != 0 {
			t.Errorf("stored %v offers (%v), want none", n, err)
		}
	})
}

// Issue 34 item 9: a lease lapses after LeaseOptions.TTL (the daemon
// passes ha.takeover on PostgreSQL), not after the two minutes a run
// without election keeps; a TTL below the floor is raised to it.
func TestRunLeaseTTL(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, _ := openTestDB(t)
		for _, c := range []struct {
			ttl, want time.Duration
		}{{0, DefaultLeaseTTL}, {6 * time.Second, 6 * time.Second}, {time.Millisecond, minLeaseTTL}} {
			l := mustBegin(t, db, "azure", LeaseOptions{TTL: c.ttl})
			var acquired, expires string
			if err := db.write.QueryRowContext(ctx, `SELECT acquired_at, expires_at FROM run_leases WHERE provider = 'azure'`).Scan(&acquired, &expires); err != nil {
				t.Fatal(err)
			}
			a, _ := parseTime(acquired)
			e, _ := parseTime(expires)
			if got := e.Sub(a); got != c.want {
				t.Errorf("TTL %s: the lease lapses %s after it was taken, want %s", c.ttl, got, c.want)
			}
			if l.renewal != c.want/6 {
				t.Errorf("TTL %s: renewed every %s, want %s", c.ttl, l.renewal, c.want/6)
			}
			l.Release()
		}
	})
}

// mustBegin takes provider's run lease with opts and starts its run, as a
// run of pricewatch does; a failure fails t.
func mustBegin(t *testing.T, db *DB, provider string, opts LeaseOptions) *Lease {
	t.Helper()
	l, err := db.BeginRun(t.Context(), provider, opts)
	if err != nil {
		t.Fatal(err)
	}
	return l
}
