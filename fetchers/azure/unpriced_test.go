package azure

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/storage/dbtest"
)

// realRow reads one row of the real series (testdata/series) by size and
// type, raw.
func realRows(t *testing.T, date, region string) []string {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", "series", "gpu-items-"+date+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(body, &raws); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range raws {
		var it struct {
			ArmRegionName string `json:"armRegionName"`
		}
		if err := json.Unmarshal(r, &it); err != nil {
			t.Fatal(err)
		}
		if it.ArmRegionName == region {
			out = append(out, string(r))
		}
	}
	return out
}

// Issue 20 item 1: a price in another unit than "1 Hour" was dropped
// (and its stored price closed). The units Azure writes that are lengths
// of time are converted to per hour, exactly where the quotient ends; the
// others are left unpriced. Base: the real NC48ads A100 v4 eastus2
// on-demand row (7.346/h) and its one-year reservation (42066.0).
func TestUnitOfMeasureConvertedToHourly(t *testing.T) {
	var od, res item
	for _, it := range seriesItems(t, "2026-08-22") {
		if it.ArmSkuName == "Standard_NC48ads_A100_v4" {
			switch {
			case it.Type == "Consumption":
				od = it
			case it.ReservationTerm == "1 Year":
				res = it
			}
		}
	}
	if od.RetailPrice.String() != "7.346" || od.UnitOfMeasure != "1 Hour" || res.RetailPrice.String() != "42066.0" {
		t.Fatalf("test data: %+v %+v", od, res)
	}
	s, _ := lookupSKU(od.ArmSkuName)
	tests := []struct {
		name, unit, price string
		base              item
		want              string // hourly (or reservation upfront); "" when skipped as unconvertible
	}{
		{"real row", "1 Hour", "7.346", od, "7.346"},
		{"per hour with a slash", "1/Hour", "7.346", od, "7.346"},
		{"100 hours", "100 Hours", "734.6", od, "7.346"},
		{"10 hours", "10 Hours", "73.46", od, "7.346"},
		{"per day", "1/Day", "176.304", od, "7.346"},
		{"per month of 730 hours", "1/Month", "5362.58", od, "7.346"},
		{"per month, quotient does not end", "1/Month", "100", od, "0.1369863014"},
		{"per year", "1/Year", "64350.96", od, "7.346"},
		{"missing unit (trimmed row)", "", "7.346", od, "7.346"},
		{"count unit", "10K", "7.346", od, ""},
		{"storage unit", "1 GB/Month", "7.346", od, ""},
		{"seconds", "100 Seconds", "7.346", od, ""},
		{"reservation total under 1 Hour", "1 Hour", "42066.0", res, "42066"},
		{"reservation in another unit", "100 Hours", "42066.0", res, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it := tt.base
			it.UnitOfMeasure, it.RetailPrice, it.UnitPrice = tt.unit, json.Number(tt.price), json.Number(tt.price)
			pt, osName, skip := classify(it)
			if skip != "" {
				t.Fatalf("classified as %s", skip)
			}
			cands, skip, err := offersFor(pricewatch.Azure, it, pt, osName, s)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" {
				if skip != skipUnit || len(cands) != 0 {
					t.Errorf("skip %q, %d offers; want skipped as %q", skip, len(cands), skipUnit)
				}
				return
			}
			if skip != "" || len(cands) != 1 {
				t.Fatalf("skip %q, %d offers", skip, len(cands))
			}
			if got := price(cands[0].offer); got != tt.want {
				t.Errorf("price %s, want %s", got, tt.want)
			}
		})
	}
	// Savings-plan rates are quoted in the row's unit too.
	it := od
	it.UnitOfMeasure, it.RetailPrice = "100 Hours", "734.6"
	it.SavingsPlan = []savingsPlan{{RetailPrice: "525.0", UnitPrice: "525.0", Term: "1 Year"}}
	cands, _, err := offersFor(pricewatch.Azure, it, pricewatch.OnDemand, pricewatch.Linux, s)
	if err != nil || len(cands) != 2 || cands[1].offer.Hourly.String() != "5.25" {
		t.Errorf("savings plan per 100 hours: %v %+v", err, cands)
	}
}

// retailFake serves one page holding rows (raw JSON, which may hold bytes
// that are not UTF-8) to every request.
type retailFake struct {
	srv  *httptest.Server
	mu   sync.Mutex
	rows []string
}

