package ovhcloud

import (
	"errors"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/ovhcloud/ovhcloudtest"
	"github.com/pricewatch/pricewatch/section"
)

func fetch(t *testing.T, srv *ovhcloudtest.Server, sub string, log *zap.Logger) (*pricewatch.Snapshot, error) {
	t.Helper()
	f, err := New(Config{Endpoint: srv.URL, Subsidiary: sub}, fetcherstest.QuickClient(), log)
	return fetcherstest.Fetch(t, f, err)
}

// wantOffer is one stored price, typed from the sample (whose prices are
// OVHcloud's published ones, see testdata/README.md): hourly is the
// catalogue's price ÷ 10⁸ (for the monthly plan: the month ÷ 730 hours).
type wantOffer struct {
	flavor         string
	pt             pricewatch.PriceType
	model          string
	gpus           float64
	memGB          float64
	hourly, perGPU string
}

var wantOffers = []wantOffer{
	{"h100-380", pricewatch.OnDemand, "H100", 1, 80, "2.8", "2.8"},
	{"h100-380", pricewatch.Reserved, "H100", 1, 80, "2.6575342466", "2.6575342466"}, // 1940.00 / 730
	{"h100-1520", pricewatch.OnDemand, "H100", 4, 80, "11.2", "2.8"},
	{"h100-1520", pricewatch.Reserved, "H100", 4, 80, "10.6438356164", "2.6609589041"}, // 7770.00 / 730
	{"a100-180", pricewatch.OnDemand, "A100-80GB", 1, 80, "2.75", "2.75"},
	{"a100-180", pricewatch.Reserved, "A100-80GB", 1, 80, "1.5068493151", "1.5068493151"}, // 1100.00 / 730
	{"l40s-90", pricewatch.OnDemand, "L40S", 1, 48, "1.4", "1.4"},
	{"l40s-90", pricewatch.Reserved, "L40S", 1, 48, "1.3808219178", "1.3808219178"}, // 1008.00 / 730
	{"l4-90", pricewatch.OnDemand, "L4", 1, 24, "0.75", "0.75"},
	{"l4-90", pricewatch.Reserved, "L4", 1, 24, "0.7397260274", "0.7397260274"}, // 540.00 / 730
}

// Issue 22 item 5: every GPU flavor of the catalogue, hourly (on_demand)
// and monthly postpaid (reserved, term 1m, no upfront), exact in the
// answer's currency, stored once under region global; the CPU flavor
// (b2-7) is not a GPU price.
func TestGPUFlavorsExact(t *testing.T) {
	snap, err := fetch(t, ovhcloudtest.New(t), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]pricewatch.Offer{}
	for _, o := range snap.Offers {
		got[o.InstanceType+"|"+string(o.PriceType)] = o
	}
	fetcherstest.EachWanted(t, "offers", got, wantOffers, func(w wantOffer) string { return w.flavor + "|" + string(w.pt) },
		func(w wantOffer, o pricewatch.Offer) {
			if !o.Hourly.Equal(decimal.RequireFromString(w.hourly)) {
				t.Errorf("%s %s: hourly %s, want %s", w.flavor, w.pt, o.Hourly, w.hourly)
			}
			per, ok := pricewatch.PerGPUHour(o.Hourly, o.GPUCount)
			if !ok || !per.Equal(decimal.RequireFromString(w.perGPU)) {
				t.Errorf("%s %s: per GPU-hour %s, want %s", w.flavor, w.pt, per, w.perGPU)
			}
			if o.GPUModel != w.model || o.GPUCount != w.gpus || o.GPUMemoryGB != w.memGB {
				t.Errorf("%s: GPU %s ×%v %v GB, want %s ×%v %v GB", w.flavor, o.GPUModel, o.GPUCount, o.GPUMemoryGB, w.model, w.gpus, w.memGB)
			}
			if o.Currency != "EUR" || o.Region != Region || o.OS != pricewatch.Linux || !o.Upfront.IsZero() {
				t.Errorf("%s: %s %s %s upfront %s, want EUR global linux, none upfront", w.flavor, o.Currency, o.Region, o.OS, o.Upfront)
			}
			wantTerm, wantPay, suffix := "", "", ".consumption"
			if w.pt == pricewatch.Reserved {
				wantTerm, wantPay, suffix = "1m", pricewatch.NoUpfront, ".monthly.postpaid"
			}
			if o.Term != wantTerm || o.Payment != wantPay || o.SkuID != w.flavor+suffix {
				t.Errorf("%s %s: term %q payment %q sku %q", w.flavor, w.pt, o.Term, o.Payment, o.SkuID)
			}
		})
	if h := got["h100-380|on_demand"]; h.VCPUs != 30 || h.MemoryGB != 380 {
		t.Errorf("h100-380: %d vCPUs %v GB, want 30 and 380", h.VCPUs, h.MemoryGB)
	}
	if snap.SourceVersion != "catalogId 1" || len(snap.Coverage) != 1 || snap.Coverage[0].Region != Region {
		t.Errorf("source %q coverage %+v", snap.SourceVersion, snap.Coverage)
	}
}

