package run

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/hardware"
	"github.com/pricewatch/pricewatch/leader"
	"github.com/pricewatch/pricewatch/secret"
	"github.com/pricewatch/pricewatch/storage"
)

// memStore is an in-memory Store: runs, versions and saved snapshots in
// maps, the lease a flag per provider, as storage keeps them in tables.
type memStore struct {
	mu       sync.Mutex
	nextRun  int64
	held     map[string]int64 // provider → run holding its lease
	runs     map[int64]memRun
	versions map[string]map[string]string
	saved    map[int64]*pricewatch.Snapshot
	// beginErr fails BeginRun (a locked database); unstarted records what
	// RecordUnstartedRun was told.
	beginErr  error
	unstarted []string
	lastOpts  storage.SaveOptions
	// finishFails fails that many FinishRun calls (a partition);
	// finishCtxErr records the context error each call was handed.
	finishFails  int
	finishCtxErr []error
}

type memRun struct {
	provider, status, errText string
}

func newMemStore() *memStore {
	return &memStore{held: map[string]int64{}, runs: map[int64]memRun{}, versions: map[string]map[string]string{}, saved: map[int64]*pricewatch.Snapshot{}}
}

type memLease struct {
	s        *memStore
	provider string
	id       int64
	ctx      context.Context
	cancel   context.CancelFunc
}

func (l *memLease) ID() int64                { return l.id }
func (l *memLease) Context() context.Context { return l.ctx }
func (l *memLease) Release() {
	l.cancel()
	l.s.mu.Lock()
	defer l.s.mu.Unlock()
	if l.s.held[l.provider] == l.id {
		delete(l.s.held, l.provider)
	}
}

func (s *memStore) BeginRun(ctx context.Context, provider string, opts storage.LeaseOptions) (Lease, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.beginErr != nil {
		return nil, s.beginErr
	}
	s.nextRun++
	id := s.nextRun
	if holder, ok := s.held[provider]; ok {
		s.runs[id] = memRun{provider: provider, status: pricewatch.RunSkipped}
		return nil, &storage.RunInProgressError{Provider: provider, HolderRun: holder, Holder: "other", SkippedRun: id}
	}
	s.held[provider] = id
	s.runs[id] = memRun{provider: provider, status: "running"}
	lctx, cancel := context.WithCancel(context.Background())
	return &memLease{s: s, provider: provider, id: id, ctx: lctx, cancel: cancel}, nil
}

func (s *memStore) RecordUnstartedRun(_ context.Context, provider string, _ time.Time, errText string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unstarted = append(s.unstarted, provider+": "+errText)
	return nil
}

func (s *memStore) Versions(_ context.Context, provider string) (map[string]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.versions[provider], nil
}

func (s *memStore) FetcherState(context.Context, string) ([]byte, error) { return nil, nil }

func (s *memStore) FinishRun(ctx context.Context, runID int64, status, errText string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.finishCtxErr = append(s.finishCtxErr, ctx.Err())
	if s.finishFails > 0 {
		s.finishFails--
		return errors.New("recording end of run: connection timed out")
	}
	r := s.runs[runID]
	r.status, r.errText = status, errText
	s.runs[runID] = r
	return nil
}

func (s *memStore) SaveSnapshot(ctx context.Context, runID int64, snap *pricewatch.Snapshot, opts storage.SaveOptions) (*storage.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.saved[runID] = snap
	s.versions[snap.Provider] = snap.Versions
	s.lastOpts = opts
	r := s.runs[runID]
	r.status = pricewatch.RunOK
	s.runs[runID] = r
	return &storage.Result{RunID: runID, Provider: snap.Provider, Seen: len(snap.Offers), New: len(snap.Offers)}, nil
}

func (s *memStore) Prices(context.Context, storage.PriceFilter) ([]storage.PriceInterval, error) {
	return nil, nil
}

func (s *memStore) HeldStreaks(context.Context, string) (map[pricewatch.OfferKey]storage.HeldStreak, error) {
	return nil, nil
}

// fakeFetcher returns its snapshot, or its error, or blocks until the
// run's context ends when block is set; it records the versions it was
// handed.
type fakeFetcher struct {
	snap  *pricewatch.Snapshot
	err   error
	block bool
	got   fetchers.Previous
	calls int
	// started is closed when Fetch is entered (for the overlap case).
	started chan struct{}
	release chan struct{}
}

func (f *fakeFetcher) Provider() string { return "fake" }

