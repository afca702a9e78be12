package alibaba

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/alibaba/alibabatest"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
)

// publicFake serves the scenario's two files.
func publicFake(t *testing.T) *alibabatest.PriceFileServer {
	fake := alibabatest.NewPriceFileServer(t)
	fake.Set(alibabatest.ChinaFilePath, alibabatest.ChinaFile(t))
	fake.Set(alibabatest.IntlFilePath, alibabatest.IntlFile(t))
	return fake
}

// buildPublic builds the fetcher as the program does without a key.
func buildPublic(t *testing.T, env fetchers.Env, regions []string, files ...string) (fetchers.Fetcher, error) {
	t.Setenv(EnvAccessKeyID, "")
	t.Setenv(EnvAccessKeySecret, "")
	t.Setenv("CREDENTIALS_DIRECTORY", "")
	s := Provider.Section().(*Section)
	s.Regions, s.PriceFiles = regions, files
	return Provider.Build(s, env)
}

// Without a key the provider reads the public files: each region from its
// home site's file, Linux VPC rows of GPU types only, exact strings.
func TestPublicPriceFile(t *testing.T) {
	fake := publicFake(t)
	var logs strings.Builder
	f, err := buildPublic(t, fetchers.Env{Client: fetcherstest.QuickClient(), Log: logTo(&logs)},
		[]string{"cn-hangzhou", "ap-southeast-1", "eu-central-1"}, fake.URL()+alibabatest.ChinaFilePath, fake.URL()+alibabatest.IntlFilePath)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.(*PublicFetcher); !ok {
		t.Fatalf("built %T without a key, want the public price file fetcher", f)
	}
	snap, err := f.Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	if err := snap.Validate(); err != nil {
		t.Fatal(err)
	}
	type row struct{ region, pt, term, currency, hourly, upfront string }
	want := []row{
		{"ap-southeast-1", "on_demand", "", "USD", "2.51", "0"},
		{"ap-southeast-1", "reserved", "1m", "USD", "0", "1204.3"},
		{"ap-southeast-1", "reserved", "1y", "USD", "0", "12284.3"},
		{"ap-southeast-1", "reserved", "3y", "USD", "0", "25797.03"},
		{"cn-hangzhou", "on_demand", "", "CNY", "9.5326", "0"},
		{"cn-hangzhou", "reserved", "1m", "CNY", "0", "4576.4"},
		{"cn-hangzhou", "reserved", "1y", "CNY", "0", "46681.72"},
		{"cn-hangzhou", "reserved", "3y", "CNY", "0", "98017.95"},
	}
	var got []row
	for _, o := range snap.Offers {
		if o.InstanceType != alibabatest.PublicGN7i {
			// gn6i: its hourly price is 0 (left out), its month is kept.
			if o.InstanceType != "ecs.gn6i-c4g1.xlarge" || o.Term != "1m" || !o.Upfront.Equal(decimal.RequireFromString("1500.5")) {
				t.Errorf("unexpected offer %s", o.Key())
			}
			continue
		}
		if o.OS != pricewatch.Linux || o.Zone != "" || o.GPUModel != "A10" || o.GPUCount != 1 || o.VCPUs != 8 {
			t.Errorf("%s: %+v", o.Key(), o.Hardware)
		}
		if o.Term != "" && o.Payment != pricewatch.AllUpfront {
			t.Errorf("%s: payment %q", o.Key(), o.Payment)
		}
		got = append(got, row{o.Region, string(o.PriceType), o.Term, o.Currency, o.Hourly.String(), o.Upfront.String()})
	}
	if len(got) != len(want) {
		t.Fatalf("gn7i offers %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("offer %d: %v, want %v", i, got[i], want[i])
		}
	}
	if len(snap.Offers) != len(want)+1 {
		t.Errorf("%d offers, want %d", len(snap.Offers), len(want)+1)
	}
	if len(snap.Availability) != 3 {
		t.Errorf("availability %+v, want gn7i in two regions and gn6i in one, offered", snap.Availability)
	}
	for _, a := range snap.Availability {
		if a.State != pricewatch.Offered || a.Zone != "" {
			t.Errorf("availability %+v", a)
		}
	}
	// eu-central-1 is in no file: not covered, so nothing stored there closes.
	if len(snap.Coverage) != 2 || snap.Coverage[0].Region != "ap-southeast-1" || snap.Coverage[1].Region != "cn-hangzhou" {
		t.Errorf("coverage %+v", snap.Coverage)
	}
	for _, c := range snap.Coverage {
		if c.CoversOffer(c.Region, pricewatch.Spot) || !c.CoversAvailability(c.Region) {
			t.Errorf("scope %+v: want on-demand and reserved (no spot) and availability", c)
		}
	}
	if !strings.HasPrefix(snap.SourceVersion, "public price file (") || !strings.Contains(snap.SourceVersion, "china 2.0.421 CNY") ||
		!strings.Contains(snap.SourceVersion, "intl 2.0.421 USD") {
		t.Errorf("source version %q does not name the public files", snap.SourceVersion)
	}
	if !strings.Contains(logs.String(), "rows left out") || !strings.Contains(logs.String(), "gn7e-c16g1.4xlarge") {
		t.Errorf("the unreadable gn7e row is not logged:\n%s", logs.String())
	}
}

