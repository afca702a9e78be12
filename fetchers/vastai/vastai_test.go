package vastai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/vastai/vastaitest"
)

const (
	h100Capture = "testdata/bundles-H100_SXM-asc-limit8-20260822.json"
	b300Capture = "testdata/bundles-B300-asc-limit8-20260822.json"
)

func newFetcher(t *testing.T, url string, models ...string) *Fetcher {
	t.Helper()
	f, err := New(Config{Endpoint: url, GPUModels: models, RequestInterval: -1}, fetcherstest.QuickClient(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func realBook(t *testing.T) []vastaitest.Offer {
	return append(vastaitest.LoadOffers(t, h100Capture), vastaitest.LoadOffers(t, b300Capture)...)
}

// point is one expected price point: instance price and price per GPU-hour.
type point struct {
	region, typ string
	pt          pricewatch.PriceType
	hourly      string
	perGPUHour  string
}

func byKey(snap *pricewatch.Snapshot) map[string]pricewatch.Offer {
	out := map[string]pricewatch.Offer{}
	for _, o := range snap.Offers {
		out[o.Region+"|"+o.InstanceType+"|"+string(o.PriceType)] = o
	}
	return out
}

// The two real captures: eight 1x H100 SXM offers in three countries and
// one machine's 2x and 4x B300 offers. Expected values are the captures'
// cheapest dph_total and min_bid per country and type, to a millionth.
func TestFetchRealCaptures(t *testing.T) {
	fake := vastaitest.NewServer(t, realBook(t))
	snap, err := newFetcher(t, fake.URL, "H100 SXM", "B300").Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	want := []point{
		{"US", "1x H100 SXM", pricewatch.OnDemand, "1.386741", "1.386741"}, // 1.3867407407407408
		{"US", "1x H100 SXM", pricewatch.Spot, "0.4", "0.4"},               // 0.39999999999999997
		{"JP", "1x H100 SXM", pricewatch.OnDemand, "1.605926", "1.605926"},
		{"JP", "1x H100 SXM", pricewatch.Spot, "0.28", "0.28"}, // 0.27999999999999997 beats 0.28 only in float noise
		{"RU", "1x H100 SXM", pricewatch.OnDemand, "1.788889", "1.788889"},
		{"RU", "1x H100 SXM", pricewatch.Spot, "1.333333", "1.333333"},
		{"US", "2x B300", pricewatch.OnDemand, "15.002083", "7.5010415"}, // dph_total covers both GPUs
		{"US", "2x B300", pricewatch.Spot, "11.25", "5.625"},
		{"US", "4x B300", pricewatch.OnDemand, "30.002083", "7.50052075"},
		{"US", "4x B300", pricewatch.Spot, "22.5", "5.625"},
	}
	got := byKey(snap)
	if len(got) != len(want) {
		t.Errorf("%d price points, want %d: %v", len(got), len(want), got)
	}
	for _, w := range want {
		o, ok := got[w.region+"|"+w.typ+"|"+string(w.pt)]
		if !ok {
			t.Errorf("no %s %s %s", w.region, w.typ, w.pt)
			continue
		}
		if !o.Hourly.Equal(decimal.RequireFromString(w.hourly)) {
			t.Errorf("%s %s %s: hourly %s, want %s", w.region, w.typ, w.pt, o.Hourly, w.hourly)
		}
		perGPU := o.Hourly.Div(decimal.NewFromFloat(o.GPUCount))
		if !perGPU.Equal(decimal.RequireFromString(w.perGPUHour)) {
			t.Errorf("%s %s %s: per GPU-hour %s, want %s", w.region, w.typ, w.pt, perGPU, w.perGPUHour)
		}
		if o.Currency != "USD" || o.OS != pricewatch.Linux || o.Term != "" || !o.Upfront.IsZero() {
			t.Errorf("%s %s: %+v", w.region, w.typ, o)
		}
	}
	if o := got["US|2x B300|on_demand"]; o.GPUModel != "B300" || o.GPUCount != 2 || o.GPUMemoryGB != 288 {
		t.Errorf("B300 hardware %+v", o.Hardware)
	}
	if o := got["JP|1x H100 SXM|on_demand"]; o.GPUModel != "H100" || o.GPUCount != 1 || o.GPUMemoryGB != 80 {
		t.Errorf("H100 hardware %+v", o.Hardware)
	}
	stock := map[string]string{}
	for _, a := range snap.Availability {
		stock[a.Region+"|"+a.InstanceType] = string(a.State) + "/" + a.StockDetail
	}
	wantStock := map[string]string{
		"US|1x H100 SXM": "in_stock/4 rentable offers",
		"JP|1x H100 SXM": "in_stock/3 rentable offers",
		"RU|1x H100 SXM": "in_stock/1 rentable offer",
		"US|2x B300":     "in_stock/1 rentable offer",
		"US|4x B300":     "in_stock/1 rentable offer",
	}
	if fmt.Sprint(stock) != fmt.Sprint(wantStock) {
		t.Errorf("stock %v, want %v", stock, wantStock)
	}
	if len(snap.Coverage) != 1 || snap.Coverage[0].Region != pricewatch.AllRegions || !snap.Coverage[0].Availability {
		t.Errorf("coverage %+v", snap.Coverage)
	}
	// The query is the one the API wants, per GPU model.
	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want one per GPU model", len(reqs))
	}
	q := reqs[0]
	if fmt.Sprint(q["gpu_name"]) != "map[eq:H100 SXM]" || fmt.Sprint(q["rentable"]) != "map[eq:true]" || q["type"] != "on-demand" ||
		fmt.Sprint(q["order"]) != "[[dph_total asc]]" || fmt.Sprint(q["limit"]) != "64" {
		t.Errorf("query %v", q)
	}
}

// Offers a buyer cannot rent never set a price or count as stock, even
// when the server hands them out.
func TestNonRentableOffersIgnored(t *testing.T) {
	book := vastaitest.LoadOffers(t, h100Capture)
	base := book[0]
	book = append(book,
		base.With(t, map[string]any{"id": 90000001, "dph_total": json.Number("0.5"), "min_bid": json.Number("0.1"), "rentable": false}),
		base.With(t, map[string]any{"id": 90000002, "dph_total": json.Number("0.6"), "min_bid": json.Number("0.1"), "rented": true}),
		base.With(t, map[string]any{"id": 90000003, "dph_total": json.Number("0.7"), "geolocation": "Oslo, NO", "rentable": false}),
	)
	fake := vastaitest.NewServer(t, book)
	fake.LeakUnrentable()
	snap, err := newFetcher(t, fake.URL, "H100 SXM").Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	got := byKey(snap)
	if o := got["US|1x H100 SXM|on_demand"]; !o.Hourly.Equal(decimal.RequireFromString("1.386741")) {
		t.Errorf("US on-demand %s: a non-rentable offer set the price", o.Hourly)
	}
	if o := got["US|1x H100 SXM|spot"]; !o.Hourly.Equal(decimal.RequireFromString("0.4")) {
		t.Errorf("US spot %s: a non-rentable offer set the price", o.Hourly)
	}
	if _, ok := got["NO|1x H100 SXM|on_demand"]; ok {
		t.Error("a country with only a non-rentable offer has a price")
	}
	for _, a := range snap.Availability {
		if a.Region == "NO" {
			t.Errorf("a country with only a non-rentable offer has availability %+v", a)
		}
		if a.Region == "US" && a.StockDetail != "4 rentable offers" {
			t.Errorf("US stock %q, want the 4 rentable offers", a.StockDetail)
		}
	}
	if n := decodeState(t, snap).Rentable["H100 SXM"]; n != 8 {
		t.Errorf("rentable count %d, want 8", n)
	}
}

// bigBook builds n H100 offers from a real one: three offers share each
// price (so page boundaries fall inside ties), countries alternate, and
// GPU counts cycle through 1, 2, 4 and 8.
func bigBook(t *testing.T, n int) []vastaitest.Offer {
	base := vastaitest.LoadOffers(t, h100Capture)[0]
	geo := []string{"Texas, US", "Japan, JP", "Quebec, CA"}
	counts := []int{1, 2, 4, 8}
	var out []vastaitest.Offer
	for i := range n {
		price := decimal.RequireFromString("1.2").Add(decimal.New(int64(i/3), -2))
		out = append(out, base.With(t, map[string]any{
			"id": 50000000 + i, "dph_total": json.Number(price.String()), "min_bid": json.Number(price.Div(decimal.NewFromInt(2)).String()),
			"geolocation": geo[i%3], "num_gpus": counts[i%4],
		}))
	}
	return out
}

// 150 offers take three pages of 64. Each next page starts at the last
// price seen, so the boundary offers come twice; each counts once.
func TestPagingCountsEveryOfferOnce(t *testing.T) {
	book := bigBook(t, 150)
	fake := vastaitest.NewServer(t, book)
	snap, err := newFetcher(t, fake.URL, "H100 SXM").Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	if got := decodeState(t, snap).Rentable["H100 SXM"]; got != 150 {
		t.Errorf("%d rentable offers counted, want 150", got)
	}
	reqs := fake.Requests()
	if len(reqs) < 3 || len(reqs) > 4 {
		t.Errorf("%d requests for 150 offers at 64 a page", len(reqs))
	}
	if _, ok := reqs[0]["dph_total"]; ok {
		t.Errorf("first page has a price floor: %v", reqs[0])
	}
	if f := fmt.Sprint(reqs[1]["dph_total"]); !strings.HasPrefix(f, "map[gte:") {
		t.Errorf("second page floor %s", f)
	}
	total := 0
	for _, a := range snap.Availability {
		var n int
		fmt.Sscanf(a.StockDetail, "%d", &n)
		total += n
	}
	if total != 150 {
		t.Errorf("stock details add up to %d offers, want 150", total)
	}
	// The cheapest 8x box sits deep in the book (offer 3: 1.21 USD).
	if o := byKey(snap)["US|8x H100 SXM|on_demand"]; !o.Hourly.Equal(decimal.RequireFromString("1.21")) || o.GPUCount != 8 {
		t.Errorf("8x H100 in US: %s × %v", o.Hourly, o.GPUCount)
	}
}

// More than a page at one price cannot be paged through by price; the
// fetcher steps past it (the price is right, the count may be short) and
// never loops.
func TestPagingPastAFullPageAtOnePrice(t *testing.T) {
	base := vastaitest.LoadOffers(t, h100Capture)[0]
	var book []vastaitest.Offer
	for i := range 70 {
		book = append(book, base.With(t, map[string]any{"id": 60000000 + i, "dph_total": json.Number("2")}))
	}
	book = append(book, base.With(t, map[string]any{"id": 61000000, "dph_total": json.Number("3"), "geolocation": "Japan, JP"}))
	fake := vastaitest.NewServer(t, book)
	snap, err := newFetcher(t, fake.URL, "H100 SXM").Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	if got := byKey(snap)["JP|1x H100 SXM|on_demand"]; !got.Hourly.Equal(decimal.NewFromInt(3)) {
		t.Errorf("the offer past the tie was not reached: %+v", got)
	}
	if n := len(fake.Requests()); n != 3 {
		t.Errorf("%d requests, want 3 (page, same page again, past the tie)", n)
	}
}

func TestBadAnswersFailTheRun(t *testing.T) {
	real := vastaitest.LoadOffers(t, h100Capture)
	tests := []struct {
		name  string
		setup func(t *testing.T, s *vastaitest.Server)
		book  func(t *testing.T) []vastaitest.Offer
		prev  fetchers.Previous
		pages int
		want  error
	}{
		{name: "truncated body", setup: func(t *testing.T, s *vastaitest.Server) { s.Truncate(1) }, want: fetchers.ErrIncomplete},
		{name: "throttled throughout", setup: func(t *testing.T, s *vastaitest.Server) { s.Throttle(10) }, want: fetchers.ErrThrottled},
		{name: "empty book where offers were", book: func(t *testing.T) []vastaitest.Offer { return nil },
			prev: fetchers.Previous{State: encodeState(t, state{Rentable: map[string]int{"H100 SXM": 8}})}, want: fetchers.ErrIncomplete},
		{name: "more pages than allowed", book: func(t *testing.T) []vastaitest.Offer { return bigBook(t, 150) }, pages: 2, want: fetchers.ErrIncomplete},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			book := real
			if tt.book != nil {
				book = tt.book(t)
			}
			fake := vastaitest.NewServer(t, book)
			if tt.setup != nil {
				tt.setup(t, fake)
			}
			f, err := New(Config{Endpoint: fake.URL, GPUModels: []string{"H100 SXM"}, RequestInterval: -1, MaxPages: tt.pages}, fetcherstest.QuickClient(), nil)
			if err != nil {
				t.Fatal(err)
			}
			snap, err := f.Fetch(context.Background(), tt.prev)
			if !errors.Is(err, tt.want) || snap != nil {
				t.Fatalf("Fetch = %v, %v; want %v and no snapshot", snap, err, tt.want)
			}
			if n := len(fake.Requests()); n > 5 {
				t.Errorf("%d requests for one failed page chain", n)
			}
		})
	}
}

