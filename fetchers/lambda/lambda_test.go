package lambda

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/lambda/lambdatest"
	"github.com/pricewatch/pricewatch/section"
)

const testKey = "secret_lambda_0123456789abcdef.TopSecretKeyValue"

func newFetcher(t *testing.T, srv *lambdatest.Server, log *zap.Logger) *Fetcher {
	t.Helper()
	f, err := New(Config{Endpoint: srv.URL, APIKey: section.NewSecret(testKey)}, fetcherstest.QuickClient(), log)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func offersByType(s *pricewatch.Snapshot) map[string]pricewatch.Offer {
	out := map[string]pricewatch.Offer{}
	for _, o := range s.Offers {
		out[o.InstanceType] = o
	}
	return out
}

func states(s *pricewatch.Snapshot, instanceType string) map[string]pricewatch.AvailabilityState {
	out := map[string]pricewatch.AvailabilityState{}
	for _, a := range s.Availability {
		if a.InstanceType == instanceType {
			out[a.Region] = a.State
		}
	}
	return out
}

// TestFetchReplaysCapture: every type of the capture is priced exactly,
// per instance, with the hardware its specs and GPU description give.
func TestFetchReplaysCapture(t *testing.T) {
	srv := lambdatest.New(t, testKey)
	snap, err := newFetcher(t, srv, nil).Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	type offer struct {
		name, hourly, perGPU, model string
		gpus                        float64
		memGB                       float64
	}
	want := []offer{
		{"gpu_1x_gh200", "2.29", "2.29", "GH200", 1, 96},
		{"gpu_1x_b200_sxm6", "6.99", "6.99", "B200", 1, 180},
		{"gpu_2x_b200_sxm6", "13.78", "6.89", "B200", 2, 180},
		{"gpu_4x_b200_sxm6", "27.16", "6.79", "B200", 4, 180},
		{"gpu_8x_b200_sxm6", "53.52", "6.69", "B200", 8, 180},
		{"gpu_2x_h100_sxm5", "8.38", "4.19", "H100", 2, 80},
		{"gpu_4x_h100_sxm5", "16.36", "4.09", "H100", 4, 80},
		{"gpu_8x_h100_sxm5", "31.92", "3.99", "H100", 8, 80},
	}
	got := offersByType(snap)
	fetcherstest.EachWanted(t, "offers", got, want, func(w offer) string { return w.name }, func(w offer, o pricewatch.Offer) {
		perGPU, _ := pricewatch.PerGPUHour(o.Hourly, o.GPUCount)
		if o.Hourly.String() != w.hourly || !perGPU.Equal(dec(t, w.perGPU)) || o.GPUModel != w.model || o.GPUCount != w.gpus || o.GPUMemoryGB != w.memGB ||
			o.Region != Region || o.PriceType != pricewatch.OnDemand || o.Currency != "USD" || o.OS != pricewatch.Linux {
			t.Errorf("%s: %+v (per GPU %s), want %+v", w.name, o, perGPU, w)
		}
	})
	// storage_gib 4096 in the published entry; no network figure there.
	if gh := got["gpu_1x_gh200"]; gh.VCPUs != 64 || gh.MemoryGB != 432 || gh.LocalStorage != "4096 GiB" || gh.Interconnect != "" {
		t.Errorf("gh200 specs: %+v", gh.Hardware)
	}
	// gh200 has capacity in us-east-3 (the real entry); the rest nowhere.
	if s := states(snap, "gpu_1x_gh200"); len(s) != 2 || s["us-east-3"] != pricewatch.InStock || s[Region] != pricewatch.InStock {
		t.Errorf("gh200 availability %v", s)
	}
	if s := states(snap, "gpu_8x_h100_sxm5"); len(s) != 1 || s[Region] != pricewatch.SoldOut {
		t.Errorf("8x H100 availability %v, want only global sold_out", s)
	}
	if len(snap.Coverage) != 1 || snap.Coverage[0].Region != pricewatch.AllRegions || !snap.Coverage[0].Availability {
		t.Errorf("coverage %+v", snap.Coverage)
	}
	if auth := srv.Authorizations(); len(auth) != 1 || auth[0] != "Bearer "+testKey {
		t.Errorf("requests sent %d, Authorization %q", len(auth), auth)
	}
}

// TestCapacityAcrossRuns: a region with capacity is in stock; when Lambda
// stops listing it, the remembered region is sold out (not gone); a new
// region joins; the state rides in Snapshot.State from run to run.
func TestCapacityAcrossRuns(t *testing.T) {
	srv := lambdatest.New(t, testKey)
	f := newFetcher(t, srv, nil)
	const h100 = "gpu_8x_h100_sxm5"

	srv.SetCapacity(t, h100, "us-east-1", "us-west-2")
	first, err := f.Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	if s := states(first, h100); s["us-east-1"] != pricewatch.InStock || s["us-west-2"] != pricewatch.InStock || s[Region] != pricewatch.InStock || len(s) != 3 {
		t.Fatalf("run 1: %v", s)
	}

	srv.SetCapacity(t, h100, "us-south-1")
	second, err := f.Fetch(context.Background(), fetchers.Previous{Versions: first.Versions, State: first.State})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]pricewatch.AvailabilityState{"us-east-1": pricewatch.SoldOut, "us-west-2": pricewatch.SoldOut, "us-south-1": pricewatch.InStock, Region: pricewatch.InStock}
	if s := states(second, h100); !equalStates(s, want) {
		t.Errorf("run 2: %v, want %v", s, want)
	}

	srv.SetCapacity(t, h100)
	third, err := f.Fetch(context.Background(), fetchers.Previous{Versions: second.Versions, State: second.State})
	if err != nil {
		t.Fatal(err)
	}
	want = map[string]pricewatch.AvailabilityState{"us-east-1": pricewatch.SoldOut, "us-west-2": pricewatch.SoldOut, "us-south-1": pricewatch.SoldOut, Region: pricewatch.SoldOut}
	if s := states(third, h100); !equalStates(s, want) {
		t.Errorf("run 3: %v, want %v", s, want)
	}
	// The price does not move with capacity.
	if o := offersByType(third)[h100]; o.Hourly.String() != "31.92" {
		t.Errorf("price %s", o.Hourly)
	}

	// Without the state (an unreadable one), only what is listed now.
	log, logs := observer.New(zap.WarnLevel)
	f.api.Log = zap.New(log)
	fourth, err := f.Fetch(context.Background(), fetchers.Previous{State: []byte("{not json")})
	if err != nil {
		t.Fatal(err)
	}
	if s := states(fourth, h100); len(s) != 1 || logs.Len() != 1 {
		t.Errorf("unreadable state: %v, %d warnings", s, logs.Len())
	}
}