// One file alone prices every region it lists, in its own currency.
func TestPublicPriceFileOneSite(t *testing.T) {
	fake := publicFake(t)
	f, err := buildPublic(t, fetchers.Env{Client: fetcherstest.QuickClient()}, []string{"cn-hangzhou", "ap-southeast-1"}, fake.URL()+alibabatest.ChinaFilePath)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := f.Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range snap.Offers {
		if o.Currency != "CNY" {
			t.Errorf("%s in %s", o.Key(), o.Currency)
		}
		if o.Region == "ap-southeast-1" && !o.Hourly.Equal(decimal.RequireFromString("18.065")) {
			t.Errorf("%s: %s", o.Key(), o.Hourly)
		}
	}
}

// A file cut off in transit, or one that prices no GPU, fails the run.
func TestPublicPriceFileFails(t *testing.T) {
	for _, c := range []struct {
		name    string
		prepare func(*alibabatest.PriceFileServer)
	}{
		{"cut off", func(s *alibabatest.PriceFileServer) { s.Cut(alibabatest.IntlFilePath) }},
		{"no GPU", func(s *alibabatest.PriceFileServer) {
			s.Set(alibabatest.ChinaFilePath, alibabatest.PriceFile(t, "CNY", "", "2.0.422",
				alibabatest.PriceRow{Key: "cn-hangzhou::ecs.g7.large::vpc::linux::optimized", Hour: "0.5"}))
			s.Set(alibabatest.IntlFilePath, alibabatest.PriceFile(t, "USD", "Intl", "2.0.422"))
		}},
		{"no pricingInfo", func(s *alibabatest.PriceFileServer) {
			s.Set(alibabatest.IntlFilePath, []byte(`{"currency": "USD", "version": "2.0.422", "pricingInfo": {}}`))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			fake := publicFake(t)
			c.prepare(fake)
			f, err := buildPublic(t, fetchers.Env{Client: fetcherstest.QuickClient()}, nil, fake.URL()+alibabatest.ChinaFilePath, fake.URL()+alibabatest.IntlFilePath)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Fetch(context.Background(), fetchers.Previous{}); !errors.Is(err, fetchers.ErrIncomplete) {
				t.Errorf("error %v, want %v", err, fetchers.ErrIncomplete)
			}
		})
	}
}

// With no price_files, the current files are found on the pricing pages:
// the newest version each names, read from the CDN.
func TestPublicPriceFileDiscovery(t *testing.T) {
	fake := publicFake(t)
	fake.Set("/zh", []byte(`<script src="https://g.alicdn.com/aliyun/ecs-price-info/2.0.99/price/js_price/x.js"></script>
<script>var f = "//g.alicdn.com/aliyun/ecs-price-info/2.0.421/price/download/instancePrice.json";</script>`))
	fake.Set("/en", []byte(`<a href="https://g.alicdn.com/aliyun/ecs-price-info-intl/2.0.421/price/download/instancePrice.json">`))
	f, err := NewPublic(PublicConfig{Pages: []string{fake.URL() + "/zh", fake.URL() + "/en"}, CDN: fake.URL(), Regions: []string{"cn-hangzhou"}},
		fetcherstest.QuickClient(), nil)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := f.Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Offers) == 0 || fake.Hits(alibabatest.ChinaFilePath) != 1 || fake.Hits(alibabatest.IntlFilePath) != 1 {
		t.Errorf("%d offers; file hits %d, %d", len(snap.Offers), fake.Hits(alibabatest.ChinaFilePath), fake.Hits(alibabatest.IntlFilePath))
	}
	fake.Set("/en", []byte(`<html>no price file here</html>`))
	if _, err := f.Fetch(context.Background(), fetchers.Previous{}); !errors.Is(err, fetchers.ErrIncomplete) || !strings.Contains(err.Error(), "price_files") {
		t.Errorf("a page naming no file: %v", err)
	}
}

