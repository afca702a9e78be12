package tencent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"go.uber.org/goleak"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/tencent/tencenttest"
	"github.com/pricewatch/pricewatch/internal/golden"
	"github.com/pricewatch/pricewatch/section"
)

// The credentials the fake CVM knows.
const (
	testSecretID  = "AKIDpricewatchTESTsecretID0000000000"
	testSecretKey = "pricewatchTESTsecretKEY000000000"
)

// newFake starts a fake CVM replaying the scenario in dir.
func newFake(t *testing.T, dir string) *tencenttest.Server {
	return tencenttest.NewServer(t, testSecretID, testSecretKey, dir)
}

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// testFetcher points a Fetcher at srv with instant back-offs. It returns the
// log observer and the recorded back-off delays.
type testRig struct {
	f      *Fetcher
	logs   *observer.ObservedLogs
	mu     sync.Mutex
	sleeps []time.Duration
}

func newRig(t *testing.T, srvURL string, mutate func(*Config)) *testRig {
	t.Helper()
	cfg := Config{
		Endpoint: srvURL, Regions: []string{"ap-shanghai", "ap-guangzhou"},
		SecretID: section.NewSecret(testSecretID), SecretKey: section.NewSecret(testSecretKey),
		MaxPriceCalls: 500, Concurrency: 4,
	}
	if mutate != nil {
		mutate(&cfg)
	}
	core, logs := observer.New(zapcore.DebugLevel)
	f, err := New(cfg, zap.New(core))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	r := &testRig{f: f, logs: logs}
	record := func(_ context.Context, d time.Duration) error {
		r.mu.Lock()
		r.sleeps = append(r.sleeps, d)
		r.mu.Unlock()
		return nil
	}
	f.api.sleep = record
	f.api.http.SetSleep(record)
	f.api.minInterval = nil
	t.Cleanup(f.api.http.HTTP.CloseIdleConnections)
	return r
}

// checkNoSecrets fails if the secret key or ID shows in text.
func checkNoSecrets(t *testing.T, what, text string) {
	t.Helper()
	for _, s := range []string{testSecretKey, testSecretID} {
		if strings.Contains(text, s) {
			t.Errorf("%s shows a credential: %s", what, text)
		}
	}
}

func (r *testRig) checkLogs(t *testing.T) {
	t.Helper()
	for _, e := range r.logs.All() {
		b, _ := json.Marshal(e.ContextMap())
		checkNoSecrets(t, "log line", e.Message+" "+string(b))
	}
}

type goldenOffer struct {
	Key             string
	Currency        string
	Hourly          string
	Upfront         string
	EffectiveHourly string
	pricewatch.Hardware
}

type goldenSnapshot struct {
	Offers       []goldenOffer
	Availability []pricewatch.Availability
	Coverage     []pricewatch.Scope
}

func normalise(t *testing.T, s *pricewatch.Snapshot) []byte {
	t.Helper()
	g := goldenSnapshot{Availability: s.Availability, Coverage: s.Coverage}
	for _, o := range s.Offers {
		eff, err := o.EffectiveHourly()
		if err != nil {
			t.Fatalf("%s: %v", o.Key(), err)
		}
		g.Offers = append(g.Offers, goldenOffer{Key: o.Key().String(), Currency: o.Currency,
			Hourly: o.Hourly.String(), Upfront: o.Upfront.String(), EffectiveHourly: eff.String(), Hardware: o.Hardware})
	}
	b, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", "golden", name), got)
}

func fetch(t *testing.T, r *testRig) *pricewatch.Snapshot {
	t.Helper()
	snap, err := r.f.Fetch(t.Context(), fetchers.Previous{})
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	return snap
}

func offerByKey(s *pricewatch.Snapshot) map[string]pricewatch.Offer {
	m := map[string]pricewatch.Offer{}
	for _, o := range s.Offers {
		m[o.Key().String()] = o
	}
	return m
}

func availByKey(s *pricewatch.Snapshot) map[pricewatch.AvailabilityKey]pricewatch.Availability {
	m := map[pricewatch.AvailabilityKey]pricewatch.Availability{}
	for _, a := range s.Availability {
		m[a.Key()] = a
	}
	return m
}

