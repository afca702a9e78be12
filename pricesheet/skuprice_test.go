package pricesheet

import (
	"bytes"
	"context"
	"encoding/csv"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/focus/focustest"
	"github.com/pricewatch/pricewatch/storage"
)

// fakeStore replays stored intervals through EachPrice, keeping the
// filter's price types and Since as storage does (the rest of the filter
// is not used by these tests).
type fakeStore []storage.PriceInterval

func (s fakeStore) EachPrice(_ context.Context, f storage.PriceFilter, fn func(*storage.PriceInterval) error) error {
	for i := range s {
		p := s[i]
		if len(f.PriceTypes) > 0 && !slices.Contains(f.PriceTypes, p.PriceType) {
			continue
		}
		if !f.Since.IsZero() && p.ValidTo != nil && p.ValidTo.Before(f.Since) {
			continue
		}
		if err := fn(&p); err != nil {
			return err
		}
	}
	return nil
}

func day(m time.Month, d int) time.Time { return time.Date(2026, m, d, 0, 0, 0, 0, time.UTC) }

// interval is one stored interval of an Azure NC H100 offer in eastus;
// to nil while current.
func interval(pt pricewatch.PriceType, term, hourly string, from time.Time, to *time.Time) storage.PriceInterval {
	h := decimal.RequireFromString(hourly)
	return storage.PriceInterval{Offer: pricewatch.Offer{
		Provider: pricewatch.Azure, Region: "eastus", InstanceType: "Standard_NC40ads_H100_v5",
		PriceType: pt, Term: term, OS: pricewatch.Linux, Currency: "USD", Hourly: h,
		Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 1},
		CloudIDs: pricewatch.CloudIDs{SkuID: "DZH318Z08M22", SkuPriceID: "meter-nc40", RegionName: "East US"},
	}, EffectiveHourly: h, ValidFrom: from, ValidTo: to}
}

func ptr(t time.Time) *time.Time { return &t }

// priceHistory: the on-demand price changed twice (Jan 1 → Feb 1 → Mar 1,
// current since), a one-year reservation began on Feb 15 (when 7.20 was
// the on-demand price) and its rate changed on Mar 10.
var priceHistory = fakeStore{
	interval(pricewatch.OnDemand, "", "6.98", day(1, 1), ptr(day(2, 1))),
	interval(pricewatch.OnDemand, "", "7.20", day(2, 1), ptr(day(3, 1))),
	interval(pricewatch.OnDemand, "", "6.50", day(3, 1), nil),
	interval(pricewatch.Reserved, "1y", "4.40", day(2, 15), ptr(day(3, 10))),
	interval(pricewatch.Reserved, "1y", "4.10", day(3, 10), nil),
}

func skuPriceRows(t *testing.T, w Window) (col map[string]int, byID map[string][][]string) {
	t.Helper()
	var buf bytes.Buffer
	if err := StreamSKUPrice(context.Background(), &buf, priceHistory, storage.PriceFilter{}, Selection{}, w); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatalf("not CSV: %v", err)
	}
	if errs := focustest.ValidateSKUPrice(recs); len(errs) > 0 {
		t.Errorf("the dataset fails its validator: %v", errs)
	}
	col = map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	byID = map[string][][]string{}
	for _, r := range recs[1:] {
		byID[r[col["SkuPriceId"]]] = append(byID[r[col["SkuPriceId"]]], r)
	}
	return col, byID
}

// TestSKUPriceAPriceThatChangedTwice (issue 35 item 2, must show): three
// rows for the on-demand price id, their effective dates contiguous (each
// ends where the next begins; the last open), in the pricing currency.
func TestSKUPriceAPriceThatChangedTwice(t *testing.T) {
	col, byID := skuPriceRows(t, Window{})
	od := byID["meter-nc40|on_demand|linux"]
	if len(od) != 3 {
		t.Fatalf("on-demand price id has %d rows, want 3: %v", len(od), byID)
	}
	want := [][3]string{
		{"2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z", "6.98"},
		{"2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z", "7.2"},
		{"2026-03-01T00:00:00Z", "", "6.5"},
	}
	for i, w := range want {
		r := od[i]
		got := [3]string{r[col["SkuPriceEffectiveStart"]], r[col["SkuPriceEffectiveEnd"]], r[col["ListUnitPrice"]]}
		if got != w {
			t.Errorf("row %d: start, end, list %v, want %v", i, got, w)
		}
		if r[col["ContractedUnitPrice"]] != w[2] || r[col["PricingCurrency"]] != "USD" || r[col["PricingUnit"]] != "Hours" ||
			r[col["SkuId"]] != "DZH318Z08M22" || r[col["CommitmentDiscountType"]] != "" {
			t.Errorf("row %d: %v", i, r)
		}
	}
}

