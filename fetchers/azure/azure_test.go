package azure

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/internal/golden"
)

// fakeAzure replays the pages in testdata/pages the way the API serves
// them: the region comes from $filter, the page from $skip, and the real
// NextPageLink host is rewritten to the fake's own.
type fakeAzure struct {
	t   *testing.T
	srv *httptest.Server
	dir string

	mu       sync.Mutex
	requests []*http.Request
	// intercept, if set, may answer request n (1-based) itself.
	intercept func(w http.ResponseWriter, r *http.Request, n int) bool
}

var regionInFilter = regexp.MustCompile(`armRegionName eq '([a-z0-9]+)'`)

func newFake(t *testing.T) *fakeAzure {
	t.Helper()
	f := &fakeAzure{t: t, dir: filepath.Join("testdata", "pages")}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAzure) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.Clone(context.Background()))
	n := len(f.requests)
	intercept := f.intercept
	f.mu.Unlock()
	if intercept != nil && intercept(w, r, n) {
		return
	}
	m := regionInFilter.FindStringSubmatch(r.URL.Query().Get("$filter"))
	if m == nil {
		http.Error(w, `{"error":"this fake serves one region per chain"}`, http.StatusBadRequest)
		return
	}
	skip, _ := strconv.Atoi(r.URL.Query().Get("$skip"))
	body, err := os.ReadFile(filepath.Join(f.dir, fmt.Sprintf("%s-%d.json", m[1], skip/1000+1)))
	if err != nil {
		// A region with no GPU sizes: the real API answers with an empty page.
		body = []byte(`{"BillingCurrency":"USD","CustomerEntityId":"Default","CustomerEntityType":"Retail","Items":[],"NextPageLink":null,"Count":0}`)
	}
	body = []byte(strings.ReplaceAll(string(body), "https://prices.azure.com:443", f.srv.URL))
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Write(body)
}

func (f *fakeAzure) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

func (f *fakeAzure) request(i int) *http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests[i]
}

func testClient() (*fetchers.Client, *fetcherstest.Sleeps) {
	c := fetchers.NewClient(fetchers.RetryPolicy{MaxAttempts: 4, BaseDelay: time.Second, MaxDelay: time.Minute, RequestTimeout: 5 * time.Second})
	s := &fetcherstest.Sleeps{}
	c.SetSleep(s.Sleep)
	return c, s
}

func newTestFetcher(t *testing.T, cfg Config, log *zap.Logger) (*Fetcher, *fetcherstest.Sleeps) {
	t.Helper()
	c, s := testClient()
	f, err := New(cfg, c, log)
	if err != nil {
		t.Fatal(err)
	}
	return f, s
}

func offerIndex(snap *pricewatch.Snapshot) map[string]pricewatch.Offer {
	m := map[string]pricewatch.Offer{}
	for _, o := range snap.Offers {
		m[o.Key().String()] = o
	}
	return m
}

func TestFetchGolden(t *testing.T) {
	fake := newFake(t)
	f, _ := newTestFetcher(t, Config{Endpoint: fake.srv.URL + "/api/retail/prices", Regions: []string{"eastus", "westeurope"}, Windows: true}, nil)
	snap := fetcherstest.Fetched(t, f, nil)
	// Three eastus pages through NextPageLink, one westeurope page.
	if got := fake.count(); got != 4 {
		t.Errorf("made %d requests, want 4 (3 eastus pages + 1 westeurope)", got)
	}
	got := render(t, snap)
	golden.Check(t, filepath.Join("testdata", "golden", "snapshot.golden"), []byte(got))
}

