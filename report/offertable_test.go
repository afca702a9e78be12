package report

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/fx"
)

// Glob is the region filter's rule, which web/static/offers.js repeats:
// * any run, ? one character, nothing else special.
func TestGlob(t *testing.T) {
	for _, c := range []struct {
		pattern, s string
		want       bool
	}{
		{"us-*", "us-east-1", true},
		{"us-*", "eu-west-1", false},
		{"*east*", "us-east-1", true},
		{"*east*", "eastus", true},
		{"*east*", "westus2", false},
		{"eu-west-?", "eu-west-1", true},
		{"eu-west-?", "eu-west-10", false},
		{"*", "", true},
		{"", "", true},
		{"", "x", false},
		{"a*b*c", "axxbyyc", true},
		{"a*b*c", "axxbyy", false},
		{"cn-[ab]", "cn-a", false}, // no classes: [ is itself
		{"cn-[ab]", "cn-[ab]", true},
		{"us.east", "us-east", false},
	} {
		if got := Glob(c.pattern, c.s); got != c.want {
			t.Errorf("Glob(%q, %q) = %v, want %v", c.pattern, c.s, got, c.want)
		}
	}
}

// Issue 25 item 2: the machine a row carries is the stored hardware, null
// (an empty CSV cell, sorted last) where the cloud did not say, never a
// guess.
func TestOfferTableRowHardware(t *testing.T) {
	for _, c := range []struct {
		name              string
		hw                pricewatch.Hardware
		interconnect, ssd string // "" for null
	}{
		{"aws p5", pricewatch.Hardware{GPUModel: "H100", GPUCount: 8, GPUMemoryGB: 80, VCPUs: 192, MemoryGB: 2048,
			Interconnect: "3200 Gigabit", LocalStorage: "8 x 3800 GB NVMe SSD"}, "3200 Gigabit", "8 x 3800 GB NVMe SSD"},
		{"lambda", pricewatch.Hardware{GPUModel: "GH200", GPUCount: 1, LocalStorage: "4096 GiB"}, "", "4096 GiB"},
		{"azure", pricewatch.Hardware{GPUModel: "H100", GPUCount: 8}, "", ""},
	} {
		o := pricewatch.Offer{Provider: "aws", Region: "us-east-1", InstanceType: "p5.48xlarge", PriceType: pricewatch.OnDemand,
			OS: pricewatch.Linux, Currency: "USD", Hourly: decimal.RequireFromString("55.04"), Hardware: c.hw}
		row := tableRow(&analysis.RatedOffer{CompareRow: analysis.CompareRow{Offer: o}}, "USD", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), time.Time{})
		for _, f := range []struct {
			col  string
			got  *string
			want string
		}{{"interconnect", row.Interconnect, c.interconnect}, {"storage", row.LocalStorage, c.ssd}} {
			if (f.got == nil) != (f.want == "") || (f.got != nil && *f.got != f.want) {
				t.Errorf("%s: %s %v, want %q (null if empty)", c.name, f.col, f.got, f.want)
			}
			if v := OfferSortValue(&row, f.col); v.Null != (f.want == "") || v.Text != f.want {
				t.Errorf("%s: sort value of %s %+v", c.name, f.col, v)
			}
		}
		header, recs := OfferTableCSV([]OfferTableRow{row})
		cell := map[string]string{}
		for i, h := range header {
			cell[h] = recs[0][i]
		}
		if cell["interconnect"] != c.interconnect || cell["local_storage"] != c.ssd {
			t.Errorf("%s: CSV interconnect %q, local_storage %q", c.name, cell["interconnect"], cell["local_storage"])
		}
	}
}

// The rows a visitor is handed (the GPU index's) are the table's rows
// with every row's 30-day move left null, never a move of zero.
func TestOfferTableVisitedRowsWithoutMoves(t *testing.T) {
	ctx := context.Background()
	db, _, end := irregularHistory(t, 300, 7*time.Hour)
	book, err := fx.NewBook(nil, map[string]decimal.Decimal{"USD": decimal.RequireFromString("1.1")}, 0)
	if err != nil {
		t.Fatal(err)
	}
	q := OfferTableQuery{Scope: Scope{Currency: "USD", At: end}}
	want, err := BuildOfferTable(ctx, db, book, q)
	if err != nil {
		t.Fatal(err)
	}
	var got []OfferTableRow
	if _, err := buildOfferTable(ctx, db, book, q, func(r *OfferTableRow) { got = append(got, *r) }); err != nil {
		t.Fatal(err)
	}
	moved := 0
	for i := range want.Rows {
		if want.Rows[i].Move30d.Valid {
			moved++
		}
		want.Rows[i].Move30d = NullDecimal{}
		want.Rows[i].order = 0
	}
	if moved == 0 {
		t.Fatal("no row of the fixture's table has a 30-day move")
	}
	// Handed over as read, not in the table's order.
	byKey := func(a, b OfferTableRow) int { return strings.Compare(a.Key().String(), b.Key().String()) }
	slices.SortFunc(got, byKey)
	slices.SortFunc(want.Rows, byKey)
	if !reflect.DeepEqual(got, want.Rows) {
		t.Errorf("the visited rows differ from the table's by more than the moves:\n got %+v\nwant %+v", got, want.Rows)
	}
}
