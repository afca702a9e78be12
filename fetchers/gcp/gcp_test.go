package gcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/gcp/gcptest"
	"github.com/pricewatch/pricewatch/section"
)

// now is after every effectiveTime of the samples (the latest is
// 2026-05-18).
var now = func() time.Time { return time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) }

func newFetcher(t *testing.T, endpoint, key string) (*Fetcher, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zap.DebugLevel)
	f, err := New(Config{Endpoint: endpoint, APIKey: section.NewSecret(key)}, fetcherstest.QuickClient(), zap.New(core), now)
	if err != nil {
		t.Fatal(err)
	}
	return f, logs
}

func fetch(t *testing.T, fake *gcptest.Server) *pricewatch.Snapshot {
	t.Helper()
	f, _ := newFetcher(t, fake.URL, gcptest.Key)
	snap, err := f.Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func offerID(o pricewatch.Offer) string {
	return strings.Join([]string{o.Region, o.InstanceType, string(o.PriceType), o.Term, o.OfferingClass}, " ")
}

// TestFetchPricesMachineTypes: every page is read (three, linked by
// nextPageToken, the key in the header only) and each machine type is
// the sum of its parts. The expected prices are typed from the SKUs:
// a3-highgpu-8g us-central1 on demand = 8 × 9.796550569 (H100, real
// capture) + 208 × 0.025498003 (A3 core) + 1,872 × 0.00222034 (A3 RAM);
// a2-highgpu-1g = 2.933908 + 12 × 0.031611 + 85 × 0.004237 (all three a
// real capture; Cyclenerd's pricing.yml, built from the same API, has
// 3.673385 for us-central1 too); g2-standard-24 = 2 × 0.560040239 (L4,
// real) + 24 × 0.024988 + 96 × 2.117/730 (a RAM SKU priced per
// GiB-month). See gcptest/testdata/README.md for which parts are
// constructed.
func TestFetchPricesMachineTypes(t *testing.T) {
	fake := gcptest.New(t)
	snap := fetch(t, fake)

	type want struct {
		id, hourly, perGPU, model string
		gpus                      float64
		payment                   string
	}
	wants := []want{
		{"us-central1 a3-highgpu-8g on_demand  ", "87.832465656", "10.979058207", "H100", 8, ""},
		{"us-central1 a3-highgpu-8g spot  ", "43.51344", "5.43918", "H100", 8, ""},
		{"us-central1 a3-highgpu-8g reserved 1y ", "60.35033416", "7.54379177", "H100", 8, pricewatch.NoUpfront},
		{"us-central1 a3-highgpu-8g reserved 3y ", "38.7442008", "4.8430251", "H100", 8, pricewatch.NoUpfront},
		{"us-central1 a3-highgpu-8g on_demand  flex_start", "37.662504", "4.707813", "H100", 8, ""},
		{"us-central1 a3-highgpu-1g spot  ", "5.43918", "5.43918", "H100", 1, ""},
		{"us-central1 a3-highgpu-1g on_demand  flex_start", "4.707813", "4.707813", "H100", 1, ""},
		{"us-central1 a2-highgpu-1g on_demand  ", "3.673385", "3.673385", "A100-40GB", 1, ""},
		{"us-east1 a2-highgpu-8g on_demand  ", "29.38708", "3.673385", "A100-40GB", 8, ""},
		{"us-central1 g2-standard-24 on_demand  ", "1.998192478", "0.999096239", "L4", 2, ""},
		{"us-central1 g2-standard-4 on_demand  ", "0.706392239", "0.706392239", "L4", 1, ""},
	}
	got := map[string]pricewatch.Offer{}
	for _, o := range snap.Offers {
		if _, dup := got[offerID(o)]; dup {
			t.Errorf("offer %s twice", offerID(o))
		}
		got[offerID(o)] = o
	}
	for _, w := range wants {
		o, ok := got[w.id]
		if !ok {
			t.Errorf("no offer %q", w.id)
			continue
		}
		per, ok := pricewatch.PerGPUHour(o.Hourly, o.GPUCount)
		if o.Hourly.String() != w.hourly || !ok || per.String() != w.perGPU || o.GPUModel != w.model || o.GPUCount != w.gpus ||
			o.Currency != "USD" || o.Payment != w.payment || o.OS != pricewatch.Linux {
			t.Errorf("%s: %s %s/h (%s per GPU-hour, %v×%s, payment %q), want %s (%s, %v×%s, %q)", w.id, o.Currency, o.Hourly, per, o.GPUCount, o.GPUModel, o.Payment,
				w.hourly, w.perGPU, w.gpus, w.model, w.payment)
		}
	}
	if o := got["us-central1 a3-highgpu-8g on_demand  "]; o.SkuID != "D4E2-451A-15B9+C0DE-A300-0001+C0DE-A300-0002" || o.VCPUs != 208 || o.MemoryGB != 1872 || o.GPUMemoryGB != 80 {
		t.Errorf("a3-highgpu-8g: SKUs %q, %d vCPUs, %v GB, %v GB per GPU", o.SkuID, o.VCPUs, o.MemoryGB, o.GPUMemoryGB)
	}
	// Not invented: a3-highgpu-1g/4g are sold neither on demand nor
	// committed although their parts are listed; A3 parts are listed in us-central1 only; no A3Plus parts
	// price a3-megagpu-8g (its H100 Plus GPU is); the L4's 3-year SKU has
	// no G2 core or RAM beside it; Reserved $0 and the T4s price nothing.
	for _, id := range []string{"us-central1 a3-highgpu-1g on_demand  ", "us-central1 a3-highgpu-4g reserved 1y ", "us-east1 a3-highgpu-8g on_demand  ",
		"us-central1 a3-megagpu-8g on_demand  ", "us-central1 g2-standard-4 reserved 3y ", "us-central1 a3-ultragpu-8g on_demand  "} {
		if _, ok := got[id]; ok {
			t.Errorf("offer %q built from parts that do not make it", id)
		}
	}
	// a2 (5 types) and a2-ultragpu (4) in 3 regions, a3-highgpu-8g ×5
	// models, 1g/2g/4g spot and flex-start only, g2 (8) in us-central1.
	if len(snap.Offers) != 15+12+5+6+8 {
		t.Errorf("%d offers, want 46", len(snap.Offers))
	}
	var cov []string
	for _, c := range snap.Coverage {
		cov = append(cov, c.Region)
	}
	if strings.Join(cov, ",") != "us-central1,us-east1,us-west1" {
		t.Errorf("coverage %v, want the three regions of the GPU SKUs", cov)
	}

	keys, queries := fake.APIKeys(), fake.Queries()
	if len(keys) != 3 || queries[0] != "pageSize=5000" || queries[1] != "pageSize=5000&pageToken=gcptest-page-2" || queries[2] != "pageSize=5000&pageToken=gcptest-page-3" {
		t.Errorf("requests %v, want three pages of 5000 linked by their tokens", queries)
	}
	for i, k := range keys {
		if k != gcptest.Key || strings.Contains(queries[i], "key=") {
			t.Errorf("request %d: key header %q, query %q: want the key in X-goog-api-key only", i, k, queries[i])
		}
	}
}

// TestPerHour: the unit comes from usageUnit, checked against
// baseUnitConversionFactor where given; nothing is assumed hourly.
func TestPerHour(t *testing.T) {
	factor := func(s string) *json.Number { n := json.Number(s); return &n }
	tests := []struct {
		name    string
		e       pricingExpression
		price   string
		memory  bool
		want    string
		wantErr bool
	}{
		{"hour, real A2 core", pricingExpression{UsageUnit: "h", BaseUnit: "s", BaseUnitConversionFactor: factor("3600")}, "0.031611", false, "0.031611", false},
		{"GiB-hour, real A2 RAM", pricingExpression{UsageUnit: "GiBy.h", BaseUnit: "By.s", BaseUnitConversionFactor: factor("3865470566400")}, "0.004237", true, "0.004237", false},
		{"GiB-hour without factor (T2D capture)", pricingExpression{UsageUnit: "GiBy.h", BaseUnit: "By.s"}, "68.204999658", true, "68.204999658", false},
		{"GiB-month: Google's 730 hours", pricingExpression{UsageUnit: "GiBy.mo", BaseUnit: "By.s", BaseUnitConversionFactor: factor("2821793513472000")}, "2.117", true, "0.0029", false},
		{"per minute", pricingExpression{UsageUnit: "min", BaseUnit: "s", BaseUnitConversionFactor: factor("60")}, "0.01", false, "0.6", false},
		{"per month, a fraction", pricingExpression{UsageUnit: "mo"}, "1", false, "0.0013698630137", false},
		{"MiB-hour", pricingExpression{UsageUnit: "MiBy.h"}, "0.000002", true, "0.002048", false},
		{"GB-hour (decimal)", pricingExpression{UsageUnit: "GBy.h"}, "0.001", true, "0.001073741824", false},
		{"factor contradicts the unit", pricingExpression{UsageUnit: "h", BaseUnit: "s", BaseUnitConversionFactor: factor("60")}, "1", false, "", true},
		{"egress per GiB: not a time", pricingExpression{UsageUnit: "GiBy", BaseUnit: "By", BaseUnitConversionFactor: factor("1073741824")}, "0.12", true, "", true},
		{"a count is not a time", pricingExpression{UsageUnit: "count"}, "1", false, "", true},
		{"RAM priced per hour only", pricingExpression{UsageUnit: "h"}, "1", true, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := perHour(tc.e, decimal.RequireFromString(tc.price), tc.memory)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("%s, want an error", got)
				}
				return
			}
			if err != nil || got.String() != tc.want {
				t.Fatalf("%s (%v), want %s", got, err, tc.want)
			}
		})
	}
}