// TestSKUPriceCommitmentListPriceAtItsStart: a commitment's ListUnitPrice
// is the on-demand price in force when its interval began (7.20 on Feb 15,
// 6.50 on Mar 10), not the current one, with the commitment columns.
func TestSKUPriceCommitmentListPriceAtItsStart(t *testing.T) {
	col, byID := skuPriceRows(t, Window{})
	res := byID["meter-nc40|reserved|1y|linux"]
	if len(res) != 2 {
		t.Fatalf("reservation rows %d, want 2", len(res))
	}
	for i, w := range [][2]string{{"7.2", "4.4"}, {"6.5", "4.1"}} {
		r := res[i]
		if got := [2]string{r[col["ListUnitPrice"]], r[col["ContractedUnitPrice"]]}; got != w {
			t.Errorf("reservation row %d: list, contracted %v, want %v", i, got, w)
		}
		if r[col["CommitmentDiscountType"]] != "Reservation" || r[col["CommitmentDiscountCategory"]] != "Usage" ||
			r[col["PricingCategory"]] != "Committed" || r[col["x_ListUnitPriceSource"]] != "on_demand" {
			t.Errorf("reservation row %d: %v", i, r)
		}
	}
}

// TestSKUPriceWindow: --since keeps the intervals still in force at it,
// --until those begun before it; kept intervals keep their own dates.
func TestSKUPriceWindow(t *testing.T) {
	col, byID := skuPriceRows(t, Window{Since: day(2, 10), Until: day(3, 5)})
	var got []string
	for _, r := range byID["meter-nc40|on_demand|linux"] {
		got = append(got, r[col["SkuPriceEffectiveStart"]]+"/"+r[col["SkuPriceEffectiveEnd"]])
	}
	want := []string{"2026-02-01T00:00:00Z/2026-03-01T00:00:00Z", "2026-03-01T00:00:00Z/"}
	if !slices.Equal(got, want) {
		t.Errorf("on-demand intervals %v, want %v", got, want)
	}
	if n := len(byID["meter-nc40|reserved|1y|linux"]); n != 1 {
		t.Errorf("reservation rows %d, want 1 (the one begun Mar 10 is after --until)", n)
	}
}

func TestParseWindow(t *testing.T) {
	now := day(12, 5)
	for _, c := range []struct {
		dataset, since, until string
		focusNow              bool
		want                  Window
		err                   string
	}{
		{dataset: "price-sheet", focusNow: true},
		{dataset: "price-sheet", since: "30d", err: "want --dataset price-sheet"},
		{dataset: "prices", err: "want --dataset price-sheet"},
		{dataset: "sku-price", focusNow: false, err: "neither --at"},
		{dataset: "sku-price", focusNow: true, since: "2026-01-01", until: "7d", want: Window{Since: day(1, 1), Until: day(11, 28)}},
		{dataset: "sku-price", focusNow: true, until: "soon", err: "--until"},
	} {
		got, err := ParseWindow(c.dataset, c.focusNow, c.since, c.until, now)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%+v: error %v, want one saying %q", c, err, c.err)
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("%+v: %+v, %v, want %+v", c, got, err, c.want)
		}
	}
}

// TestValidateSKUPriceCatchesEachRule: the validator is not a rubber
// stamp: each breach made in a good dataset is reported.
func TestValidateSKUPriceCatchesEachRule(t *testing.T) {
	var buf bytes.Buffer
	if err := StreamSKUPrice(context.Background(), &buf, priceHistory, storage.PriceFilter{}, Selection{}, Window{}); err != nil {
		t.Fatal(err)
	}
	recs, _ := csv.NewReader(&buf).ReadAll()
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, c := range []struct {
		row           int
		column, value string
		want          string
	}{
		{1, "SkuId", "", "SkuId is null"},
		{1, "SkuPriceEffectiveEnd", "2026-01-01T00:00:00Z", "not after"},
		{1, "SkuPriceEffectiveEnd", "2026-02-02T00:00:00Z", "overlap"},
		{1, "SkuPriceEffectiveEnd", "", "overlap"},
		{1, "SkuPriceEffectiveStart", "Jan 1", "not an RFC 3339"},
		{1, "ContractedUnitPrice", "99", "above ListUnitPrice"},
		{1, "PricingCurrency", "usd", "ISO 4217"},
		{1, "CommitmentDiscountCategory", "Spend", "without a CommitmentDiscountType"},
		{1, "PricingCategory", "Committed", "without its commitment columns"},
		{4, "CommitmentDiscountCategory", "Spend", `"Reservation" with CommitmentDiscountCategory "Spend"`},
	} {
		bad := make([][]string, len(recs))
		for i, r := range recs {
			bad[i] = slices.Clone(r)
		}
		bad[c.row][col[c.column]] = c.value
		found := false
		for _, err := range focustest.ValidateSKUPrice(bad) {
			found = found || strings.Contains(err.Error(), c.want)
		}
		if !found {
			t.Errorf("%s=%q on row %d: no error saying %q", c.column, c.value, c.row, c.want)
		}
	}
}