func newRetailFake(t *testing.T) *retailFake {
	f := &retailFake{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		rows := f.rows
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		fmt.Fprintf(w, `{"BillingCurrency":"USD","CustomerEntityId":"Default","CustomerEntityType":"Retail","Items":[%s],"NextPageLink":null,"Count":%d}`,
			strings.Join(rows, ","), len(rows))
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *retailFake) set(rows []string) {
	f.mu.Lock()
	f.rows = rows
	f.mu.Unlock()
}

// Issue 20 items 1, 2 and 9, through storage: the real eastus2 rows of
// 2026-08-22 (NC320lds RTX PRO 6000 spot 2.64264, NC48ads A100 v4
// on-demand 7.346, its reservations 42066 and 71642) are stored, then
// fetched again in a variant. What the variant prices the same is
// unchanged; what it cannot price stays current (not closed, no "new"
// offer, a warning naming the meter); a row really gone is still closed.
// Both with the region configured (one chain) and with all regions.
func TestUnpricedRowsKeepStoredPrices(t *testing.T) {
	base := realRows(t, "2026-08-22", "eastus2")
	if len(base) != 4 {
		t.Fatalf("test data: %d eastus2 rows, want 4", len(base))
	}
	const (
		spot = 0 // NC320ldsxlRTX6Kv6 Spot
		od   = 1 // NC48ads_A100_v4 Consumption
		res3 = 3 // NC48ads_A100_v4 3 Years
	)
	edit := func(i int, old, new string) func([]string) []string {
		return func(rows []string) []string {
			if !strings.Contains(rows[i], old) {
				t.Fatalf("test data: row %d lacks %q", i, old)
			}
			rows[i] = strings.Replace(rows[i], old, new, 1)
			return rows
		}
	}
	all := func(old, new string) func([]string) []string {
		return func(rows []string) []string {
			for i := range rows {
				rows[i] = strings.ReplaceAll(rows[i], old, new)
			}
			return rows
		}
	}
	drop := func(i int) func([]string) []string {
		return func(rows []string) []string { return append(rows[:i:i], rows[i+1:]...) }
	}
	const (
		spotKey = "azure/eastus2//Standard_NC320lds_xl_RTXPRO6000BSE_v6/spot////linux"
		odKey   = "azure/eastus2//Standard_NC48ads_A100_v4/on_demand////linux"
		res3Key = "azure/eastus2//Standard_NC48ads_A100_v4/reserved/3y/all_upfront//linux"
	)
	tests := []struct {
		name    string
		variant []func([]string) []string
		// unchanged and closed are storage's counts for the second run;
		// gone is the offer it closes, if any.
		unchanged, closed int
		gone              string
		// warn names the meter (meterName) a warning must name; "" for none.
		warn string
	}{
		{"item 1: 100 Hours on-demand converted", []func([]string) []string{
			edit(od, `"unitOfMeasure": "1 Hour"`, `"unitOfMeasure": "100 Hours"`),
			edit(od, `"retailPrice": 7.346`, `"retailPrice": 734.6`)}, 4, 0, "", ""},
		{"item 1: 1/Day spot converted", []func([]string) []string{
			edit(spot, `"unitOfMeasure": "1 Hour"`, `"unitOfMeasure": "1/Day"`),
			edit(spot, `"retailPrice": 2.64264`, `"retailPrice": 63.42336`)}, 4, 0, "", ""},
		{"item 1: 1/Month on-demand converted", []func([]string) []string{
			edit(od, `"unitOfMeasure": "1 Hour"`, `"unitOfMeasure": "1/Month"`),
			edit(od, `"retailPrice": 7.346`, `"retailPrice": 5362.58`)}, 4, 0, "", ""},
		{"item 1: 10K spot kept open, reservation really gone closed", []func([]string) []string{
			edit(spot, `"unitOfMeasure": "1 Hour"`, `"unitOfMeasure": "10K"`), drop(res3)}, 2, 1, res3Key, "NC320ldsxlRTX6Kv6 Spot"},
		{"item 2: region spelled EastUS2", []func([]string) []string{
			all(`"armRegionName": "eastus2"`, `"armRegionName": "EastUS2"`)}, 4, 0, "", ""},
		{"item 9: byte in type", []func([]string) []string{
			edit(od, `"type": "Consumption"`, "\"type\": \"Consump\xe9tion\"")}, 3, 0, "", "NC48ads_A100_v4"},
		{"item 9: byte in armSkuName", []func([]string) []string{
			edit(spot, `"armSkuName": "Standard_NC320lds_xl_RTXPRO6000BSE_v6"`, "\"armSkuName\": \"Standard_NC320lds_xl_RTXPRO6000BSE\xff_v6\"")}, 3, 0, "", "NC320ldsxlRTX6Kv6 Spot"},
		{"item 9: byte in meterName", []func([]string) []string{
			edit(spot, `"meterName": "NC320ldsxlRTX6Kv6 Spot"`, "\"meterName\": \"NC320ldsxlRTX6Kv6 Spot\xa0\""),
			edit(spot, `"skuName": "NC320ldsxlRTX6Kv6 Spot"`, "\"skuName\": \"NC320ldsxlRTX6Kv6 Spot\xa0\"")}, 3, 0, "", "NC320ldsxlRTX6Kv6 Spot\uFFFD"},
		{"item 9: byte in armRegionName", []func([]string) []string{
			edit(od, `"armRegionName": "eastus2"`, "\"armRegionName\": \"eastus\xb22\"")}, 3, 0, "", "NC48ads_A100_v4"},
	}
	for _, regions := range [][]string{{"eastus2"}, nil} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s regions=%v", tt.name, regions), func(t *testing.T) {
				ctx := context.Background()
				db := dbtest.Open(t)
				fake := newRetailFake(t)
				core, logs := observer.New(zap.WarnLevel)
				f, _ := newTestFetcher(t, Config{Endpoint: fake.srv.URL, Regions: regions, Windows: true,
					Now: func() time.Time { return time.Date(2026, 8, 22, 12, 0, 0, 0, time.UTC) }}, zap.New(core))
				run := func(rows []string) *storage.Result {
					t.Helper()
					fake.set(rows)
					snap, err := f.Fetch(ctx, fetchers.Previous{})
					if err != nil {
						t.Fatal(err)
					}
					return dbtest.SaveWith(t, db, snap, storage.SaveOptions{MinOfferRatio: 0.5})
				}
				current := func() map[string]string {
					t.Helper()
					ps, err := db.Prices(ctx, storage.PriceFilter{Providers: []string{pricewatch.Azure}, CurrentOnly: true})
					if err != nil {
						t.Fatal(err)
					}
					out := map[string]string{}
					for _, p := range ps {
						out[p.Key().String()] = p.EffectiveHourly.String() + " " + p.RegionName
					}
					return out
				}
				if r := run(append([]string(nil), base...)); r.New != 4 {
					t.Fatalf("baseline stored %d new offers, want 4", r.New)
				}
				before := current()
				if len(before) != 4 || !strings.HasPrefix(before[odKey], "7.346 ") || !strings.HasPrefix(before[spotKey], "2.64264 ") {
					t.Fatalf("baseline prices %v", before)
				}
				rows := append([]string(nil), base...)
				for _, v := range tt.variant {
					rows = v(rows)
				}
				logs.TakeAll()
				r := run(rows)
				if r.New != 0 || r.Changed != 0 || r.Unchanged != tt.unchanged || r.Closed != tt.closed {
					t.Errorf("second run: %d new, %d changed, %d unchanged, %d closed; want 0, 0, %d, %d (changes %+v)",
						r.New, r.Changed, r.Unchanged, r.Closed, tt.unchanged, tt.closed, r.Changes)
				}
				after := current()
				for k, v := range before {
					if k == tt.gone {
						if _, ok := after[k]; ok {
							t.Errorf("%s is current, want it closed", k)
						}
					} else if after[k] != v {
						t.Errorf("%s is %q after the run, want %q kept", k, after[k], v)
					}
				}
				if len(after) != len(before)-tt.closed {
					t.Errorf("current prices %v", after)
				}
				warned := logs.All()
				if tt.warn == "" && len(warned) != 0 {
					t.Errorf("warnings %v, want none", warned)
				}
				if tt.warn != "" && (len(warned) != 1 || warned[0].ContextMap()["meterName"] != tt.warn) {
					t.Errorf("warnings %v, want one naming meter %q", warned, tt.warn)
				}
			})
		}
	}
}
