package tencent

import (
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers/tencent/tencenttest"
)

// Issue 20 item 4: a POSTPAID_BY_HOUR price block with UnitPrice and no
// UnitPriceDiscount (the shape reported against Tencent's Python SDK) is
// billed at UnitPrice, the list price; the on-demand price was dropped
// silently before. A spot block never falls back to UnitPrice, which is
// the on-demand list price there. The rows are run1's real-format rows
// with the field removed or nulled.
func TestPostpaidUnitPriceWithoutDiscount(t *testing.T) {
	const region, zone, typ = "ap-shanghai", "ap-shanghai-8", "GN7.LARGE20"
	key := func(pt pricewatch.PriceType) string {
		return pricewatch.OfferKey{Provider: "tencent", Region: region, Zone: zone, InstanceType: typ, PriceType: pt, OS: "linux"}.String()
	}
	tests := []struct {
		name       string
		chargeType string
		edit       func(*testing.T, *tencenttest.Server)
		pt         pricewatch.PriceType
		want       string // "" = no offer
	}{
		{"discount present: the discounted price", postpaidByHour, func(t *testing.T, s *tencenttest.Server) {
			s.SetPrice(region, zone, typ, postpaidByHour, "UnitPrice", "1.62")
		}, pricewatch.OnDemand, "1.46"},
		{"UnitPriceDiscount absent: UnitPrice", postpaidByHour, func(t *testing.T, s *tencenttest.Server) {
			s.SetPrice(region, zone, typ, postpaidByHour, "UnitPrice", "1.62")
			s.DropPrice(region, zone, typ, postpaidByHour, false, "UnitPriceDiscount", "UnitPriceDiscountSecondStep", "UnitPriceDiscountThirdStep")
		}, pricewatch.OnDemand, "1.62"},
		{"UnitPriceDiscount null: UnitPrice", postpaidByHour, func(t *testing.T, s *tencenttest.Server) {
			s.SetPrice(region, zone, typ, postpaidByHour, "UnitPrice", "1.62")
			s.DropPrice(region, zone, typ, postpaidByHour, true, "UnitPriceDiscount")
		}, pricewatch.OnDemand, "1.62"},
		{"spot without UnitPriceDiscount: no spot price", spotPaid, func(t *testing.T, s *tencenttest.Server) {
			s.DropPrice(region, zone, typ, spotPaid, false, "UnitPriceDiscount")
		}, pricewatch.Spot, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := newFake(t, "testdata/run1")
			tc.edit(t, fake)
			r := newRig(t, fake.URL(), nil)
			o, ok := offerByKey(fetch(t, r))[key(tc.pt)]
			switch {
			case tc.want == "" && ok:
				t.Errorf("%s stored at %s; a spot row's UnitPrice is the on-demand list price", key(tc.pt), o.Hourly)
			case tc.want != "" && !ok:
				t.Errorf("no %s offer: the on-demand price was dropped", key(tc.pt))
			case ok && o.Hourly.String() != tc.want:
				t.Errorf("%s hourly %s, want %s", key(tc.pt), o.Hourly, tc.want)
			}
		})
	}
}
