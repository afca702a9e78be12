package metrics

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"
	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis/digest"
	"github.com/pricewatch/pricewatch/internal/testing/promtool"
	"github.com/pricewatch/pricewatch/internal/testing/wait"
	providerrun "github.com/pricewatch/pricewatch/run"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/storage/dbtest"
	"github.com/pricewatch/pricewatch/web"
)

// fixtureAt is when the fixture's runs are stored.
var fixtureAt = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)

// fixtureDB is a database with one stored run of each of two clouds:
// Azure's 8x H100 at 68 USD on demand (8.5 a GPU-hour) and 20 spot (2.5),
// its 8x A100 at 32.77 on demand (4.09625) and 6.554 spot (0.81925), and
// AWS's 8x H100 at 60 on demand (7.5), the cheapest H100 on demand.
func fixtureDB(t *testing.T) *storage.DB {
	t.Helper()
	db := dbtest.Open(t)
	db.Now = func() time.Time { return fixtureAt }
	h100 := pricewatch.Hardware{GPUModel: "H100", GPUCount: 8, GPUMemoryGB: 80}
	a100 := pricewatch.Hardware{GPUModel: "A100-80GB", GPUCount: 8, GPUMemoryGB: 80}
	store(t, db, pricewatch.Azure, offer(pricewatch.Azure, "Standard_ND96isr_H100_v5", pricewatch.OnDemand, "68", h100),
		offer(pricewatch.Azure, "Standard_ND96isr_H100_v5", pricewatch.Spot, "20", h100),
		offer(pricewatch.Azure, "Standard_ND96amsr_A100_v4", pricewatch.OnDemand, "32.77", a100),
		offer(pricewatch.Azure, "Standard_ND96amsr_A100_v4", pricewatch.Spot, "6.554", a100))
	store(t, db, pricewatch.AWS, offer(pricewatch.AWS, "p5.48xlarge", pricewatch.OnDemand, "60", h100))
	return db
}

func offer(provider, typ string, pt pricewatch.PriceType, hourly string, hw pricewatch.Hardware) pricewatch.Offer {
	return pricewatch.Offer{Provider: provider, Region: "westus2", InstanceType: typ, PriceType: pt, OS: pricewatch.Linux,
		Currency: "USD", Hourly: decimal.RequireFromString(hourly), Hardware: hw}
}

// store saves a successful run of provider listing offers.
func store(t *testing.T, db *storage.DB, provider string, offers ...pricewatch.Offer) {
	t.Helper()
	snap := &pricewatch.Snapshot{Provider: provider, Offers: offers, Coverage: []pricewatch.Scope{{Region: "westus2"}}}
	dbtest.Save(t, db, snap)
}

// gaugeValue gathers reg and returns the value of the series name with
// exactly these labels.
func gaugeValue(t *testing.T, reg prometheus.Gatherer, name string, labels map[string]string) (float64, bool) {
	t.Helper()
	for _, s := range series(t, reg, name) {
		v := s["value"]
		delete(s, "value")
		if len(s) == len(labels) && func() bool {
			for k, want := range labels {
				if s[k] != want {
					return false
				}
			}
			return true
		}() {
			f, _ := strconv.ParseFloat(v, 64)
			return f, true
		}
	}
	return 0, false
}

// series returns every series of a gauge as label sets with values.
func series(t *testing.T, reg prometheus.Gatherer, name string) []map[string]string {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("gathering metrics: %v", err)
	}
	var out []map[string]string
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			s := map[string]string{"value": strconv.FormatFloat(m.GetGauge().GetValue(), 'g', -1, 64)}
			for _, l := range m.GetLabel() {
				s[l.GetName()] = l.GetValue()
			}
			out = append(out, s)
		}
	}
	return out
}

func usd() PriceSettings { return PriceSettings{Currency: "USD"} }