func TestFetchGolden(t *testing.T) {
	for _, run := range []string{"run1", "run2"} {
		t.Run(run, func(t *testing.T) {
			fake := newFake(t, filepath.Join("testdata", run))
			r := newRig(t, fake.URL(), nil)
			snap := fetch(t, r)
			checkGolden(t, run+".json", normalise(t, snap))
			// Three listings per region, one image look-up per region that
			// needed an inquiry.
			if n := fake.Count("DescribeZoneInstanceConfigInfos"); n != 6 {
				t.Errorf("DescribeZoneInstanceConfigInfos calls = %d, want 6", n)
			}
			if n := fake.Count("DescribeImages"); n != 2 {
				t.Errorf("DescribeImages calls = %d, want 2", n)
			}
			r.checkLogs(t)
		})
	}
}

func TestFetchPrices(t *testing.T) {
	fake := newFake(t, "testdata/run1")
	r := newRig(t, fake.URL(), nil)
	snap := fetch(t, r)
	offers := offerByKey(snap)
	d := decimal.RequireFromString
	key := func(region, zone, typ string, pt pricewatch.PriceType, term string) string {
		payment := ""
		if term != "" {
			payment = pricewatch.AllUpfront
		}
		return pricewatch.OfferKey{Provider: "tencent", Region: region, Zone: zone, InstanceType: typ, PriceType: pt, Term: term, Payment: payment, OS: "linux"}.String()
	}
	tests := []struct {
		name            string
		key             string
		hourly, upfront decimal.Decimal
		effective       string
	}{
		{"on-demand is UnitPriceDiscount", key("ap-shanghai", "ap-shanghai-8", "GT4.41XLARGE948", pricewatch.OnDemand, ""), d("184.02"), decimal.Zero, "184.02"},
		{"spot is the SPOTPAID UnitPriceDiscount", key("ap-shanghai", "ap-shanghai-8", "GN7.LARGE20", pricewatch.Spot, ""), d("0.44"), decimal.Zero, "0.44"},
		{"1m is DiscountPrice over 730 h", key("ap-shanghai", "ap-shanghai-8", "GN7.LARGE20", pricewatch.Reserved, "1m"), decimal.Zero, d("530.4"), "0.7265753425"},
		{"1y from DiscountPriceOneYear over 8760 h", key("ap-shanghai", "ap-shanghai-8", "GN7.LARGE20", pricewatch.Reserved, "1y"), decimal.Zero, d("5410.08"), "0.6175890411"},
		{"3y from DiscountPriceThreeYear over 26280 h", key("ap-shanghai", "ap-shanghai-8", "GN7.LARGE20", pricewatch.Reserved, "3y"), decimal.Zero, d("12729.6"), "0.4843835616"},
		{"1y from InquiryPriceRunInstances", key("ap-shanghai", "ap-shanghai-8", "GT4.41XLARGE948", pricewatch.Reserved, "1y"), decimal.Zero, d("844560"), "96.4109589041"},
		{"3y from InquiryPriceRunInstances", key("ap-shanghai", "ap-shanghai-8", "GT4.41XLARGE948", pricewatch.Reserved, "3y"), decimal.Zero, d("1987200"), "75.6164383562"},
		{"1y listed, 3y inquired", key("ap-guangzhou", "ap-guangzhou-6", "GN10Xp.20XLARGE320", pricewatch.Reserved, "3y"), decimal.Zero, d("1160160"), "44.1461187215"},
		{"2021 row with string Discount", key("ap-guangzhou", "ap-guangzhou-6", "GN10Xp.20XLARGE320", pricewatch.OnDemand, ""), d("106.17"), decimal.Zero, "106.17"},
		{"sold-out type keeps its listed price", key("ap-shanghai", "ap-shanghai-5", "HCCPNV5.24XLARGE384", pricewatch.OnDemand, ""), d("148.51"), decimal.Zero, "148.51"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, ok := offers[tc.key]
			if !ok {
				t.Fatalf("no offer %s", tc.key)
			}
			if !o.Hourly.Equal(tc.hourly) || !o.Upfront.Equal(tc.upfront) {
				t.Errorf("hourly %s upfront %s, want %s and %s", o.Hourly, o.Upfront, tc.hourly, tc.upfront)
			}
			if o.Currency != "CNY" {
				t.Errorf("currency %q, want CNY", o.Currency)
			}
			eff, err := o.EffectiveHourly()
			if err != nil || eff.String() != tc.effective {
				t.Errorf("effective hourly %s (%v), want %s", eff, err, tc.effective)
			}
		})
	}
	// Zero means "not applicable": no sold-out spot price for GT4 appears as
	// 0, and the sold-out H800's prepaid 1y/3y (0 in the listing) are absent.
	for k, o := range offers {
		if o.Hourly.IsZero() && o.Upfront.IsZero() {
			t.Errorf("%s stored with a zero price", k)
		}
	}
	if _, ok := offers[key("ap-shanghai", "ap-shanghai-5", "HCCPNV5.24XLARGE384", pricewatch.Reserved, "1y")]; ok {
		t.Error("a 1y price was stored for a type whose listing had none and that was not on sale")
	}
	// Exactly two inquiries in ap-shanghai (GT4 1y/3y) and one in
	// ap-guangzhou (GN10Xp 3y), each with the term in months.
	inq := fake.Requests("InquiryPriceRunInstances")
	periods := map[string]float64{}
	for _, q := range inq {
		typ := q.Body["InstanceType"].(string)
		p := q.Body["InstanceChargePrepaid"].(map[string]any)["Period"].(float64)
		periods[typ+"/"+q.Region] += p
		if q.Body["ImageId"] != "img-9qabwvbn" {
			t.Errorf("inquiry priced with image %v, want the public image DescribeImages listed", q.Body["ImageId"])
		}
	}
	want := map[string]float64{"GT4.41XLARGE948/ap-shanghai": 48, "GN10Xp.20XLARGE320/ap-guangzhou": 36}
	if len(inq) != 3 || periods["GT4.41XLARGE948/ap-shanghai"] != want["GT4.41XLARGE948/ap-shanghai"] || periods["GN10Xp.20XLARGE320/ap-guangzhou"] != want["GN10Xp.20XLARGE320/ap-guangzhou"] {
		t.Errorf("inquiries %v (%d), want periods %v", periods, len(inq), want)
	}
}

