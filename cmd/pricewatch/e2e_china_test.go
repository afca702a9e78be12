package main

import (
	"encoding/csv"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers/alibaba"
	"github.com/pricewatch/pricewatch/fetchers/alibaba/alibabatest"
	"github.com/pricewatch/pricewatch/fetchers/tencent"
	"github.com/pricewatch/pricewatch/fetchers/tencent/tencenttest"
	"github.com/pricewatch/pricewatch/report"
)

// End to end through the CLI, for the two China clouds: pointed at local
// servers that replay real-format responses (testdata/alibaba,
// testdata/tencent; each has a README), `pricewatch fetch` stores
// exact prices in the response's currency and the stock state per zone,
// and a sold-out → in-stock change becomes a new availability interval. The
// fakes check every request's signature with the credentials below.

const (
	e2eAlibabaKeyID  = "LTAI5tE2eChinaKeyId0001"
	e2eAlibabaSecret = "E2eAlibabaSecretValue-7d41c0a9"
	e2eTencentID     = "AKIDe2eChinaSecretId00000000000000001"
	e2eTencentKey    = "e2eTencentSecretKey-5b9f2c3e8a1d"
)

// chinaConfig writes a config with only the named provider enabled,
// pointed at endpoint.
func chinaConfig(t *testing.T, provider, endpoint string, regions ...string) string {
	t.Helper()
	keys := "    regions: [" + strings.Join(regions, ", ") + "]\n"
	if provider == "tencent" {
		keys += "    currency: CNY\n"
	}
	return testConfig{clouds: []cloud{{name: provider, endpoint: endpoint, keys: keys}}}.write(t, t.TempDir())
}

func alibabaCredentials(t *testing.T, id, secret string) {
	t.Setenv(alibaba.EnvAccessKeyID, id)
	t.Setenv(alibaba.EnvAccessKeySecret, secret)
}

func tencentCredentials(t *testing.T, id, key string) {
	t.Setenv(tencent.EnvSecretID, id)
	t.Setenv(tencent.EnvSecretKey, key)
}

// fetchOK runs `pricewatch fetch --provider p` and wants it to succeed.
func fetchOK(t *testing.T, cfg, provider string) string {
	t.Helper()
	out, errOut, code := runCLI(t, "--config", cfg, "fetch", "--provider", provider)
	if code != 0 || !strings.Contains(out, provider+" ") || !strings.Contains(out, " ok ") {
		t.Fatalf("fetch --provider %s exited %d:\n%s%s", provider, code, out, errOut)
	}
	return out
}

// wantPrice is one stored offer, as `history --format json` shows it.
type wantPrice struct {
	instanceType, zone, priceType, term string
	hourly, upfront, effective          string
}

// offerID names a history row: type, zone, price type and term.
func offerID(typ, zone, priceType, term string) string {
	return strings.Join([]string{typ, zone, priceType, term}, "|")
}

// checkPrices compares the current (open) intervals of each instance type
// in want with want exactly: the same set of offers, every amount equal as
// a decimal, in currency, with the hardware given.
func checkPrices(t *testing.T, cfg, provider, region, currency string, want []wantPrice, hw map[string]pricewatch.Hardware) {
	t.Helper()
	types := map[string]bool{}
	wantByID := map[string]wantPrice{}
	for _, w := range want {
		types[w.instanceType] = true
		wantByID[offerID(w.instanceType, w.zone, w.priceType, w.term)] = w
	}
	got := openPrices(t, cfg, slices.Collect(maps.Keys(types)), func(r historyJSON) string {
		return offerID(r.InstanceType, r.Zone, string(r.PriceType), r.Term)
	})
	for id, w := range wantByID {
		r, ok := got[id]
		if !ok {
			t.Errorf("no stored offer %s", id)
			continue
		}
		if r.Provider != provider || r.Region != region || r.Currency != currency || r.OS != "linux" {
			t.Errorf("%s: %s %s %s %s, want %s %s %s linux", id, r.Provider, r.Region, r.Currency, r.OS, provider, region, currency)
		}
		checkAmounts(t, id, r, w.hourly, w.upfront, w.effective)
		if w.term != "" && r.Payment != "all_upfront" {
			t.Errorf("%s: payment %q, want all_upfront", id, r.Payment)
		}
		checkHardware(t, id, r, hw[w.instanceType])
	}
	for id := range got {
		if _, ok := wantByID[id]; !ok {
			t.Errorf("unexpected stored offer %s", id)
		}
	}
}