// TestCheapestPerGPUHour: the cheapest price per GPU-hour of each model
// and price type, and no per-offer series without metrics.offers.
func TestCheapestPerGPUHour(t *testing.T) {
	db := fixtureDB(t)
	m := New(db, "test")
	m.AddPriceSeries(db, usd)
	want := map[string]string{"H100/on_demand": "7.5", "H100/spot": "2.5", "A100-80GB/on_demand": "4.09625", "A100-80GB/spot": "0.81925"}
	got := map[string]string{}
	for _, s := range series(t, m.Registry(), "pricewatch_cheapest_price_per_gpu_hour") {
		got[s["gpu_model"]+"/"+s["price_type"]] = s["value"]
	}
	if len(got) != len(want) {
		t.Errorf("cheapest series %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	if s := series(t, m.Registry(), "pricewatch_offer_price_per_gpu_hour"); len(s) != 0 {
		t.Errorf("per-offer series without metrics.offers: %v", s)
	}
}

// TestPerOfferSeries: metrics.offers selects one series per matching offer;
// a family name covers its variants.
func TestPerOfferSeries(t *testing.T) {
	db := fixtureDB(t)
	m := New(db, "test")
	m.AddPriceSeries(db, func() PriceSettings {
		return PriceSettings{Currency: "USD", Offers: Offers{GPUModels: []string{"A100", "H100"}, PriceTypes: []string{"spot"}, Providers: []string{"azure"}}}
	})
	var got []string
	for _, s := range series(t, m.Registry(), "pricewatch_offer_price_per_gpu_hour") {
		got = append(got, s["instance_type"]+" "+s["price_type"]+" "+s["gpu_model"]+" "+s["currency"]+" "+s["value"])
	}
	slices.Sort(got)
	want := []string{"Standard_ND96amsr_A100_v4 spot A100-80GB USD 0.81925", "Standard_ND96isr_H100_v5 spot H100 USD 2.5"}
	if !slices.Equal(got, want) {
		t.Errorf("per-offer series %q, want %q", got, want)
	}
}

// countingStore counts how often the price rows are read.
type countingStore struct {
	PriceStore
	reads atomic.Int32
}

func (c *countingStore) EachPrice(ctx context.Context, f storage.PriceFilter, fn func(*storage.PriceInterval) error) error {
	c.reads.Add(1)
	return c.PriceStore.EachPrice(ctx, f, fn)
}

// TestPriceSeriesCachedPerRun: scrapes between runs reuse the computed
// series; a committed run that changes a price shows within moments.
func TestPriceSeriesCachedPerRun(t *testing.T) {
	db := fixtureDB(t)
	st := &countingStore{PriceStore: db}
	reg := prometheus.NewRegistry()
	errs := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "errors_total", Help: "read errors"}, []string{"series"})
	reg.MustRegister(NewPriceCollector(st, usd, errs))
	h100 := map[string]string{"gpu_model": "H100", "price_type": "on_demand", "currency": "USD"}
	for i := 0; i < 3; i++ {
		if v, ok := gaugeValue(t, reg, "pricewatch_cheapest_price_per_gpu_hour", h100); !ok || v != 7.5 {
			t.Fatalf("scrape %d: %v %v", i, v, ok)
		}
	}
	if n := st.reads.Load(); n != 1 {
		t.Errorf("three scrapes read the prices %d times, want once", n)
	}
	db.Now = func() time.Time { return fixtureAt.Add(time.Hour) }
	store(t, db, pricewatch.AWS, offer(pricewatch.AWS, "p5.48xlarge", pricewatch.OnDemand, "48", pricewatch.Hardware{GPUModel: "H100", GPUCount: 8, GPUMemoryGB: 80}))
	// The scrape after the change gets the last series at once, and
	// starts the new ones beside it; a later scrape gets those.
	if v, _ := gaugeValue(t, reg, "pricewatch_cheapest_price_per_gpu_hour", h100); v != 7.5 && v != 6 {
		t.Errorf("right after the price change: %v, want the last series (7.5) or the new (6)", v)
	}
	wait.For(t, "the series of the price change", 10*time.Second, func() bool {
		v, _ := gaugeValue(t, reg, "pricewatch_cheapest_price_per_gpu_hour", h100)
		return v == 6 // 48 / 8
	})
	if n := st.reads.Load(); n != 2 {
		t.Errorf("the prices were read %d times, want twice (once per data version)", n)
	}
}

// A scrape never waits behind a recomputation once there are series: the
// store holding the new version's read, it answers the last series.
func TestScrapeDoesNotWaitForNewSeries(t *testing.T) {
	db := fixtureDB(t)
	st := &heldPrices{PriceStore: db, release: make(chan struct{})}
	reg := prometheus.NewRegistry()
	errs := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "errors_total", Help: "read errors"}, []string{"series"})
	reg.MustRegister(NewPriceCollector(st, usd, errs))
	h100 := map[string]string{"gpu_model": "H100", "price_type": "on_demand", "currency": "USD"}
	if v, ok := gaugeValue(t, reg, "pricewatch_cheapest_price_per_gpu_hour", h100); !ok || v != 7.5 {
		t.Fatalf("first scrape: %v %v", v, ok)
	}
	st.hold.Store(true)
	db.Now = func() time.Time { return fixtureAt.Add(time.Hour) }
	store(t, db, pricewatch.AWS, offer(pricewatch.AWS, "p5.48xlarge", pricewatch.OnDemand, "48", pricewatch.Hardware{GPUModel: "H100", GPUCount: 8, GPUMemoryGB: 80}))
	done := make(chan float64, 1)
	go func() {
		v, _ := gaugeValue(t, reg, "pricewatch_cheapest_price_per_gpu_hour", h100)
		done <- v
	}()
	select {
	case v := <-done:
		if v != 7.5 {
			t.Errorf("while the new series are read: %v, want the last (7.5)", v)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a scrape waited for the new series")
	}
	close(st.release)
	wait.For(t, "the new series", 10*time.Second, func() bool {
		v, _ := gaugeValue(t, reg, "pricewatch_cheapest_price_per_gpu_hour", h100)
		return v == 6
	})
}

// heldPrices holds every price read while hold is set, until release.
type heldPrices struct {
	PriceStore
	hold    atomic.Bool
	release chan struct{}
}

