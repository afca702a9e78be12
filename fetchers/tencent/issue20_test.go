package tencent

import (
	"testing"

	"github.com/pricewatch/pricewatch/fetchers"

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

// Issue 20 item 5: one failed optional call (a one- or three-year
// inquiry, or DescribeImages) no longer fails the whole run. The listings'
// prices are stored; the region whose reserved prices are short is covered
// for on-demand and spot only, so no stored reserved price is closed; one
// warning says what happened. Answers are the real error shape and run1's
// real-format listings; the malformed inquiry bodies are the real
// InquiryPriceRunInstances shape with fields left out.
func TestFailedOptionalInquiryKeepsTheRun(t *testing.T) {
	reserved := func(region, zone, typ, term string) string {
		return pricewatch.OfferKey{Provider: "tencent", Region: region, Zone: zone, InstanceType: typ, PriceType: pricewatch.Reserved,
			Term: term, Payment: pricewatch.AllUpfront, OS: "linux"}.String()
	}
	tests := []struct {
		name  string
		setup func(*tencenttest.Server)
		// short are the regions whose reserved prices are not complete.
		short []string
		// missing offers (the failed terms); kept are stored regardless.
		missing, kept []string
	}{
		{"a 1-year inquiry fails", func(s *tencenttest.Server) {
			s.SetInquiry("ap-shanghai", "ap-shanghai-8", "GT4.41XLARGE948", 12, "InternalError")
		}, []string{"ap-shanghai"},
			[]string{reserved("ap-shanghai", "ap-shanghai-8", "GT4.41XLARGE948", "1y")},
			[]string{reserved("ap-shanghai", "ap-shanghai-8", "GT4.41XLARGE948", "3y"), reserved("ap-guangzhou", "ap-guangzhou-6", "GN10Xp.20XLARGE320", "3y")}},
		{"a 3-year inquiry is refused", func(s *tencenttest.Server) {
			s.SetInquiry("ap-guangzhou", "ap-guangzhou-6", "GN10Xp.20XLARGE320", 36, "UnauthorizedOperation")
		}, []string{"ap-guangzhou"},
			[]string{reserved("ap-guangzhou", "ap-guangzhou-6", "GN10Xp.20XLARGE320", "3y")},
			[]string{reserved("ap-shanghai", "ap-shanghai-8", "GT4.41XLARGE948", "1y")}},
		{"DescribeImages unavailable", func(s *tencenttest.Server) {
			s.Override("DescribeImages", `{"Response":{"Error":{"Code":"UnsupportedOperation","Message":"DescribeImages is not available"},"RequestId":"x"}}`)
		}, []string{"ap-guangzhou", "ap-shanghai"},
			[]string{reserved("ap-shanghai", "ap-shanghai-8", "GT4.41XLARGE948", "1y"), reserved("ap-guangzhou", "ap-guangzhou-6", "GN10Xp.20XLARGE320", "3y")},
			[]string{reserved("ap-shanghai", "ap-shanghai-8", "GN7.LARGE20", "1y")}},
		{"an inquiry answer without a price", func(s *tencenttest.Server) {
			s.Override("InquiryPriceRunInstances", `{"Response":{"RequestId":"x"}}`)
		}, []string{"ap-guangzhou", "ap-shanghai"},
			[]string{reserved("ap-shanghai", "ap-shanghai-8", "GT4.41XLARGE948", "3y")}, nil},
		{"an inquiry total below a month", func(s *tencenttest.Server) {
			s.Override("InquiryPriceRunInstances", `{"Response":{"Price":{"InstancePrice":{"DiscountPrice":6900,"ChargeUnit":"HOUR"}},"RequestId":"x"}}`)
		}, []string{"ap-guangzhou", "ap-shanghai"},
			[]string{reserved("ap-shanghai", "ap-shanghai-8", "GT4.41XLARGE948", "1y")}, nil},
	}
	onDemand := pricewatch.OfferKey{Provider: "tencent", Region: "ap-shanghai", Zone: "ap-shanghai-8", InstanceType: "GT4.41XLARGE948",
		PriceType: pricewatch.OnDemand, OS: "linux"}.String()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := newFake(t, "testdata/run1")
			tc.setup(fake)
			r := newRig(t, fake.URL(), nil)
			snap, err := r.f.Fetch(t.Context(), fetchers.Previous{})
			if err != nil {
				t.Fatalf("Fetch failed the whole run: %v", err)
			}
			offers := offerByKey(snap)
			for _, k := range append([]string{onDemand}, tc.kept...) {
				if _, ok := offers[k]; !ok {
					t.Errorf("%s not stored", k)
				}
			}
			for _, k := range tc.missing {
				if _, ok := offers[k]; ok {
					t.Errorf("%s stored although its inquiry failed", k)
				}
			}
			short := map[string]bool{}
			for _, region := range tc.short {
				short[region] = true
			}
			for _, s := range snap.Coverage {
				if !s.CoversOffer(s.Region, pricewatch.OnDemand) || !s.CoversOffer(s.Region, pricewatch.Spot) || !s.Availability {
					t.Errorf("%s: on-demand, spot and stock must stay covered: %+v", s.Region, s)
				}
				if got := s.CoversOffer(s.Region, pricewatch.Reserved); got == short[s.Region] {
					t.Errorf("%s covers reserved prices: %v, want %v", s.Region, got, !short[s.Region])
				}
			}
			if n := r.logs.FilterMessageSnippet("could not be asked").Len(); n != 1 {
				t.Errorf("%d warnings about the failed calls, want one", n)
			}
			r.checkLogs(t)
		})
	}
}
