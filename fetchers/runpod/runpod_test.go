package runpod

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/runpod/runpodtest"
)

const testKey = "rpa_TESTKEY0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

func fetch(t *testing.T, srv *runpodtest.Server, key string, log *zap.Logger) (*pricewatch.Snapshot, error) {
	t.Helper()
	return fetcherstest.FetchKeyed(t, New, srv.URL, key, log)
}

func offerLines(s *pricewatch.Snapshot) []string {
	var out []string
	for _, o := range s.Offers {
		perGPU, _ := pricewatch.PerGPUHour(o.Hourly, o.GPUCount)
		out = append(out, fmt.Sprintf("%s|%s|%s|%s|%s %s/GPU-h|%s x%g %gGB", o.Region, o.InstanceType, o.OfferingClass, o.PriceType, perGPU, o.Currency, o.GPUModel, o.GPUCount, o.GPUMemoryGB))
	}
	sort.Strings(out)
	return out
}

func availLines(s *pricewatch.Snapshot) []string {
	var out []string
	for _, a := range s.Availability {
		out = append(out, fmt.Sprintf("%s|%s|%s|%s", a.Region, a.InstanceType, a.State, a.StockDetail))
	}
	sort.Strings(out)
	return out
}

func diff(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\ngot\n  %s\nwant\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestFetchReplaysCapture: the real 2026-08-25 answer becomes exact
// per-GPU-hour offers, Secure and Community apart; zero prices and a cloud
// the GPU is not offered in (MI300X community 0.5 with communityCloud
// false) are left out; stock per listed data centre and globally.
func TestFetchReplaysCapture(t *testing.T) {
	srv := runpodtest.New(t, "")
	snap, err := fetch(t, srv, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	diff(t, "offers", offerLines(snap), []string{
		"global|AMD Instinct MI300X OAM|secure|on_demand|2.39 USD/GPU-h|MI300X x1 192GB",
		"global|AMD Instinct MI300X OAM|secure|spot|2.39 USD/GPU-h|MI300X x1 192GB",
		"global|NVIDIA A100-SXM4-40GB|community|on_demand|1 USD/GPU-h|A100-40GB x1 40GB",
		"global|NVIDIA A100-SXM4-40GB|community|spot|1 USD/GPU-h|A100-40GB x1 40GB",
		"global|NVIDIA B200|community|on_demand|5.98 USD/GPU-h|B200 x1 180GB",
		"global|NVIDIA B200|community|spot|5.98 USD/GPU-h|B200 x1 180GB",
		"global|NVIDIA B200|secure|on_demand|6.79 USD/GPU-h|B200 x1 180GB",
		"global|NVIDIA B200|secure|spot|6.79 USD/GPU-h|B200 x1 180GB",
		"global|NVIDIA B300 SXM6 AC|community|on_demand|6.94 USD/GPU-h|B300 x1 288GB",
		"global|NVIDIA B300 SXM6 AC|community|spot|6.94 USD/GPU-h|B300 x1 288GB",
		"global|NVIDIA B300 SXM6 AC|secure|on_demand|7.89 USD/GPU-h|B300 x1 288GB",
		"global|NVIDIA B300 SXM6 AC|secure|spot|7.89 USD/GPU-h|B300 x1 288GB",
		"global|NVIDIA GeForce RTX 3070|community|on_demand|0.13 USD/GPU-h|RTX-3070 x1 8GB",
		"global|NVIDIA GeForce RTX 3070|community|spot|0.13 USD/GPU-h|RTX-3070 x1 8GB",
		"global|NVIDIA GeForce RTX 4090|community|on_demand|0.34 USD/GPU-h|RTX-4090 x1 24GB",
		"global|NVIDIA GeForce RTX 4090|community|spot|0.34 USD/GPU-h|RTX-4090 x1 24GB",
		"global|NVIDIA GeForce RTX 4090|secure|on_demand|0.74 USD/GPU-h|RTX-4090 x1 24GB",
		"global|NVIDIA GeForce RTX 4090|secure|spot|0.74 USD/GPU-h|RTX-4090 x1 24GB",
		"global|NVIDIA H100 80GB HBM3|community|on_demand|2.69 USD/GPU-h|H100 x1 80GB",
		"global|NVIDIA H100 80GB HBM3|community|spot|2.69 USD/GPU-h|H100 x1 80GB",
		"global|NVIDIA H100 80GB HBM3|secure|on_demand|3.29 USD/GPU-h|H100 x1 80GB",
		"global|NVIDIA H100 80GB HBM3|secure|spot|3.29 USD/GPU-h|H100 x1 80GB",
		"global|NVIDIA H200|community|on_demand|3.59 USD/GPU-h|H200 x1 141GB",
		"global|NVIDIA H200|community|spot|3.59 USD/GPU-h|H200 x1 141GB",
		"global|NVIDIA H200|secure|on_demand|4.59 USD/GPU-h|H200 x1 141GB",
		"global|NVIDIA H200|secure|spot|4.59 USD/GPU-h|H200 x1 141GB",
		"global|NVIDIA L40S|community|on_demand|0.79 USD/GPU-h|L40S x1 48GB",
		"global|NVIDIA L40S|community|spot|0.79 USD/GPU-h|L40S x1 48GB",
		"global|NVIDIA L40S|secure|on_demand|0.99 USD/GPU-h|L40S x1 48GB",
		"global|NVIDIA L40S|secure|spot|0.99 USD/GPU-h|L40S x1 48GB",
	})
	// AP-IN-2, CA-MTL-2 and US-TX-6 are not listed: no stock from them.
	diff(t, "availability", availLines(snap), []string{
		"AP-IN-1|NVIDIA H100 80GB HBM3|in_stock|Low",
		"EU-NL-1|NVIDIA B300 SXM6 AC|in_stock|Low",
		"EU-NL-1|NVIDIA H100 80GB HBM3|sold_out|",
		"EU-NL-1|NVIDIA L40S|sold_out|",
		"EU-RO-1|AMD Instinct MI300X OAM|sold_out|",
		"EU-RO-1|NVIDIA B200|in_stock|Low",
		"EU-RO-1|NVIDIA GeForce RTX 4090|in_stock|Low",
		"EUR-IS-1|NVIDIA B300 SXM6 AC|in_stock|Low",
		"EUR-IS-1|NVIDIA GeForce RTX 4090|in_stock|Low",
		"US-WA-2|NVIDIA B300 SXM6 AC|in_stock|Low",
		"global|AMD Instinct MI300X OAM|sold_out|",
		"global|NVIDIA A100-SXM4-40GB|in_stock|Low",
		"global|NVIDIA B200|in_stock|Low",
		"global|NVIDIA B300 SXM6 AC|in_stock|Low",
		"global|NVIDIA GeForce RTX 3070|in_stock|Low",
		"global|NVIDIA GeForce RTX 4090|in_stock|Medium",
		"global|NVIDIA H100 80GB HBM3|in_stock|Low",
		"global|NVIDIA H200|in_stock|Medium",
		"global|NVIDIA L40S|in_stock|Low",
	})
	if q := srv.Queries(); len(q) != 1 || q[0] != runpodtest.Query() {
		t.Errorf("queries sent: %q", q)
	}
	if a := srv.Authorizations(); len(a) != 1 || a[0] != "" {
		t.Errorf("without a key no Authorization header; sent %q", a)
	}
	if len(snap.Coverage) != 1 || snap.Coverage[0].Region != pricewatch.AllRegions || !snap.Coverage[0].Availability {
		t.Errorf("coverage %+v", snap.Coverage)
	}
}

// TestZeroAndNullPricesLeftOut: a price of 0 or null is "not sold that
// way", never a free GPU; a type without any price has no stock records.
func TestZeroAndNullPricesLeftOut(t *testing.T) {
	srv := runpodtest.New(t, "")
	srv.SetGPUField(t, "NVIDIA H100 80GB HBM3", "secureSpotPrice", json.Number("0"))
	srv.SetGPUField(t, "NVIDIA H100 80GB HBM3", "communitySpotPrice", nil)
	srv.SetGPUField(t, "NVIDIA H100 80GB HBM3", "communityPrice", json.Number("2.6900"))
	for _, f := range []string{"securePrice", "communityPrice", "secureSpotPrice", "communitySpotPrice"} {
		srv.SetGPUField(t, "NVIDIA L40S", f, json.Number("0"))
	}
	snap, err := fetch(t, srv, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var h100, l40s []string
	for _, l := range offerLines(snap) {
		if strings.Contains(l, "H100") {
			h100 = append(h100, l)
		}
		if strings.Contains(l, "L40S") {
			l40s = append(l40s, l)
		}
	}
	diff(t, "H100 offers", h100, []string{
		"global|NVIDIA H100 80GB HBM3|community|on_demand|2.69 USD/GPU-h|H100 x1 80GB",
		"global|NVIDIA H100 80GB HBM3|secure|on_demand|3.29 USD/GPU-h|H100 x1 80GB",
	})
	if len(l40s) != 0 {
		t.Errorf("L40S with every price 0 still offered: %v", l40s)
	}
	for _, a := range snap.Availability {
		if a.InstanceType == "NVIDIA L40S" {
			t.Errorf("stock of an unpriced type: %+v", a)
		}
	}
	for _, o := range snap.Offers {
		if o.InstanceType == "NVIDIA H100 80GB HBM3" && o.OfferingClass == Community && o.Hourly.String() != "2.69" {
			t.Errorf("exact decimal: %s", o.Hourly)
		}
	}
}

// TestStockChanges: available flips become in_stock / sold_out, the
// stock level is kept as detail.
func TestStockChanges(t *testing.T) {
	srv := runpodtest.New(t, "")
	srv.SetStock(t, "EU-NL-1", "NVIDIA H100 80GB HBM3", true, "High")
	srv.SetStock(t, "AP-IN-1", "NVIDIA H100 80GB HBM3", false, "")
	srv.SetGPUField(t, "NVIDIA H100 80GB HBM3", "lowestPrice", map[string]any{"stockStatus": nil, "minimumBidPrice": nil, "uninterruptablePrice": nil})
	snap, err := fetch(t, srv, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range availLines(snap) {
		if strings.Contains(l, "H100") {
			got = append(got, l)
		}
	}
	diff(t, "H100 stock", got, []string{
		"AP-IN-1|NVIDIA H100 80GB HBM3|sold_out|",
		"EU-NL-1|NVIDIA H100 80GB HBM3|in_stock|High",
		"global|NVIDIA H100 80GB HBM3|sold_out|",
	})
}

// TestBadResponsesFail: every answer that is not complete fails the run,
// after a bounded number of requests, without the key in the error.
func TestBadResponsesFail(t *testing.T) {
	for _, tc := range append(fetcherstest.TransportFailures(), []fetcherstest.Failure{
		{Name: "graphql errors", Fail: []string{runpodtest.GraphQLError}, Want: fetchers.ErrIncomplete, Requests: 1},
		{Name: "empty lists", Fail: []string{runpodtest.Empty}, Want: fetchers.ErrIncomplete, Requests: 1},
		{Name: "partial data with errors", Body: `{"data":{"gpuTypes":[{"id":"NVIDIA L4","securePrice":0.4,"secureCloud":true}],"dataCenters":[{"id":"EU-RO-1","listed":true,"gpuAvailability":[]}]},"errors":[{"message":"dataCenters timed out"}]}`, Want: fetchers.ErrIncomplete, Requests: 1},
		{Name: "no dataCenters", Body: `{"data":{"gpuTypes":[{"id":"NVIDIA L4","securePrice":0.4,"secureCloud":true}]}}`, Want: fetchers.ErrIncomplete, Requests: 1},
		{Name: "every price zero", Body: `{"data":{"gpuTypes":[{"id":"NVIDIA L4","securePrice":0,"secureCloud":true}],"dataCenters":[{"id":"EU-RO-1","listed":true,"gpuAvailability":[]}]}}`, Want: fetchers.ErrIncomplete, Requests: 1},
		{Name: "negative price", Body: `{"data":{"gpuTypes":[{"id":"NVIDIA L4","securePrice":-1,"secureCloud":true}],"dataCenters":[{"id":"EU-RO-1","listed":true,"gpuAvailability":[]}]}}`, Want: fetchers.ErrIncomplete, Requests: 1},
		{Name: "type listed twice", Body: `{"data":{"gpuTypes":[{"id":"NVIDIA L4","securePrice":0.4,"secureCloud":true},{"id":"NVIDIA L4","securePrice":0.5,"secureCloud":true}],"dataCenters":[{"id":"EU-RO-1","listed":true,"gpuAvailability":[]}]}}`, Want: fetchers.ErrIncomplete, Requests: 1},
		{Name: "stock without flag", Body: `{"data":{"gpuTypes":[{"id":"NVIDIA L4","securePrice":0.4,"secureCloud":true}],"dataCenters":[{"id":"EU-RO-1","listed":true,"gpuAvailability":[{"gpuTypeId":"NVIDIA L4"}]}]}}`, Want: fetchers.ErrIncomplete, Requests: 1},
	}...) {
		t.Run(tc.Name, func(t *testing.T) {
			srv := runpodtest.New(t, testKey)
			srv.FailNext(tc.Fail...)
			if tc.Body != "" {
				srv.SetBody(t, []byte(tc.Body))
			}
			snap, err := fetch(t, srv, testKey, nil)
			tc.Check(t, snap, err, srv.Requests(), testKey)
		})
	}
}

// TestKeySentAndNeverShown: a key is sent as a bearer token; a refused one
// fails with ErrAuth at once, and no error or log line carries it.
func TestKeySentAndNeverShown(t *testing.T) {
	srv := runpodtest.New(t, testKey)
	if _, err := fetch(t, srv, testKey, nil); err != nil {
		t.Fatal(err)
	}
	if a := srv.Authorizations(); a[0] != "Bearer "+testKey {
		t.Errorf("Authorization %q", a[0])
	}

	srv.Key = "another"
	core, logs := observer.New(zap.DebugLevel)
	_, err := fetch(t, srv, testKey, zap.New(core))
	if !errors.Is(err, fetchers.ErrAuth) {
		t.Fatalf("error %v, want ErrAuth", err)
	}
	if srv.Requests() != 2 {
		t.Errorf("a refused key was retried: %d requests", srv.Requests())
	}
	if shown := fetcherstest.Shown(err, logs); strings.Contains(shown, testKey) {
		t.Errorf("key leaked: %s", shown)
	}
}

func TestAPIKeyOptional(t *testing.T) {
	t.Setenv(EnvAPIKey, "")
	if k, err := APIKeyFrom(""); err != nil || !k.Empty() {
		t.Errorf("no key: %v %v", k, err)
	}
	t.Setenv(EnvAPIKey, "from-env")
	if k, err := APIKeyFrom(""); err != nil || k.Value() != "from-env" {
		t.Errorf("from env: %v %v", k, err)
	}
}

func TestEndpointMustBeABaseURL(t *testing.T) {
	for _, ep := range []string{"ftp://x", "https://api.runpod.io/graphql", "https://api.runpod.io?api_key=x", "https://u:p@host"} {
		if _, err := New(Config{Endpoint: ep}, fetcherstest.QuickClient(), nil); err == nil {
			t.Errorf("%q accepted", ep)
		}
	}
	f, err := New(Config{}, fetcherstest.QuickClient(), nil)
	if err != nil || f.api.URL != "https://api.runpod.io/graphql" {
		t.Errorf("default URL %q, %v", f.api.URL, err)
	}
}

func TestGPUModels(t *testing.T) {
	for _, c := range []struct {
		id, display string
		mem         float64
		want        string
	}{
		{"NVIDIA H100 80GB HBM3", "H100 SXM", 80, "H100"},
		{"NVIDIA H100 NVL", "H100 NVL", 94, "H100-NVL"},
		{"NVIDIA A100-SXM4-40GB", "A100 SXM 40GB", 40, "A100-40GB"},
		{"AMD Instinct MI300X OAM", "MI300X", 192, "MI300X"}, // through the display name
		{"NVIDIA B300 SXM6 AC", "B300", 288, "B300"},
		{"NVIDIA GeForce RTX 3070", "RTX 3070", 8, "RTX-3070"},           // in the catalogue since issue 31
		{"NVIDIA GeForce GTX 1080 Ti", "GTX 1080 Ti", 11, "GTX 1080 Ti"}, // not in the catalogue: kept visible
	} {
		if got := gpuModel(c.id, c.display, c.mem); got != c.want {
			t.Errorf("%q → %q, want %q", c.id, got, c.want)
		}
	}
}
