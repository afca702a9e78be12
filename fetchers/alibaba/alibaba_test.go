package alibaba

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/alibaba/alibabatest"
	"github.com/pricewatch/pricewatch/fetchers/chinacloudtest"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/internal/golden"
	"github.com/pricewatch/pricewatch/section"
)

// The AccessKey pair the fake ECS knows.
const (
	testKeyID  = "LTAI5tTestKeyIdExample"
	testSecret = "TestSecretValue0123456789abcdef"
)

func testConfig(endpoint string, regions ...string) Config {
	return Config{
		Endpoint: endpoint, Regions: regions,
		AccessKeyID: section.NewSecret(testKeyID), AccessKeySecret: section.NewSecret(testSecret),
		Concurrency: 3,
		Retry:       fetchers.RetryPolicy{MaxAttempts: 4, BaseDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond, RequestTimeout: 10 * time.Second},
	}
}

// hangzhouFetcher starts a fake holding w and a fetcher for cn-hangzhou
// pointed at it.
func hangzhouFetcher(t *testing.T, w *alibabatest.World) (*Fetcher, *alibabatest.Server, *fetcherstest.Sleeps) {
	t.Helper()
	fake := alibabatest.NewServer(t, testKeyID, testSecret, w)
	f, s := newTestFetcher(t, testConfig(fake.URL(), "cn-hangzhou"))
	return f, fake, s
}

func newTestFetcher(t *testing.T, cfg Config) (*Fetcher, *fetcherstest.Sleeps) {
	t.Helper()
	f, err := New(cfg, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	s := &fetcherstest.Sleeps{}
	f.SetSleep(s.Sleep)
	return f, s
}

func fetch(t *testing.T, f *Fetcher, prev fetchers.Previous) *pricewatch.Snapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	snap, err := f.Fetch(ctx, prev)
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	return snap
}

func findOffer(t *testing.T, s *pricewatch.Snapshot, typ string, pt pricewatch.PriceType, term, zone string) pricewatch.Offer {
	t.Helper()
	for _, o := range s.Offers {
		if o.InstanceType == typ && o.PriceType == pt && o.Term == term && o.Zone == zone {
			return o
		}
	}
	t.Fatalf("no %s %s %s offer in zone %q", typ, pt, term, zone)
	return pricewatch.Offer{}
}

func hasOffer(s *pricewatch.Snapshot, typ string, pt pricewatch.PriceType, term string) bool {
	for _, o := range s.Offers {
		if o.InstanceType == typ && o.PriceType == pt && o.Term == term {
			return true
		}
	}
	return false
}

