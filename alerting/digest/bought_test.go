package digest

import (
	"testing"

	"github.com/pricewatch/pricewatch"
)

// A convertible reservation never reads as a standard one in the digest.
func TestBuyLabelNamesTheOfferingClass(t *testing.T) {
	std := pricewatch.OfferKey{Provider: "aws", PriceType: pricewatch.Reserved, Term: "3y", Payment: pricewatch.PartialUpfront, OfferingClass: pricewatch.Standard}
	conv := std
	conv.OfferingClass = pricewatch.Convertible
	if a, b := keyBuyLabel(std), keyBuyLabel(conv); a == b || b != "reserved 3y partial upfront convertible" {
		t.Errorf("standard %q, convertible %q", a, b)
	}
}