func (f *fakeFetcher) Fetch(ctx context.Context, prev fetchers.Previous) (*pricewatch.Snapshot, error) {
	f.got = prev
	f.calls++
	if f.started != nil {
		close(f.started)
	}
	if f.release != nil {
		<-f.release
	}
	if f.block {
		<-ctx.Done()
		return nil, fmt.Errorf("downloading the price list: %w", ctx.Err())
	}
	return f.snap, f.err
}

func snapshot() *pricewatch.Snapshot {
	return &pricewatch.Snapshot{
		Provider: "fake",
		Offers: []pricewatch.Offer{{Provider: "fake", Region: "r1", InstanceType: "gpu.1", PriceType: pricewatch.OnDemand, OS: pricewatch.Linux,
			Currency: "USD", Hourly: decimal.RequireFromString("1.25")}},
		Coverage: []pricewatch.Scope{{Region: "r1"}},
		Versions: map[string]string{"r1": "v2"},
	}
}

// Issue 21 item 1: one provider run is a library with a consumer-declared
// store: each path of run.Provider — stored, failed, skipped without
// credentials, overlapping another run, timed out, not started — leaves
// the summary and the run record it must, on an in-memory store.
func TestProvider(t *testing.T) {
	secretKey := "s3cr3t-key-value"
	tests := []struct {
		name       string
		fetcher    *fakeFetcher
		timeout    time.Duration
		beginErr   error
		want       string // summary status
		wantRecord string // the run's recorded status ("" for none)
		wantErr    string // in the summary's error and the record
		wantLine   string
	}{
		{name: "ok", fetcher: &fakeFetcher{snap: snapshot()}, want: StatusOK, wantRecord: pricewatch.RunOK,
			wantLine: "fake     ok       1 offers: 1 new, 0 changed, 0 unchanged, 0 closed"},
		{name: "failed", fetcher: &fakeFetcher{err: errors.New("price list: HTTP 500 (key " + secretKey + ")")}, want: StatusFailed,
			wantRecord: pricewatch.RunFailed, wantErr: "HTTP 500", wantLine: "FAILED"},
		{name: "skipped without credentials", fetcher: &fakeFetcher{err: fmt.Errorf("fake: %w", fetchers.ErrNoCredentials)}, want: StatusSkipped,
			wantRecord: pricewatch.RunSkipped, wantErr: "credentials", wantLine: "fake     skipped"},
		{name: "timeout", fetcher: &fakeFetcher{block: true}, timeout: 20 * time.Millisecond, want: StatusFailed,
			wantRecord: pricewatch.RunFailed, wantErr: "providers.fake.timeout is 20ms", wantLine: "nothing stored"},
		{name: "not started", fetcher: &fakeFetcher{snap: snapshot()}, beginErr: errors.New("database is locked"), want: StatusNotStarted,
			wantErr: "run could not start: database is locked", wantLine: "nothing fetched or stored"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newMemStore()
			st.beginErr = tt.beginErr
			st.versions["fake"] = map[string]string{"r1": "v1"}
			job := Job{Name: "fake", Fetcher: tt.fetcher, Timeout: tt.timeout, Owner: "test", Scrub: secret.New(secretKey)}
			sum := Provider(context.Background(), st, job, storage.SaveOptions{MinOfferRatio: 0.5}, zap.NewNop())
			if sum.Status != tt.want {
				t.Fatalf("status %s (%v), want %s", sum.Status, sum.Err, tt.want)
			}
			if line := sum.Line(); !strings.Contains(line, tt.wantLine) {
				t.Errorf("line %q, want it to hold %q", line, tt.wantLine)
			}
			if tt.wantErr == "" && sum.Err != nil || tt.wantErr != "" && (sum.Err == nil || !strings.Contains(sum.Err.Error(), tt.wantErr)) {
				t.Errorf("error %v, want %q", sum.Err, tt.wantErr)
			}
			if sum.Err != nil && strings.Contains(sum.Err.Error(), secretKey) {
				t.Errorf("the secret is in the error: %v", sum.Err)
			}
			if tt.beginErr != nil {
				if len(st.unstarted) != 1 || !strings.Contains(st.unstarted[0], "database is locked") {
					t.Errorf("unstarted records %q", st.unstarted)
				}
				return
			}
			r := st.runs[1]
			if r.status != tt.wantRecord || !strings.Contains(r.errText, tt.wantErr) || strings.Contains(r.errText, secretKey) {
				t.Errorf("run record %+v, want %s with %q", r, tt.wantRecord, tt.wantErr)
			}
			if got := tt.fetcher.got.Versions["r1"]; got != "v1" {
				t.Errorf("the fetcher was handed version %q, want the stored v1", got)
			}
			if _, saved := st.saved[1]; saved != (tt.want == StatusOK) {
				t.Errorf("snapshot saved %v for status %s", saved, sum.Status)
			}
			if tt.want == StatusOK && st.lastOpts.MinOfferRatio != 0.5 {
				t.Errorf("save options %+v: not passed through", st.lastOpts)
			}
			if len(st.held) != 0 {
				t.Errorf("lease still held after the run: %v", st.held)
			}
		})
	}
}