func TestFetchHardwareAndStock(t *testing.T) {
	srv := newFake(t, "testdata/run1")
	r := newRig(t, srv.URL(), nil)
	snap := fetch(t, r)
	av := availByKey(snap)
	ak := func(region, zone, typ string) pricewatch.AvailabilityKey {
		return pricewatch.AvailabilityKey{Provider: "tencent", Region: region, Zone: zone, InstanceType: typ}
	}
	tests := []struct {
		name   string
		key    pricewatch.AvailabilityKey
		state  pricewatch.AvailabilityState
		detail string
		hw     pricewatch.Hardware
	}{
		{"vGPU slice keeps its fraction", ak("ap-shanghai", "ap-shanghai-8", "GN7.LARGE20"), pricewatch.InStock, "NormalStock",
			pricewatch.Hardware{GPUModel: "T4", GPUCount: 0.25, GPUMemoryGB: 4, VCPUs: 4, MemoryGB: 20}},
		{"sold out in every charge type", ak("ap-shanghai", "ap-shanghai-5", "HCCPNV5.24XLARGE384"), pricewatch.SoldOut, "WithoutStock",
			pricewatch.Hardware{GPUModel: "H800", GPUCount: 8, GPUMemoryGB: 80, VCPUs: 96, MemoryGB: 384}},
		{"on sale hourly, spot sold out", ak("ap-shanghai", "ap-shanghai-8", "GT4.41XLARGE948"), pricewatch.InStock, "UnderStock",
			pricewatch.Hardware{GPUModel: "A100-40GB", GPUCount: 8, GPUMemoryGB: 40, VCPUs: 164, MemoryGB: 948}},
		{"2021 row: Gpu without GpuCount; detail from the prepaid row", ak("ap-guangzhou", "ap-guangzhou-6", "GN10Xp.20XLARGE320"), pricewatch.InStock, "EnoughStock",
			pricewatch.Hardware{GPUModel: "V100-32GB", GPUCount: 8, GPUMemoryGB: 32, VCPUs: 80, MemoryGB: 320}},
		{"spot-only type", ak("ap-guangzhou", "ap-guangzhou-4", "PNV4.7XLARGE116"), pricewatch.InStock, "NormalStock",
			pricewatch.Hardware{GPUModel: "A10", GPUCount: 1, GPUMemoryGB: 24, VCPUs: 28, MemoryGB: 116}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, ok := av[tc.key]
			if !ok {
				t.Fatalf("no availability for %v", tc.key)
			}
			if a.State != tc.state || a.StockDetail != tc.detail || a.Hardware != tc.hw {
				t.Errorf("got %s/%q %+v, want %s/%q %+v", a.State, a.StockDetail, a.Hardware, tc.state, tc.detail, tc.hw)
			}
		})
	}
	for _, a := range snap.Availability {
		if strings.HasPrefix(a.InstanceType, "S2.") {
			t.Errorf("non-GPU type %s kept", a.InstanceType)
		}
	}
	if len(snap.Availability) != 5 {
		t.Errorf("%d availability records, want 5", len(snap.Availability))
	}
	wantCov := []pricewatch.Scope{{Region: "ap-shanghai", Availability: true}, {Region: "ap-guangzhou", Availability: true}}
	if len(snap.Coverage) != 2 || snap.Coverage[0].Region != wantCov[0].Region || snap.Coverage[1].Region != wantCov[1].Region ||
		!snap.Coverage[0].Availability || snap.Coverage[0].PriceTypes != nil {
		t.Errorf("coverage %+v, want %+v", snap.Coverage, wantCov)
	}
}