// render prints a snapshot in a stable, reviewable form.
func render(t *testing.T, snap *pricewatch.Snapshot) string {
	t.Helper()
	var b strings.Builder
	for _, o := range snap.Offers {
		eff, err := o.EffectiveHourly()
		if err != nil {
			t.Fatalf("%s: %v", o.Key(), err)
		}
		fmt.Fprintf(&b, "offer %s currency=%s hourly=%s upfront=%s effective=%s gpu=%s×%g mem=%g vcpu=%d ram=%g\n",
			o.Key(), o.Currency, o.Hourly, o.Upfront, eff, o.GPUModel, o.GPUCount, o.GPUMemoryGB, o.VCPUs, o.MemoryGB)
	}
	for _, a := range snap.Availability {
		fmt.Fprintf(&b, "availability %s/%s/%s/%s %s gpu=%s×%g\n", a.Provider, a.Region, a.Zone, a.InstanceType, a.State, a.GPUModel, a.GPUCount)
	}
	for _, c := range snap.Coverage {
		fmt.Fprintf(&b, "coverage region=%s price_types=%v availability=%t\n", c.Region, c.PriceTypes, c.Availability)
	}
	for _, k := range sortedVersionKeys(snap.Versions) {
		fmt.Fprintf(&b, "version %s=%s\n", k, snap.Versions[k])
	}
	fmt.Fprintf(&b, "source_version %s\n", snap.SourceVersion)
	return b.String()
}

func sortedVersionKeys(m map[string]string) []string {
	c := map[string]int{}
	for k := range m {
		c[k] = 0
	}
	return slices.Sorted(maps.Keys(c))
}

func TestFetchSendsAPIVersionAndFilter(t *testing.T) {
	fake := newFake(t)
	// One chain at a time, so that the requests come in a known order.
	f, _ := newTestFetcher(t, Config{Endpoint: fake.srv.URL + "/api/retail/prices", Regions: []string{"eastus", "westeurope"}, Concurrency: 1}, nil)
	if _, err := f.Fetch(context.Background(), fetchers.Previous{}); err != nil {
		t.Fatal(err)
	}
	gpuClause := "(startswith(armSkuName,'Standard_NC') or startswith(armSkuName,'Standard_ND') or startswith(armSkuName,'Standard_NG') or startswith(armSkuName,'Standard_NV'))"
	wantRegion := []string{"eastus", "eastus", "eastus", "westeurope"}
	for i := 0; i < fake.count(); i++ {
		r := fake.request(i)
		q := r.URL.Query()
		if got := q.Get("api-version"); got != APIVersion {
			t.Errorf("request %d: api-version %q, want %q", i+1, got, APIVersion)
		}
		want := "serviceName eq 'Virtual Machines' and " + gpuClause + " and armRegionName eq '" + wantRegion[i] + "'"
		if i == 1 || i == 2 {
			// Requests 2 and 3 follow the NextPageLink of the replayed
			// pages, which carry the filter the capture was made with.
			want = "serviceName eq 'Virtual Machines' and (startswith(armSkuName,'Standard_NC') or startswith(armSkuName,'Standard_ND') or startswith(armSkuName,'Standard_NV')) and armRegionName eq '" + wantRegion[i] + "'"
		}
		if got := q.Get("$filter"); got != want {
			t.Errorf("request %d: $filter\n got %q\nwant %q", i+1, got, want)
		}
		if r.URL.Path != "/api/retail/prices" {
			t.Errorf("request %d: path %q", i+1, r.URL.Path)
		}
		if i == 0 && (!strings.Contains(r.URL.RawQuery, "$filter=") || strings.Contains(r.URL.RawQuery, "+")) {
			t.Errorf("first request query %q: want the literal $filter name and %%20 for spaces", r.URL.RawQuery)
		}
	}
	if got := fake.request(1).URL.Query().Get("$skip"); got != "1000" {
		t.Errorf("second request $skip = %q: NextPageLink was not followed", got)
	}
}