// Issue 21 item 1: a run that finds the provider's lease held is an
// overlap: nothing fetched, the holder's run untouched.
func TestProviderOverlap(t *testing.T) {
	st := newMemStore()
	first := &fakeFetcher{snap: snapshot(), started: make(chan struct{}), release: make(chan struct{})}
	done := make(chan Summary)
	go func() {
		done <- Provider(context.Background(), st, Job{Name: "fake", Fetcher: first}, storage.SaveOptions{}, zap.NewNop())
	}()
	<-first.started
	second := &fakeFetcher{snap: snapshot()}
	sum := Provider(context.Background(), st, Job{Name: "fake", Fetcher: second}, storage.SaveOptions{}, zap.NewNop())
	close(first.release)
	if sum.Status != StatusOverlap || !errors.Is(sum.Err, storage.ErrRunInProgress) || !strings.Contains(sum.Line(), "skipped") {
		t.Errorf("second run: %s %v (%q), want overlap", sum.Status, sum.Err, sum.Line())
	}
	if second.calls != 0 {
		t.Error("the overlapping run fetched")
	}
	if s := <-done; s.Status != StatusOK {
		t.Errorf("first run: %s %v", s.Status, s.Err)
	}
	if st.runs[1].status != pricewatch.RunOK || st.runs[2].status != pricewatch.RunSkipped {
		t.Errorf("runs %+v", st.runs)
	}
}

// Issue 20 item 8: a provider's name with control characters (a Vast.ai
// gpu_name carrying an OSC title sequence and BEL) is stored without them,
// with or without hardware overrides configured, and an override matches
// the name as stored.
func TestProviderStoresNamesWithoutControlCharacters(t *testing.T) {
	hostile := "1x RTX 4090\x1b]0;pwned\x07"
	for _, rules := range [][]hardware.Override{nil, {{InstanceType: "1x RTX 4090*", GPUModel: "RTX 4090", GPUCount: 1}}} {
		snap := &pricewatch.Snapshot{Provider: "fake",
			Offers: []pricewatch.Offer{{Provider: "fake", Region: "US", InstanceType: hostile, PriceType: pricewatch.OnDemand,
				OS: pricewatch.Linux, Currency: "USD", Hourly: decimal.RequireFromString("0.35"),
				Hardware: pricewatch.Hardware{GPUModel: "RTX 4090\x1b[2J", GPUCount: 1}}},
			Availability: []pricewatch.Availability{{Provider: "fake", Region: "US", InstanceType: hostile, State: pricewatch.InStock}},
			Coverage:     []pricewatch.Scope{{Region: "US"}},
		}
		st := newMemStore()
		job := Job{Name: "fake", Fetcher: &fakeFetcher{snap: snap}, Owner: "test", Hardware: hardware.NewOverrides(rules)}
		if sum := Provider(context.Background(), st, job, storage.SaveOptions{}, zap.NewNop()); sum.Status != StatusOK {
			t.Fatalf("overrides %v: status %s (%v)", rules, sum.Status, sum.Err)
		}
		saved := st.saved[1]
		for _, name := range []string{saved.Offers[0].InstanceType, saved.Offers[0].GPUModel, saved.Availability[0].InstanceType} {
			if pricewatch.Printable(name) != name {
				t.Errorf("overrides %v: stored name %q keeps control characters", rules, name)
			}
		}
		if rules != nil && saved.Offers[0].GPUModel != "RTX-4090" && saved.Offers[0].GPUModel != "RTX 4090" {
			t.Errorf("the override did not match the stored name: GPU %q", saved.Offers[0].GPUModel)
		}
	}
}

