package analysis

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fx"
)

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t, err = time.Parse(time.DateOnly, s)
		if err != nil {
			panic(err)
		}
	}
	return t
}

// iv builds one interval; to "" means current.
func iv(o pricewatch.Offer, price, from, to string) Interval {
	o.Hourly = dec(price)
	var end time.Time
	if to != "" {
		end = ts(to)
	}
	return NewInterval(o, dec(price), ts(from), end)
}

// Azure Standard_ND96isr_H100_v5 in eastus: 98.32 on demand and 18.169536
// spot are the real Retail Prices rows (shared/api-samples/azure/
// retail-prices-ND96isr_H100_v5-eastus-items-trimmed.json); the earlier
// prices in these series are made up to give the history something to show.
var (
	azH100 = pricewatch.Offer{Provider: pricewatch.Azure, Region: "eastus", InstanceType: "Standard_ND96isr_H100_v5",
		OS: pricewatch.Linux, PriceType: pricewatch.OnDemand, Currency: "USD",
		Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8, GPUMemoryGB: 80, VCPUs: 96, MemoryGB: 1900}}
	azH100Spot = func() pricewatch.Offer { o := azH100; o.PriceType = pricewatch.Spot; return o }()
)

func azureH100History() []Interval {
	return []Interval{
		iv(azH100, "110.00", "2026-06-01", "2026-09-10"),
		iv(azH100, "98.32", "2026-09-10", ""),
		iv(azH100Spot, "20.00", "2026-09-01", "2026-09-25"),
		iv(azH100Spot, "18.169536", "2026-09-25", ""),
	}
}

func TestSeriesAtAndLastChange(t *testing.T) {
	series, err := GroupSeries(azureH100History())
	if err != nil {
		t.Fatal(err)
	}
	if len(series) != 2 || series[0].Key.PriceType != pricewatch.OnDemand {
		t.Fatalf("series = %+v", series)
	}
	od := series[0]
	for at, want := range map[string]string{"2026-06-01": "110", "2026-09-09T23:59:59Z": "110", "2026-09-10": "98.32", "2030-01-01": "98.32"} {
		got, ok := od.At(ts(at))
		if !ok || !got.Effective.Equal(dec(want)) {
			t.Errorf("At(%s) = %s %v, want %s", at, got.Effective, ok, want)
		}
	}
	if _, ok := od.At(ts("2026-05-31")); ok {
		t.Error("a price before the first interval")
	}
	if !od.LastChange().Equal(ts("2026-09-10")) {
		t.Errorf("last change %s", od.LastChange())
	}
	single, _ := GroupSeries([]Interval{iv(azH100, "98.32", "2026-09-10", "")})
	if !single[0].LastChange().IsZero() {
		t.Error("a single price never changed")
	}
	// A gap closes and reopens at the same price: not a change.
	gap, _ := GroupSeries([]Interval{iv(azH100, "98.32", "2026-09-01", "2026-09-05"), iv(azH100, "98.32", "2026-09-08", "")})
	if _, ok := gap[0].At(ts("2026-09-06")); ok || !gap[0].LastChange().IsZero() {
		t.Error("gap handled wrongly")
	}
}

func TestGroupSeriesRejectsOverlaps(t *testing.T) {
	if _, err := GroupSeries([]Interval{iv(azH100, "1", "2026-09-01", ""), iv(azH100, "2", "2026-09-05", "")}); err == nil {
		t.Error("two current intervals of one offer accepted")
	}
	if _, err := GroupSeries([]Interval{iv(azH100, "1", "2026-09-05", "2026-09-01")}); err == nil {
		t.Error("an interval ending before it starts accepted")
	}
}