// closedPrices counts closed price intervals of the given types.
func closedPrices(t *testing.T, cfg string, types ...string) int {
	t.Helper()
	n := 0
	for _, typ := range types {
		for _, r := range history(t, cfg, typ) {
			if r.ValidTo != nil {
				n++
			}
		}
	}
	return n
}

// availabilityJSON is an availability row with its times read as the
// strings they are (null: still open).
type availabilityJSON struct {
	report.AvailabilityRow
	Since string  `json:"since"`
	Until *string `json:"until"`
}

func availability(t *testing.T, cfg, provider string) []availabilityJSON {
	t.Helper()
	var rows []availabilityJSON
	out := cliJSON(t, &rows, "--config", cfg, "availability", "--all", "--provider", provider, "--format", "json")
	checkRowKeys(t, out, "provider", "region", "zone", "instance_type", "gpu_model", "gpu_count", "state", "stock_detail", "since", "until")
	return rows
}

// stockDetails reads the cloud's own stock words per zone|type from the
// CSV output (the JSON shape has no such column), open intervals only.
func stockDetails(t *testing.T, cfg, provider string) map[string]string {
	t.Helper()
	out, errOut, code := runCLI(t, "--config", cfg, "availability", "--provider", provider, "--format", "csv")
	if code != 0 {
		t.Fatalf("availability exited %d: %s", code, errOut)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("availability CSV: %v\n%s", err, out)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	details := map[string]string{}
	for _, r := range recs[1:] {
		details[r[col["zone"]]+"|"+r[col["instance_type"]]] = r[col["state"]] + "/" + r[col["stock_detail"]]
	}
	return details
}

// checkStock compares the open intervals with want (zone|type → state).
func checkStock(t *testing.T, rows []availabilityJSON, region string, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	for _, r := range rows {
		if r.Until != nil {
			continue
		}
		if r.Region != region {
			t.Errorf("%s %s in region %s", r.Zone, r.InstanceType, r.Region)
		}
		got[r.Zone+"|"+r.InstanceType] = r.State
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: state %q, want %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("open availability %v, want exactly %v", got, want)
	}
}

// checkRestocked finds the two intervals of zone|type: a sold_out one
// closed when the second run saw stock, and an open in_stock one from then.
func checkRestocked(t *testing.T, rows []availabilityJSON, zone, typ string, firstRunEnd, secondStart, secondEnd time.Time) {
	t.Helper()
	var mine []availabilityJSON
	for _, r := range rows {
		if r.Zone == zone && r.InstanceType == typ {
			mine = append(mine, r)
		}
	}
	if len(mine) != 2 {
		t.Fatalf("%s in %s: %d intervals, want 2: %+v", typ, zone, len(mine), mine)
	}
	var sold, back availabilityJSON
	for _, r := range mine {
		switch r.State {
		case "sold_out":
			sold = r
		case "in_stock":
			back = r
		}
	}
	if sold.Until == nil || back.State != "in_stock" || back.Until != nil {
		t.Fatalf("%s in %s: want a closed sold_out and an open in_stock interval: %+v", typ, zone, mine)
	}
	if *sold.Until != back.Since {
		t.Errorf("sold_out ends at %s but in_stock starts at %s", *sold.Until, back.Since)
	}
	since := parseTime(t, back.Since)
	if since.Before(secondStart.Truncate(time.Second)) || since.After(secondEnd) {
		t.Errorf("in_stock since %s, want within the second run (%s – %s)", since, secondStart, secondEnd)
	}
	if s := parseTime(t, sold.Since); s.After(firstRunEnd) {
		t.Errorf("sold_out since %s, after the first run ended (%s)", s, firstRunEnd)
	}
}

func parseTime(t *testing.T, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatalf("time %q: %v", s, err)
	}
	return at
}