// An empty book is normal for a rare GPU that had none before.
func TestEmptyBookWithoutHistoryIsFine(t *testing.T) {
	fake := vastaitest.NewServer(t, nil)
	snap, err := newFetcher(t, fake.URL, "H200 NVL").Fetch(context.Background(), fetchers.Previous{State: encodeState(t, state{Rentable: map[string]int{"H200 NVL": 2}})})
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := decodeState(t, snap).Rentable["H200 NVL"]; len(snap.Offers) != 0 || !ok || n != 0 {
		t.Errorf("snapshot %+v", snap)
	}
}

// A (country, type) seen in stock within SoldOutMemory and without a
// rentable offer now is sold out; an older one is forgotten, and so is one
// of a GPU no longer queried.
func TestSoldOutMemory(t *testing.T) {
	fake := vastaitest.NewServer(t, realBook(t))
	f := newFetcher(t, fake.URL, "H100 SXM")
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	f.now = func() time.Time { return now }
	seen := map[string]seenPair{
		"DE|8x H100 SXM": {LastInStock: now.Add(-2 * time.Hour), GPUName: "H100 SXM", GPUModel: "H100", GPUCount: 8, GPUMemoryGB: 80},
		"FR|1x H100 SXM": {LastInStock: now.Add(-8 * 24 * time.Hour), GPUName: "H100 SXM", GPUModel: "H100", GPUCount: 1, GPUMemoryGB: 80},
		"US|2x B300":     {LastInStock: now.Add(-time.Hour), GPUName: "B300", GPUModel: "B300", GPUCount: 2, GPUMemoryGB: 288},
	}
	snap, err := f.Fetch(context.Background(), fetchers.Previous{State: encodeState(t, state{StockSeen: seen})})
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]string{}
	for _, a := range snap.Availability {
		states[a.Region+"|"+a.InstanceType] = string(a.State)
		if a.Region == "DE" && (a.GPUModel != "H100" || a.GPUCount != 8 || a.StockDetail != "no rentable offer") {
			t.Errorf("sold-out record %+v", a)
		}
	}
	want := map[string]string{"US|1x H100 SXM": "in_stock", "JP|1x H100 SXM": "in_stock", "RU|1x H100 SXM": "in_stock", "DE|8x H100 SXM": "sold_out"}
	if fmt.Sprint(states) != fmt.Sprint(want) {
		t.Errorf("availability %v, want %v", states, want)
	}
	kept := decodeState(t, snap).StockSeen
	if _, ok := kept["FR|1x H100 SXM"]; ok {
		t.Error("a pair gone for more than a week is still remembered")
	}
	if _, ok := kept["US|2x B300"]; ok {
		t.Error("a pair of a GPU no longer queried is still remembered")
	}
	if p := kept["US|1x H100 SXM"]; !p.LastInStock.Equal(now) {
		t.Errorf("in-stock pair remembered at %v", p.LastInStock)
	}
}