func equalStates(a, b map[string]pricewatch.AvailabilityState) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestBadResponsesFail: every response that is not a complete list fails
// the run with the error a caller classifies by, after bounded requests.
func TestBadResponsesFail(t *testing.T) {
	for _, tc := range append(fetcherstest.TransportFailures(), []fetcherstest.Failure{
		{Name: "empty list", Fail: []string{lambdatest.Empty}, Want: fetchers.ErrIncomplete, Requests: 1},
		{Name: "no data", Body: `{"something": {}}`, Want: fetchers.ErrIncomplete, Requests: 1},
		{Name: "error envelope", Body: `{"error": {"code": "global/unknown", "message": "Unknown error"}}`, Want: fetchers.ErrIncomplete, Requests: 1},
		{Name: "no regions field", Body: `{"data": {"gpu_1x_a10": {"instance_type": {"name": "gpu_1x_a10", "description": "1x A10 (24 GB PCIe)", "price_cents_per_hour": 75, "specs": {"gpus": 1}}}}}`, Want: fetchers.ErrIncomplete, Requests: 1},
		{Name: "name mismatch", Body: `{"data": {"gpu_1x_a10": {"instance_type": {"name": "gpu_1x_a100", "price_cents_per_hour": 75, "specs": {"gpus": 1}}, "regions_with_capacity_available": []}}}`, Want: fetchers.ErrIncomplete, Requests: 1},
		{Name: "price not a number", Body: `{"data": {"gpu_1x_a10": {"instance_type": {"name": "gpu_1x_a10", "price_cents_per_hour": "cheap", "specs": {"gpus": 1}}, "regions_with_capacity_available": []}}}`, Want: fetchers.ErrIncomplete, Requests: 1},
		{Name: "trailing data", Body: `{"data": {}} {}`, Want: fetchers.ErrIncomplete, Requests: 1},
		{Name: "no priced GPU type", Body: `{"data": {"gpu_1x_a10": {"instance_type": {"name": "gpu_1x_a10", "description": "1x A10 (24 GB PCIe)", "price_cents_per_hour": 0, "specs": {"gpus": 1}}, "regions_with_capacity_available": []}}}`, Want: fetchers.ErrIncomplete, Requests: 1},
	}...) {
		t.Run(tc.Name, func(t *testing.T) {
			srv := lambdatest.New(t, testKey)
			srv.FailNext(tc.Fail...)
			if tc.Body != "" {
				srv.SetBody([]byte(tc.Body))
			}
			snap, err := newFetcher(t, srv, nil).Fetch(context.Background(), fetchers.Previous{})
			tc.Check(t, snap, err, srv.Requests(), testKey)
		})
	}
}