// Alibaba Cloud, China site: CNY throughout.
const (
	aliGN7i = "ecs.gn7i-c16g1.4xlarge"
	aliGN6e = "ecs.gn6e-c12g1.3xlarge"
	aliGN7e = "ecs.gn7e-c16g1.4xlarge"
	aliGN6i = "ecs.gn6i-c8g1.2xlarge"
)

// Expected values are the scenario files' TradePrice (or instanceType
// line) totals; effective hourly is the total over 730, 8,760 or 26,280
// hours, to 10 decimals.
var alibabaChinaPrices = []wantPrice{
	{aliGN7i, "", "on_demand", "", "15.84", "0", "15.84"},
	{aliGN7i, "", "reserved", "1m", "0", "7603.2", "10.4153424658"},
	{aliGN7i, "", "reserved", "1y", "0", "73074.16", "8.3417990868"},
	{aliGN7i, "", "reserved", "3y", "0", "164229.11", "6.2492050989"},
	{aliGN7i, "cn-shanghai-l", "spot", "", "3.327", "0", "3.327"}, // latest of three rows
	{aliGN7i, "cn-shanghai-m", "spot", "", "3.013", "0", "3.013"},
	{aliGN6e, "", "on_demand", "", "31.51", "0", "31.51"},
	{aliGN6e, "", "reserved", "1m", "0", "15124.8", "20.7189041096"},
	{aliGN6e, "", "reserved", "1y", "0", "154272.96", "17.6110684932"},
	{aliGN6e, "", "reserved", "3y", "0", "272246.4", "10.3594520548"},
	{aliGN7e, "", "on_demand", "", "45.33", "0", "45.33"},              // sent as "45.3300"
	{aliGN7e, "", "reserved", "1m", "0", "21758.4", "29.8060273973"},   // sent as "21758.40"
	{aliGN7e, "", "reserved", "1y", "0", "221935.68", "25.3351232877"}, // the instanceType line, not 222062.39 with the disk
	{aliGN7e, "", "reserved", "3y", "0", "371314.57", "14.1291693303"}, // not a float32
	{aliGN7e, "cn-shanghai-l", "spot", "", "9.066", "0", "9.066"},
}

var alibabaHardware = map[string]pricewatch.Hardware{
	aliGN7i: {GPUModel: "A10", GPUCount: 1, GPUMemoryGB: 24},
	aliGN6e: {GPUModel: "V100-32GB", GPUCount: 1, GPUMemoryGB: 32},
	aliGN7e: {GPUModel: "A100-80GB", GPUCount: 1, GPUMemoryGB: 80},
	aliGN6i: {GPUModel: "T4", GPUCount: 1, GPUMemoryGB: 16},
}