func TestCountryAndGPU(t *testing.T) {
	for geo, want := range map[string]string{"Utah, US": "US", ", US": "US", "Japan, JP": "JP", "US": "US", "": "unknown", "Somewhere": "unknown", "Quebec, CA ": "CA"} {
		if got := countryOf(&geo); got != want {
			t.Errorf("countryOf(%q) = %q, want %q", geo, got, want)
		}
	}
	if got := countryOf(nil); got != "unknown" {
		t.Errorf("countryOf(nil) = %q", got)
	}
	tests := []struct {
		name  string
		ram   float64
		model string
		mem   float64
	}{
		{"H100 SXM", 81559, "H100", 80},
		{"H100 PCIE", 81559, "H100-PCIe", 80},
		{"A100 SXM4", 81920, "A100-80GB", 80},
		{"A100 SXM4", 40960, "A100-40GB", 40},
		{"B300", 275040, "B300", 288},
		{"RTX 5090", 32607, "RTX-5090", 32},
		{"GTX 1080 Ti", 11264, "GTX 1080 Ti", 11}, // not in the catalogue: kept as Vast.ai names it
	}
	for _, tt := range tests {
		if m, mem := resolveGPU(tt.name, tt.ram); m != tt.model || mem != tt.mem {
			t.Errorf("resolveGPU(%q, %v) = %s, %v; want %s, %v", tt.name, tt.ram, m, mem, tt.model, tt.mem)
		}
	}
}

func TestNewRejectsBadEndpoint(t *testing.T) {
	for _, e := range []string{"console.vast.ai", "ftp://x", "http://"} {
		if _, err := New(Config{Endpoint: e}, fetcherstest.QuickClient(), nil); err == nil {
			t.Errorf("endpoint %q accepted", e)
		}
	}
	f, err := New(Config{}, fetcherstest.QuickClient(), nil)
	if err != nil || f.base.String() != "https://console.vast.ai/api/v0/bundles/" || len(f.cfg.GPUModels) != 0 {
		t.Errorf("defaults: %v %v", f, err)
	}
}

func encodeState(t *testing.T, st state) []byte {
	t.Helper()
	b, err := fetchers.EncodeState(stateVersion, st)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decodeState(t *testing.T, snap *pricewatch.Snapshot) state {
	t.Helper()
	var st state
	if ok, err := fetchers.DecodeState(snap.State, stateVersion, &st); !ok || err != nil {
		t.Fatalf("state %s: %v, %v", snap.State, ok, err)
	}
	return st
}
