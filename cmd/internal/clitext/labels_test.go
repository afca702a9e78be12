package clitext

import (
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch"
)

func TestBuyLabel(t *testing.T) {
	cases := []struct {
		offer pricewatch.Offer
		want  string
	}{
		{pricewatch.Offer{PriceType: pricewatch.OnDemand}, "on-demand"},
		{pricewatch.Offer{PriceType: pricewatch.Spot, OfferingClass: pricewatch.Convertible}, "spot"},
		{pricewatch.Offer{PriceType: pricewatch.Reserved, Term: "3y", Payment: pricewatch.AllUpfront}, "RI 3y all"},
		{pricewatch.Offer{PriceType: pricewatch.Reserved, Term: "1y", Payment: pricewatch.PartialUpfront, OfferingClass: pricewatch.Convertible}, "RI 1y partial conv"},
		{pricewatch.Offer{PriceType: pricewatch.SavingsPlan, Term: "3y", Payment: pricewatch.NoUpfront, OfferingClass: pricewatch.EC2InstanceSavingsPlan}, "SP 3y none ec2"},
		// A payment the table has no abbreviation for is printed as it is.
		{pricewatch.Offer{PriceType: pricewatch.Reserved, Term: "1y", Payment: "monthly"}, "RI 1y monthly"},
		{pricewatch.Offer{PriceType: "preemptible"}, "preemptible"},
		// GCP's Dynamic Workload Scheduler prices are not on-demand's.
		{pricewatch.Offer{PriceType: pricewatch.OnDemand, OfferingClass: pricewatch.FlexStart}, "on-demand flex-start"},
		{pricewatch.Offer{PriceType: pricewatch.OnDemand, OfferingClass: pricewatch.CalendarMode}, "on-demand calendar mode"},
	}
	for _, c := range cases {
		if got := BuyLabel(c.offer); got != c.want {
			t.Errorf("BuyLabel(%+v) = %q, want %q", c.offer, got, c.want)
		}
	}
}

// The legend explains exactly the abbreviations the offers' labels use.
func TestWriteBuyLegend(t *testing.T) {
	var b strings.Builder
	WriteBuyLegend(&b, []pricewatch.Offer{{PriceType: pricewatch.OnDemand}}, 0)
	if b.String() != "" {
		t.Errorf("on-demand alone needs no legend: %q", b.String())
	}
	b.Reset()
	WriteBuyLegend(&b, []pricewatch.Offer{{PriceType: pricewatch.Reserved, Payment: pricewatch.AllUpfront, OfferingClass: pricewatch.Convertible}}, 0)
	for _, want := range []string{"RI = ", "all/partial/none = ", "conv = "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("legend lacks %q: %q", want, b.String())
		}
	}
	if strings.Contains(b.String(), "SP = ") || strings.Contains(b.String(), "ec2 = ") {
		t.Errorf("legend explains what is not shown: %q", b.String())
	}
}
