package nebius

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/nebius/nebiustest"
	"github.com/pricewatch/pricewatch/section"
)

func newFetcher(t *testing.T, fake *nebiustest.Server, regions ...string) *Fetcher {
	t.Helper()
	f, err := New(Config{TokenEndpoint: fake.URL, IAMEndpoint: fake.URL, ComputeEndpoint: fake.URL, CalculatorEndpoint: fake.URL,
		Regions: regions, Credentials: section.NewSecret(nebiustest.Credentials(nebiustest.PrivateKey(t)))},
		fetchers.Env{Client: fetchers.NewClient(fetchers.DefaultRetryPolicy())})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestReplayCatalogue replays the fake's constructed catalogue (no real
// capture of Nebius's API exists: see nebiustest/testdata/README.md):
// the calculator's strings exactly, per region, on-demand and
// preemptible-as-spot where the platform allows it, the CPU platform
// left out, the GPU resolved from the platform with its stated memory.
func TestReplayCatalogue(t *testing.T) {
	fake := nebiustest.New(t)
	snap, err := newFetcher(t, fake).Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	// eu-north1: H100 2 presets × 2, H200 2 × 2, L40S 1 × 1; us-central1:
	// H200 2 × 2, B200 1 × 2.
	if len(snap.Offers) != 15 || len(snap.Availability) != 0 {
		t.Fatalf("%d offers, %d availability records; want 15, 0 (Nebius states no stock)", len(snap.Offers), len(snap.Availability))
	}
	got := map[string]pricewatch.Offer{}
	for _, o := range snap.Offers {
		got[o.Region+" "+o.InstanceType+" "+string(o.PriceType)] = o
	}
	for _, w := range []struct {
		key, price, model string
		gpus, mem         float64
		vcpus             int
	}{
		{"eu-north1 gpu-h100-sxm.8gpu-128vcpu-1600gb on_demand", "23.6", "H100", 8, 80, 128},
		{"eu-north1 gpu-h100-sxm.1gpu-16vcpu-200gb spot", "1.25", "H100", 1, 80, 16},
		{"eu-north1 gpu-h200-sxm.8gpu-128vcpu-1600gb spot", "11.6", "H200", 8, 141, 128},
		{"eu-north1 gpu-l40s-a.1gpu-8vcpu-32gb on_demand", "1.55", "L40S", 1, 48, 8},
		{"us-central1 gpu-b200-sxm.8gpu-160vcpu-1792gb on_demand", "44", "B200", 8, 180, 160},
		{"us-central1 gpu-b200-sxm.8gpu-160vcpu-1792gb spot", "24", "B200", 8, 180, 160},
	} {
		o, ok := got[w.key]
		if !ok {
			t.Errorf("no offer %s", w.key)
			continue
		}
		if !o.Hourly.Equal(decimal.RequireFromString(w.price)) || o.Currency != "USD" || o.GPUModel != w.model ||
			o.GPUCount != w.gpus || o.GPUMemoryGB != w.mem || o.VCPUs != w.vcpus {
			t.Errorf("%s: %s %s %v×%s %v GB %d vCPU", w.key, o.Hourly, o.Currency, o.GPUCount, o.GPUModel, o.GPUMemoryGB, o.VCPUs)
		}
	}
	if _, ok := got["eu-north1 gpu-l40s-a.1gpu-8vcpu-32gb spot"]; ok {
		t.Error("a spot offer of a platform not allowed for preemptibles")
	}
	for k := range got {
		if strings.Contains(k, "cpu-d3") {
			t.Errorf("CPU platform stored: %s", k)
		}
	}
	if len(snap.Coverage) != 2 || snap.Coverage[0].Region != "eu-north1" || snap.Coverage[0].Availability {
		t.Errorf("coverage %+v: want eu-north1 and us-central1, prices only", snap.Coverage)
	}

	// What was asked: the first project of eu-north1 by id, the IAM
	// token on every call but the exchange, STOP/priority 1 for
	// preemptible estimates and nothing for on-demand.
	var estimates int
	for _, c := range fake.Calls() {
		if strings.HasSuffix(c.Method, "/Exchange") {
			if c.Auth != "" {
				t.Errorf("the token exchange sent authorization %q", c.Auth)
			}
			continue
		}
		if c.Auth != "Bearer "+nebiustest.IAMToken {
			t.Errorf("%s without the IAM token", c.Method)
		}
		if !strings.HasSuffix(c.Method, "/Estimate") {
			continue
		}
		estimates++
		if c.Parent == "project-e00north1b" {
			t.Errorf("eu-north1 priced under its second project")
		}
		if c.Preemptible && (c.OnPreemption != 1 || c.PreemptPriority != 1) {
			t.Errorf("preemptible estimate with on_preemption %d priority %d", c.OnPreemption, c.PreemptPriority)
		}
	}
	if estimates != 15 {
		t.Errorf("%d estimates, want 15 (one per offer)", estimates)
	}
}

// TestPagedPlatforms follows PlatformService/List's page tokens.
func TestPagedPlatforms(t *testing.T) {
	fake := nebiustest.New(t)
	fake.PageSize(1, false)
	snap, err := newFetcher(t, fake).Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Offers) != 15 {
		t.Errorf("%d offers through pages of one platform, want 15", len(snap.Offers))
	}
}

