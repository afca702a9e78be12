package pricewatch

import "testing"

func TestHowBought(t *testing.T) {
	tests := []struct {
		key  OfferKey
		want string
	}{
		{OfferKey{PriceType: OnDemand}, "on-demand"},
		{OfferKey{PriceType: Spot}, "spot"},
		{OfferKey{PriceType: Reserved, Term: "1y", Payment: AllUpfront, OfferingClass: Standard}, "reserved 1y all upfront standard"},
		{OfferKey{PriceType: Reserved, Term: "1y", Payment: AllUpfront, OfferingClass: Convertible}, "reserved 1y all upfront convertible"},
		{OfferKey{PriceType: Reserved, Term: "1m", Payment: AllUpfront}, "reserved 1m all upfront"},
		{OfferKey{PriceType: SavingsPlan, Term: "3y", Payment: NoUpfront, OfferingClass: EC2InstanceSavingsPlan}, "savings plan 3y no upfront ec2 instance"},
		{OfferKey{PriceType: OnDemand, OfferingClass: "community"}, "on-demand community"},
		{OfferKey{PriceType: CapacityBlockPrice, Term: "7d", Payment: AllUpfront}, "capacity block 7d all upfront"},
	}
	for _, tt := range tests {
		if got := tt.key.HowBought(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.key, got, tt.want)
		}
	}
}

// TestPlace: a zonal price or stock is named by its zone, a regional one
// by its region.
func TestPlace(t *testing.T) {
	if got := Place("ap-guangzhou", "ap-guangzhou-3"); got != "ap-guangzhou-3" {
		t.Errorf("zonal: %q", got)
	}
	if got := Place("eastus", ""); got != "eastus" {
		t.Errorf("regional: %q", got)
	}
}