func TestFetchAllRegionsIsOneChain(t *testing.T) {
	fake := newFake(t)
	fake.intercept = func(w http.ResponseWriter, r *http.Request, n int) bool {
		if strings.Contains(r.URL.Query().Get("$filter"), "armRegionName") {
			t.Errorf("request %d filters by region although no regions are configured", n)
		}
		body, _ := os.ReadFile(filepath.Join("testdata", "pages", "westeurope-1.json"))
		w.Write(body)
		return true
	}
	f, _ := newTestFetcher(t, Config{Endpoint: fake.srv.URL}, nil)
	snap := fetcherstest.Fetched(t, f, nil)
	if len(snap.Coverage) != 1 || snap.Coverage[0].Region != pricewatch.AllRegions || !snap.Coverage[0].Availability {
		t.Errorf("coverage %+v, want one all-regions scope with availability", snap.Coverage)
	}
	// With every region wanted, the eastus row on that page is kept too.
	idx := offerIndex(snap)
	if _, ok := idx["azure/eastus//Standard_ND96isr_H100_v5/on_demand////linux"]; !ok {
		t.Errorf("eastus row dropped in an all-regions fetch; offers: %v", keys(idx))
	}
}

func keys(m map[string]pricewatch.Offer) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestFetchMapping(t *testing.T) {
	fake := newFake(t)
	f, _ := newTestFetcher(t, Config{Endpoint: fake.srv.URL, Regions: []string{"eastus", "westeurope"}, Windows: true}, nil)
	snap := fetcherstest.Fetched(t, f, nil)
	idx := offerIndex(snap)
	const h = "azure/eastus//Standard_ND96isr_H100_v5/"
	tests := []struct {
		key              string
		hourly, upfront  string
		effective        string
		wantGPU          string
		wantGPUCount     float64
		wantGPUMemoryGB  float64
		wantCurrencyCode string
	}{
		{h + "on_demand////linux", "98.32", "0", "98.32", "H100", 8, 80, "USD"},
		{h + "on_demand////windows", "102.736", "0", "102.736", "H100", 8, 80, "USD"},
		{h + "spot////linux", "18.169536", "0", "18.169536", "H100", 8, 80, "USD"},
		{h + "spot////windows", "22.585536", "0", "22.585536", "H100", 8, 80, "USD"},
		// Reservation retailPrice is the whole term: 574203.0 / 8760 and 1121960.0 / 26280.
		{h + "reserved/1y/all_upfront//linux", "0", "574203", "65.5482876712", "H100", 8, 80, "USD"},
		{h + "reserved/3y/all_upfront//linux", "0", "1121960", "42.6925418569", "H100", 8, 80, "USD"},
		{h + "savings_plan/1y/no_upfront//linux", "69.3156", "0", "69.3156", "H100", 8, 80, "USD"},
		{h + "savings_plan/3y/no_upfront//linux", "44.244", "0", "44.244", "H100", 8, 80, "USD"},
		// The primary meter row wins over a dearer non-primary one listed first.
		{"azure/eastus//Standard_NC24ads_A100_v4/on_demand////linux", "3.673", "0", "3.673", "A100-80GB-PCIe", 1, 80, "USD"},
		{"azure/eastus//Standard_NC24ads_A100_v4/reserved/1y/all_upfront//linux", "0", "20276", "2.3146118721", "A100-80GB-PCIe", 1, 80, "USD"},
		{"azure/eastus//Standard_NV6ads_A10_v5/on_demand////linux", "0.454", "0", "0.454", "A10", 1.0 / 6, 4, "USD"},
		{"azure/westeurope//Standard_ND96asr_v4/reserved/3y/all_upfront//linux", "0", "275540", "10.4847792998", "A100-40GB", 8, 40, "USD"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			o, ok := idx[tt.key]
			if !ok {
				t.Fatalf("offer missing; have %v", keys(idx))
			}
			eff, err := o.EffectiveHourly()
			if err != nil {
				t.Fatal(err)
			}
			if o.Hourly.String() != tt.hourly || o.Upfront.String() != tt.upfront || eff.String() != tt.effective {
				t.Errorf("hourly=%s upfront=%s effective=%s, want %s %s %s", o.Hourly, o.Upfront, eff, tt.hourly, tt.upfront, tt.effective)
			}
			if o.GPUModel != tt.wantGPU || o.GPUCount != tt.wantGPUCount || o.GPUMemoryGB != tt.wantGPUMemoryGB || o.Currency != tt.wantCurrencyCode {
				t.Errorf("hardware/currency %+v %s", o.Hardware, o.Currency)
			}
		})
	}

	// What must never appear: Low Priority (41.094, 19.664), DevTest, Cloud
	// Services (4.04), the non-primary duplicate (3.9), the zero price and
	// the non-GPU / other-region rows.
	for _, o := range snap.Offers {
		for _, bad := range []string{"41.094", "19.664", "4.04", "3.9"} {
			if o.Hourly.String() == bad {
				t.Errorf("excluded row leaked into %s (hourly %s)", o.Key(), o.Hourly)
			}
		}
		switch o.InstanceType {
		case "Standard_B16als_v2", "Standard_NC40ads_H100_v5":
			t.Errorf("offer %s should have been left out", o.Key())
		}
		if o.Region == "australiacentral" {
			t.Errorf("offer %s from outside the configured regions", o.Key())
		}
	}
	if _, ok := idx["azure/westeurope//Standard_ND96isr_H100_v5/on_demand////linux"]; ok {
		t.Error("a westeurope offer was made from an eastus row")
	}
	// 24 from tracked sizes, 2 from the untracked NC8ads A10 v4 (kept
	// without GPU count).
	if n := len(snap.Offers); n != 26 {
		t.Errorf("%d offers, want 26", n)
	}
	// Availability: one per region × size with a price, offered, no zone.
	var avail []string
	for _, a := range snap.Availability {
		if a.State != pricewatch.Offered || a.Zone != "" {
			t.Errorf("availability %+v: want offered, regional", a)
		}
		avail = append(avail, a.Region+"/"+a.InstanceType)
	}
	want := "eastus/Standard_NC24ads_A100_v4 eastus/Standard_NC8ads_A10_v4 eastus/Standard_ND96isr_H100_v5 eastus/Standard_NV6ads_A10_v5 westeurope/Standard_ND96asr_v4"
	if got := strings.Join(avail, " "); got != want {
		t.Errorf("availability %s\nwant %s", got, want)
	}
}