// Issue 34 item 7: a run that stored but could not read a region is
// partial, not ok: its line says partial and names the region and why
// (free of secrets), its row says partial with the same text as its
// error, and the snapshot is stored with the scrubbed reason.
func TestProviderPartial(t *testing.T) {
	secretKey := "s3cr3t-key-value"
	snap := snapshot()
	snap.Unread = []pricewatch.Unread{{Region: "us-west-2", Reason: "price file cut off after 4096 bytes (key " + secretKey + ")"}}
	st := newMemStore()
	job := Job{Name: "fake", Fetcher: &fakeFetcher{snap: snap}, Owner: "test", Scrub: secret.New(secretKey)}
	sum := Provider(context.Background(), st, job, storage.SaveOptions{}, zap.NewNop())
	if sum.Status != StatusPartial || sum.Err != nil {
		t.Fatalf("status %s (%v), want partial", sum.Status, sum.Err)
	}
	line := sum.Line()
	for _, want := range []string{"fake     partial  1 offers: 1 new", "1 region(s) not read, their stored prices kept: us-west-2 (price file cut off after 4096 bytes"} {
		if !strings.Contains(line, want) {
			t.Errorf("line %q, want it to hold %q", line, want)
		}
	}
	rows := Rows([]Summary{sum})
	if rows[0].Status != StatusPartial || rows[0].Error == nil || !strings.HasPrefix(*rows[0].Error, "not read: us-west-2 (price file cut off") {
		t.Errorf("row %+v, want partial with the region not read", rows[0])
	}
	saved := st.saved[1]
	for _, shown := range []string{line, *rows[0].Error, saved.Unread[0].Reason} {
		if strings.Contains(shown, secretKey) {
			t.Errorf("the secret shows: %s", shown)
		}
	}
}

// Issue 34 items 9 and 10: a replica that loses leadership as a run starts
// says so ("this replica lost leadership: …", not "context canceled") and
// records the run that could not start; one that loses it mid-run closes
// the record it started, with a context of its own (the run's is
// cancelled), trying again while the database is out of reach.
func TestProviderLeadershipLost(t *testing.T) {
	lost := fmt.Errorf("%w: no heartbeat got through for 2s", leader.ErrLost)
	t.Run("as the run starts", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(lost)
		st := newMemStore()
		st.beginErr = fmt.Errorf("recording start of azure run: %w", context.Canceled)
		sum := Provider(ctx, st, Job{Name: "azure", Fetcher: &fakeFetcher{snap: snapshot()}, Scrub: secret.New()}, storage.SaveOptions{}, zap.NewNop())
		want := "run could not start: recording start of azure run: this replica lost leadership: no heartbeat got through for 2s"
		if sum.Status != StatusNotStarted || sum.Err == nil || sum.Err.Error() != want {
			t.Fatalf("%s: %v, want %q", sum.Status, sum.Err, want)
		}
		if !errors.Is(sum.Err, leader.ErrLost) || !errors.Is(sum.Err, context.Canceled) {
			t.Errorf("%v does not wrap both the cause and the cancellation", sum.Err)
		}
		if len(st.unstarted) != 1 || !strings.Contains(st.unstarted[0], "lost leadership") || strings.Contains(st.unstarted[0], "context canceled") {
			t.Errorf("unstarted records %q", st.unstarted)
		}
	})
	t.Run("mid-run, the database out of reach at first", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		f := &fakeFetcher{block: true, started: make(chan struct{})}
		go func() {
			<-f.started
			cancel(lost)
		}()
		st := newMemStore()
		st.finishFails = 2
		sum := Provider(ctx, st, Job{Name: "fake", Fetcher: f, Scrub: secret.New()}, storage.SaveOptions{}, zap.NewNop())
		if sum.Status != StatusFailed || !errors.Is(sum.Err, leader.ErrLost) {
			t.Fatalf("%s: %v", sum.Status, sum.Err)
		}
		r := st.runs[1]
		want := "downloading the price list: this replica lost leadership: no heartbeat got through for 2s"
		if r.status != pricewatch.RunFailed || r.errText != want {
			t.Errorf("run record %+v, want failed with %q", r, want)
		}
		if len(st.finishCtxErr) != 3 {
			t.Errorf("FinishRun called %d times, want 3 (two failures, then the record)", len(st.finishCtxErr))
		}
		for i, err := range st.finishCtxErr {
			if err != nil {
				t.Errorf("FinishRun call %d was handed a context already done: %v", i, err)
			}
		}
	})
}
