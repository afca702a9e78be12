package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/internal/testing/wait"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/storage/dbtest"
)

// heldStore holds the whole current state's read (every current price,
// no GPU narrowing) until release is closed.
type heldStore struct {
	*storage.DB
	release chan struct{}
	held    chan struct{}
}

func (h heldStore) hold(f storage.PriceFilter) {
	if f.CurrentOnly && f.GPUModels == nil && f.InstanceType == "" && len(f.OfferIDs) == 0 {
		select {
		case h.held <- struct{}{}:
		default:
		}
		<-h.release
	}
}

func (h heldStore) Prices(ctx context.Context, f storage.PriceFilter) ([]storage.PriceInterval, error) {
	h.hold(f)
	return h.DB.Prices(ctx, f)
}

func (h heldStore) EachPrice(ctx context.Context, f storage.PriceFilter, fn func(*storage.PriceInterval) error) error {
	h.hold(f)
	return h.DB.EachPrice(ctx, f, fn)
}

// A question the store narrows to one GPU is answered from the store
// while the version's current state is still being read, and the same as
// from that state once it is (issue 35: cheapest right after start); it
// does not start that read itself.
func TestNarrowReadsDoNotWaitForTheState(t *testing.T) {
	ctx := context.Background()
	db := dbtest.Open(t)
	hw := pricewatch.Hardware{GPUModel: "H100", GPUCount: 8, GPUMemoryGB: 80}
	snap := &pricewatch.Snapshot{Provider: pricewatch.AWS, Coverage: []pricewatch.Scope{{Region: "us-east-1"}}, Offers: []pricewatch.Offer{
		{Provider: "aws", Region: "us-east-1", InstanceType: "p5.48xlarge", PriceType: pricewatch.OnDemand, OS: pricewatch.Linux,
			Currency: "USD", Hourly: decimal.RequireFromString("98.32"), Hardware: hw},
		{Provider: "aws", Region: "us-east-1", InstanceType: "p4d.24xlarge", PriceType: pricewatch.OnDemand, OS: pricewatch.Linux,
			Currency: "USD", Hourly: decimal.RequireFromString("32.77"), Hardware: pricewatch.Hardware{GPUModel: "A100-40GB", GPUCount: 8}},
	}}
	id, err := db.StartRun(ctx, snap.Provider)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SaveSnapshot(ctx, id, snap, storage.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	held := heldStore{DB: db, release: make(chan struct{}), held: make(chan struct{}, 1)}
	s := &Server{Store: held, FX: func() report.FX { return report.FX{Currency: "USD"} },
		Now: func() time.Time { return time.Date(2026, 12, 5, 11, 19, 0, 0, time.UTC) }}
	if _, err := s.compare(ctx, report.CompareQuery{GPU: "H100", Scope: report.Scope{Currency: "USD", At: s.now()}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-held.held:
		t.Fatal("a one-GPU question read the whole current state")
	default:
	}
	go s.CurrentReads(ctx) // a wide view
	select {
	case <-held.held:
	case <-time.After(10 * time.Second):
		t.Fatal("the state's read never began")
	}
	q := report.CompareQuery{GPU: "H100", Scope: report.Scope{Currency: "USD", At: s.now()}}
	done := make(chan analysis.CompareResult, 1)
	go func() {
		res, err := s.compare(ctx, q)
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	var early analysis.CompareResult
	select {
	case early = <-done:
	case <-time.After(10 * time.Second):
		close(held.release)
		t.Fatal("cheapest H100 waited for the whole state's read")
	}
	if len(early.Rows) != 1 || early.Rows[0].InstanceType != "p5.48xlarge" {
		t.Fatalf("while the state is read: %+v, want the one H100 offer", early.Rows)
	}
	close(held.release)
	wait.For(t, "the current state", 10*time.Second, func() bool { return s.current.Load() != nil })
	late, err := s.compare(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(early)
	b, _ := json.Marshal(late)
	if string(a) != string(b) {
		t.Fatalf("from the store:\n%s\nfrom the state:\n%s", a, b)
	}
}

// countingStore counts the current state's reads (whole, or of the
// providers that ran).
type countingStore struct {
	*storage.DB
	stateReads *int
}

func (c countingStore) EachPrice(ctx context.Context, f storage.PriceFilter, fn func(*storage.PriceInterval) error) error {
	if f.CurrentOnly && f.GPUModels == nil {
		*c.stateReads++
	}
	return c.DB.EachPrice(ctx, f, fn)
}

// Issue 30: a run's start moves the data version and the overview is
// computed again for it (its freshness shows the run running), but
// neither the current state (which /metrics and every current view read)
// nor the overview's prices are: the start stored none. The run's prices
// then compute both again.
func TestRunStartKeepsTheOverviewsPrices(t *testing.T) {
	ctx := context.Background()
	db := dbtest.Open(t)
	db.Now = func() time.Time { return time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC) }
	snap := &pricewatch.Snapshot{Provider: pricewatch.AWS, Coverage: []pricewatch.Scope{{Region: "us-east-1"}}, Offers: []pricewatch.Offer{
		{Provider: "aws", Region: "us-east-1", InstanceType: "p5.48xlarge", PriceType: pricewatch.OnDemand, OS: pricewatch.Linux,
			Currency: "USD", Hourly: decimal.RequireFromString("98.32"), Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8, GPUMemoryGB: 80}},
	}}
	if _, err := dbtest.Store(t, db, snap, storage.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	var reads int // read by the refresher: looked at once it is done
	s := &Server{Store: countingStore{DB: db, stateReads: &reads}, FX: func() report.FX { return report.FX{Currency: "USD"} },
		Now:      func() time.Time { return time.Date(2026, 12, 5, 11, 19, 0, 0, time.UTC) },
		Expected: func(time.Time) map[string]time.Duration { return map[string]time.Duration{pricewatch.AWS: time.Hour} }}
	mux := http.NewServeMux()
	s.Mount(mux)
	// overview is the page once served as of the newest data version
	// (the kept one is served while its successor computes).
	overview := func() string {
		t.Helper()
		want, err := db.DataVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			rec := httptest.NewRecorder()
			mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
			if rec.Code != http.StatusOK {
				t.Fatalf("/: %d %s", rec.Code, rec.Body.String())
			}
			if rec.Header().Get(storage.DataVersionHeader) == want {
				return rec.Body.String()
			}
			if time.Now().After(deadline) {
				t.Fatalf("/ not served as of %s", want)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	overview()
	prices := s.overview.Load()
	if prices == nil || reads != 1 {
		t.Fatalf("first view: overview's prices %v, %d reads of the state; want them kept after one", prices, reads)
	}
	id, err := db.StartRun(ctx, pricewatch.AWS)
	if err != nil {
		t.Fatal(err)
	}
	if page := overview(); !strings.Contains(page, pricewatch.RunRunning) {
		t.Errorf("after a start the overview does not show the run running")
	}
	s.CurrentReads(ctx) // as /metrics' scrape and a new query read it
	if s.overview.Load() != prices || reads != 1 {
		t.Errorf("after a start: the overview's prices computed again (%v) or the state read again (%d reads)", s.overview.Load() != prices, reads)
	}
	snap.Offers[0].Hourly = decimal.RequireFromString("88.00")
	if _, err := db.SaveSnapshot(ctx, id, snap, storage.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if page := overview(); !strings.Contains(page, "11.00") {
		t.Errorf("after the run's prices the overview does not show $11.00 per GPU-hour")
	}
	if s.overview.Load() == prices || reads != 2 {
		t.Errorf("after the run's prices: the overview's prices kept, or %d reads of the state; want both again", reads)
	}
}