func TestAlibabaChinaSiteEndToEnd(t *testing.T) {
	fake := alibabatest.NewServer(t, e2eAlibabaKeyID, e2eAlibabaSecret, alibabatest.LoadScenario(t, "testdata/alibaba/china"))
	cfg := chinaConfig(t, "alibaba", fake.URL(), "cn-shanghai")
	alibabaCredentials(t, e2eAlibabaKeyID, e2eAlibabaSecret)

	out := fetchOK(t, cfg, "alibaba")
	if !strings.Contains(out, "15 offers: 15 new") || !strings.Contains(out, "first run") {
		t.Errorf("first fetch summary: %q", out)
	}
	firstEnd := time.Now()
	checkPrices(t, cfg, "alibaba", "cn-shanghai", "CNY", alibabaChinaPrices, alibabaHardware)
	firstStock := map[string]string{
		"cn-shanghai-l|" + aliGN7i: "in_stock",
		"cn-shanghai-l|" + aliGN6e: "sold_out",
		"cn-shanghai-l|" + aliGN7e: "in_stock", // ClosedWithStock: in stock, closing soon
		"cn-shanghai-m|" + aliGN7i: "in_stock",
		"cn-shanghai-m|" + aliGN7e: "sold_out", // the published row ecs.g5.large is not a GPU type
	}
	checkStock(t, availability(t, cfg, "alibaba"), "cn-shanghai", firstStock)
	details := stockDetails(t, cfg, "alibaba")
	if details["cn-shanghai-l|"+aliGN7e] != "in_stock/ClosedWithStock" || details["cn-shanghai-m|"+aliGN7e] != "sold_out/ClosedWithoutStock" {
		t.Errorf("stock details %v", details)
	}
	for _, c := range fake.Calls("") {
		if c.Style != "ACS3" {
			t.Errorf("%s signed with %s", c.Action, c.Style)
		}
	}

	// Second run: gn7e is back in stock in zone m; nothing else changed.
	fake.SetStock("cn-shanghai", "cn-shanghai-m", aliGN7e, "Available", "WithStock")
	rows := checkRestockRun(t, cfg, firstEnd, restockRun{
		provider: "alibaba", region: "cn-shanghai", zone: "cn-shanghai-m", restocked: aliGN7e,
		summary: "15 offers: 0 new, 0 changed, 15 unchanged, 0 closed", stockBefore: firstStock,
		prices: alibabaChinaPrices, hardware: alibabaHardware, types: []string{aliGN7i, aliGN6e, aliGN7e},
	})
	if len(rows) != 6 {
		t.Errorf("%d availability intervals, want 6 (5 zones × types, one restocked)", len(rows))
	}
}

// restockRun is the second run of a China cloud's end-to-end test: one
// sold-out type is back in one zone and nothing else changed.
type restockRun struct {
	provider, region, zone, restocked string
	// summary is the second fetch's summary (or a part of it).
	summary string
	// stockBefore is the first run's zone|type → state; after the second,
	// only the restocked type's zone is in_stock where it was not.
	stockBefore map[string]string
	prices      []wantPrice
	hardware    map[string]pricewatch.Hardware
	// types are the instance types whose prices must all stay open.
	types []string
}

// checkRestockRun fetches the second run (the fake already restocked) and
// checks it, the first run having ended at firstEnd; it returns the
// provider's availability intervals.
func checkRestockRun(t *testing.T, cfg string, firstEnd time.Time, r restockRun) []availabilityJSON {
	t.Helper()
	secondStart := time.Now()
	out := fetchOK(t, cfg, r.provider)
	secondEnd := time.Now()
	if !strings.Contains(out, r.summary) {
		t.Errorf("second fetch summary: %q", out)
	}
	rows := availability(t, cfg, r.provider)
	checkRestocked(t, rows, r.zone, r.restocked, firstEnd, secondStart, secondEnd)
	stock := maps.Clone(r.stockBefore)
	stock[r.zone+"|"+r.restocked] = "in_stock"
	checkStock(t, rows, r.region, stock)
	checkPrices(t, cfg, r.provider, r.region, "CNY", r.prices, r.hardware)
	if n := closedPrices(t, cfg, r.types...); n != 0 {
		t.Errorf("%d price intervals closed by a run whose prices did not change", n)
	}
	return rows
}

// Alibaba Cloud, international site: the responses say USD, and USD is
// what is stored, spot included.
func TestAlibabaInternationalSiteEndToEnd(t *testing.T) {
	fake := alibabatest.NewServer(t, e2eAlibabaKeyID, e2eAlibabaSecret, alibabatest.LoadScenario(t, "testdata/alibaba/international"))
	cfg := chinaConfig(t, "alibaba", fake.URL(), "ap-northeast-1")
	alibabaCredentials(t, e2eAlibabaKeyID, e2eAlibabaSecret)
	fetchOK(t, cfg, "alibaba")
	checkPrices(t, cfg, "alibaba", "ap-northeast-1", "USD", []wantPrice{
		{aliGN6i, "", "on_demand", "", "1.387", "0", "1.387"},
		{aliGN6i, "", "reserved", "1m", "0", "631.1", "0.8645205479"},
		{aliGN6i, "", "reserved", "1y", "0", "6437.22", "0.7348424658"},
		{aliGN6i, "", "reserved", "3y", "0", "11359.8", "0.432260274"},
		{aliGN6i, "ap-northeast-1a", "spot", "", "0.2774", "0", "0.2774"},
	}, alibabaHardware)
	checkStock(t, availability(t, cfg, "alibaba"), "ap-northeast-1", map[string]string{
		"ap-northeast-1a|" + aliGN6i: "in_stock",
		"ap-northeast-1b|" + aliGN6i: "sold_out",
	})
}