func findAvail(t *testing.T, s *pricewatch.Snapshot, zone, typ string) pricewatch.Availability {
	t.Helper()
	for _, a := range s.Availability {
		if a.Zone == zone && a.InstanceType == typ {
			return a
		}
	}
	t.Fatalf("no availability for %s in %s", typ, zone)
	return pricewatch.Availability{}
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// The full run against a China-site fake: every price read exactly from
// the field that holds what is paid, subscriptions as upfront totals,
// latest spot per zone, stock per zone.
func TestFetchChinaSite(t *testing.T) {
	fake := alibabatest.NewServer(t, testKeyID, testSecret, hangzhouWorld())
	f, _ := newTestFetcher(t, testConfig(fake.URL(), "cn-hangzhou"))
	snap := fetch(t, f, fetchers.Previous{})

	checkGolden(t, "cn-hangzhou.json", snap)

	tests := []struct {
		name           string
		typ            string
		pt             pricewatch.PriceType
		term, zone     string
		hourly, upfont string
		effective      string
	}{
		{"pay-as-you-go hourly", gn7i, pricewatch.OnDemand, "", "", "12.58", "0", "12.58"},
		{"1-month subscription", gn7i, pricewatch.Reserved, "1m", "", "0", "6320", "8.6575342466"},
		{"TradePrice, not DiscountPrice (published example)", gn6v, pricewatch.Reserved, "1y", "", "0", "3712.8", "0.4238356164"},
		{"3-year total kept to the cent", gn8v, pricewatch.Reserved, "3y", "", "0", "98765.43", "3.7581974886"},
		{"numbers sent as strings", gn7, pricewatch.OnDemand, "", "", "34.74", "0", "34.74"},
		{"instanceType line, not the total with the system disk", gn7, pricewatch.Reserved, "1y", "", "0", "272952", "31.1589041096"},
		{"line without TradePrice: original minus discount", gn7, pricewatch.Reserved, "3y", "", "0", "481680", "18.3287671233"},
		{"latest spot in the zone", gn7i, pricewatch.Spot, "", "cn-hangzhou-i", "2.641", "0", "2.641"},
		{"spot sent as a string", gn8v, pricewatch.Spot, "", "cn-hangzhou-j", "11.464", "0", "11.464"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := findOffer(t, snap, tt.typ, tt.pt, tt.term, tt.zone)
			if !o.Hourly.Equal(dec(tt.hourly)) || !o.Upfront.Equal(dec(tt.upfont)) {
				t.Errorf("hourly %s upfront %s, want %s and %s", o.Hourly, o.Upfront, tt.hourly, tt.upfont)
			}
			eff, err := o.EffectiveHourly()
			if err != nil || !eff.Equal(dec(tt.effective)) {
				t.Errorf("effective hourly %s (%v), want %s", eff, err, tt.effective)
			}
			if o.Currency != "CNY" || o.OS != pricewatch.Linux {
				t.Errorf("currency %q os %q", o.Currency, o.OS)
			}
			if tt.pt == pricewatch.Reserved && o.Payment != pricewatch.AllUpfront {
				t.Errorf("payment %q, want all_upfront", o.Payment)
			}
			if tt.pt != pricewatch.Spot && o.Zone != "" {
				t.Errorf("regional price carries zone %q", o.Zone)
			}
		})
	}
	if hasOffer(snap, gn6v, pricewatch.Reserved, "3y") {
		t.Error("a PriceNotFound quote became an offer")
	}
	if hasOffer(snap, gn6i, pricewatch.OnDemand, "") {
		t.Error("a type not sold in the region was priced")
	}
	if hasOffer(snap, "ecs.g6.large", pricewatch.OnDemand, "") {
		t.Error("a type with GPUAmount 0 was priced")
	}
	if n := len(snap.Offers); n != 18 {
		t.Errorf("%d offers, want 18 (4 on-demand, 11 subscriptions, 3 spot)", n)
	}

	stock := []struct {
		zone, typ, detail string
		state             pricewatch.AvailabilityState
	}{
		{"cn-hangzhou-i", gn7i, "WithStock", pricewatch.InStock},
		{"cn-hangzhou-i", gn6v, "WithoutStock", pricewatch.SoldOut},
		{"cn-hangzhou-i", gn7, "ClosedWithStock", pricewatch.InStock},
		{"cn-hangzhou-j", gn7i, "ClosedWithoutStock", pricewatch.SoldOut},
		{"cn-hangzhou-j", gn8v, "WithStock", pricewatch.InStock},
	}
	for _, s := range stock {
		a := findAvail(t, snap, s.zone, s.typ)
		if a.State != s.state || a.StockDetail != s.detail || a.Region != "cn-hangzhou" {
			t.Errorf("%s in %s: %s/%s, want %s/%s", s.typ, s.zone, a.State, a.StockDetail, s.state, s.detail)
		}
	}
	if len(snap.Availability) != len(stock) {
		t.Errorf("%d availability records, want %d (the non-GPU sample row must not count)", len(snap.Availability), len(stock))
	}
	if len(snap.Coverage) != 1 || snap.Coverage[0].Region != "cn-hangzhou" || !snap.Coverage[0].Availability || len(snap.Coverage[0].PriceTypes) != 0 {
		t.Errorf("coverage %+v", snap.Coverage)
	}
	hw := findOffer(t, snap, gn8v, pricewatch.OnDemand, "", "").Hardware
	if hw != (pricewatch.Hardware{GPUModel: "H20", GPUCount: 1, GPUMemoryGB: 96, VCPUs: 16, MemoryGB: 96}) {
		t.Errorf("gn8v hardware %+v", hw)
	}

	// Each DescribePrice question was asked once: four per type sold in
	// the region, none with a zone.
	if n := len(fake.Calls("DescribePrice")); n != 16 {
		t.Errorf("%d DescribePrice calls, want 16", n)
	}
	for _, c := range fake.Calls("") {
		if c.Style != "ACS3" {
			t.Errorf("%s signed with %s, want ACS3-HMAC-SHA256", c.Action, c.Style)
		}
	}
}