// TestListPrice: of a tiered SKU (the real egress capture: 0.12 from 0
// GiB, 0.11 from 1,024, 0.08 from 10,240) the list price is the tier at
// 0; a pricing not yet in effect is not today's price.
func TestListPrice(t *testing.T) {
	var doc struct{ SKUs []sku }
	if err := json.Unmarshal(gcptest.Sample(t, "cloudbilling-v1-sku-tiered-network-egress-20211126.json"), &doc); err != nil {
		t.Fatal(err)
	}
	egress := doc.SKUs[0]
	e, m, v, err := listPrice(egress.PricingInfo, now())
	if err != nil || v.String() != "0.12" || m.CurrencyCode != "USD" || e.UsageUnit != "GiBy" || len(e.TieredRates) != 3 {
		t.Fatalf("egress list price %s %s per %s (%v)", v, m.CurrencyCode, e.UsageUnit, err)
	}
	// Tiers in another order: still the one at 0.
	rev := egress.PricingInfo[0]
	pe := *rev.PricingExpression
	pe.TieredRates = []tier{pe.TieredRates[2], pe.TieredRates[0], pe.TieredRates[1]}
	rev.PricingExpression = &pe
	if _, _, v, err := listPrice([]pricingInfo{rev}, now()); err != nil || v.String() != "0.12" {
		t.Errorf("reordered tiers: %s (%v), want 0.12", v, err)
	}
	// No tier at 0: no list price.
	pe.TieredRates = pe.TieredRates[:1]
	if _, _, v, err := listPrice([]pricingInfo{rev}, now()); err == nil {
		t.Errorf("tiers from 10,240 only: %s, want an error", v)
	}
	// A pricing effective tomorrow does not replace today's.
	later := egress.PricingInfo[0]
	lpe := *later.PricingExpression
	lpe.TieredRates = []tier{{StartUsageAmount: "0", UnitPrice: &money{CurrencyCode: "USD", Units: "9"}}}
	later.PricingExpression, later.EffectiveTime = &lpe, now().Add(24*time.Hour).Format(time.RFC3339)
	if _, _, v, err := listPrice([]pricingInfo{later, egress.PricingInfo[0]}, now()); err != nil || v.String() != "0.12" {
		t.Errorf("with a future pricing: %s (%v), want 0.12", v, err)
	}
	// Money: units is a string, nanos share its sign.
	for _, tc := range []struct {
		m    money
		want string
	}{
		{money{Units: "9", Nanos: "796550569"}, "9.796550569"},
		{money{Nanos: "4237000"}, "0.004237"},
		{money{Units: "-1", Nanos: "5"}, ""},
		{money{Units: "1.5"}, ""},
		{money{Nanos: "1000000000"}, ""},
	} {
		v, err := tc.m.value()
		if (tc.want == "") != (err != nil) || (err == nil && v.String() != tc.want) {
			t.Errorf("%+v: %s (%v), want %q", tc.m, v, err, tc.want)
		}
	}
}

