package volcengine

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/volcengine/volcenginetest"
	"github.com/pricewatch/pricewatch/section"
)

const (
	testAK = "AKLTtestVolcengineAccessKey01"
	testSK = "VGVzdFZvbGNlbmdpbmVTZWNyZXRLZXk="
)

// The signature of a fixed request, computed independently with Python's
// hmac/hashlib from the recipe of Volcengine's SDK (volc-sdk-golang
// base/sign.go: no prefix on the first key, query spaces as %20).
func TestSignKnownVector(t *testing.T) {
	req, err := http.NewRequest(http.MethodGet, "https://open.volcengineapi.com/?Action=DescribeInstanceTypes&Version=2020-04-01&MaxResults=100&NextToken=a+b", nil)
	if err != nil {
		t.Fatal(err)
	}
	Sign(req, nil, "AKLTexampleAccessKey", "WTJWamNtVjBhMlY1ZUdWNFlXMXdiR1U9", "cn-beijing", "ecs", time.Date(2026, 12, 5, 14, 0, 0, 0, time.UTC))
	want := "HMAC-SHA256 Credential=AKLTexampleAccessKey/20261205/cn-beijing/ecs/request, SignedHeaders=content-type;host;x-content-sha256;x-date, " +
		"Signature=6fce048d939c7c4afdb79dd168ea7feee24163671dd76e6b427ea1af54854fb0"
	if got := req.Header.Get("Authorization"); got != want {
		t.Errorf("Authorization\n got %s\nwant %s", got, want)
	}
	if req.Header.Get("X-Date") != "20261205T140000Z" {
		t.Errorf("X-Date %q", req.Header.Get("X-Date"))
	}
}

func build(t *testing.T, fake *volcenginetest.Server, env fetchers.Env, ak, sk string, sheets ...string) (fetchers.Fetcher, error) {
	t.Setenv(EnvAccessKey, ak)
	t.Setenv(EnvSecretKey, sk)
	t.Setenv("CREDENTIALS_DIRECTORY", "")
	s := Provider.Section().(*Section)
	s.Common = section.Common{Enabled: true, Endpoint: fake.URL, Regions: []string{"cn-beijing"}}
	s.PriceSheets = sheets
	return Provider.Build(s, env)
}

// A run: GPU types over two pages (the CPU type left out), stock per
// zone, and the sheet's prices.
func TestFetch(t *testing.T) {
	fake := volcenginetest.New(t, testAK, testSK)
	f, err := build(t, fake, fetchers.Env{Client: fetcherstest.QuickClient()}, testAK, testSK, fake.SheetURL())
	if err != nil {
		t.Fatal(err)
	}
	snap, err := f.Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, a := range snap.Availability {
		got[a.Zone+"|"+a.InstanceType] = string(a.State)
		if a.Region != "cn-beijing" {
			t.Errorf("%+v", a)
		}
		if a.InstanceType == volcenginetest.H20x8 && (a.GPUModel != "H20" || a.GPUCount != 8 || a.GPUMemoryGB != 96 || a.VCPUs != 180) {
			t.Errorf("H20 hardware %+v", a.Hardware)
		}
		if a.InstanceType == volcenginetest.GNI2 && (a.GPUModel != "A10" || a.GPUCount != 1 || a.MemoryGB != 46) {
			t.Errorf("A10 hardware %+v", a.Hardware)
		}
	}
	want := map[string]string{
		"cn-beijing-a|" + volcenginetest.GNI2:  "in_stock",
		"cn-beijing-a|" + volcenginetest.H20x8: "sold_out",
		"cn-beijing-b|" + volcenginetest.GNI2:  "in_stock",
	}
	if !maps.Equal(got, want) {
		t.Errorf("availability %v, want %v", got, want)
	}
	if len(snap.Offers) != 2 {
		t.Fatalf("offers %+v", snap.Offers)
	}
	for _, o := range snap.Offers {
		wantHourly := map[string]string{volcenginetest.GNI2: "9.61", volcenginetest.H20x8: "91.84"}[o.InstanceType]
		if o.Currency != "CNY" || !o.Hourly.Equal(decimal.RequireFromString(wantHourly)) || o.PriceType != pricewatch.OnDemand {
			t.Errorf("%s: %s %s, want %s CNY", o.Key(), o.Hourly, o.Currency, wantHourly)
		}
	}
	if snap.SourceVersion != "ecs-api 2020-04-01; price sheets" {
		t.Errorf("source version %q", snap.SourceVersion)
	}
	for _, r := range fake.Regions() {
		if r != "cn-beijing" {
			t.Errorf("a request signed for %s", r)
		}
	}
}

// Without sheets the run stores stock and no price.
func TestFetchWithoutSheets(t *testing.T) {
	fake := volcenginetest.New(t, testAK, testSK)
	f, err := build(t, fake, fetchers.Env{Client: fetcherstest.QuickClient()}, testAK, testSK)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := f.Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Offers) != 0 || len(snap.Availability) != 3 {
		t.Errorf("%d offers, %d availability", len(snap.Offers), len(snap.Availability))
	}
}

// A refused key fails with ErrAuth, naming what to check, never the key.
func TestRefusedKey(t *testing.T) {
	fake := volcenginetest.New(t, testAK, testSK)
	f, err := build(t, fake, fetchers.Env{Client: fetcherstest.QuickClient()}, testAK, "V3JvbmdTZWNyZXRLZXlGb3JUZXN0")
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Fetch(context.Background(), fetchers.Previous{})
	if !errors.Is(err, fetchers.ErrAuth) || !strings.Contains(err.Error(), EnvSecretKey) || strings.Contains(err.Error(), "V3JvbmdTZWNyZXRLZXlGb3JUZXN0") {
		t.Errorf("error %v", err)
	}
}

func TestConformance(t *testing.T) {
	fetcherstest.Conformance(t, fetcherstest.Case[*volcenginetest.Server]{
		Provider: pricewatch.Volcengine,
		Key:      testSK,
		Secrets:  []string{testAK},
		Fake:     func(t *testing.T) *volcenginetest.Server { return volcenginetest.New(t, testAK, testSK) },
		New: func(t *testing.T, fake *volcenginetest.Server, h fetcherstest.Harness) (fetchers.Fetcher, error) {
			ak := testAK
			if h.Key == "" {
				ak = ""
			}
			return build(t, fake, h.Env, ak, h.Key, fake.SheetURL())
		},
		RepeatPage: func(_ *testing.T, fake *volcenginetest.Server) {
			// The second page hands out its own token again.
			fake.LoopTokens()
		},
		Empty: func(_ *testing.T, fake *volcenginetest.Server) {
			fake.SetPages([][]volcenginetest.Type{{}})
		},
		Malformed: func(_ *testing.T, fake *volcenginetest.Server) func(pricewatch.Offer) bool {
			// The A10 sheet row priced "ask us".
			fake.SetSheet(strings.Replace(volcenginetest.Sheet(), "price: 9.61", "price: ask us", 1))
			return fetcherstest.InstanceType(volcenginetest.GNI2)
		},
	})
}