// DescribeInstanceTypes is paged with NextToken and asked once per run,
// however many regions there are.
func TestInstanceTypePaging(t *testing.T) {
	w := hangzhouWorld()
	w.Zones["cn-beijing"] = w.Zones["cn-hangzhou"]
	for k, v := range hangzhouPrices() {
		w.Prices[strings.Replace(k, "cn-hangzhou", "cn-beijing", 1)] = v
	}
	for k, v := range hangzhouSpots() {
		w.Spots[strings.Replace(k, "cn-hangzhou|", "cn-beijing|", 1)] = v
	}
	fake := alibabatest.NewServer(t, testKeyID, testSecret, w)
	f, _ := newTestFetcher(t, testConfig(fake.URL(), "cn-hangzhou", "cn-beijing"))
	snap := fetch(t, f, fetchers.Previous{})

	calls := fake.Calls("DescribeInstanceTypes")
	if len(calls) != 2 {
		t.Fatalf("%d DescribeInstanceTypes calls, want 2 (two pages, once per run)", len(calls))
	}
	if calls[0].Params.Get("NextToken") != "" || calls[1].Params.Get("NextToken") != sampleNextToken {
		t.Errorf("NextTokens sent: %q, %q", calls[0].Params.Get("NextToken"), calls[1].Params.Get("NextToken"))
	}
	for _, c := range calls {
		if c.Params.Get("MinimumGPUAmount") != "1" || c.Params.Get("MaxResults") != "100" {
			t.Errorf("DescribeInstanceTypes params %v", c.Params)
		}
	}
	// Types from the second page were found and priced in both regions.
	for _, region := range []string{"cn-hangzhou", "cn-beijing"} {
		found := false
		for _, o := range snap.Offers {
			found = found || (o.Region == region && o.InstanceType == gn8v)
		}
		if !found {
			t.Errorf("no %s offer in %s", gn8v, region)
		}
	}
	if len(snap.Coverage) != 2 {
		t.Errorf("coverage %+v", snap.Coverage)
	}
}

// Throttling.User and server errors (5xx) are retried with back-off,
// each retry freshly signed (the fake refuses a reused nonce), and the
// run then succeeds with every offer.
func TestRetriedThenSuccess(t *testing.T) {
	for _, c := range []struct {
		name       string
		fail       func(w *alibabatest.World)
		waits      int
		priceCalls int // DescribePrice: 16 quotes and the throttled tries
	}{
		{"throttling", func(w *alibabatest.World) {
			w.Throttle = map[string]int{"DescribePrice": 3, "DescribeAvailableResource": 1}
		}, 4, 16 + 3},
		{"server errors", func(w *alibabatest.World) {
			w.ServerErrors = map[string]int{"DescribeInstanceTypes": 1, "DescribeSpotPriceHistory": 2}
		}, 3, 16},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := hangzhouWorld()
			c.fail(w)
			f, fake, s := hangzhouFetcher(t, w)
			snap := fetch(t, f, fetchers.Previous{})
			if len(s.Waits()) != c.waits || len(snap.Offers) != 18 {
				t.Errorf("%d back-offs, %d offers; want %d and 18", len(s.Waits()), len(snap.Offers), c.waits)
			}
			if n := len(fake.Calls("DescribePrice")); n != c.priceCalls {
				t.Errorf("%d DescribePrice calls, want %d", n, c.priceCalls)
			}
			o := findOffer(t, snap, gn8v, pricewatch.Reserved, "3y", "")
			if !o.Upfront.Equal(dec("98765.43")) {
				t.Errorf("upfront %s after retries", o.Upfront)
			}
		})
	}
}