// Tencent Cloud: every price is per zone; the account's currency is the
// configured CNY.
const (
	tcGN7    = "GN7.2XLARGE32"
	tcGT4    = "GT4.4XLARGE96"
	tcGN10Xp = "GN10Xp.2XLARGE40"
)

// Expected values are the listings' UnitPriceDiscount (hourly) and
// DiscountPrice / DiscountPriceOneYear / DiscountPriceThreeYear totals, or
// the inquiry totals where the listing has none.
var tencentPrices = []wantPrice{
	{tcGN7, "ap-beijing-6", "on_demand", "", "8.68", "0", "8.68"},
	{tcGN7, "ap-beijing-6", "spot", "", "2.61", "0", "2.61"},
	{tcGN7, "ap-beijing-6", "reserved", "1m", "0", "3124.8", "4.2805479452"},
	{tcGN7, "ap-beijing-6", "reserved", "1y", "0", "31872.96", "3.6384657534"},
	{tcGN7, "ap-beijing-6", "reserved", "3y", "0", "74995.2", "2.8536986301"},
	{tcGN7, "ap-beijing-7", "on_demand", "", "8.68", "0", "8.68"},
	// Sold out everywhere: the listed prices are kept, no term is inquired.
	{tcGT4, "ap-beijing-7", "on_demand", "", "28.63", "0", "28.63"},
	{tcGT4, "ap-beijing-7", "spot", "", "8.59", "0", "8.59"},
	{tcGT4, "ap-beijing-7", "reserved", "1m", "0", "13742.4", "18.8252054795"},
	{tcGN10Xp, "ap-beijing-7", "on_demand", "", "18.41", "0", "18.41"},
	{tcGN10Xp, "ap-beijing-7", "reserved", "1m", "0", "8837.3", "12.105890411"},
	{tcGN10Xp, "ap-beijing-7", "reserved", "1y", "0", "90140.46", "10.2900068493"}, // inquired
	{tcGN10Xp, "ap-beijing-7", "reserved", "3y", "0", "210328.74", "8.0033767123"}, // inquired
}

// Once GT4 is on sale its one- and three-year totals are inquired too.
var tencentRestockedPrices = append(append([]wantPrice{}, tencentPrices...),
	wantPrice{tcGT4, "ap-beijing-7", "reserved", "1y", "0", "148420.92", "16.9430273973"},
	wantPrice{tcGT4, "ap-beijing-7", "reserved", "3y", "0", "346318.08", "13.1780091324"},
)

var tencentHardware = map[string]pricewatch.Hardware{
	tcGN7:    {GPUModel: "T4", GPUCount: 1, GPUMemoryGB: 16},
	tcGT4:    {GPUModel: "A100-40GB", GPUCount: 1, GPUMemoryGB: 40},
	tcGN10Xp: {GPUModel: "V100-32GB", GPUCount: 1, GPUMemoryGB: 32},
}