// TestClassify: how a SKU is bought comes from usageType and the
// description's words, the two agreeing.
func TestClassify(t *testing.T) {
	tests := []struct {
		usage, desc string
		want        mode
		body, skip  string
	}{
		{"OnDemand", "Nvidia H100 80GB GPU running in Americas", onDemand, "Nvidia H100 80GB GPU running in Americas", ""},
		{"Preemptible", "Nvidia Tesla T4 GPU attached to Spot Preemptible VMs running in Americas", spot, "Nvidia Tesla T4 GPU running in Americas", ""},
		{"Preemptible", "Spot Preemptible A3 Instance Ram running in Americas", spot, "A3 Instance Ram running in Americas", ""},
		// B200 spot SKUs have been listed as OnDemand (skypilot #8125).
		{"OnDemand", "Spot Preemptible A4 Nvidia B200 (1 gpu slice) running in Americas", spot, "A4 Nvidia B200 (1 gpu slice) running in Americas", ""},
		{"Commit1Yr", "Commitment v1: Nvidia H100 80GB GPU running in Americas for 1 Year", commit1y, "Nvidia H100 80GB GPU running in Americas", ""},
		{"Commit3Yr", "Commitment v1: Nvidia L4 GPU running in Americas for 3 Years", commit3y, "Nvidia L4 GPU running in Americas", ""},
		{"Commit1Yr", "Commitment v1: A2 Cpu in APAC for 1 Year", commit1y, "A2 Cpu in APAC", ""},
		{"OnDemand", "Nvidia Tesla T4 GPU attached to DWS Defined Duration VMs running in Americas", flex, "Nvidia Tesla T4 GPU running in Americas", ""},
		{"OnDemand", "DWS Calendar Mode A4 Nvidia B200 (1 gpu slice) running in Americas", calendar, "A4 Nvidia B200 (1 gpu slice) running in Americas", ""},
		{"OnDemand", "Reserved Nvidia Tesla A100 GPU in Americas", mode{}, "", skipReserved},
		{"Commit3Yr", "Commitment v1: Nvidia L4 GPU running in Americas for 1 Year", mode{}, "", skipConflict},
		{"Commit1Yr", "Nvidia L4 GPU running in Americas", mode{}, "", skipConflict},
		{"OnDemand", "Commitment v1: Nvidia L4 GPU running in Americas for 1 Year", mode{}, "", skipConflict},
		{"Preemptible", "Nvidia Tesla T4 GPU attached to DWS Defined Duration VMs running in Americas", mode{}, "", skipConflict},
		{"CommitFlexible", "Commitment: Compute flexible", mode{}, "", skipUsage},
	}
	for _, tc := range tests {
		m, body, skip := classify(tc.usage, tc.desc)
		if m != tc.want || body != tc.body || skip != tc.skip {
			t.Errorf("%s %q: %+v %q %q, want %+v %q %q", tc.usage, tc.desc, m, body, skip, tc.want, tc.body, tc.skip)
		}
	}
	parts := []struct {
		group, body string
		want        part
		ok          bool
	}{
		{"CPU", "A3 Instance Core running in Americas", part{partCore, "a3"}, true},
		{"CPU", "A2 Cpu in APAC", part{partCore, "a2"}, true},
		{"RAM", "A3Plus Instance Ram running in Americas", part{partRAM, "a3plus"}, true},
		{"GPU", "Nvidia H100 80GB Plus GPU running in Americas", part{partGPU, "nvidia h100 80gb plus"}, true},
		{"GPU", "H200 141GB GPU running in Americas", part{partGPU, "h200 141gb"}, true},
		{"GPU", "A4 Nvidia B200 (1 gpu slice) running in Americas", part{partGPU, "a4 nvidia b200 (1 gpu slice)"}, true},
		{"CPU", "G2 Custom Instance Core running in Americas", part{}, false},
		{"GPU", "1/8 vGPU no lssd running in Iowa", part{}, false},
		{"N1Standard", "N1 Predefined Instance Core running in Americas", part{}, false},
	}
	for _, tc := range parts {
		p, ok := partOf(tc.group, tc.body)
		if p != tc.want || ok != tc.ok {
			t.Errorf("%s %q: %+v %v, want %+v %v", tc.group, tc.body, p, ok, tc.want, tc.ok)
		}
	}
}