func TestFetchWindowsOff(t *testing.T) {
	fake := newFake(t)
	f, _ := newTestFetcher(t, Config{Endpoint: fake.srv.URL, Regions: []string{"eastus"}}, nil)
	snap := fetcherstest.Fetched(t, f, nil)
	linux := 0
	for _, o := range snap.Offers {
		if o.OS != pricewatch.Linux {
			t.Errorf("Windows offer %s kept with windows: false", o.Key())
		}
		linux++
	}
	if linux == 0 {
		t.Fatal("no Linux offers either")
	}
	if o, ok := offerIndex(snap)["azure/eastus//Standard_ND96isr_H100_v5/on_demand////linux"]; !ok || o.Hourly.String() != "98.32" {
		t.Errorf("Linux on-demand price %v %v: Windows row must not replace it", ok, o.Hourly)
	}
}

func TestFetchIncompletePages(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("testdata", "pages", "eastus-2.json"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		// serve answers the second request (eastus page 2).
		serve func(w http.ResponseWriter)
	}{
		{"cut off mid-item", func(w http.ResponseWriter) { w.Write(good[:len(good)/2]) }},
		{"cut off before the envelope closes", func(w http.ResponseWriter) { w.Write(good[:len(good)-3]) }},
		{"shorter than Content-Length", func(w http.ResponseWriter) {
			w.Header().Set("Content-Length", strconv.Itoa(len(good)))
			w.Write(good[:len(good)-100])
		}},
		{"not JSON", func(w http.ResponseWriter) { w.Write([]byte("<html><body>Service Unavailable</body></html>")) }},
		{"no Items", func(w http.ResponseWriter) {
			w.Write([]byte(`{"BillingCurrency":"USD","CustomerEntityId":"Default","CustomerEntityType":"Retail","NextPageLink":null,"Count":0}`))
		}},
		{"Items null", func(w http.ResponseWriter) { w.Write([]byte(`{"Items":null,"NextPageLink":null}`)) }},
		{"Count disagrees with Items", func(w http.ResponseWriter) {
			w.Write([]byte(strings.Replace(string(good), `"Count": 7`, `"Count": 1000`, 1)))
		}},
		{"two documents", func(w http.ResponseWriter) { w.Write(append(append([]byte{}, good...), good...)) }},
		{"empty body", func(w http.ResponseWriter) {}},
		{"204 No Content", func(w http.ResponseWriter) { w.WriteHeader(http.StatusNoContent) }},
		{"price not a number", func(w http.ResponseWriter) {
			w.Write([]byte(strings.Replace(string(good), `"retailPrice": 3.673`, `"retailPrice": "N/A"`, 1)))
		}},
		{"price 1e9999", func(w http.ResponseWriter) {
			w.Write([]byte(strings.Replace(string(good), `"retailPrice": 3.673`, `"retailPrice": 1e9999`, 1)))
		}},
		{"price of 10,001 digits", func(w http.ResponseWriter) {
			w.Write([]byte(strings.Replace(string(good), `"retailPrice": 3.673`, `"retailPrice": `+strings.Repeat("9", 10001), 1)))
		}},
		{"price missing on a tracked size", func(w http.ResponseWriter) {
			w.Write([]byte(strings.Replace(string(good), `"retailPrice": 3.673,`, ``, 1)))
		}},
		{"reservation without a term", func(w http.ResponseWriter) {
			w.Write([]byte(strings.Replace(string(good), `"reservationTerm": "1 Year",`, ``, 1)))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFake(t)
			fake.intercept = func(w http.ResponseWriter, r *http.Request, n int) bool {
				if n != 2 {
					return false
				}
				tt.serve(w)
				return true
			}
			f, _ := newTestFetcher(t, Config{Endpoint: fake.srv.URL, Regions: []string{"eastus"}}, nil)
			snap, err := f.Fetch(context.Background(), fetchers.Previous{})
			if snap != nil {
				t.Errorf("returned a snapshot with %d offers for an incomplete run", len(snap.Offers))
			}
			if !errors.Is(err, fetchers.ErrIncomplete) {
				t.Fatalf("error %v, want one wrapping ErrIncomplete", err)
			}
			if !strings.Contains(err.Error(), "page 2") {
				t.Errorf("error %q does not name the page", err)
			}
			if got := fake.count(); got != 2 {
				t.Errorf("%d requests: the chain must stop at the bad page", got)
			}
		})
	}
}