func (h *heldPrices) EachPrice(ctx context.Context, f storage.PriceFilter, fn func(*storage.PriceInterval) error) error {
	if h.hold.Load() {
		select {
		case <-h.release:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return h.PriceStore.EachPrice(ctx, f, fn)
}

// TestPromtoolCheckMetrics runs `promtool check metrics` on a /metrics
// scrape of the fixture database with per-offer series on. It skips only
// where promtool is missing; CI installs it and sets
// PRICEWATCH_REQUIRE_PROMTOOL=1 so that it cannot skip there.
func TestPromtoolCheckMetrics(t *testing.T) {
	promtool := promtool.Path(t)
	db := fixtureDB(t)
	m := New(db, "test")
	m.AddPriceSeries(db, func() PriceSettings {
		return PriceSettings{Currency: "USD", Offers: Offers{GPUModels: []string{"H100"}}}
	})
	m.Observe(providerrun.Summary{Provider: "azure", Status: providerrun.StatusOK, Duration: time.Second, Result: &storage.Result{At: time.Now()}})
	srv := httptest.NewServer(Handler(m, func(context.Context) (web.Readiness, error) { return web.Readiness{}, web.NotReady }, zap.NewNop()))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("/metrics: %d %v", resp.StatusCode, err)
	}
	for _, want := range []string{"pricewatch_cheapest_price_per_gpu_hour{", "pricewatch_cheapest_offer_info{", "pricewatch_offer_price_per_gpu_hour{",
		"pricewatch_fetch_last_success_timestamp_seconds{provider=\"aws\"}", "pricewatch_outbox_pending "} {
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) != 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

// failingStore fails every read once fail is set.
type failingStore struct {
	PriceStore
	fail atomic.Bool
}

var errDBGone = errors.New("database is locked")

func (f *failingStore) DataVersion(ctx context.Context) (string, error) {
	if f.fail.Load() {
		return "", errDBGone
	}
	return f.PriceStore.DataVersion(ctx)
}

func (f *failingStore) LastSuccessTimes(context.Context) (map[string]time.Time, error) {
	return nil, errDBGone
}

func (f *failingStore) LastQueued(context.Context, string) (time.Time, bool, error) {
	return time.Time{}, false, errDBGone
}

// TestScrapeSurvivesReadErrors: a database read that fails at scrape time
// does not fail the scrape: the price series stay at their last good
// values, the freshness series are left out, and each failure is counted.
func TestScrapeSurvivesReadErrors(t *testing.T) {
	st := &failingStore{PriceStore: fixtureDB(t)}
	errs := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "pricewatch_metrics_read_errors_total", Help: "read errors"}, []string{"series"})
	reg := prometheus.NewRegistry()
	reg.MustRegister(errs, NewPriceCollector(st, usd, errs), NewFreshnessCollector(st, errs))
	h100 := map[string]string{"gpu_model": "H100", "price_type": "on_demand", "currency": "USD"}
	if v, ok := gaugeValue(t, reg, "pricewatch_cheapest_price_per_gpu_hour", h100); !ok || v != 7.5 {
		t.Fatalf("before the failure: %v %v", v, ok)
	}
	st.fail.Store(true)
	if v, ok := gaugeValue(t, reg, "pricewatch_cheapest_price_per_gpu_hour", h100); !ok || v != 7.5 {
		t.Errorf("while reads fail: %v (present %v), want the last good 7.5", v, ok)
	}
	if s := series(t, reg, "pricewatch_fetch_last_success_timestamp_seconds"); len(s) != 0 {
		t.Errorf("last-success series from a failed read: %v", s)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("scrape failed: %v", err)
	}
	counted := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() == "pricewatch_metrics_read_errors_total" {
			for _, m := range mf.GetMetric() {
				counted[m.GetLabel()[0].GetValue()] = m.GetCounter().GetValue()
			}
		}
	}
	if counted["prices"] < 1 || counted["last_success"] < 1 || counted["digest"] < 1 {
		t.Errorf("read errors counted %v, want prices, last_success and digest", counted)
	}
}

// TestDigestGaugeFromOutbox: the digest gauge is the time the last digest
// was queued, read from the outbox, so a fresh registry (a restart) shows
// it too; absent until one was queued.
func TestDigestGaugeFromOutbox(t *testing.T) {
	db := fixtureDB(t)
	if _, ok := gaugeValue(t, New(db, "test").Registry(), "pricewatch_digest_last_success_timestamp_seconds", nil); ok {
		t.Fatal("a digest gauge before any digest was queued")
	}
	m := New(db, "test")
	if _, err := db.Enqueue(context.Background(), storage.OutboxMessage{DeliveryKey: "digest/2026-W45/C0FINOPS", Channel: "C0FINOPS",
		Kind: digest.Kind, Payload: []byte(`{}`)}, nil); err != nil {
		t.Fatal(err)
	}
	want := float64(fixtureAt.Unix())
	for i, m := range []*Metrics{m, New(db, "test")} {
		if got, ok := gaugeValue(t, m.Registry(), "pricewatch_digest_last_success_timestamp_seconds", nil); !ok || got != want {
			t.Errorf("registry %d: digest gauge %v (present %v), want %v", i, got, ok, want)
		}
	}
}