// Spot answers without Currency (as in the 2019 sample) take the account's
// currency from DescribePrice; with no quote to take it from, the run fails
// rather than guess.
func TestSpotCurrencyNeedsAQuote(t *testing.T) {
	w := hangzhouWorld()
	for k := range w.Prices {
		w.Prices[k] = alibabatest.Price{Status: 400, Code: "PriceNotFound", Message: "The price of your queried resource is not available now, please try other resources."}
	}
	f, _, _ := hangzhouFetcher(t, w)
	snap, err := f.Fetch(context.Background(), fetchers.Previous{})
	if snap != nil || !errors.Is(err, fetchers.ErrIncomplete) || !strings.Contains(err.Error(), "Currency") {
		t.Fatalf("got %v, %v", snap, err)
	}
}

// A quota that never recovers fails the run with ErrThrottled, and no
// snapshot.
func TestThrottledGivesUp(t *testing.T) {
	w := hangzhouWorld()
	w.Throttle = map[string]int{"DescribePrice": 1000}
	f, _, s := hangzhouFetcher(t, w)
	snap, err := f.Fetch(context.Background(), fetchers.Previous{})
	if !errors.Is(err, fetchers.ErrThrottled) || snap != nil {
		t.Fatalf("got %v, %v; want ErrThrottled and no snapshot", snap, err)
	}
	if !strings.Contains(err.Error(), "Throttling.User") {
		t.Errorf("error does not name the code: %v", err)
	}
	if len(s.Waits()) == 0 {
		t.Error("no back-off before giving up")
	}
}

// Wrong credentials fail at once with ErrAuth and a message that says what
// to fix, and never show the key.
func TestAuthFailures(t *testing.T) {
	tests := []struct {
		name, id, secret, code, fix string
	}{
		{"wrong secret", testKeyID, "wrong-secret-value-123", "SignatureDoesNotMatch", EnvAccessKeySecret},
		{"unknown key ID", "LTAI5tUnknownKeyId", testSecret, "InvalidAccessKeyId.NotFound", EnvAccessKeyID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := alibabatest.NewServer(t, testKeyID, testSecret, hangzhouWorld())
			cfg := testConfig(fake.URL(), "cn-hangzhou")
			cfg.AccessKeyID, cfg.AccessKeySecret = section.NewSecret(tt.id), section.NewSecret(tt.secret)
			f, s := newTestFetcher(t, cfg)
			snap, err := f.Fetch(context.Background(), fetchers.Previous{})
			if !errors.Is(err, fetchers.ErrAuth) || snap != nil {
				t.Fatalf("got %v, %v; want ErrAuth", snap, err)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.code) || !strings.Contains(msg, tt.fix) {
				t.Errorf("message %q should name %s and %s", msg, tt.code, tt.fix)
			}
			if strings.Contains(msg, tt.secret) || strings.Contains(msg, tt.id) {
				t.Errorf("message shows a credential: %q", msg)
			}
			if len(s.Waits()) != 0 || len(fake.Calls("")) != 0 {
				t.Errorf("auth failure retried (%d back-offs) or reached an action (%d)", len(s.Waits()), len(fake.Calls("")))
			}
		})
	}
}