// Issue 22 item 5: odd rows are skipped and the run still stores the
// rest: a GPU flavor without a GPU count, one without an hourly price,
// one whose pricings disagree, a region variant and a V100 flavor the
// GPU catalogue resolves (constructed rows, see testdata/README.md).
func TestOddRowsSkipped(t *testing.T) {
	const gpuBlob = `"blobs": {"technical": {"gpu": {"model": "L40S", "number": %s, "memory": {"size": 48}}}}`
	rows := []struct{ name, addon string }{
		{"no GPU count", `{"planCode": "l40s-odd.consumption", "product": "publiccloud-instance", "pricings": [{"interval": 1, "intervalUnit": "hour", "price": 140000000}], ` + strings.Replace(gpuBlob, "%s", "0", 1) + `}`},
		{"no hourly price", `{"planCode": "l40s-nop.consumption", "product": "publiccloud-instance", "pricings": [], ` + strings.Replace(gpuBlob, "%s", "1", 1) + `}`},
		{"pricings disagree", `{"planCode": "l40s-two.consumption", "product": "publiccloud-instance", "pricings": [{"interval": 1, "intervalUnit": "hour", "price": 140000000}, {"interval": 1, "intervalUnit": "hour", "price": 150000000}], ` + strings.Replace(gpuBlob, "%s", "1", 1) + `}`},
		{"region variant", `{"planCode": "l40s-90.consumption.3AZ", "product": "publiccloud-instance", "pricings": [{"interval": 1, "intervalUnit": "hour", "price": 170000000}], ` + strings.Replace(gpuBlob, "%s", "1", 1) + `}`},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			srv := ovhcloudtest.New(t)
			srv.AddAddon(t, r.addon)
			snap, err := fetch(t, srv, "FR", nil)
			if err != nil {
				t.Fatalf("one odd row failed the run: %v", err)
			}
			if len(snap.Offers) != len(wantOffers) {
				t.Errorf("%d offers, want the sample's %d", len(snap.Offers), len(wantOffers))
			}
			for _, o := range snap.Offers {
				if strings.HasPrefix(o.InstanceType, "l40s-") && o.InstanceType != "l40s-90" || !o.Hourly.IsPositive() {
					t.Errorf("odd row stored: %+v", o)
				}
				if o.InstanceType == "l40s-90" && o.PriceType == pricewatch.OnDemand && !o.Hourly.Equal(decimal.RequireFromString("1.4")) {
					t.Errorf("region variant replaced the price: %s", o.Hourly)
				}
			}
		})
	}
	t.Run("V100 flavor", func(t *testing.T) {
		srv := ovhcloudtest.New(t)
		srv.AddAddon(t, `{"planCode": "t1-45.consumption", "product": "publiccloud-instance", "pricings": [{"interval": 1, "intervalUnit": "hour", "price": 123456789}], "blobs": {"technical": {"gpu": {"model": "Tesla V100", "number": 1, "memory": {"size": 16}}}}}`)
		snap, err := fetch(t, srv, "FR", nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range snap.Offers {
			if o.InstanceType == "t1-45" {
				if o.GPUModel != "V100" || !o.Hourly.Equal(decimal.RequireFromString("1.23456789")) {
					t.Errorf("t1-45: %s %s, want V100 1.23456789", o.GPUModel, o.Hourly)
				}
				return
			}
		}
		t.Error("t1-45 not stored")
	})
}

