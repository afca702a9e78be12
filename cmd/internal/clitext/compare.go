package clitext

import "github.com/pricewatch/pricewatch/analysis"

// The compare table's column rules.

// AnyMarketplace reports whether any row is a marketplace host's machine
// (the MARKET column is shown then).
func AnyMarketplace(sets ...[]analysis.CompareRow) bool {
	for _, rows := range sets {
		for _, r := range rows {
			if r.Marketplace {
				return true
			}
		}
	}
	return false
}

// MarketShort is the MARKET cell.
func MarketShort(m bool) string {
	if m {
		return "yes"
	}
	return "-"
}

// MixedPriceTypes reports whether the rows buy in more than one way (the
// BUY column is shown then).
func MixedPriceTypes(sets ...[]analysis.CompareRow) bool {
	seen := map[string]bool{}
	for _, rows := range sets {
		for _, r := range rows {
			seen[BuyLabel(r.Offer)] = true
		}
	}
	return len(seen) > 1
}

// AnyBand reports whether any row has a spot interruption or eviction
// band (the BAND column is shown then).
func AnyBand(rows []analysis.CompareRow) bool {
	for _, r := range rows {
		if Band(r) != "" {
			return true
		}
	}
	return false
}

// Band is what a spot row's BAND cell says: the AWS Spot Advisor
// interruption band, else the Azure eviction band (a row has at most one:
// they come from different clouds), "" when none is stored.
func Band(r analysis.CompareRow) string {
	if r.InterruptionBand != "" {
		return r.InterruptionBand
	}
	return r.EvictionBand
}