// An international-site account gets USD in every answer; prices are
// stored in the currency the response names. A zone sold out as a whole is
// sold out for every type, whatever the type's own line says.
func TestFetchInternationalSite(t *testing.T) {
	fake := alibabatest.NewServer(t, testKeyID, testSecret, singaporeWorld())
	f, _ := newTestFetcher(t, testConfig(fake.URL(), "ap-southeast-1"))
	snap := fetch(t, f, fetchers.Previous{})
	checkGolden(t, "ap-southeast-1.json", snap)
	for _, o := range snap.Offers {
		if o.Currency != "USD" {
			t.Errorf("%s: currency %q", o.Key(), o.Currency)
		}
	}
	o := findOffer(t, snap, gn6i, pricewatch.Reserved, "1y", "")
	if !o.Upfront.Equal(dec("5299.92")) {
		t.Errorf("1y upfront %s", o.Upfront)
	}
	if a := findAvail(t, snap, "ap-southeast-1b", gn6i); a.State != pricewatch.SoldOut || a.StockDetail != "WithoutStock" {
		t.Errorf("type in a sold-out zone: %s/%s", a.State, a.StockDetail)
	}
	if hw := o.Hardware; hw.GPUModel != "T4" || hw.GPUMemoryGB != 16 {
		t.Errorf("hardware %+v", hw)
	}
}

// Malformed, truncated or empty answers fail the run; they never read as
// "nothing for sale".
func TestBadResponses(t *testing.T) {
	noGPU := alibabatest.Sample(t, "DescribeInstanceTypes.response.json") // only the GPUAmount-0 row, no NextToken
	delete(noGPU, "NextToken")
	noGPUBody, _ := json.Marshal(noGPU)
	tests := []struct {
		name   string
		action string
		body   string
		want   string
	}{
		{"truncated price", "DescribePrice", `{"RequestId":"04F0F334","PriceInfo":{"Price":{"Currency":"CNY","TradePr`, "DescribePrice"},
		{"price without TradePrice", "DescribePrice", `{"RequestId":"04F0F334","PriceInfo":{"Price":{"Currency":"CNY","OriginalPrice":4368,"DiscountPrice":655.2}}}`, "TradePrice is missing"},
		{"price without currency", "DescribePrice", `{"RequestId":"04F0F334","PriceInfo":{"Price":{"OriginalPrice":4368,"DiscountPrice":655.2,"TradePrice":3712.8}}}`, "no Currency"},
		{"placeholder price", "DescribePrice", `{"RequestId":"04F0F334","PriceInfo":{"Price":{"Currency":"CNY","TradePrice":"N/A"}}}`, "not a number"},
		{"no zones", "DescribeAvailableResource", `{"RequestId":"0041D94C","AvailableZones":{"AvailableZone":[]}}`, "no zones"},
		{"unknown stock status", "DescribeAvailableResource", `{"RequestId":"0041D94C","AvailableZones":{"AvailableZone":[{"ZoneId":"cn-hangzhou-i","Status":"Maybe","AvailableResources":{"AvailableResource":[]}}]}}`, "unknown Status"},
		{"no GPU types at all", "DescribeInstanceTypes", string(noGPUBody), "GPUAmount > 0"},
		{"spot history without list", "DescribeSpotPriceHistory", `{"RequestId":"x","NextOffset":1000}`, "no SpotPrices"},
		{"bad spot timestamp", "DescribeSpotPriceHistory", `{"RequestId":"x","SpotPrices":{"SpotPriceType":[{"ZoneId":"cn-hangzhou-i","Timestamp":"yesterday","SpotPrice":0.006}]}}`, "Timestamp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := hangzhouWorld()
			w.Raw = map[string][]byte{tt.action: []byte(tt.body)}
			f, _, _ := hangzhouFetcher(t, w)
			snap, err := f.Fetch(context.Background(), fetchers.Previous{})
			if err == nil || snap != nil {
				t.Fatalf("got a snapshot from a bad %s answer", tt.action)
			}
			if !errors.Is(err, fetchers.ErrIncomplete) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want ErrIncomplete mentioning %q", err, tt.want)
			}
		})
	}
}