// Issue 22 item 5: an answer that is not a whole catalogue fails the run
// and stores nothing.
func TestBadAnswersFail(t *testing.T) {
	addon := `{"planCode": "l4-90.consumption", "product": "publiccloud-instance", "pricings": [{"interval": 1, "intervalUnit": "hour", "price": %s}], "blobs": {"technical": {"gpu": {"model": "L4", "number": 1}}}}`
	body := func(locale, price string) string {
		return `{"catalogId": 1, "locale": ` + locale + `, "addons": [` + strings.Replace(addon, "%s", price, 1) + `]}`
	}
	eur := `{"currencyCode": "EUR", "subsidiary": "FR"}`
	for _, tc := range append(fetcherstest.TransportFailures(), []fetcherstest.Failure{
		{Name: "no addons", Body: `{"catalogId": 1, "locale": ` + eur + `}`, Want: fetchers.ErrIncomplete, Requests: 1},
		{Name: "no locale", Body: `{"catalogId": 1, "addons": []}`, Want: fetchers.ErrIncomplete, Requests: 1},
		{Name: "no currency", Body: body(`{"subsidiary": "FR"}`, "75000000"), Want: fetchers.ErrIncomplete, Requests: 1},
		{Name: "another subsidiary", Body: body(`{"currencyCode": "GBP", "subsidiary": "GB"}`, "75000000"), Want: fetchers.ErrIncomplete, Requests: 1},
		{Name: "price not an integer", Body: body(eur, "0.75"), Want: fetchers.ErrIncomplete, Requests: 1},
		{Name: "price a string", Body: body(eur, `"cheap"`), Want: fetchers.ErrIncomplete, Requests: 1},
		{Name: "no GPU flavor priced", Body: `{"catalogId": 1, "locale": ` + eur + `, "addons": []}`, Want: fetchers.ErrIncomplete, Requests: 1},
		{Name: "trailing data", Body: body(eur, "75000000") + " {}", Want: fetchers.ErrIncomplete, Requests: 1},
	}...) {
		t.Run(tc.Name, func(t *testing.T) {
			srv := ovhcloudtest.New(t)
			srv.FailNext(tc.Fail...)
			if tc.Body != "" {
				srv.SetBody([]byte(tc.Body))
			}
			snap, err := fetch(t, srv, "FR", nil)
			tc.Check(t, snap, err, srv.Requests(), "\x00no secret")
		})
	}
}

// Issue 22 item 5: the subsidiary is asked for (ovhSubsidiary) and the
// currency is the answer's: a CA catalogue is stored in CAD.
func TestSubsidiaryAndCurrency(t *testing.T) {
	srv := ovhcloudtest.New(t)
	srv.Subsidiary = "CA"
	srv.SetBody([]byte(strings.Replace(string(ovhcloudtest.Sample()), `"currencyCode": "EUR",
    "subsidiary": "FR"`, `"currencyCode": "CAD",
    "subsidiary": "CA"`, 1)))
	core, logs := observer.New(zap.InfoLevel)
	snap, err := fetch(t, srv, "CA", zap.New(core))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range snap.Offers {
		if o.Currency != "CAD" {
			t.Fatalf("%s in %s, want CAD", o.InstanceType, o.Currency)
		}
	}
	if logs.FilterMessage("ovhcloud catalogue fetched").Len() != 1 {
		t.Errorf("no summary line: %v", logs.All())
	}
	// The FR default asked of a fake serving CA only: its 400 fails the run.
	if _, err := fetch(t, srv, "", nil); err == nil {
		t.Error("a refused subsidiary did not fail the run")
	}
}