func TestTencentEndToEnd(t *testing.T) {
	fake := tencenttest.NewServer(t, e2eTencentID, e2eTencentKey, "testdata/tencent/beijing")
	cfg := chinaConfig(t, "tencent", fake.URL(), "ap-beijing")
	tencentCredentials(t, e2eTencentID, e2eTencentKey)

	out := fetchOK(t, cfg, "tencent")
	if !strings.Contains(out, "13 offers: 13 new") {
		t.Errorf("first fetch summary: %q", out)
	}
	firstEnd := time.Now()
	checkPrices(t, cfg, "tencent", "ap-beijing", "CNY", tencentPrices, tencentHardware)
	firstStock := map[string]string{
		"ap-beijing-6|" + tcGN7:    "in_stock",
		"ap-beijing-7|" + tcGN7:    "in_stock",
		"ap-beijing-7|" + tcGT4:    "sold_out", // SOLD_OUT in every charge type
		"ap-beijing-7|" + tcGN10Xp: "in_stock", // S2.SMALL1 has no GPU and is not listed
	}
	checkStock(t, availability(t, cfg, "tencent"), "ap-beijing", firstStock)
	if d := stockDetails(t, cfg, "tencent"); d["ap-beijing-7|"+tcGT4] != "sold_out/WithoutStock" || d["ap-beijing-7|"+tcGN10Xp] != "in_stock/UnderStock" {
		t.Errorf("stock details %v", d)
	}
	if n := fake.Count("InquiryPriceRunInstances"); n != 2 {
		t.Errorf("%d inquiries, want 2 (GN10Xp 1y and 3y)", n)
	}

	// Second run: GT4 is on sale again in ap-beijing-7.
	fake.SetStock("ap-beijing", "ap-beijing-7", tcGT4, "SELL", "EnoughStock")
	checkRestockRun(t, cfg, firstEnd, restockRun{
		provider: "tencent", region: "ap-beijing", zone: "ap-beijing-7", restocked: tcGT4,
		summary: "15 offers: 2 new, 0 changed, 13 unchanged, 0 closed", stockBefore: firstStock,
		prices: tencentRestockedPrices, hardware: tencentHardware, types: []string{tcGN7, tcGT4, tcGN10Xp},
	})
}

// A wrong secret fails the fetch with a message that says what to fix and
// never shows the secret, on stdout or in the logs.
func TestChinaCloudsWrongSecret(t *testing.T) {
	tests := []struct {
		provider, secret, code, fix string
		start                       func(t *testing.T) (url string, region string)
		setCreds                    func(t *testing.T, secret string)
	}{
		{provider: "alibaba", secret: "Wrong-Alibaba-Secret-3141592653", code: "SignatureDoesNotMatch", fix: alibaba.EnvAccessKeySecret,
			start: func(t *testing.T) (string, string) {
				return alibabatest.NewServer(t, e2eAlibabaKeyID, e2eAlibabaSecret, alibabatest.LoadScenario(t, "testdata/alibaba/china")).URL(), "cn-shanghai"
			},
			setCreds: func(t *testing.T, secret string) { alibabaCredentials(t, e2eAlibabaKeyID, secret) }},
		{provider: "tencent", secret: "wrongTencentKey-2718281828459045", code: "AuthFailure.SignatureFailure", fix: tencent.EnvSecretKey,
			start: func(t *testing.T) (string, string) {
				return tencenttest.NewServer(t, e2eTencentID, e2eTencentKey, "testdata/tencent/beijing").URL(), "ap-beijing"
			},
			setCreds: func(t *testing.T, secret string) { tencentCredentials(t, e2eTencentID, secret) }},
	}
	for _, tt := range tests {
		t.Run(tt.provider, func(t *testing.T) {
			url, region := tt.start(t)
			cfg := chinaConfig(t, tt.provider, url, region)
			tt.setCreds(t, tt.secret)
			out, errOut, code := runCLI(t, "--config", cfg, "fetch", "--provider", tt.provider)
			if code == 0 {
				t.Fatalf("fetch with a wrong secret exited 0: %s", out)
			}
			if !strings.Contains(out, tt.provider) || !strings.Contains(out, "FAILED") || !strings.Contains(out, tt.code) || !strings.Contains(out, tt.fix) {
				t.Errorf("summary should name the failure (%s) and the fix (%s): %q", tt.code, tt.fix, out)
			}
			if strings.Contains(out+errOut, tt.secret) {
				t.Errorf("the secret shows in the output:\n%s%s", out, errOut)
			}
			if h := history(t, cfg, "ecs.gn7i-c16g1.4xlarge"); len(h) != 0 {
				t.Errorf("a failed run stored %d prices", len(h))
			}
		})
	}
}

