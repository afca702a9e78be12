package pricewatch

import "strings"

// Label is the price type as people write it: "on-demand", "spot",
// "reserved", "savings plan".
func (pt PriceType) Label() string {
	switch pt {
	case OnDemand:
		return "on-demand"
	case Spot:
		return "spot"
	case Reserved:
		return "reserved"
	case SavingsPlan:
		return "savings plan"
	case CapacityBlockPrice:
		return "capacity block"
	}
	return string(pt)
}

// HowBought is the one label of how an offer is bought, for every message
// and report that words it: the price type, term, payment and offering
// class, e.g. "on-demand", "reserved 1y all upfront convertible",
// "savings plan 3y no upfront ec2 instance", "spot community". The class is
// always named, so that a convertible reservation never reads as a
// standard one and RunPod's Secure and Community Cloud stay apart.
func HowBought(pt PriceType, term, payment, offeringClass string) string {
	parts := []string{pt.Label()}
	for _, p := range []string{term, strings.ReplaceAll(payment, "_", " "), strings.ReplaceAll(offeringClass, "_", " ")} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " ")
}

// HowBought is the offer key's HowBought label.
func (k OfferKey) HowBought() string {
	return HowBought(k.PriceType, k.Term, k.Payment, k.OfferingClass)
}