// An error the cloud will not get over (here a permission the fake lacks
// for an action) fails the run: no partial snapshot.
func TestFailedCallFailsRun(t *testing.T) {
	w := hangzhouWorld()
	w.FailAlways = map[string]alibabatest.APIError{"DescribeSpotPriceHistory": {Code: "InvalidParameter", Message: "The specified parameter is not valid."}}
	f, _, _ := hangzhouFetcher(t, w)
	snap, err := f.Fetch(context.Background(), fetchers.Previous{})
	if err == nil || snap != nil || !strings.Contains(err.Error(), "InvalidParameter") {
		t.Fatalf("got %v, %v", snap, err)
	}
}

// Spot history pages by Offset until a short page; the latest row across
// pages wins.
func TestSpotPaging(t *testing.T) {
	w := hangzhouWorld()
	w.SpotPage = 2
	f, fake, _ := hangzhouFetcher(t, w)
	snap := fetch(t, f, fetchers.Previous{})
	var offsets []string
	for _, c := range fake.Calls("DescribeSpotPriceHistory") {
		if c.Params.Get("InstanceType") == gn7i && c.Params.Get("ZoneId") == "cn-hangzhou-i" {
			offsets = append(offsets, c.Params.Get("Offset"))
		}
	}
	if strings.Join(offsets, ",") != ",2" {
		t.Errorf("offsets asked: %q, want first page then Offset=2", offsets)
	}
	if o := findOffer(t, snap, gn7i, pricewatch.Spot, "", "cn-hangzhou-i"); !o.Hourly.Equal(dec("2.641")) {
		t.Errorf("spot %s, want the latest 2.641", o.Hourly)
	}
}

// max_price_calls bounds DescribePrice per run. A region that does not fit
// is left out of the coverage and goes first next run.
func TestPriceCallBudget(t *testing.T) {
	w := hangzhouWorld()
	w.Zones["ap-southeast-1"] = singaporeWorld().Zones["ap-southeast-1"]
	for k, v := range singaporeWorld().Prices {
		w.Prices[k] = v
	}
	for k, v := range singaporeWorld().Spots {
		w.Spots[k] = v
	}
	fake := alibabatest.NewServer(t, testKeyID, testSecret, w)
	cfg := testConfig(fake.URL(), "cn-hangzhou", "ap-southeast-1")
	cfg.MaxPriceCalls = 16 // cn-hangzhou needs 16, ap-southeast-1 needs 4
	f, _ := newTestFetcher(t, cfg)

	first := fetch(t, f, fetchers.Previous{})
	if len(first.Coverage) != 1 || first.Coverage[0].Region != "cn-hangzhou" {
		t.Fatalf("first run coverage %+v", first.Coverage)
	}
	if c := cursorOf(t, first); c != "ap-southeast-1" {
		t.Errorf("cursor %q", c)
	}
	for _, o := range first.Offers {
		if o.Region != "cn-hangzhou" {
			t.Errorf("offer outside the coverage: %s", o.Key())
		}
	}
	if n := len(fake.Calls("DescribePrice")); n != 16 {
		t.Errorf("%d DescribePrice calls, want at most 16", n)
	}

	second := fetch(t, f, fetchers.Previous{Versions: first.Versions, State: first.State})
	if len(second.Coverage) != 1 || second.Coverage[0].Region != "ap-southeast-1" {
		t.Fatalf("second run coverage %+v", second.Coverage)
	}
	if c := cursorOf(t, second); c != "cn-hangzhou" {
		t.Errorf("second cursor %q", c)
	}

	cfg.MaxPriceCalls = 3
	small, _ := newTestFetcher(t, cfg)
	if _, err := small.Fetch(context.Background(), fetchers.Previous{}); err == nil || !strings.Contains(err.Error(), "max_price_calls") {
		t.Errorf("a budget too small for any region: %v", err)
	}
}