// Two runs against listings that differ: the H800 in ap-shanghai-5 comes
// back in stock, a price drops, and a prepaid type sells out.
func TestSoldOutToInStock(t *testing.T) {
	var snaps []*pricewatch.Snapshot
	for _, run := range []string{"run1", "run2"} {
		srv := newFake(t, filepath.Join("testdata", run))
		snaps = append(snaps, fetch(t, newRig(t, srv.URL(), nil)))
	}
	k := pricewatch.AvailabilityKey{Provider: "tencent", Region: "ap-shanghai", Zone: "ap-shanghai-5", InstanceType: "HCCPNV5.24XLARGE384"}
	before, after := availByKey(snaps[0])[k], availByKey(snaps[1])[k]
	if before.State != pricewatch.SoldOut || after.State != pricewatch.InStock || after.StockDetail != "EnoughStock" {
		t.Errorf("H800 ap-shanghai-5: %s → %s (%s), want sold_out → in_stock (EnoughStock)", before.State, after.State, after.StockDetail)
	}
	od := pricewatch.OfferKey{Provider: "tencent", Region: "ap-shanghai", Zone: "ap-shanghai-8", InstanceType: "GN7.LARGE20", PriceType: pricewatch.OnDemand, OS: "linux"}.String()
	if p0, p1 := offerByKey(snaps[0])[od].Hourly, offerByKey(snaps[1])[od].Hourly; p0.String() != "1.46" || p1.String() != "1.39" {
		t.Errorf("GN7.LARGE20 on-demand %s → %s, want 1.46 → 1.39", p0, p1)
	}
	// run2's 3-year inquiry for the H800 answers sold out: the 1y price is
	// stored, the 3y is absent, and the run still succeeds.
	o2 := offerByKey(snaps[1])
	base := pricewatch.OfferKey{Provider: "tencent", Region: "ap-shanghai", Zone: "ap-shanghai-5", InstanceType: "HCCPNV5.24XLARGE384", PriceType: pricewatch.Reserved, Payment: pricewatch.AllUpfront, OS: "linux"}
	y1, y3 := base, base
	y1.Term, y3.Term = "1y", "3y"
	if o, ok := o2[y1.String()]; !ok || o.Upfront.String() != "693600" {
		t.Errorf("H800 1y = %v (%v), want 693600", o.Upfront, ok)
	}
	if _, ok := o2[y3.String()]; ok {
		t.Error("H800 3y stored although the inquiry answered sold out")
	}
}