// Without credentials Tencent is skipped with one line, and the fetch
// succeeds (Alibaba reads its public price file instead: below).
func TestChinaCloudsWithoutCredentials(t *testing.T) {
	fix := map[string]string{"tencent": tencent.EnvSecretID}
	for _, provider := range []string{"tencent"} {
		t.Run(provider, func(t *testing.T) {
			alibabaCredentials(t, "", "")
			tencentCredentials(t, "", "")
			t.Setenv("CREDENTIALS_DIRECTORY", "")
			cfg := chinaConfig(t, provider, "http://127.0.0.1:1", "cn-shanghai")
			out, errOut, code := runCLI(t, "--config", cfg, "fetch", "--provider", provider)
			if code != 0 {
				t.Fatalf("fetch without credentials exited %d: %s%s", code, out, errOut)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], provider+" ") || !strings.Contains(lines[0], "skipped") || !strings.Contains(lines[0], fix[provider]) {
				t.Errorf("want one skipped line for %s naming %s, got %q", provider, fix[provider], out)
			}
		})
	}
}

// A run that is throttled and then succeeds stores exactly what an
// unthrottled run stores.
func TestChinaCloudsThrottledThenSuccessful(t *testing.T) {
	t.Run("alibaba", func(t *testing.T) {
		fake := alibabatest.NewServer(t, e2eAlibabaKeyID, e2eAlibabaSecret, alibabatest.LoadScenario(t, "testdata/alibaba/china"))
		fake.Throttle("DescribePrice", 2)
		fake.Throttle("DescribeAvailableResource", 1)
		cfg := chinaConfig(t, "alibaba", fake.URL(), "cn-shanghai")
		alibabaCredentials(t, e2eAlibabaKeyID, e2eAlibabaSecret)
		fetchOK(t, cfg, "alibaba")
		if n := len(fake.Calls("DescribePrice")); n != 12+2 {
			t.Errorf("%d DescribePrice calls, want 12 + 2 throttled", n)
		}
		checkPrices(t, cfg, "alibaba", "cn-shanghai", "CNY", alibabaChinaPrices, alibabaHardware)
	})
	t.Run("tencent", func(t *testing.T) {
		fake := tencenttest.NewServer(t, e2eTencentID, e2eTencentKey, "testdata/tencent/beijing")
		fake.Throttle("DescribeZoneInstanceConfigInfos", 1)
		fake.Throttle("InquiryPriceRunInstances", 1)
		cfg := chinaConfig(t, "tencent", fake.URL(), "ap-beijing")
		tencentCredentials(t, e2eTencentID, e2eTencentKey)
		fetchOK(t, cfg, "tencent")
		if n := fake.Count("DescribeZoneInstanceConfigInfos"); n != 3+1 {
			t.Errorf("%d listing calls, want 3 + 1 throttled", n)
		}
		if n := fake.Count("InquiryPriceRunInstances"); n != 2+1 {
			t.Errorf("%d inquiries, want 2 + 1 throttled", n)
		}
		checkPrices(t, cfg, "tencent", "ap-beijing", "CNY", tencentPrices, tencentHardware)
	})
}

// alibabaPublicConfig enables Alibaba in cn-hangzhou with the public
// price files at fileURLs (price_files) and, when endpoint is set, the
// ECS API there.
func alibabaPublicConfig(t *testing.T, endpoint string, fileURLs ...string) string {
	t.Helper()
	keys := "    regions: [cn-hangzhou]\n    price_files: [" + strings.Join(fileURLs, ", ") + "]\n"
	return testConfig{clouds: []cloud{{name: "alibaba", endpoint: endpoint, keys: keys}}}.write(t, t.TempDir())
}

