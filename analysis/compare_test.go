package analysis

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fx"
)

func TestCompareRanksAcrossCurrencies(t *testing.T) {
	res, err := Compare(a10Offers(), availabilityFixture(), CompareOptions{GPU: "a10", Currency: "USD", FX: ecbBook(t), At: fixtureAt})
	if err != nil {
		t.Fatal(err)
	}
	// Hand-computed, 1 CNY = 1.0163 / 6.8095 USD:
	//   Alibaba spot       2.10 CNY → 0.3134194875 USD
	//   Alibaba 1y sub     42048 CNY / 8760 h = 4.8 CNY → 0.7163874000 USD
	//   Alibaba on-demand  8.40 CNY → 1.2536779499 USD
	//   Tencent on-demand  9.00 CNY → 1.3432263749 USD
	//   Azure 1y reserved  16819.20 / 8760 = 1.92 USD
	//   Azure on-demand    3.20 USD
	// Ranked on the raw numbers, the CNY prices would land behind Azure's.
	want := []struct {
		provider  string
		pt        pricewatch.PriceType
		perGPU    string
		perTFLOPS string // per dense TFLOPS: A10 has 125
		perGB     string // per GB: 24 GB
		fxRate    string
		available string
	}{
		{"alibaba", pricewatch.Spot, "0.3134194875", "0.0025073559", "0.0130591453", "0.149247375", "true"},
		{"alibaba", pricewatch.Reserved, "0.7163874", "0.0057310992", "0.029849475", "0.149247375", "true"},
		{"alibaba", pricewatch.OnDemand, "1.2536779499", "0.0100294236", "0.0522365812", "0.149247375", "true"},
		{"tencent", pricewatch.OnDemand, "1.3432263749", "0.010745811", "0.0559677656", "0.149247375", "false"},
		{"azure", pricewatch.Reserved, "1.92", "0.01536", "0.08", "1", "true"},
		{"azure", pricewatch.OnDemand, "3.2", "0.0256", "0.1333333333", "1", "true"},
	}
	if len(res.Rows) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(res.Rows), len(want), res.Rows)
	}
	for i, w := range want {
		r := res.Rows[i]
		avail := "null"
		if r.Available != nil {
			avail = map[bool]string{true: "true", false: "false"}[*r.Available]
		}
		if r.Rank != i+1 || r.Provider != w.provider || r.PriceType != w.pt || !r.PricePerGPUHour.Equal(dec(w.perGPU)) ||
			!r.PricePerTFLOPS.Decimal.Equal(dec(w.perTFLOPS)) || !r.PricePerGB.Decimal.Equal(dec(w.perGB)) ||
			!r.FXRate.Equal(dec(w.fxRate)) || avail != w.available || r.Currency != "USD" {
			t.Errorf("row %d = #%d %s %s %s/GPU-h (%s/TFLOPS, %s/GB, rate %s, available %s), want %+v",
				i, r.Rank, r.Provider, r.PriceType, r.PricePerGPUHour, r.PricePerTFLOPS.Decimal, r.PricePerGB.Decimal, r.FXRate, avail, w)
		}
	}
	cny := res.Rows[0]
	if cny.NativeCurrency != "CNY" || !cny.NativeEffectiveHourly.Equal(dec("2.10")) || cny.FXDate != "2022-07-08" || cny.FXSource != fx.SourceECB || cny.FXStale {
		t.Errorf("CNY row provenance: %+v", cny.FXUsed)
	}
	if res.StaleRates {
		t.Error("a two-day-old rate is not stale")
	}
	// The HKD offer has no rate: listed apart with the reason, never ranked as if it were USD.
	if len(res.Unconverted) != 1 || res.Unconverted[0].Region != "cn-hongkong" || !strings.Contains(res.Unconverted[0].FXError, "HKD") {
		t.Errorf("unconverted = %+v", res.Unconverted)
	}
	for _, r := range res.Rows {
		if r.GPUModel != "A10" {
			t.Errorf("%s (%s) matched --gpu a10", r.InstanceType, r.GPUModel)
		}
	}
}