func TestThrottlingThenSuccess(t *testing.T) {
	fake := newFake(t, "testdata/run1")
	fake.Throttle("DescribeZoneInstanceConfigInfos", 2)
	fake.Throttle("InquiryPriceRunInstances", 1)
	r := newRig(t, fake.URL(), func(c *Config) { c.Concurrency = 1 })
	snap := fetch(t, r)
	if len(snap.Offers) == 0 {
		t.Fatal("no offers after throttling cleared")
	}
	if len(r.sleeps) != 3 {
		t.Errorf("backed off %d times (%v), want 3", len(r.sleeps), r.sleeps)
	}
	for _, d := range r.sleeps {
		if d <= 0 {
			t.Errorf("back-off %v, want a positive delay", d)
		}
	}
	if n := fake.Count("DescribeZoneInstanceConfigInfos"); n != 8 {
		t.Errorf("%d listing calls, want 6 + 2 retried", n)
	}
}

func TestThrottledUntilGivingUp(t *testing.T) {
	fake := newFake(t, "testdata/run1")
	fake.Throttle("DescribeZoneInstanceConfigInfos", 1000)
	r := newRig(t, fake.URL(), func(c *Config) { c.Concurrency = 1 })
	_, err := r.f.Fetch(t.Context(), fetchers.Previous{})
	if !errors.Is(err, fetchers.ErrThrottled) || !strings.Contains(err.Error(), "RequestLimitExceeded") {
		t.Fatalf("err = %v, want ErrThrottled naming RequestLimitExceeded", err)
	}
	if n := fake.Count("DescribeZoneInstanceConfigInfos"); n != r.f.api.attempts {
		t.Errorf("%d attempts, want %d then stop", n, r.f.api.attempts)
	}
}

func TestAuthFailures(t *testing.T) {
	tests := []struct {
		name string
		cfg  func(*Config)
		rig  func(*testRig)
		code string
		hint string
	}{
		{name: "wrong secret key", cfg: func(c *Config) { c.SecretKey = section.NewSecret("wrongwrongwrongwrongwrongwrong00") },
			code: "AuthFailure.SignatureFailure", hint: "TENCENTCLOUD_SECRET_KEY"},
		{name: "unknown secret id", cfg: func(c *Config) { c.SecretID = section.NewSecret("AKIDunknownunknownunknownunknown0000") },
			code: "AuthFailure.SecretIdNotFound", hint: "TENCENTCLOUD_SECRET_ID"},
		{name: "clock skew", rig: func(r *testRig) { r.f.api.now = func() time.Time { return time.Now().Add(-10 * time.Minute) } },
			code: "AuthFailure.SignatureExpire", hint: "clock"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := newFake(t, "testdata/run1")
			rig := newRig(t, fake.URL(), func(c *Config) {
				c.Concurrency = 1
				if tc.cfg != nil {
					tc.cfg(c)
				}
			})
			if tc.rig != nil {
				tc.rig(rig)
			}
			_, err := rig.f.Fetch(t.Context(), fetchers.Previous{})
			if !errors.Is(err, fetchers.ErrAuth) {
				t.Fatalf("err = %v, want ErrAuth", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.code) || !strings.Contains(msg, tc.hint) {
				t.Errorf("error %q should name %s and say what to fix (%s)", msg, tc.code, tc.hint)
			}
			checkNoSecrets(t, "error", msg)
			if strings.Contains(msg, "wrongwrongwrong") {
				t.Errorf("error shows the configured key: %s", msg)
			}
			// Refused credentials are not retried.
			if len(rig.sleeps) != 0 || len(fake.Requests("")) != 0 {
				t.Errorf("retried an auth failure: %d sleeps, %d accepted requests", len(rig.sleeps), len(fake.Requests("")))
			}
			rig.checkLogs(t)
		})
	}
}