// TestAPIKeyRefused: Google answers a bad key with HTTP 400 and reason
// API_KEY_INVALID (the captured body): one request, a clear error that
// wraps ErrAuth and names where the key comes from, and the key in
// neither the error nor a log line.
func TestAPIKeyRefused(t *testing.T) {
	fake := gcptest.New(t)
	const wrong = "AIzaSyWRONG-key-that-must-not-show-0000"
	f, logs := newFetcher(t, fake.URL, wrong)
	snap, err := f.Fetch(context.Background(), fetchers.Previous{})
	if err == nil {
		t.Fatalf("%d offers with a refused key", len(snap.Offers))
	}
	if !errors.Is(err, fetchers.ErrAuth) || !strings.Contains(err.Error(), "API_KEY_INVALID") || !strings.Contains(err.Error(), EnvAPIKey) {
		t.Errorf("error %q: want ErrAuth naming API_KEY_INVALID and %s", err, EnvAPIKey)
	}
	if shown := fetcherstest.Shown(err, logs); strings.Contains(shown, wrong) {
		t.Errorf("the key is shown: %s", shown)
	}
	if n := fake.Requests(); n != 1 {
		t.Errorf("%d requests, want 1 (a refused key is not retried)", n)
	}
}

// TestKeyBlocked: a 403 (the key may not call the Cloud Billing API) is
// an ErrAuth with Google's words, and a key echoed in them is cut out.
func TestKeyBlocked(t *testing.T) {
	const key = "AIzaSyBLOCKED-key-echoed-back-000000"
	srv := fetcherstest.Start(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		w.Write([]byte(`{"error": {"code": 403, "message": "Requests from key ` + r.Header.Get("X-goog-api-key") + ` to this API are blocked.",
			"status": "PERMISSION_DENIED", "details": [{"reason": "API_KEY_SERVICE_BLOCKED"}]}}`))
	})
	f, logs := newFetcher(t, srv.URL, key)
	_, err := f.Fetch(context.Background(), fetchers.Previous{})
	if !errors.Is(err, fetchers.ErrAuth) || !strings.Contains(err.Error(), "API_KEY_SERVICE_BLOCKED") || !strings.Contains(err.Error(), "Cloud Billing API") {
		t.Errorf("error %v: want ErrAuth with Google's reason", err)
	}
	if shown := fetcherstest.Shown(err, logs); strings.Contains(shown, key) {
		t.Errorf("the key is shown: %s", shown)
	}
}

