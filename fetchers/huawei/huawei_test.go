package huawei

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/chinacloudtest"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/huawei/huaweitest"
	"github.com/pricewatch/pricewatch/section"
)

func newFetcher(t *testing.T, srv *huaweitest.Server, regions []string, ak string, log *zap.Logger) *Fetcher {
	t.Helper()
	f, err := New(Config{Endpoint: srv.URL, IAMEndpoint: srv.URL, ECSEndpoint: srv.ECSEndpoint(), Regions: regions,
		AK: section.NewSecret(ak), SK: section.NewSecret(huaweitest.SK)}, fetcherstest.QuickClient(), log)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func fetch(t *testing.T, srv *huaweitest.Server, regions []string, log *zap.Logger) (*pricewatch.Snapshot, error) {
	t.Helper()
	return newFetcher(t, srv, regions, huaweitest.AK, log).Fetch(context.Background(), fetchers.Previous{})
}

type wantOffer struct {
	key             string // flavor|region|price type|term
	hourly, upfront string
	perGPU          string // per GPU-hour of the effective hourly
	model           string
	gpus            float64
}

// Typed from the sample price table (testdata/README.md: constructed
// values in the documented answer shapes): on-demand is one hour's
// official_website_amount, the monthly and yearly subscriptions are
// stored as reserved 1m / 1y, the amount paid upfront.
var wantOffers = []wantOffer{
	{"p2s.2xlarge.8|cn-north-4|on_demand|", "17.3", "0", "17.3", "V100-32GB-PCIe", 1},
	{"p2s.2xlarge.8|cn-north-4|reserved|1m", "0", "8300", "11.3698630137", "V100-32GB-PCIe", 1}, // 8300 / 730
	{"p2s.2xlarge.8|cn-north-4|reserved|1y", "0", "84660", "9.6643835616", "V100-32GB-PCIe", 1}, // 84660 / 8760
	{"p2s.4xlarge.8|cn-north-4|on_demand|", "34.6", "0", "17.3", "V100-32GB-PCIe", 2},
	{"p2s.4xlarge.8|cn-north-4|reserved|1m", "0", "16600", "11.3698630137", "V100-32GB-PCIe", 2},
	{"p2s.4xlarge.8|cn-north-4|reserved|1y", "0", "169320", "9.6643835617", "V100-32GB-PCIe", 2}, // 19.3287671233 (169320 / 8760 at 10 decimals) / 2
	{"p3.2xlarge.8|cn-north-4|on_demand|", "34.21", "0", "34.21", "A100-80GB", 1},
	{"p3.2xlarge.8|cn-north-4|reserved|1m", "0", "16670", "22.8356164384", "A100-80GB", 1},  // 16670 / 730
	{"p3.2xlarge.8|cn-north-4|reserved|1y", "0", "170040", "19.4109589041", "A100-80GB", 1}, // 170040 / 8760
	{"pi2.2xlarge.4|cn-north-4|on_demand|", "10.24", "0", "10.24", "T4", 1},
	{"pi2.2xlarge.4|cn-north-4|reserved|1m", "0", "4366.4", "5.9813698630", "T4", 1}, // 4366.4 / 730
	{"pi2.2xlarge.4|cn-north-4|reserved|1y", "0", "44537.28", "5.0841643836", "T4", 1},
	{"pi2.2xlarge.4|cn-east-3|on_demand|", "10.24", "0", "10.24", "T4", 1},
	{"pi2.2xlarge.4|cn-east-3|reserved|1m", "0", "4366.4", "5.9813698630", "T4", 1},
	{"pi2.2xlarge.4|cn-east-3|reserved|1y", "0", "44537.28", "5.0841643836", "T4", 1},
}

// Issue 22 item 4: GPU flavors of the P and Pi series exact, on-demand and
// monthly/yearly subscription, in CNY (the Chinese site's answers leave the
// currency empty); CPU flavors, a withdrawn flavor and a G flavor without
// its GPU in the flavor list are not stored.
func TestGPUFlavorsExact(t *testing.T) {
	srv := huaweitest.New(t)
	snap, err := fetch(t, srv, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]pricewatch.Offer{}
	for _, o := range snap.Offers {
		got[strings.Join([]string{o.InstanceType, o.Region, string(o.PriceType), o.Term}, "|")] = o
	}
	fetcherstest.EachWanted(t, "offers", got, wantOffers, func(w wantOffer) string { return w.key }, func(w wantOffer, o pricewatch.Offer) {
		fetcherstest.WantPrices(t, w.key, o, w.hourly, w.upfront, w.perGPU)
		if o.GPUModel != w.model || o.GPUCount != w.gpus || o.Currency != "CNY" || o.OS != pricewatch.Linux {
			t.Errorf("%s: %s ×%v %s %s, want %s ×%v CNY linux", w.key, o.GPUModel, o.GPUCount, o.Currency, o.OS, w.model, w.gpus)
		}
		if o.PriceType == pricewatch.Reserved && o.Payment != pricewatch.AllUpfront {
			t.Errorf("%s: payment %s, want all_upfront", w.key, o.Payment)
		}
	})
	if o := got["p2s.2xlarge.8|cn-north-4|on_demand|"]; o.VCPUs != 8 || o.MemoryGB != 64 || !strings.HasPrefix(o.SkuID, "OFFI") {
		t.Errorf("p2s.2xlarge.8: %d vCPUs %v GB sku %q, want 8, 64 and the product id", o.VCPUs, o.MemoryGB, o.SkuID)
	}
	// Every inquiry asked for the flavors kept, as Linux ECS specs.
	for _, q := range srv.Inquiries() {
		if !strings.HasPrefix(q.Spec, "p2s.") && !strings.HasPrefix(q.Spec, "p3.") && !strings.HasPrefix(q.Spec, "pi2.") {
			t.Errorf("priced %s", q.Spec)
		}
	}
	if len(snap.Coverage) != 2 {
		t.Errorf("coverage %+v, want cn-east-3 and cn-north-4", snap.Coverage)
	}
}

// Availability per AZ from cond:operation:az, the region-wide status where
// no AZ is named; withdrawn (abandon) zones and flavors are not listed.
func TestAvailabilityPerZone(t *testing.T) {
	snap, err := fetch(t, huaweitest.New(t), []string{"cn-north-4"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, a := range snap.Availability {
		got[a.InstanceType+"|"+a.Zone] = string(a.State) + " " + a.StockDetail
	}
	want := map[string]string{
		"p2s.2xlarge.8|cn-north-4a": "offered normal",
		"p2s.2xlarge.8|cn-north-4b": "sold_out sellout",
		"p2s.4xlarge.8|":            "sold_out sellout",
		"p3.2xlarge.8|cn-north-4b":  "offered normal",
		"pi2.2xlarge.4|cn-north-4a": "offered normal",
		"pi2.2xlarge.4|cn-north-4c": "offered promotion",
	}
	if !maps.Equal(got, want) {
		t.Errorf("availability %v, want %v", got, want)
	}
	if len(snap.Coverage) != 1 || !snap.Coverage[0].Availability || snap.Coverage[0].Region != "cn-north-4" {
		t.Errorf("coverage %+v", snap.Coverage)
	}
}

// One flavor BSS refuses to price (HTTP 400 fails its whole batch) costs
// only its own prices: the batch is asked again flavor by flavor, the rest
// are stored, and the region's coverage leaves the refused price types
// out, so the flavor's stored prices stay current.
func TestOneFlavorRefused(t *testing.T) {
	srv := huaweitest.New(t)
	srv.Unprice("cn-north-4", "p2s.4xlarge.8")
	snap, err := fetch(t, srv, []string{"cn-north-4"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range snap.Offers {
		if o.InstanceType == "p2s.4xlarge.8" {
			t.Errorf("refused flavor stored: %+v", o)
		}
	}
	if len(snap.Offers) != 9 {
		t.Errorf("%d offers, want the 9 of the other three flavors", len(snap.Offers))
	}
	sc := snap.Coverage[0]
	if len(sc.PriceTypes) == 0 || sc.CoversOffer("cn-north-4", pricewatch.OnDemand) || sc.CoversOffer("cn-north-4", pricewatch.Reserved) {
		t.Errorf("coverage %+v, want on_demand and reserved left out", sc)
	}
}

// A price of zero is never stored, and is no news that the flavor left:
// that price type of its region stays out of the coverage.
func TestZeroPriceKeptOpen(t *testing.T) {
	srv := huaweitest.New(t)
	srv.SetPrice("cn-east-3", "pi2.2xlarge.4", huaweitest.Price{Hour: "0", Month: "4366.4", Year: "44537.28"})
	snap, err := fetch(t, srv, []string{"cn-east-3"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range snap.Offers {
		if o.PriceType == pricewatch.OnDemand {
			t.Errorf("zero price stored: %+v", o)
		}
	}
	if sc := snap.Coverage[0]; sc.CoversOffer("cn-east-3", pricewatch.OnDemand) || !sc.CoversOffer("cn-east-3", pricewatch.Reserved) {
		t.Errorf("coverage %+v, want reserved only", sc)
	}
}

// Keys never show: a refused key gives a clear error wrapping ErrAuth
// that names where the keys come from, and no log line or error holds
// the secret key.
func TestRefusedKey(t *testing.T) {
	core, logs := observer.New(zap.DebugLevel)
	_, err := newFetcher(t, huaweitest.New(t), nil, "WRONGACCESSKEY", zap.New(core)).Fetch(context.Background(), fetchers.Previous{})
	if !errors.Is(err, fetchers.ErrAuth) || !strings.Contains(err.Error(), EnvAK) {
		t.Fatalf("error %v, want ErrAuth naming %s", err, EnvAK)
	}
	if shown := fetcherstest.Shown(err, logs); strings.Contains(shown, huaweitest.SK) {
		t.Errorf("the secret key shows: %s", shown)
	}
}

// The key pair is read as every pair cloud reads one; without it the
// provider is skipped (ErrNoCredentials), as Lambda is.
func TestCredentials(t *testing.T) {
	chinacloudtest.CheckPair(t, chinacloudtest.Pair{IDEnv: EnvAK, SecretEnv: EnvSK, From: CredentialsFrom,
		Missing: "providers.huawei.ak_file and sk_file"})
	if _, err := New(Config{}, fetcherstest.QuickClient(), nil); !errors.Is(err, fetchers.ErrNoCredentials) {
		t.Errorf("New without keys: %v, want ErrNoCredentials", err)
	}
}

// IAM's links.next is followed within its origin: a second page is read
// and the projects of both kept.
func TestProjectPages(t *testing.T) {
	srv := huaweitest.New(t)
	srv.SetProjectsNext(srv.URL + "/v3/projects?page=2")
	snap, err := fetch(t, srv, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Offers) != len(wantOffers) {
		t.Errorf("%d offers, want %d", len(snap.Offers), len(wantOffers))
	}
}

// The GPU of a flavor, from each extra spec the SDK models document.
func TestGPUOf(t *testing.T) {
	for _, tt := range []struct {
		specs map[string]any
		model string
		count float64
	}{
		{map[string]any{"pci_passthrough:alias": "nvidia-p100:1"}, "nvidia-p100", 1},
		{map[string]any{"pci_passthrough:gpu_specs": "m60:direct_graphics:1"}, "m60", 1},
		{map[string]any{"pci_passthrough:gpu_specs": "m60_1q:virt:1"}, "", 0},
		{map[string]any{"info:gpu:name": "2 * NVIDIA V100 / 32G"}, "NVIDIA V100 / 32G", 2},
		{map[string]any{"info:gpu:name": "NVIDIA T4", "quota:gpu": "4"}, "NVIDIA T4", 4},
		{map[string]any{}, "", 0},
	} {
		m, n := gpuOf(flavor{Extras: tt.specs})
		if m != tt.model || n != tt.count {
			t.Errorf("%v: %q ×%v, want %q ×%v", tt.specs, m, n, tt.model, tt.count)
		}
	}
}

// A throttled, failing, cut-off or malformed answer fails the run.
func TestFailures(t *testing.T) {
	for _, fl := range fetcherstest.TransportFailures() {
		t.Run(fl.Name, func(t *testing.T) {
			srv := huaweitest.New(t)
			srv.FailNext(fl.Fail...)
			snap, err := fetch(t, srv, nil, nil)
			fl.Check(t, snap, err, srv.Requests(), huaweitest.SK)
		})
	}
	t.Run("project page on another origin", func(t *testing.T) {
		srv := huaweitest.New(t)
		srv.SetProjectsNext("https://evil.example/v3/projects?page=2")
		if _, err := fetch(t, srv, nil, nil); !errors.Is(err, fetchers.ErrForeignOrigin) {
			t.Errorf("error %v, want ErrForeignOrigin", err)
		}
	})
	t.Run("region without a project", func(t *testing.T) {
		if _, err := fetch(t, huaweitest.New(t), []string{"ap-southeast-1"}, nil); err == nil || !strings.Contains(err.Error(), "ap-southeast-1") {
			t.Errorf("error %v, want the region named", err)
		}
	})
}

// The two real BSS answers (a CPU flavor, USD, la-north-2; see
// testdata/README.md) decode through the answer type: the on-demand
// amount is the usage asked for (730 hours), the period amount one month.
func TestRealAnswersDecode(t *testing.T) {
	for _, tt := range []struct {
		file, want string
		period     bool
	}{
		{"bss-v2-ratings-on-demand-resources-m6.3xlarge.8.linux-la-north-2-USD-202606.json", "494.94", false},
		{"bss-v2-ratings-period-resources-subscribe-rate-m6.3xlarge.8.linux-la-north-2-USD-20260601.json", "356.36", true},
	} {
		b, err := os.ReadFile("huaweitest/testdata/" + tt.file)
		if err != nil {
			t.Fatal(err)
		}
		var a ratingAnswer
		if err := fetchers.DecodeWhole(b, "a price inquiry answer", &a); err != nil {
			t.Fatal(err)
		}
		results, measure := a.ProductRatingResults, a.MeasureID
		if tt.period {
			results, measure = a.Official.ProductRatingResults, a.Official.MeasureID
		}
		if a.Currency != "USD" || results == nil || len(*results) != 1 {
			t.Fatalf("%s: currency %q, results %v", tt.file, a.Currency, results)
		}
		got, err := inYuan(*(*results)[0].OfficialWebsiteAmount, measure)
		if err != nil || got.String() != tt.want {
			t.Errorf("%s: %s (%v), want %s", tt.file, got, err, tt.want)
		}
	}
	if _, err := inYuan(json.Number("12"), new(int)); err == nil {
		t.Error("measure_id 0 read as a unit")
	}
	jiao := 2
	if d, _ := inYuan(json.Number("173"), &jiao); d.String() != "17.3" {
		t.Errorf("173 jiao = %s", d)
	}
}

// Issue 34 item 3: the GPU memory is stored (it was 0, "GPU GB ?" in
// compare --wide): the memory per GPU the flavor states in info:gpu:name
// ("1 * NVIDIA V100 / 32G"), else the resolved model's. In offers and in
// availability alike.
func TestGPUMemoryStored(t *testing.T) {
	snap, err := fetch(t, huaweitest.New(t), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"p2s.2xlarge.8": 32, "p2s.4xlarge.8": 32, "p3.2xlarge.8": 80, "pi2.2xlarge.4": 16}
	seen := map[string]bool{}
	for _, o := range snap.Offers {
		seen[o.InstanceType] = true
		if o.GPUMemoryGB != want[o.InstanceType] {
			t.Errorf("offer %s %s %s: gpu_memory_gb %v, want %v", o.InstanceType, o.Region, o.PriceType, o.GPUMemoryGB, want[o.InstanceType])
		}
	}
	for _, a := range snap.Availability {
		if a.GPUMemoryGB != want[a.InstanceType] {
			t.Errorf("availability %s %s: gpu_memory_gb %v, want %v", a.InstanceType, a.Zone, a.GPUMemoryGB, want[a.InstanceType])
		}
	}
	if len(seen) != len(want) {
		t.Errorf("flavors priced %v, want %v", seen, want)
	}
	for _, tt := range []struct {
		specs map[string]any
		gb    float64
	}{
		{map[string]any{"info:gpu:name": "1 * NVIDIA V100 / 32G"}, 32},
		{map[string]any{"info:gpu:name": "2 * NVIDIA T4 / 16GB"}, 16},
		{map[string]any{"info:gpu:name": "NVIDIA T4"}, 0},
		{map[string]any{"pci_passthrough:alias": "nvidia-a100-80g:1"}, 0},
	} {
		if got := gpuMemoryOf(flavor{Extras: tt.specs}); got != tt.gb {
			t.Errorf("%v: %v GB, want %v", tt.specs, got, tt.gb)
		}
	}
	// Without the name's figure, the resolved model's memory.
	g, why := gpuFlavorOf(flavor{Name: "p3.2xlarge.8", Extras: map[string]any{"pci_passthrough:alias": "nvidia-a100-80g:1"}})
	if why != "" || g.hw.GPUMemoryGB != 80 {
		t.Errorf("alias only: %+v %q, want 80 GB from the A100 80 GB", g.hw, why)
	}
}