func TestOfferTrendsHandComputed(t *testing.T) {
	series, err := GroupSeries(azureH100History())
	if err != nil {
		t.Fatal(err)
	}
	trends := OfferTrends(series, TrendOptions{Now: ts("2026-09-30T12:00:00Z")})
	if len(trends) != 2 {
		t.Fatalf("%d trends", len(trends))
	}
	od, spot := trends[0], trends[1]

	// On demand: 98.32 now (12.29 per GPU-hour); 7 days ago also 98.32;
	// 30 and 90 days ago 110.00: change −11.68, −11.68 / 110 = −10.6182 %.
	if !od.Current.Valid || !od.Current.Decimal.Equal(dec("98.32")) || !od.PerGPUHour.Decimal.Equal(dec("12.29")) {
		t.Errorf("on-demand current %v per GPU %v", od.Current, od.PerGPUHour)
	}
	wantChanges := map[string][3]string{"7d": {"98.32", "0", "0"}, "30d": {"110", "-11.68", "-10.6182"}, "90d": {"110", "-11.68", "-10.6182"}}
	if len(od.Changes) != 3 {
		t.Fatalf("on-demand changes %+v", od.Changes)
	}
	for label, w := range wantChanges {
		d, ok := od.Change(label)
		if !ok || !d.From.Equal(dec(w[0])) || !d.Change.Equal(dec(w[1])) || !d.Pct.Equal(dec(w[2])) {
			t.Errorf("%s: %+v, want from %s change %s pct %s", label, d, w[0], w[1], w[2])
		}
	}
	// 30-day window [08-31 12:00, 09-30 12:00]: 110 was in force at its
	// start, 98.32 from 09-10.
	if !od.Min.Equal(dec("98.32")) || !od.MinAt.Equal(ts("2026-09-10")) || !od.Max.Equal(dec("110")) || !od.MaxAt.Equal(ts("2026-08-31T12:00:00Z")) {
		t.Errorf("min %s at %s, max %s at %s", od.Min, od.MinAt, od.Max, od.MaxAt)
	}
	if !od.LastChange.Equal(ts("2026-09-10")) || od.SpotDiscountPct.Valid {
		t.Errorf("last change %s, spot discount %v", od.LastChange, od.SpotDiscountPct)
	}

	// Spot: 18.169536 now; 7 days ago 20.00: −1.830464, −9.1523 %; the
	// series starts 09-01 so there is no 30- or 90-day change.
	// Discount against on-demand: 1 − 18.169536 / 98.32 = 81.52 %.
	if d, ok := spot.Change("7d"); !ok || !d.Change.Equal(dec("-1.830464")) || !d.Pct.Equal(dec("-9.1523")) {
		t.Errorf("spot 7d = %+v", d)
	}
	if _, ok := spot.Change("30d"); ok {
		t.Error("spot has no price 30 days ago")
	}
	if !spot.SpotDiscountPct.Valid || !spot.SpotDiscountPct.Decimal.Equal(dec("81.52")) {
		t.Errorf("spot discount %v", spot.SpotDiscountPct)
	}

	movers := Movers(trends, "7d", 10)
	if len(movers) != 1 || movers[0].Key.PriceType != pricewatch.Spot {
		t.Errorf("7d movers = %+v (an unchanged price is not a mover)", movers)
	}
	movers = Movers(trends, "30d", 0)
	if len(movers) != 1 || movers[0].Key.PriceType != pricewatch.OnDemand {
		t.Errorf("30d movers = %+v", movers)
	}
}

func TestOfferTrendsOfWithdrawnOffer(t *testing.T) {
	series, _ := GroupSeries([]Interval{iv(azH100, "110.00", "2026-06-01", "2026-09-10")})
	tr := OfferTrends(series, TrendOptions{Now: ts("2026-09-30"), Window: 30 * 24 * time.Hour})[0]
	if tr.Current.Valid || len(tr.Changes) != 0 {
		t.Errorf("a withdrawn offer has no current price or changes: %+v", tr)
	}
	if !tr.Max.Equal(dec("110")) || !tr.MaxAt.Equal(ts("2026-08-31")) {
		t.Errorf("window max %s at %s", tr.Max, tr.MaxAt)
	}
}

func TestMoversOrdersByAbsolutePercent(t *testing.T) {
	mk := func(name, pct string) OfferTrend {
		return OfferTrend{Key: pricewatch.OfferKey{Provider: name}, Changes: []Delta{{Label: "7d", Change: dec(pct), Pct: dec(pct)}}}
	}
	got := Movers([]OfferTrend{mk("a", "-3"), mk("b", "12.5"), mk("c", "-20"), mk("d", "0"), mk("e", "5")}, "7d", 3)
	var names []string
	for _, m := range got {
		names = append(names, m.Key.Provider)
	}
	if strings.Join(names, ",") != "c,b,e" {
		t.Errorf("movers = %v, want c,b,e", names)
	}
}