// TestEndpoint: providers.gcp.endpoint is a base URL; the API's path is
// appended to it (a mirror under a path prefix works), and one with a
// query or user info is refused.
func TestEndpoint(t *testing.T) {
	for _, tc := range []struct{ endpoint, want string }{
		{"", "https://cloudbilling.googleapis.com/v1/services/6F81-5844-456A/skus"},
		{"http://mirror.example:8080/gcp/", "http://mirror.example:8080/gcp/v1/services/6F81-5844-456A/skus"},
		{"https://u:p@mirror.example", ""},
		{"https://mirror.example/?key=x", ""},
		{"ftp://mirror.example", ""},
	} {
		f, err := New(Config{Endpoint: tc.endpoint, APIKey: section.NewSecret("k")}, fetcherstest.QuickClient(), nil, nil)
		if tc.want == "" {
			if err == nil {
				t.Errorf("%q accepted", tc.endpoint)
			}
			continue
		}
		if err != nil || f.base.String() != tc.want {
			t.Errorf("%q: %v (%v), want %s", tc.endpoint, f, err, tc.want)
		}
	}
}

// TestNoKey: without a key the provider is skipped, not failed.
func TestNoKey(t *testing.T) {
	t.Setenv(EnvAPIKey, "")
	if _, err := New(Config{}, fetcherstest.QuickClient(), nil, nil); !errors.Is(err, fetchers.ErrNoCredentials) {
		t.Errorf("New without a key: %v, want ErrNoCredentials", err)
	}
	s := Provider.Section()
	f, err := Provider.New(s, fetchers.Env{Client: fetcherstest.QuickClient()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Fetch(context.Background(), fetchers.Previous{}); !errors.Is(err, fetchers.ErrNoCredentials) || !strings.Contains(err.Error(), EnvAPIKey) {
		t.Errorf("fetch without a key: %v, want ErrNoCredentials naming %s", err, EnvAPIKey)
	}
	dir := fetcherstest.CredentialFiles(t, map[string]string{"gcp-key": "from-file"})
	t.Setenv("CREDENTIALS_DIRECTORY", dir)
	if k, err := apiKey.From("gcp-key"); err != nil || k.Value() != "from-file" {
		t.Errorf("key file: %v", err)
	}
}

// TestFailures: a page that is not a whole SKU page fails the run; no
// partial catalogue is returned, whichever page it is.
func TestFailures(t *testing.T) {
	rows := fetcherstest.TransportFailures()
	rows = append(rows,
		fetcherstest.Failure{Name: "page without skus", Body: `{}`, Want: fetchers.ErrIncomplete, Requests: 1},
		fetcherstest.Failure{Name: "empty catalogue", Body: `{"skus": []}`, Want: fetchers.ErrIncomplete, Requests: 1},
		fetcherstest.Failure{Name: "data after the page", Body: `{"skus": []} {}`, Want: fetchers.ErrIncomplete, Requests: 1},
	)
	for _, tc := range rows {
		t.Run(tc.Name, func(t *testing.T) {
			fake := gcptest.New(t)
			fake.FailNext(tc.Fail...)
			url := fake.URL
			if tc.Body != "" {
				srv := fetcherstest.Start(t, func(w http.ResponseWriter, r *http.Request) {
					fake.Seen(r)
					w.Write([]byte(tc.Body))
				})
				url = srv.URL
			}
			f, _ := newFetcher(t, url, gcptest.Key)
			snap, err := f.Fetch(context.Background(), fetchers.Previous{})
			tc.Check(t, snap, err, fake.Requests(), gcptest.Key)
		})
	}
	t.Run("second page cut off", func(t *testing.T) {
		fake := gcptest.New(t)
		fake.FailNext("", fetcherstest.Truncated)
		f, _ := newFetcher(t, fake.URL, gcptest.Key)
		snap, err := f.Fetch(context.Background(), fetchers.Previous{})
		fetcherstest.Failure{Want: fetchers.ErrIncomplete, Requests: 2}.Check(t, snap, err, fake.Requests(), gcptest.Key)
	})
	t.Run("token that never ends", func(t *testing.T) {
		fake := gcptest.New(t)
		fake.LoopPages()
		f, _ := newFetcher(t, fake.URL, gcptest.Key)
		snap, err := f.Fetch(context.Background(), fetchers.Previous{})
		fetcherstest.Failure{Want: fetchers.ErrIncomplete, Requests: 2}.Check(t, snap, err, fake.Requests(), gcptest.Key)
	})
}

// TestOddSKUs: an entry that is not a SKU, a price that cannot be read
// and a part priced twice differently are left out, the rest priced.
func TestOddSKUs(t *testing.T) {
	fake := gcptest.New(t)
	fake.AddSKU(t, 0, `{"skuId": "BAD0-0000-0001", "category": "not an object"}`)
	fake.AddSKU(t, 1, `{"skuId": "BAD0-0000-0002", "description": "Nvidia L4 GPU running in Americas",
		"category": {"resourceFamily": "Compute", "resourceGroup": "GPU", "usageType": "Preemptible"},
		"serviceRegions": ["us-central1"], "pricingInfo": [{"effectiveTime": "2026-05-18T07:00:00Z",
		"pricingExpression": {"usageUnit": "h", "tieredRates": [{"startUsageAmount": 0, "unitPrice": {"currencyCode": "USD", "units": "x1"}}]}}]}`)
	// A second A2 core SKU for us-west1 at another price: which one the
	// machines use is unknown, so A2 types are not priced there.
	fake.AddSKU(t, 2, `{"skuId": "BAD0-0000-0003", "description": "A2 Instance Core running in Oregon",
		"category": {"resourceFamily": "Compute", "resourceGroup": "CPU", "usageType": "OnDemand"},
		"serviceRegions": ["us-west1"], "pricingInfo": [{"effectiveTime": "2026-05-18T07:00:00Z",
		"pricingExpression": {"usageUnit": "h", "baseUnit": "s", "baseUnitConversionFactor": 3600,
		"tieredRates": [{"startUsageAmount": 0, "unitPrice": {"currencyCode": "USD", "units": "0", "nanos": 40000000}}]}}]}`)
	snap := fetch(t, fake)
	if len(snap.Offers) != 46-9 {
		t.Errorf("%d offers, want 37 (the 9 A2 types of us-west1 left out)", len(snap.Offers))
	}
	for _, o := range snap.Offers {
		if o.Region == "us-west1" && strings.HasPrefix(o.InstanceType, "a2-") {
			t.Errorf("%s priced from an ambiguous core SKU", offerID(o))
		}
	}
}

// TestShapes: every machine type names its source, resolves to one
// catalogue GPU (package gpu) and is listed once.
func TestShapes(t *testing.T) {
	wantModel := map[string]string{"nvidia-tesla-a100": "A100-40GB", "nvidia-a100-80gb": "A100-80GB", "nvidia-h100-80gb": "H100",
		"nvidia-h100-mega-80gb": "H100", "nvidia-h200-141gb": "H200", "nvidia-b200": "B200", "nvidia-l4": "L4"}
	seen := map[string]bool{}
	for _, m := range machines {
		id := m.gpu()
		if !id.Known || id.Name() != wantModel[m.Accelerator] {
			t.Errorf("%s: %s resolves to %q (known %v), want %s", m.Name, m.Accelerator, id.Name(), id.Known, wantModel[m.Accelerator])
		}
		if m.Source == "" || m.VCPUs <= 0 || m.MemoryGiB <= 0 || m.GPUs <= 0 || len(m.GPUSKUs) == 0 || seen[m.Name] {
			t.Errorf("%s: incomplete or repeated row %+v", m.Name, m)
		}
		seen[m.Name] = true
		// A local SSD is stated only with its source; A2 Ultra's is one
		// 375 GiB disk per GPU.
		if (m.LocalSSD == "") != (m.LocalSSDSource == "") {
			t.Errorf("%s: local SSD %q without a source (or a source without it)", m.Name, m.LocalSSD)
		}
		if strings.HasPrefix(m.Name, "a2-ultragpu-") && m.LocalSSD != fmt.Sprintf("%d x 375 GiB local SSD", m.GPUs) {
			t.Errorf("%s: local SSD %q, want %d x 375 GiB", m.Name, m.LocalSSD, m.GPUs)
		}
	}
	// The a2-highgpu-1g row agrees with the Compute API's own item.
	var mt struct {
		Name         string `json:"name"`
		GuestCpus    int    `json:"guestCpus"`
		MemoryMb     int    `json:"memoryMb"`
		Accelerators []struct {
			Count int    `json:"guestAcceleratorCount"`
			Type  string `json:"guestAcceleratorType"`
		} `json:"accelerators"`
	}
	if err := json.Unmarshal(gcptest.Sample(t, "compute-v1-machineType-a2-highgpu-1g.json"), &mt); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range machines {
		found = found || m.Name == mt.Name
		if m.Name == mt.Name && (m.VCPUs != mt.GuestCpus || m.MemoryGiB*1024 != mt.MemoryMb || len(mt.Accelerators) != 1 ||
			mt.Accelerators[0].Count != m.GPUs || mt.Accelerators[0].Type != m.Accelerator) {
			t.Errorf("%s: row %+v, Compute API %+v", m.Name, m, mt)
		}
	}
	if !found {
		t.Errorf("no row for the captured %s", mt.Name)
	}
}