func TestPriceCallBudget(t *testing.T) {
	fake := newFake(t, "testdata/run1")
	r := newRig(t, fake.URL(), func(c *Config) { c.MaxPriceCalls = 2 })
	snap := fetch(t, r)
	// Three inquiries are needed (ap-shanghai GT4 1y+3y, ap-guangzhou GN10Xp
	// 3y); in region order, ap-shanghai's two fit and ap-guangzhou's does not.
	if n := fake.Count("InquiryPriceRunInstances"); n != 2 {
		t.Errorf("%d inquiries, want 2 (the budget)", n)
	}
	for _, s := range snap.Coverage {
		switch s.Region {
		case "ap-shanghai":
			if s.PriceTypes != nil {
				t.Errorf("ap-shanghai was priced in full, yet its coverage is %v", s.PriceTypes)
			}
		case "ap-guangzhou":
			if !s.CoversOffer("ap-guangzhou", pricewatch.OnDemand) || s.CoversOffer("ap-guangzhou", pricewatch.Reserved) {
				t.Errorf("ap-guangzhou missed a 3y price, yet its coverage is %v", s.PriceTypes)
			}
		}
	}
	if r.logs.FilterMessageSnippet("max_price_calls").Len() != 1 {
		t.Error("no warning about the exhausted budget")
	}
}

func TestConcurrencyIsBounded(t *testing.T) {
	fake := newFake(t, "testdata/run1")
	fake.SetDelay(20 * time.Millisecond)
	r := newRig(t, fake.URL(), func(c *Config) { c.Concurrency = 2 })
	fetch(t, r)
	if m := fake.MaxInFlight(); m > 2 || m < 1 {
		t.Errorf("%d requests in flight at once, want at most 2", m)
	}
}

func TestAllRegions(t *testing.T) {
	fake := newFake(t, "testdata/run1")
	r := newRig(t, fake.URL(), func(c *Config) { c.Regions = nil })
	snap := fetch(t, r)
	if len(snap.Coverage) != 10 {
		t.Errorf("%d regions covered, want the 10 DescribeRegions lists", len(snap.Coverage))
	}
	if n := fake.Count("DescribeZoneInstanceConfigInfos"); n != 30 {
		t.Errorf("%d listing calls, want 3 per region", n)
	}
	if len(snap.Offers) != 18 {
		t.Errorf("%d offers, want the 18 of the two regions with GPU listings", len(snap.Offers))
	}
}

func TestConfiguredImage(t *testing.T) {
	fake := newFake(t, "testdata/run1")
	r := newRig(t, fake.URL(), func(c *Config) { c.ImageID = "img-configured" })
	fetch(t, r)
	if n := fake.Count("DescribeImages"); n != 0 {
		t.Errorf("%d DescribeImages calls with image_id set", n)
	}
	for _, q := range fake.Requests("InquiryPriceRunInstances") {
		if q.Body["ImageId"] != "img-configured" {
			t.Errorf("inquiry used image %v", q.Body["ImageId"])
		}
	}
}

func TestUSDAccount(t *testing.T) {
	srv := newFake(t, "testdata/run1")
	r := newRig(t, srv.URL(), func(c *Config) { c.Currency = "USD" })
	for _, o := range fetch(t, r).Offers {
		if o.Currency != "USD" {
			t.Fatalf("%s in %s, want USD", o.Key(), o.Currency)
		}
	}
}

func TestMalformedResponses(t *testing.T) {
	row := func(mod string) string {
		b, _ := os.ReadFile("testdata/run1/ap-shanghai/POSTPAID_BY_HOUR.json")
		s := string(b)
		if mod != "" {
			s = strings.Replace(s, `"Zone": "ap-shanghai-5"`, mod, 1)
		}
		return s
	}
	tests := []struct {
		name, action, body string
	}{
		{"truncated", "DescribeZoneInstanceConfigInfos", row("")[:900]},
		{"no quota set", "DescribeZoneInstanceConfigInfos", `{"Response":{"RequestId":"x"}}`},
		{"no Response", "DescribeZoneInstanceConfigInfos", `{"RequestId":"x"}`},
		{"zone of another region", "DescribeZoneInstanceConfigInfos", row(`"Zone": "ap-beijing-5"`)},
		{"price is not a number", "DescribeZoneInstanceConfigInfos", strings.Replace(row(""), `"UnitPriceDiscount": 148.51`, `"UnitPriceDiscount": "N/A"`, 1)},
		{"unknown status", "DescribeZoneInstanceConfigInfos", strings.Replace(row(""), `"Status": "SOLD_OUT"`, `"Status": "PAUSED"`, 1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := newFake(t, "testdata/run1")
			fake.Override(tc.action, tc.body)
			r := newRig(t, fake.URL(), nil)
			snap, err := r.f.Fetch(t.Context(), fetchers.Previous{})
			if !errors.Is(err, fetchers.ErrIncomplete) || snap != nil {
				t.Fatalf("got snapshot %v, err %v; want no snapshot and ErrIncomplete", snap != nil, err)
			}
		})
	}
}