// With no regions configured, every region DescribeRegions lists is fetched.
func TestAllRegions(t *testing.T) {
	fake := alibabatest.NewServer(t, testKeyID, testSecret, hangzhouWorld())
	f, _ := newTestFetcher(t, testConfig(fake.URL()))
	snap := fetch(t, f, fetchers.Previous{})
	if len(fake.Calls("DescribeRegions")) != 1 || len(snap.Coverage) != 1 || snap.Coverage[0].Region != "cn-hangzhou" {
		t.Errorf("coverage %+v", snap.Coverage)
	}
}

// A cancelled run stops and returns the context's error.
func TestFetchCancelled(t *testing.T) {
	w := hangzhouWorld()
	w.Throttle = map[string]int{"DescribePrice": 1000}
	fake := alibabatest.NewServer(t, testKeyID, testSecret, w)
	cfg := testConfig(fake.URL(), "cn-hangzhou")
	cfg.Retry.MaxAttempts = 1000
	f, err := New(cfg, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.SetSleep(func(ctx context.Context, d time.Duration) error {
		cancel()
		<-ctx.Done()
		return ctx.Err()
	})
	_, err = f.Fetch(ctx, fetchers.Previous{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

func TestNewValidates(t *testing.T) {
	good := testConfig("", "cn-hangzhou")
	for _, ep := range []string{"127.0.0.1:8080", "ftp://x", "http://", "http://h/path", "http://h/?a=b", "http://user:pw@h"} {
		cfg := good
		cfg.Endpoint = ep
		if _, err := New(cfg, nil); err == nil {
			t.Errorf("endpoint %q accepted", ep)
		} else if strings.Contains(err.Error(), testSecret) {
			t.Errorf("error shows the secret: %v", err)
		}
	}
	for _, ep := range []string{"", "http://127.0.0.1:8080", "https://ecs.aliyuncs.com/"} {
		cfg := good
		cfg.Endpoint = ep
		if _, err := New(cfg, nil); err != nil {
			t.Errorf("endpoint %q: %v", ep, err)
		}
	}
	cfg := good
	cfg.AccessKeySecret = section.Secret{}
	if _, err := New(cfg, nil); !errors.Is(err, fetchers.ErrNoCredentials) {
		t.Errorf("no secret: %v", err)
	}
	cfg = good
	cfg.Regions = []string{"cn-hangzhou", " "}
	if _, err := New(cfg, nil); err == nil {
		t.Error("blank region accepted")
	}
	f, err := New(good, nil)
	if err != nil || f.Provider() != pricewatch.Alibaba || f.cfg.MaxPriceCalls != DefaultMaxPriceCalls {
		t.Errorf("defaults: %v %+v", err, f)
	}
}

// With the real endpoints (no override) the SDK picks each region's host.
func TestRegionalEndpoints(t *testing.T) {
	f, err := New(testConfig("", "cn-shanghai", "cn-hangzhou"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for region, want := range map[string]string{"cn-shanghai": "ecs.cn-shanghai.aliyuncs.com", "cn-hangzhou": "ecs-cn-hangzhou.aliyuncs.com"} {
		if got := f.rpc.host(region); got != want {
			t.Errorf("%s: host %s, want %s", region, got, want)
		}
	}
	g, _ := New(testConfig("http://127.0.0.1:8080", "cn-shanghai"), nil)
	cl, _ := g.rpc.client("cn-shanghai")
	if *cl.Endpoint != "127.0.0.1:8080" || *cl.Protocol != "HTTP" {
		t.Errorf("override: %s %s", *cl.Endpoint, *cl.Protocol)
	}
}

func TestCredentialsFrom(t *testing.T) {
	chinacloudtest.CheckPair(t, chinacloudtest.Pair{IDEnv: EnvAccessKeyID, SecretEnv: EnvAccessKeySecret, From: CredentialsFrom,
		Missing:       "providers.alibaba.access_key_id_file and access_key_secret_file",
		IDMissing:     "providers.alibaba.access_key_id_file",
		SecretMissing: "providers.alibaba.access_key_secret_file"})
}

// goldenSnapshot is a stable, readable rendering of a snapshot: decimals
// as strings, effective hourly as the root package derives it.
type goldenSnapshot struct {
	Provider     string              `json:"provider"`
	Coverage     []pricewatch.Scope  `json:"coverage"`
	Versions     map[string]string   `json:"versions"`
	Source       string              `json:"source_version"`
	Offers       []goldenOffer       `json:"offers"`
	Availability []goldenAvailabilty `json:"availability"`
}

type goldenOffer struct {
	Key             string              `json:"key"`
	Currency        string              `json:"currency"`
	Hourly          string              `json:"hourly"`
	Upfront         string              `json:"upfront"`
	EffectiveHourly string              `json:"effective_hourly"`
	Hardware        pricewatch.Hardware `json:"hardware"`
}

type goldenAvailabilty struct {
	Place        string `json:"place"`
	InstanceType string `json:"instance_type"`
	State        string `json:"state"`
	StockDetail  string `json:"stock_detail"`
	GPUModel     string `json:"gpu_model"`
}

func checkGolden(t *testing.T, name string, s *pricewatch.Snapshot) {
	t.Helper()
	g := goldenSnapshot{Provider: s.Provider, Coverage: s.Coverage, Versions: s.Versions, Source: s.SourceVersion}
	for _, o := range s.Offers {
		eff, err := o.EffectiveHourly()
		if err != nil {
			t.Fatal(err)
		}
		g.Offers = append(g.Offers, goldenOffer{o.Key().String(), o.Currency, o.Hourly.String(), o.Upfront.String(), eff.String(), o.Hardware})
	}
	for _, a := range s.Availability {
		g.Availability = append(g.Availability, goldenAvailabilty{a.Region + "/" + a.Zone, a.InstanceType, string(a.State), a.StockDetail, a.GPUModel})
	}
	got, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden.Check(t, filepath.Join("testdata", "golden", name), got)
}

// Two spot rows at the same latest Timestamp with different prices give
// nothing to choose by: neither is kept (never the lower one), and the
// other zones' spot prices are unaffected.
func TestSpotTieAtLatestKeepsNeither(t *testing.T) {
	w := hangzhouWorld()
	k := alibabatest.SpotKey("cn-hangzhou", "cn-hangzhou-i", gn7i)
	w.Spots[k] = append(w.Spots[k], alibabatest.SpotRow{Zone: "cn-hangzhou-i", Type: gn7i, Timestamp: "2026-11-30T10:00:00Z", Spot: "0.012", Origin: "12.58"})
	f, _, _ := hangzhouFetcher(t, w)
	snap := fetch(t, f, fetchers.Previous{})
	for _, o := range snap.Offers {
		if o.InstanceType == gn7i && o.PriceType == pricewatch.Spot && o.Zone == "cn-hangzhou-i" {
			t.Errorf("kept spot %s for a tie at the latest timestamp, want neither", o.Hourly)
		}
	}
	if o := findOffer(t, snap, gn6v, pricewatch.Spot, "", "cn-hangzhou-i"); !o.Hourly.Equal(dec("5.292")) {
		t.Errorf("gn6v spot %s, want 5.292", o.Hourly)
	}
}

// cursorOf is the region a snapshot's state says the next run starts with.
func cursorOf(t *testing.T, snap *pricewatch.Snapshot) string {
	t.Helper()
	var st state
	if ok, err := fetchers.DecodeState(snap.State, stateVersion, &st); err != nil || !ok {
		t.Fatalf("state %s: ok %v, %v", snap.State, ok, err)
	}
	return st.NextRegion
}