func TestCompareFilters(t *testing.T) {
	book := ecbBook(t)
	base := CompareOptions{GPU: "A10", Currency: "USD", FX: book, At: fixtureAt}

	onDemand := base
	onDemand.PriceTypes = []pricewatch.PriceType{pricewatch.OnDemand}
	res, err := Compare(a10Offers(), availabilityFixture(), onDemand)
	if err != nil {
		t.Fatal(err)
	}
	if got := providers(res.Rows); got != "alibaba,tencent,azure" {
		t.Errorf("on-demand ranking = %s", got)
	}

	avail := onDemand
	avail.AvailableOnly = true // Tencent's zone is sold out; the HKD offer's availability is unknown
	res, _ = Compare(a10Offers(), availabilityFixture(), avail)
	if got := providers(res.Rows); got != "alibaba,azure" || len(res.Unconverted) != 0 {
		t.Errorf("available-only = %s, unconverted %d", got, len(res.Unconverted))
	}

	prov := base
	prov.Providers, prov.Regions = []string{"Azure"}, []string{"eastus"}
	res, _ = Compare(a10Offers(), nil, prov)
	if got := providers(res.Rows); got != "azure,azure" {
		t.Errorf("provider filter = %s", got)
	}
	if res.Rows[0].Available != nil {
		t.Error("without availability records, availability is unknown")
	}

	// In CNY the order is the same and USD prices carry the inverse rate:
	// 1.92 USD × 6.8095 / 1.0163 = 12.8645478697 CNY.
	inCNY := base
	inCNY.Currency = "CNY"
	res, _ = Compare(a10Offers(), nil, inCNY)
	if got := providers(res.Rows); got != "alibaba,alibaba,alibaba,tencent,azure,azure" {
		t.Errorf("CNY ranking = %s", got)
	}
	if r := res.Rows[4]; !r.PricePerGPUHour.Equal(dec("12.8645478697")) || r.NativeCurrency != "USD" {
		t.Errorf("Azure reserved in CNY = %s (%s)", r.PricePerGPUHour, r.NativeCurrency)
	}

	// Count keeps exactly that many GPUs per instance.
	res, _ = Compare(a100Offers(), nil, CompareOptions{GPU: "A100", Count: 4, Currency: "USD", FX: book, At: fixtureAt})
	if len(res.Rows) != 1 || res.Rows[0].InstanceType != "Standard_NC96ads_A100_v4" {
		t.Errorf("count 4 = %+v", res.Rows)
	}
	// Linux only unless asked: the Windows ND96amsr row is not ranked.
	// "A100-80GB" is a family too: it takes in the PCIe variant.
	res, _ = Compare(a100Offers(), nil, CompareOptions{GPU: "A100-80GB", Currency: "USD", FX: book, At: fixtureAt})
	if len(res.Rows) != 10 {
		t.Errorf("A100-80GB rows = %d, want 10", len(res.Rows))
	}
	for _, r := range res.Rows {
		if r.OS != pricewatch.Linux || !strings.HasPrefix(r.GPUModel, "A100-80GB") {
			t.Errorf("row %s %s %s", r.InstanceType, r.OS, r.GPUModel)
		}
	}
	anyOS := CompareOptions{GPU: "A100-80GB", Currency: "USD", FX: book, At: fixtureAt, OS: "any"}
	if res, _ = Compare(a100Offers(), nil, anyOS); len(res.Rows) != 11 {
		t.Errorf("with every OS: %d rows, want 11", len(res.Rows))
	}
}

func TestCompareMissingOrStaleRateIsVisible(t *testing.T) {
	// No rate book at all: every CNY row is unconverted, none is ranked.
	res, err := Compare(a10Offers(), nil, CompareOptions{GPU: "A10", Currency: "USD", At: fixtureAt})
	if err != nil {
		t.Fatal(err)
	}
	if got := providers(res.Rows); got != "azure,azure" {
		t.Errorf("ranked without rates: %s", got)
	}
	if len(res.Unconverted) != 5 {
		t.Errorf("unconverted %d, want the 4 CNY and 1 HKD offers", len(res.Unconverted))
	}
	for _, r := range res.Unconverted {
		if !r.PricePerGPUHour.IsZero() || r.FXError == "" {
			t.Errorf("unconverted row carries a price or no reason: %+v", r)
		}
	}
	// A rate three weeks old is used, and flagged on the row and the result.
	res, _ = Compare(a10Offers(), nil, CompareOptions{GPU: "A10", Currency: "USD", FX: ecbBook(t), At: ts("2022-07-29")})
	if !res.StaleRates || !res.Rows[0].FXStale || res.Rows[0].FXDate != "2022-07-08" {
		t.Errorf("stale rate not flagged: %+v", res.Rows[0].FXUsed)
	}
	// Before the first stored rate and with no fixed rate: not converted.
	res, _ = Compare(a10Offers(), nil, CompareOptions{GPU: "A10", Currency: "USD", FX: ecbBook(t), At: ts("2022-07-01")})
	if len(res.Unconverted) != 5 {
		t.Errorf("before the first rate: %d unconverted", len(res.Unconverted))
	}
	for _, r := range res.Unconverted {
		if r.NativeCurrency == "CNY" && !strings.Contains(r.FXError, "no exchange rate") {
			t.Errorf("reason %q", r.FXError)
		}
	}
	if _, err := Compare(a10Offers(), nil, CompareOptions{GPU: "A10"}); err == nil {
		t.Error("no currency accepted")
	}
}

func TestCompareJSONNames(t *testing.T) {
	res, err := Compare(a10Offers(), availabilityFixture(), CompareOptions{GPU: "A10", Currency: "USD", FX: ecbBook(t), At: fixtureAt})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res.Rows[0])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"provider", "region", "zone", "instance_type", "price_type", "term", "gpu_model", "gpu_count", "currency",
		"price_per_gpu_hour", "native_currency", "native_effective_hourly", "fx_rate", "fx_date", "available"} {
		if _, ok := m[k]; !ok {
			t.Errorf("compare JSON lacks %q: %s", k, b)
		}
	}
	if m["fx_date"] != "2022-07-08" || m["available"] != true || m["native_currency"] != "CNY" {
		t.Errorf("JSON values: %s", b)
	}
}

func TestCompareSkipsUnpriceableOffers(t *testing.T) {
	bad := offer(pricewatch.Azure, "eastus", "", "Standard_X", pricewatch.OnDemand, "", "", "USD", "0", "1", "A10", 0)
	res, err := Compare([]pricewatch.Offer{bad}, nil, CompareOptions{GPU: "A10", Currency: "USD"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 0 || len(res.Skipped) != 1 {
		t.Errorf("an offer without GPUs was ranked: %+v", res)
	}
	var fe *fxError
	if errors.As(errors.New(res.Skipped[0].Reason), &fe) {
		t.Error("a GPU-count problem is not an exchange-rate problem")
	}
}

func providers(rows []CompareRow) string {
	var p []string
	for _, r := range rows {
		p = append(p, r.Provider)
	}
	return strings.Join(p, ",")
}