func TestFetchServerErrorNeverRecovers(t *testing.T) {
	fake := newFake(t)
	fake.intercept = func(w http.ResponseWriter, r *http.Request, n int) bool {
		http.Error(w, `{"Error":{"Code":"InternalServerError"}}`, http.StatusInternalServerError)
		return true
	}
	f, sl := newTestFetcher(t, Config{Endpoint: fake.srv.URL, Regions: []string{"eastus"}}, nil)
	snap, err := f.Fetch(context.Background(), fetchers.Previous{})
	if snap != nil || err == nil {
		t.Fatalf("snapshot %v, error %v: want an error and no snapshot", snap, err)
	}
	var se *fetchers.StatusError
	if !errors.As(err, &se) || se.Status != http.StatusInternalServerError {
		t.Errorf("error %v: want the 500 status", err)
	}
	if !strings.Contains(err.Error(), "page 1") {
		t.Errorf("error %q does not name the page", err)
	}
	if got := fake.count(); got != 4 {
		t.Errorf("%d attempts, want MaxAttempts = 4", got)
	}
	if waits := sl.Waits(); len(waits) != 3 {
		t.Errorf("%d back-offs, want 3", len(waits))
	}
}

func TestFetchRetryAfterThenSuccess(t *testing.T) {
	fake := newFake(t)
	fake.intercept = func(w http.ResponseWriter, r *http.Request, n int) bool {
		if n != 2 { // throttle the second page once
			return false
		}
		w.Header().Set("Retry-After", "7")
		http.Error(w, `{"Error":{"Code":"TooManyRequests"}}`, http.StatusTooManyRequests)
		return true
	}
	f, sl := newTestFetcher(t, Config{Endpoint: fake.srv.URL, Regions: []string{"eastus"}, Windows: true}, nil)
	snap := fetcherstest.Fetched(t, f, nil)
	if waits := sl.Waits(); len(waits) != 1 || waits[0] != 7*time.Second {
		t.Errorf("waited %v, want exactly the 7s Retry-After", waits)
	}
	if got := fake.count(); got != 4 {
		t.Errorf("%d requests, want 4 (3 pages + 1 retry)", got)
	}
	if r := fake.request(2); r.URL.Query().Get("$skip") != "1000" {
		t.Errorf("retry asked for $skip=%s, want the same page again", r.URL.Query().Get("$skip"))
	}
	// The run is complete: rows from the retried page are there.
	if _, ok := offerIndex(snap)["azure/eastus//Standard_ND96isr_H100_v5/reserved/1y/all_upfront//linux"]; !ok {
		t.Error("offers of the retried page are missing")
	}
}