// Issue 22 item 6: providers.ovhcloud.subsidiary is checked; the
// endpoint is a base URL the catalogue's path is appended to.
func TestSectionAndEndpoint(t *testing.T) {
	s := Provider.Section().(*Section)
	if s.Subsidiary != "FR" || s.Endpoint != DefaultEndpoint || !s.Enabled {
		t.Errorf("defaults %+v", s)
	}
	k := section.NewChecker("pw.yaml", nil).Under("providers.ovhcloud")
	for sub, ok := range map[string]bool{"FR": true, "ASIA": true, "fr": false, "": false, "FR&x=1": false} {
		s.Subsidiary = sub
		if err := s.Validate(k); (err == nil) != ok {
			t.Errorf("subsidiary %q: %v", sub, err)
		}
	}
	f, err := New(Config{Endpoint: "https://mirror.example/ovh/"}, fetcherstest.QuickClient(), nil)
	if err != nil || f.url != "https://mirror.example/ovh/v1/order/catalog/public/cloud?ovhSubsidiary=FR" {
		t.Errorf("url %q, %v", f.url, err)
	}
	if _, err := New(Config{Endpoint: "ftp://x"}, fetcherstest.QuickClient(), nil); err == nil {
		t.Error("ftp endpoint accepted")
	}
	if _, err := New(Config{}, nil, nil); err == nil || errors.Is(err, fetchers.ErrNoCredentials) {
		t.Errorf("no client: %v", err)
	}
}

// winL40S is the Windows L40S flavor as the catalogue lists it: plan code
// "win-<flavor>.consumption", blobs.technical.os.family "windows" (the
// sample's l40s-90 addon with those two fields changed and a constructed
// price, see testdata/README.md).
const winL40S = `{"planCode": "win-l40s-90.consumption", "invoiceName": "win-l40s-90", "product": "publiccloud-instance",
	"pricings": [{"interval": 1, "intervalUnit": "hour", "price": 171000000}],
	"blobs": {"commercial": {"brick": "gpu"}, "technical": {"name": "win-l40s-90", "cpu": {"cores": 15}, "memory": {"size": 90},
	"os": {"family": "windows"}, "storage": {"disks": [{"capacity": 400}]}, "gpu": {"model": "L40S", "number": 1, "memory": {"size": 48}}}}}`

// Issue 34 item 1: a Windows flavor is stored with os windows, apart
// from the Linux L40S (so compare never ranks it among Linux offers); the
// OS is the one the catalogue states, else the plan code's; an addon whose
// two disagree, or whose family is neither, is skipped, not guessed.
func TestWindowsFlavorStoredAsWindows(t *testing.T) {
	srv := ovhcloudtest.New(t)
	srv.AddAddon(t, winL40S)
	// No os blob: the "win-" plan code alone says Windows.
	srv.AddAddon(t, strings.Replace(strings.Replace(winL40S, `"os": {"family": "windows"}, `, "", 1), "win-l40s-90", "win-l40s-180", 2))
	// The family says linux, the plan code Windows: not guessed.
	srv.AddAddon(t, strings.Replace(strings.Replace(winL40S, `"family": "windows"`, `"family": "linux"`, 1), "win-l40s-90", "win-l40s-360", 2))
	// A family that is neither.
	srv.AddAddon(t, strings.Replace(strings.Replace(winL40S, `"family": "windows"`, `"family": "bsd"`, 1), "win-l40s-90", "bsd-l40s-90", 2))
	snap, err := fetch(t, srv, "FR", nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]pricewatch.Offer{}
	for _, o := range snap.Offers {
		got[o.InstanceType+"|"+string(o.PriceType)] = o
	}
	win, ok := got["win-l40s-90|on_demand"]
	if !ok || win.OS != pricewatch.Windows || !win.Hourly.Equal(decimal.RequireFromString("1.71")) || win.GPUModel != "L40S" {
		t.Errorf("win-l40s-90: %+v, want windows L40S 1.71", win)
	}
	if w := got["win-l40s-180|on_demand"]; w.OS != pricewatch.Windows {
		t.Errorf("win-l40s-180 (plan code only): os %q, want windows", w.OS)
	}
	if l := got["l40s-90|on_demand"]; l.OS != pricewatch.Linux {
		t.Errorf("l40s-90: os %q, want linux", l.OS)
	}
	for _, bad := range []string{"win-l40s-360|on_demand", "bsd-l40s-90|on_demand"} {
		if o, ok := got[bad]; ok {
			t.Errorf("%s stored as %s although its OS is unclear", bad, o.OS)
		}
	}
	if len(snap.Offers) != len(wantOffers)+2 {
		t.Errorf("%d offers, want the sample's %d and the two Windows flavors", len(snap.Offers), len(wantOffers))
	}
}