// TestRegions keeps only the configured regions, and fails when the
// service account has no project in any of them.
func TestRegions(t *testing.T) {
	snap, err := newFetcher(t, nebiustest.New(t), "us-central1").Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range snap.Offers {
		if o.Region != "us-central1" {
			t.Fatalf("offer in %s", o.Region)
		}
	}
	if len(snap.Coverage) != 1 || snap.Coverage[0].Region != "us-central1" {
		t.Errorf("coverage %+v", snap.Coverage)
	}
	if _, err := newFetcher(t, nebiustest.New(t), "me-west1").Fetch(context.Background(), fetchers.Previous{}); err == nil {
		t.Error("a region without a project read as complete")
	}
}

// TestOddRows: a malformed price leaves its row out and its region's
// price type uncovered; an empty platform list in one region fails the
// run.
func TestOddRows(t *testing.T) {
	fake := nebiustest.New(t)
	fake.SetPrice("gpu-l40s-a", "1gpu-8vcpu-32gb", false, "")
	snap, err := newFetcher(t, fake).Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range snap.Coverage {
		if sc.Region == "eu-north1" && sc.CoversOffer("eu-north1", pricewatch.OnDemand) {
			t.Errorf("eu-north1 on-demand claimed complete beside a malformed row: %+v", sc)
		}
		if sc.Region == "eu-north1" && !sc.CoversOffer("eu-north1", pricewatch.Spot) {
			t.Errorf("eu-north1 spot not covered: %+v", sc)
		}
	}
	if len(snap.Offers) != 14 {
		t.Errorf("%d offers, want 14", len(snap.Offers))
	}

	fake = nebiustest.New(t)
	fake.SetPlatforms("us-central1", nil)
	if _, err := newFetcher(t, fake).Fetch(context.Background(), fetchers.Previous{}); err == nil {
		t.Error("an empty platform list read as complete")
	}
}

// TestEndpoints: each service's host is its name below the endpoint's
// domain, as Nebius's SDKs resolve them, unless its own key is set.
func TestEndpoints(t *testing.T) {
	creds := section.NewSecret(nebiustest.Credentials(nebiustest.PrivateKey(t)))
	env := fetchers.Env{Client: fetchers.NewClient(fetchers.DefaultRetryPolicy())}
	f, err := New(Config{Credentials: creds, ComputeEndpoint: "http://127.0.0.1:9000"}, env)
	if err != nil {
		t.Fatal(err)
	}
	for service, want := range map[string]target{
		ServiceTokens:     {"tokens.iam.api.nebius.cloud:443", true},
		ServiceIAM:        {"cpl.iam.api.nebius.cloud:443", true},
		ServiceCalculator: {"api.calculator.billing-data-plane.api.nebius.cloud:443", true},
		ServiceCompute:    {"127.0.0.1:9000", false},
	} {
		if f.addr[service] != want {
			t.Errorf("%s: %+v, want %+v", service, f.addr[service], want)
		}
	}
	for _, bad := range []string{"api.nebius.cloud:443", "grpc://api.nebius.cloud", "https://api.nebius.cloud/v1"} {
		if _, err := New(Config{Credentials: creds, Endpoint: bad}, env); err == nil {
			t.Errorf("endpoint %q accepted", bad)
		}
	}
}

// TestCredentials: odd credentials files are refused without showing
// their content; none at all is "no credentials".
func TestCredentials(t *testing.T) {
	env := fetchers.Env{Client: fetchers.NewClient(fetchers.DefaultRetryPolicy())}
	pemKey := nebiustest.PrivateKey(t)
	good := nebiustest.Credentials(pemKey)
	for name, c := range map[string]string{
		"not json":   "serviceaccount-x " + pemKey,
		"wrong alg":  strings.Replace(good, `"RS256"`, `"ES256"`, 1),
		"iss no sub": strings.Replace(good, `"sub":"`+nebiustest.AccountID, `"sub":"serviceaccount-other`, 1),
		"bad key":    strings.Replace(good, "PRIVATE KEY-----\\n", "PRIVATE KEY-----\\nAAAA", 1),
	} {
		_, err := New(Config{Credentials: section.NewSecret(c)}, env)
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		if strings.Contains(err.Error(), "PRIVATE") || strings.Contains(err.Error(), pemKey[40:80]) {
			t.Errorf("%s: the error shows the key: %v", name, err)
		}
	}
	t.Setenv(EnvCredentials, "")
	if _, err := CredentialsFrom(""); err == nil || !strings.Contains(err.Error(), fetchers.ErrNoCredentials.Error()) {
		t.Errorf("no credentials: %v", err)
	}
}