func TestFetchCancelReturnsPromptly(t *testing.T) {
	fake := newFake(t)
	arrived := make(chan struct{})
	var once sync.Once
	fake.intercept = func(w http.ResponseWriter, r *http.Request, n int) bool {
		once.Do(func() { close(arrived) })
		<-r.Context().Done() // hang until the client gives up
		return true
	}
	f, _ := newTestFetcher(t, Config{Endpoint: fake.srv.URL, Regions: []string{"eastus"}}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-arrived
		cancel()
	}()
	start := time.Now()
	snap, err := f.Fetch(ctx, fetchers.Previous{})
	if snap != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("snapshot %v, error %v: want context.Canceled", snap, err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s to return after cancel", d)
	}
}

func TestFetchStalledBodyTimesOut(t *testing.T) {
	fake := newFake(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	fake.intercept = func(w http.ResponseWriter, r *http.Request, n int) bool {
		w.Write([]byte(`{"BillingCurrency":"USD","Items":[`))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
		return true
	}
	f, _ := newTestFetcher(t, Config{Endpoint: fake.srv.URL, Regions: []string{"eastus"}}, nil)
	f.pageTimeout = 100 * time.Millisecond
	snap, err := f.Fetch(context.Background(), fetchers.Previous{})
	if snap != nil || !errors.Is(err, fetchers.ErrIncomplete) {
		t.Fatalf("snapshot %v, error %v: want ErrIncomplete", snap, err)
	}
	if !strings.Contains(err.Error(), "page 1") {
		t.Errorf("error %q does not name the page", err)
	}
}

func TestFetchPagingLoop(t *testing.T) {
	fake := newFake(t)
	fake.intercept = func(w http.ResponseWriter, r *http.Request, n int) bool {
		if n > 3 {
			t.Error("kept following a looping NextPageLink")
			return false
		}
		// Every page points at the same next page.
		fmt.Fprintf(w, `{"Items":[],"NextPageLink":%q,"Count":0}`, fake.srv.URL+"/api/retail/prices?$skip=1000")
		return true
	}
	f, _ := newTestFetcher(t, Config{Endpoint: fake.srv.URL, Regions: []string{"eastus"}}, nil)
	snap, err := f.Fetch(context.Background(), fetchers.Previous{})
	if snap != nil || !errors.Is(err, fetchers.ErrIncomplete) || !strings.Contains(err.Error(), "repeats") {
		t.Fatalf("snapshot %v, error %v: want a paging-loop error", snap, err)
	}
	// api-version is carried onto a NextPageLink that lacks it.
	if got := fake.request(1).URL.Query().Get("api-version"); got != APIVersion {
		t.Errorf("next page requested with api-version %q", got)
	}
}

// An empty but well-formed region is handed on as it is (coverage for the
// region, no offers there); refusing it when offers are stored is storage's
// job (storage.ErrSuspiciousDrop, shared by every cloud; see the storage
// round trip below).
func TestFetchEmptyRegionIsCoveredWithoutOffers(t *testing.T) {
	fake := newFake(t)
	fake.intercept = func(w http.ResponseWriter, r *http.Request, n int) bool {
		if strings.Contains(r.URL.Query().Get("$filter"), "'westeurope'") {
			w.Write([]byte(`{"BillingCurrency":"USD","CustomerEntityId":"Default","CustomerEntityType":"Retail","Items":[],"NextPageLink":null,"Count":0}`))
			return true
		}
		return false
	}
	f, _ := newTestFetcher(t, Config{Endpoint: fake.srv.URL, Regions: []string{"eastus", "westeurope"}, Windows: true}, nil)
	snap := fetcherstest.Fetched(t, f, nil)
	covered := false
	for _, sc := range snap.Coverage {
		covered = covered || sc.Region == "westeurope"
	}
	for _, o := range snap.Offers {
		if o.Region == "westeurope" {
			t.Errorf("offer %s from an empty answer", o.Key())
		}
	}
	if !covered {
		t.Error("westeurope not in the coverage")
	}
}

func TestFetchUntrackedSizeKeptAndLoggedOnce(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	fake := newFake(t)
	f, _ := newTestFetcher(t, Config{Endpoint: fake.srv.URL, Regions: []string{"eastus"}}, zap.New(core))
	snap := fetcherstest.Fetched(t, f, nil)
	got := logs.FilterMessageSnippet("azure GPU size not in the hardware table").All()
	if len(got) != 1 || got[0].ContextMap()["armSkuName"] != "Standard_NC8ads_A10_v4" || got[0].Level != zapcore.InfoLevel {
		t.Errorf("untracked-size logs %+v: want one info line for Standard_NC8ads_A10_v4", got)
	}
	kept := 0
	for _, o := range snap.Offers {
		if o.InstanceType == "Standard_NC8ads_A10_v4" {
			kept++
			if o.GPUModel != "A10" || o.GPUCount != 0 || o.GPUMemoryGB != 0 {
				t.Errorf("untracked size hardware %+v: want the model from its name, count and memory unknown", o.Hardware)
			}
		}
	}
	if kept == 0 {
		t.Error("the untracked GPU size's prices were dropped; want them kept")
	}
}

func TestModelFromName(t *testing.T) {
	for name, want := range map[string]string{
		"Standard_NC8ads_A10_v4": "A10", "Standard_NC24ads_A100_v4": "A100", "Standard_ND96isr_H200_v5": "H200",
		"Standard_NV36ads_A10_v5": "A10", "Standard_ND96isr_MI300X_v5": "MI300X", "Standard_NC6": "",
	} {
		if got := modelFromName(name); got != want {
			t.Errorf("modelFromName(%s) = %q, want %q", name, got, want)
		}
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	c, _ := testClient()
	for _, cfg := range []Config{
		{Endpoint: "prices.azure.com/api/retail/prices"},
		{Endpoint: "ftp://prices.azure.com/"},
		{Regions: []string{"East US"}},
		{Regions: []string{"eastus' or 1 eq 1"}},
	} {
		if _, err := New(cfg, c, nil); err == nil {
			t.Errorf("New(%+v) accepted a bad config", cfg)
		}
	}
	if _, err := New(Config{}, nil, nil); err == nil {
		t.Error("New accepted a nil client")
	}
	f, err := New(Config{Regions: []string{"eastus", "eastus"}}, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.endpoint.String() != DefaultEndpoint || len(f.cfg.Regions) != 1 || f.Provider() != pricewatch.Azure {
		t.Errorf("defaults: endpoint %s regions %v provider %s", f.endpoint, f.cfg.Regions, f.Provider())
	}
	// Issue 20 item 2: region codes are case-folded, in the config as in rows.
	f, err = New(Config{Regions: []string{"EastUS2", "eastus2"}}, c, nil)
	if err != nil || len(f.cfg.Regions) != 1 || f.cfg.Regions[0] != "eastus2" {
		t.Errorf("EastUS2 and eastus2: %v %v, want the one region eastus2", err, f)
	}
}