func TestNewerVersion(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{{"2.0.421", "2.0.99", true}, {"2.0.99", "2.0.421", false}, {"2.1", "2.0.421", true}, {"2.0.7", "2.0.7", false}, {"2.0.7.1", "2.0.7", true}} {
		if got := newerVersion(c.a, c.b); got != c.want {
			t.Errorf("newerVersion(%s, %s) = %v", c.a, c.b, got)
		}
	}
}

// The embedded catalogue reads as the API's answer does: FPGAs left out,
// vGPU shares kept as shares.
func TestCatalogue(t *testing.T) {
	cat := catalogue()
	if hw := cat["ecs.gn7i-c8g1.2xlarge"]; hw.GPUModel != "A10" || hw.GPUCount != 1 || hw.GPUMemoryGB != 24 || hw.VCPUs != 8 || hw.MemoryGB != 30 {
		t.Errorf("gn7i-c8g1.2xlarge: %+v", hw)
	}
	if _, ok := cat["ecs.f3-c4f1.xlarge"]; ok {
		t.Error("an FPGA type is in the GPU catalogue")
	}
	if hw := cat["ecs.vgn6i-m4.xlarge"]; hw.GPUModel != "T4" || hw.GPUCount != 0.25 {
		t.Errorf("vgn6i-m4.xlarge: %+v, want a quarter of a T4", hw)
	}
	if len(cat) < 200 {
		t.Errorf("%d GPU types in the catalogue", len(cat))
	}
}

// TestPublicConformance runs the fetcher contract on the keyless path.
func TestPublicConformance(t *testing.T) {
	fetcherstest.Conformance(t, fetcherstest.Case[*alibabatest.PriceFileServer]{
		Provider: pricewatch.Alibaba,
		Fake:     publicFake,
		New: func(t *testing.T, fake *alibabatest.PriceFileServer, h fetcherstest.Harness) (fetchers.Fetcher, error) {
			return buildPublic(t, h.Env, []string{"cn-hangzhou", "ap-southeast-1"}, fake.URL()+alibabatest.ChinaFilePath, fake.URL()+alibabatest.IntlFilePath)
		},
		Empty: func(t *testing.T, fake *alibabatest.PriceFileServer) {
			fake.Set(alibabatest.ChinaFilePath, alibabatest.PriceFile(t, "CNY", "", "2.0.421"))
			fake.Set(alibabatest.IntlFilePath, alibabatest.PriceFile(t, "USD", "Intl", "2.0.421"))
		},
		Malformed: func(t *testing.T, fake *alibabatest.PriceFileServer) func(pricewatch.Offer) bool {
			// ap-southeast-1's gn7i row with an hourly price that is no number.
			fake.Set(alibabatest.IntlFilePath, []byte(strings.Replace(string(alibabatest.IntlFile(t)), `"2.51"`, `"2.5.1"`, 1)))
			return func(o pricewatch.Offer) bool {
				return o.Region == "ap-southeast-1" && o.InstanceType == alibabatest.PublicGN7i
			}
		},
		Lacks: map[fetcherstest.Check]string{
			fetcherstest.NoKey:        "the public price file needs no key; the keyed API's case checks it",
			fetcherstest.RefusedKey:   "the public price file needs no key; pricewatch sends none",
			fetcherstest.RepeatedPage: "each price file is one document; nothing is paged",
		},
	})
}

// logTo is a logger writing plain lines into b.
func logTo(b *strings.Builder) *zap.Logger {
	enc := zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig())
	return zap.New(zapcore.NewCore(enc, zapcore.AddSync(b), zap.DebugLevel))
}