// TestKeyNeverShown: a refused key fails with ErrAuth at once (no retry),
// and neither the error nor any log line carries the key.
func TestKeyNeverShown(t *testing.T) {
	srv := lambdatest.New(t, "another-key")
	core, logs := observer.New(zap.DebugLevel)
	snap, err := newFetcher(t, srv, zap.New(core)).Fetch(context.Background(), fetchers.Previous{})
	if err == nil || !errors.Is(err, fetchers.ErrAuth) {
		t.Fatalf("snapshot %v, error %v; want ErrAuth", snap, err)
	}
	if srv.Requests() != 1 {
		t.Errorf("%d requests; a refused key must not be retried", srv.Requests())
	}
	if shown := fetcherstest.Shown(err, logs); strings.Contains(shown, testKey) {
		t.Errorf("key leaked: %s", shown)
	}
	if !strings.Contains(err.Error(), EnvAPIKey) {
		t.Errorf("error does not say what to fix: %v", err)
	}
}

func TestNoKeyIsSkipped(t *testing.T) {
	t.Setenv(EnvAPIKey, "")
	_, err := key.From("")
	if !errors.Is(err, fetchers.ErrNoCredentials) {
		t.Errorf("key.From without key: %v", err)
	}
	if _, err := New(Config{}, fetcherstest.QuickClient(), nil); !errors.Is(err, fetchers.ErrNoCredentials) {
		t.Errorf("New without key: %v", err)
	}
	t.Setenv(EnvAPIKey, "from-env")
	if k, err := key.From(""); err != nil || k.Value() != "from-env" {
		t.Errorf("from env: %v %v", k, err)
	}
}

func TestEndpointMustBeABaseURL(t *testing.T) {
	for _, ep := range []string{"ftp://x", "https://cloud.lambda.ai/api/v1/instance-types", "https://u:p@host", "https://host?x=1", "not a url"} {
		if _, err := New(Config{Endpoint: ep, APIKey: section.NewSecret("k")}, fetcherstest.QuickClient(), nil); err == nil {
			t.Errorf("%q accepted", ep)
		}
	}
	f, err := New(Config{APIKey: section.NewSecret("k")}, fetcherstest.QuickClient(), nil)
	if err != nil || f.api.URL != "https://cloud.lambda.ai/api/v1/instance-types" {
		t.Errorf("default URL %q, %v", f.api.URL, err)
	}
}

// TestZeroPriceAndCPUTypesLeftOut: a type without GPUs or with a zero
// price is not a GPU price to store.
func TestZeroPriceAndCPUTypesLeftOut(t *testing.T) {
	srv := lambdatest.New(t, testKey)
	srv.SetBody([]byte(`{"data": {
  "cpu_4x_general": {"instance_type": {"name": "cpu_4x_general", "description": "4x vCPU", "price_cents_per_hour": 10, "specs": {"vcpus": 4, "memory_gib": 16, "storage_gib": 0, "gpus": 0}}, "regions_with_capacity_available": []},
  "gpu_1x_a10": {"instance_type": {"name": "gpu_1x_a10", "description": "1x A10 (24 GB PCIe)", "gpu_description": "A10 (24 GB PCIe)", "price_cents_per_hour": 0, "specs": {"vcpus": 30, "memory_gib": 200, "storage_gib": 1400, "gpus": 1}}, "regions_with_capacity_available": []},
  "gpu_1x_a100_sxm4": {"instance_type": {"name": "gpu_1x_a100_sxm4", "description": "1x A100 (40 GB SXM4)", "gpu_description": "A100 (40 GB SXM4)", "price_cents_per_hour": 129, "specs": {"vcpus": 30, "memory_gib": 200, "storage_gib": 512, "gpus": 1}}, "regions_with_capacity_available": [{"name": "us-east-1", "description": "Virginia, USA"}]}
}}`))
	snap, err := newFetcher(t, srv, nil).Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	got := offersByType(snap)
	if len(got) != 1 || got["gpu_1x_a100_sxm4"].Hourly.String() != "1.29" || got["gpu_1x_a100_sxm4"].GPUModel != "A100-40GB" {
		t.Errorf("offers %+v", got)
	}
}

func dec(t *testing.T, s string) decimal.Decimal {
	t.Helper()
	d, err := decimal.NewFromString(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestGPUModels(t *testing.T) {
	for desc, want := range map[string]string{
		"H100 (80 GB SXM5)": "H100", "H100 (80 GB PCIe)": "H100-PCIe", "A100 (40 GB SXM4)": "A100-40GB",
		"A100 (80 GB SXM4)": "A100-80GB", "A100 (80 GB PCIe)": "A100-80GB-PCIe", "B200 (180 GB SXM6)": "B200",
		"GH200 (96 GB)": "GH200", "A10 (24 GB PCIe)": "A10", "V100 (16 GB)": "V100", "Quadro RTX 6000 (24 GB)": "Quadro RTX 6000",
	} {
		if got := gpuModel(desc); got != want {
			t.Errorf("%q → %q, want %q", desc, got, want)
		}
	}
}