func TestOtherAPIErrorFailsTheRun(t *testing.T) {
	fake := newFake(t, "testdata/run1")
	fake.Override("DescribeZoneInstanceConfigInfos", `{"Response":{"Error":{"Code":"InvalidRegion","Message":"region not supported"},"RequestId":"x"}}`)
	r := newRig(t, fake.URL(), nil)
	_, err := r.f.Fetch(t.Context(), fetchers.Previous{})
	var ae *APIError
	if !errors.As(err, &ae) || ae.Code != "InvalidRegion" || errors.Is(err, fetchers.ErrAuth) {
		t.Fatalf("err = %v, want the InvalidRegion APIError", err)
	}
	if len(r.sleeps) != 0 {
		t.Error("retried a non-transient error")
	}
}

func TestCancelledContext(t *testing.T) {
	fake := newFake(t, "testdata/run1")
	fake.SetDelay(50 * time.Millisecond)
	r := newRig(t, fake.URL(), nil)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := r.f.Fetch(ctx, fetchers.Previous{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the context's deadline", err)
	}
	if time.Since(start) > 2*time.Second {
		t.Error("Fetch did not return promptly after the context ended")
	}
}

// The real published responses decode, and the GPU filter drops their
// non-GPU row.
func TestRealSamples(t *testing.T) {
	for _, name := range []string{"DescribeZoneInstanceConfigInfos.response.json", "DescribeZoneInstanceConfigInfos-2021.response.json"} {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile("testdata/samples/" + name)
			if err != nil {
				t.Fatal(err)
			}
			// The sample is the answer to the POSTPAID_BY_HOUR listing; the
			// other charge types answer with empty lists.
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "ap-guangzhou"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "ap-guangzhou", "POSTPAID_BY_HOUR.json"), b, 0o644); err != nil {
				t.Fatal(err)
			}
			srv := newFake(t, dir)
			r := newRig(t, srv.URL(), func(c *Config) { c.Regions = []string{"ap-guangzhou"} })
			snap := fetch(t, r)
			if len(snap.Offers) != 0 || len(snap.Availability) != 0 || len(snap.Coverage) != 1 {
				t.Errorf("got %d offers, %d availability, %d scopes; want the S2 row dropped and the region covered",
					len(snap.Offers), len(snap.Availability), len(snap.Coverage))
			}
			var resp struct{ Response zoneConfigsResponse }
			if err := json.Unmarshal(b, &resp); err != nil {
				t.Fatal(err)
			}
			it := (*resp.Response.InstanceTypeQuotaSet)[0]
			if it.InstanceType != "S2.SMALL1" || it.Status != "SELL" || it.Cpu.Dec.IntPart() != 1 || !it.Gpu.Set || !it.Gpu.Dec.IsZero() {
				t.Errorf("decoded %+v", it)
			}
		})
	}
	// The 2021 sample's Discount is the string "100.000000".
	b, _ := os.ReadFile("testdata/samples/DescribeZoneInstanceConfigInfos-2021.response.json")
	var resp struct{ Response zoneConfigsResponse }
	if err := json.Unmarshal(b, &resp); err != nil {
		t.Fatal(err)
	}
	p := (*resp.Response.InstanceTypeQuotaSet)[0].Price
	if !p.Discount.Set || !p.Discount.Dec.Equal(decimal.NewFromInt(100)) || p.UnitPriceDiscount.Dec.String() != "0.15" {
		t.Errorf("2021 price decoded as %+v", p)
	}
}

func TestRegionAskedOnce(t *testing.T) {
	fake := newFake(t, "testdata/run1")
	r := newRig(t, fake.URL(), func(c *Config) { c.Regions = []string{"ap-shanghai", "ap-shanghai"} })
	snap := fetch(t, r)
	if n := fake.Count("DescribeZoneInstanceConfigInfos"); n != 3 || len(snap.Coverage) != 1 {
		t.Errorf("%d listing calls and %d scopes for one region configured twice, want 3 and 1", n, len(snap.Coverage))
	}
}