// TestGPUModel resolves Nebius's platform names through the catalogue.
func TestGPUModel(t *testing.T) {
	for platform, want := range map[string]string{
		"gpu-h100-sxm": "H100", "gpu-h200-sxm": "H200", "gpu-b200-sxm": "B200", "gpu-b200-sxm-a": "B200",
		"gpu-b300-sxm": "B300", "gpu-l40s-a": "L40S", "gpu-l40s-d": "L40S",
	} {
		if got := gpuModel(platform, 0); got != want {
			t.Errorf("%s: %q, want %q", platform, got, want)
		}
	}
	if got := gpuModel("gpu-rtx6000", 96); got != "RTX-PRO-6000" {
		t.Errorf("gpu-rtx6000: %q, want the RTX PRO 6000 (not the Quadro RTX 6000)", got)
	}
}

// TestCallStatuses: how a failed call is classified and retried.
func TestCallStatuses(t *testing.T) {
	for _, tc := range []struct {
		code  codes.Code
		want  error
		tries int
	}{
		{codes.PermissionDenied, fetchers.ErrAuth, 1},
		{codes.DataLoss, fetchers.ErrIncomplete, 1},
		{codes.Unavailable, fetchers.ErrUnreachable, 3},
		{codes.ResourceExhausted, fetchers.ErrThrottled, 3},
		{codes.NotFound, nil, 1}, // a plain error, not retried
	} {
		fake := nebiustest.New(t)
		fake.FailNext(tc.code, tc.code, tc.code)
		client := fetchers.NewClient(fetchers.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond})
		var sleeps fetcherstest.Sleeps
		client.SetSleep(sleeps.Sleep)
		f, err := New(Config{TokenEndpoint: fake.URL, IAMEndpoint: fake.URL, ComputeEndpoint: fake.URL, CalculatorEndpoint: fake.URL,
			Credentials: section.NewSecret(nebiustest.Credentials(nebiustest.PrivateKey(t)))}, fetchers.Env{Client: client})
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.Fetch(context.Background(), fetchers.Previous{})
		if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
			t.Errorf("%s: error %v, want one wrapping %v", tc.code, err, tc.want)
		}
		// The exchange, then the tenant list tried tc.tries times.
		if got := len(fake.Calls()) - 1; got != tc.tries {
			t.Errorf("%s: %d tries of the tenant list, want %d", tc.code, got, tc.tries)
		}
	}
}

// TestRetryDelay reads RetryInfo and caps it at fetch.max_retry_after.
func TestRetryDelay(t *testing.T) {
	st, err := status.New(codes.ResourceExhausted, "slow down").WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(2 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if d := retryDelay(st, 10*time.Minute); d != 10*time.Minute {
		t.Errorf("2h asked, 10m cap: waited %s", d)
	}
	if d := retryDelay(status.New(codes.ResourceExhausted, "no info"), 0); d != 0 {
		t.Errorf("no RetryInfo: %s, want 0 (the policy's back-off)", d)
	}
}

// TestSectionValidate checks the services' address keys.
func TestSectionValidate(t *testing.T) {
	s := Provider.Section().(*Section)
	s.Enabled = false
	s.ComputeEndpoint = "compute.api.nebius.cloud:443"
	err := s.Validate(section.NewChecker("pricewatch.yaml", nil).Under("providers.nebius"))
	if err == nil || !strings.Contains(err.Error(), "providers.nebius.compute_endpoint") {
		t.Errorf("a bare host:port accepted, or the key not named: %v", err)
	}
	s.ComputeEndpoint = "https://compute.api.nebius.cloud:443"
	if err := s.Validate(section.NewChecker("pricewatch.yaml", nil).Under("providers.nebius")); err != nil {
		t.Errorf("a URL refused: %v", err)
	}
}

// TestHTTPSDialsTLS: an https address is dialled with TLS, so a
// plaintext server there is not reached (no call is answered).
func TestHTTPSDialsTLS(t *testing.T) {
	fake := nebiustest.New(t)
	tlsURL := "https" + strings.TrimPrefix(fake.URL, "http")
	client := fetchers.NewClient(fetchers.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, RequestTimeout: 5 * time.Second})
	f, err := New(Config{TokenEndpoint: tlsURL, IAMEndpoint: fake.URL, ComputeEndpoint: fake.URL, CalculatorEndpoint: fake.URL,
		Credentials: section.NewSecret(nebiustest.Credentials(nebiustest.PrivateKey(t)))}, fetchers.Env{Client: client})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Fetch(context.Background(), fetchers.Previous{})
	if !errors.Is(err, fetchers.ErrUnreachable) {
		t.Errorf("TLS to a plaintext server: %v, want an error wrapping %v", err, fetchers.ErrUnreachable)
	}
	if n := len(fake.Calls()); n != 0 {
		t.Errorf("%d calls answered", n)
	}
}