// Issue 33 item 2: with no Alibaba key, `pricewatch fetch --provider
// alibaba` against a fake of the public price file stores
// ecs.gn7i-c8g1.2xlarge in cn-hangzhou at the file's price in CNY,
// exactly, marked as read from that file; a file cut off fails the run
// and closes nothing; with a key, the API path as today.
func TestAlibabaWithoutKeyReadsPublicPriceFile(t *testing.T) {
	alibabaCredentials(t, "", "")
	t.Setenv("CREDENTIALS_DIRECTORY", "")
	files := alibabatest.NewPriceFileServer(t)
	files.Set(alibabatest.ChinaFilePath, alibabatest.ChinaFile(t))
	files.Set(alibabatest.IntlFilePath, alibabatest.IntlFile(t))
	cfg := alibabaPublicConfig(t, "", files.URL()+alibabatest.ChinaFilePath, files.URL()+alibabatest.IntlFilePath)

	out := fetchOK(t, cfg, "alibaba")
	if !strings.Contains(out, "5 offers: 5 new") {
		t.Errorf("first fetch summary: %q", out)
	}
	gn7i := alibabatest.PublicGN7i
	// The China file's strings, exactly; effective hourly is the total
	// over 730, 8,760 or 26,280 hours, to 10 decimals. The international
	// file's USD row for cn-hangzhou is not stored.
	prices := []wantPrice{
		{gn7i, "", "on_demand", "", "9.5326", "0", "9.5326"},
		{gn7i, "", "reserved", "1m", "0", "4576.4", "6.2690410959"},
		{gn7i, "", "reserved", "1y", "0", "46681.72", "5.3289634703"},
		{gn7i, "", "reserved", "3y", "0", "98017.95", "3.7297545662"},
	}
	hw := map[string]pricewatch.Hardware{gn7i: {GPUModel: "A10", GPUCount: 1, GPUMemoryGB: 24}}
	checkPrices(t, cfg, "alibaba", "cn-hangzhou", "CNY", prices, hw)
	var runs []report.RunRow
	cliJSON(t, &runs, "--config", cfg, "runs", "--format", "json")
	if len(runs) != 1 || runs[0].Status != "ok" || !strings.HasPrefix(runs[0].SourceVersion, "public price file (china 2.0.421 CNY") {
		t.Errorf("runs %+v: want one ok run marked as read from the public price file", runs)
	}
	rows := availability(t, cfg, "alibaba")
	if len(rows) != 2 {
		t.Errorf("availability %+v: want gn7i and gn6i offered in cn-hangzhou", rows)
	}

	// The file cut off in transit: the run fails and closes nothing.
	files.Cut(alibabatest.ChinaFilePath)
	if o, e, code := runCLI(t, "--config", cfg, "fetch", "--provider", "alibaba"); code != exitFailed || !strings.Contains(o+e, "FAILED") {
		t.Errorf("fetch of a cut file exited %d, want %d:\n%s%s", code, exitFailed, o, e)
	}
	if n := closedPrices(t, cfg, gn7i); n != 0 {
		t.Errorf("a failed run closed %d price intervals", n)
	}
	checkPrices(t, cfg, "alibaba", "cn-hangzhou", "CNY", prices, hw)

	// With a key, the signed API as today: the files are not read.
	api := alibabatest.NewServer(t, e2eAlibabaKeyID, e2eAlibabaSecret, alibabatest.LoadScenario(t, "testdata/alibaba/china"))
	keyed := chinaConfigKeys(t, api.URL(), "    regions: [cn-shanghai]\n    price_files: ["+files.URL()+alibabatest.ChinaFilePath+"]\n")
	alibabaCredentials(t, e2eAlibabaKeyID, e2eAlibabaSecret)
	before := files.Hits(alibabatest.ChinaFilePath)
	fetchOK(t, keyed, "alibaba")
	checkPrices(t, keyed, "alibaba", "cn-shanghai", "CNY", alibabaChinaPrices, alibabaHardware)
	if files.Hits(alibabatest.ChinaFilePath) != before || len(api.Calls("DescribePrice")) == 0 {
		t.Errorf("with a key: %d price-file reads, %d DescribePrice calls; want the API only", files.Hits(alibabatest.ChinaFilePath)-before, len(api.Calls("DescribePrice")))
	}
}

// chinaConfigKeys writes a config with only Alibaba enabled, at endpoint,
// with keys.
func chinaConfigKeys(t *testing.T, endpoint, keys string) string {
	t.Helper()
	return testConfig{clouds: []cloud{{name: "alibaba", endpoint: endpoint, keys: keys}}}.write(t, t.TempDir())
}