// fxBook: 2022-07-08 is the real ECB day (USD 1.0163, CNY 6.8095); the
// Monday after is made up (USD 1.0054, CNY 7.0000) to move the ranking.
func fxBook(t *testing.T) *fx.Book {
	t.Helper()
	b, err := fx.NewBook([]fx.Rates{
		{Date: ts("2022-07-08"), Source: fx.SourceECB, PerEUR: map[string]decimal.Decimal{"USD": dec("1.0163"), "CNY": dec("6.8095")}},
		{Date: ts("2022-07-11"), Source: fx.SourceECB, PerEUR: map[string]decimal.Decimal{"USD": dec("1.0054"), "CNY": dec("7.0000")}},
	}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCheapestPerGPUHourAcrossCurrencies(t *testing.T) {
	azA100 := pricewatch.Offer{Provider: pricewatch.Azure, Region: "eastus", InstanceType: "Standard_ND96amsr_A100_v4", OS: pricewatch.Linux,
		PriceType: pricewatch.OnDemand, Currency: "USD", Hardware: pricewatch.Hardware{GPUModel: "A100-80GB", GPUCount: 8, GPUMemoryGB: 80}}
	aliA100 := pricewatch.Offer{Provider: pricewatch.Alibaba, Region: "cn-hangzhou", InstanceType: "ecs.ebmgn7e.32xlarge", OS: pricewatch.Linux,
		PriceType: pricewatch.OnDemand, Currency: "CNY", Hardware: pricewatch.Hardware{GPUModel: "A100-80GB", GPUCount: 8, GPUMemoryGB: 80}}
	hkA100 := aliA100
	hkA100.Region, hkA100.Currency = "cn-hongkong", "HKD" // no HKD rate in the book
	v100 := aliA100
	v100.InstanceType, v100.GPUModel = "ecs.gn6v-c10g1.20xlarge", "V100"
	win := azA100
	win.OS = pricewatch.Windows
	series, err := GroupSeries([]Interval{
		iv(azA100, "32.77", "2022-07-01", ""),
		iv(aliA100, "220.00", "2022-07-01", "2022-07-12"),
		iv(aliA100, "200.00", "2022-07-12", ""),
		iv(hkA100, "1.00", "2022-07-01", ""),
		iv(v100, "1.00", "2022-07-01", ""),
		iv(win, "1.00", "2022-07-01", ""),
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := CheapestPerGPUHour(series, CheapestOptions{GPU: "A100", From: ts("2022-07-08T12:00:00Z"), To: ts("2022-07-12T12:00:00Z"),
		Currency: "USD", FX: fxBook(t)})
	if err != nil {
		t.Fatal(err)
	}
	// Azure: 32.77 / 8 = 4.09625 USD per GPU-hour all along.
	// Alibaba: 220 / 8 = 27.5 CNY; with the 07-08 rates (carried over the
	// weekend) 27.5 × 1.0163 / 6.8095 = 4.1043028122 USD — Azure wins;
	// with the 07-11 rates 27.5 × 1.0054 / 7 = 3.9497857143 — Alibaba wins;
	// from 07-12, 200 / 8 = 25 CNY = 25 × 1.0054 / 7 = 3.5907142857 USD.
	want := []struct{ day, provider, usd, native, fxDate string }{
		{"2022-07-08", "azure", "4.09625", "4.09625", ""},
		{"2022-07-09", "azure", "4.09625", "4.09625", ""},
		{"2022-07-10", "azure", "4.09625", "4.09625", ""},
		{"2022-07-11", "alibaba", "3.9497857143", "27.5", "2022-07-11"},
		{"2022-07-12", "alibaba", "3.5907142857", "25", "2022-07-11"},
	}
	if len(res.Points) != len(want) {
		t.Fatalf("%d points: %+v", len(res.Points), res.Points)
	}
	for i, w := range want {
		p := res.Points[i]
		if p.At.Format(time.DateOnly) != w.day || p.Key.Provider != w.provider || !p.PerGPUHour.Equal(dec(w.usd)) ||
			!p.NativePerGPUHour.Equal(dec(w.native)) || p.FXDate != w.fxDate || p.Currency != "USD" {
			t.Errorf("point %d = %s %s %s USD (native %s %s, fx %s), want %+v", i, p.At.Format(time.DateOnly), p.Key.Provider,
				p.PerGPUHour, p.NativePerGPUHour, p.NativeCurrency, p.FXDate, w)
		}
	}
	if res.StaleRates {
		t.Error("no sample is more than a week past its rate")
	}
	if len(res.Unconverted) != 1 || !strings.Contains(res.Unconverted[0], "HKD") {
		t.Errorf("unconverted = %v, want the HKD offer named once", res.Unconverted)
	}
	// Added one series at a time (in reverse, an empty one among them) the
	// accumulator gives the same points, rates and reasons.
	gapped := append(series[:len(series):len(series)], Series{Key: azA100.Key(), Intervals: nil})
	acc := NewCheapestAccumulator(CheapestOptions{GPU: "A100", From: ts("2022-07-08T12:00:00Z"), To: ts("2022-07-12T12:00:00Z"),
		Currency: "USD", FX: fxBook(t)})
	for i := len(gapped) - 1; i >= 0; i-- {
		if err := acc.Add(gapped[i]); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := acc.Result(); err != nil || !reflect.DeepEqual(got, res) {
		t.Errorf("accumulated = %+v, %v\nwant %+v", got, err, res)
	}
	if _, err := NewCheapestAccumulator(CheapestOptions{GPU: "A100", From: ts("2022-07-08"), To: ts("2022-07-12")}).Result(); err == nil {
		t.Error("accumulator: no currency accepted")
	}
	if _, err := CheapestPerGPUHour(series, CheapestOptions{GPU: "A100", From: ts("2022-07-08"), To: ts("2022-07-12")}); err == nil {
		t.Error("no currency accepted")
	}
}

func TestParseWindow(t *testing.T) {
	day := 24 * time.Hour
	for in, want := range map[string]time.Duration{"7d": 7 * day, "30d": 30 * day, "12w": 84 * day, "48h": 48 * time.Hour, "3m": 90 * day} {
		got, err := ParseWindow(in)
		if err != nil || got != want {
			t.Errorf("ParseWindow(%q) = %s, %v; want %s", in, got, err, want)
		}
		if strings.HasSuffix(in, "d") && WindowLabel(got) != in {
			t.Errorf("WindowLabel(%s) = %s, want %s", got, WindowLabel(got), in)
		}
	}
	for _, in := range []string{"", "d", "0d", "-3d", "3", "3y", "1.5d", "+3d"} {
		if _, err := ParseWindow(in); err == nil {
			t.Errorf("ParseWindow(%q) accepted", in)
		}
	}
}

// Series added one at a time give what the whole set gives at once.
func TestCheapestAccumulatorMatchesWholeSet(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	d := decimal.RequireFromString
	mk := func(region, price string, from, to int) Interval {
		iv := NewInterval(pricewatch.Offer{Provider: "azure", Region: region, InstanceType: "ND96", PriceType: pricewatch.OnDemand, OS: pricewatch.Linux,
			Currency: "USD", Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8}}, d(price), t0.Add(time.Duration(from)*24*time.Hour), time.Time{})
		if to >= 0 {
			iv.To = t0.Add(time.Duration(to) * 24 * time.Hour)
		}
		return iv
	}
	series, err := GroupSeries([]Interval{
		mk("eastus", "80", 0, 3), mk("eastus", "72", 3, -1),
		mk("westus", "76", 1, 5), mk("westus", "72", 5, -1), // ties with eastus from day 5
		mk("northeurope", "90", 0, -1),
	})
	if err != nil {
		t.Fatal(err)
	}
	opts := CheapestOptions{GPU: "H100", From: t0, To: t0.Add(8 * 24 * time.Hour), Step: 24 * time.Hour, Currency: "USD"}
	want, err := CheapestPerGPUHour(series, opts)
	if err != nil {
		t.Fatal(err)
	}
	acc := NewCheapestAccumulator(opts)
	for i := len(series) - 1; i >= 0; i-- {
		if err := acc.Add(series[i]); err != nil {
			t.Fatal(err)
		}
	}
	got, err := acc.Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Points) != len(want.Points) || len(want.Points) != 9 {
		t.Fatalf("points: %d, want %d (9)", len(got.Points), len(want.Points))
	}
	for i := range want.Points {
		g, w := got.Points[i], want.Points[i]
		if !g.At.Equal(w.At) || g.Key != w.Key || !g.PerGPUHour.Equal(w.PerGPUHour) {
			t.Errorf("point %d: %s %s %s, want %s %s %s", i, g.At, g.Key, g.PerGPUHour, w.At, w.Key, w.PerGPUHour)
		}
	}
}
