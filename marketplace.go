package pricewatch

// OfferingClass values of marketplace offers.
const (
	// Community is RunPod's Community Cloud: machines of third-party hosts,
	// sold next to RunPod's own Secure Cloud.
	Community = "community"
)

// IsMarketplace reports whether offers of this provider and offering class
// are sold by third-party hosts through a marketplace rather than by the
// cloud itself. A marketplace machine may be interrupted or withdrawn by its
// host, its reliability varies per host, and the marketplace's own terms
// apply; comparisons keep that visible instead of ranking it silently next
// to a cloud's price.
//
// Vast.ai is a marketplace throughout. RunPod's Community Cloud (offering
// class "community") is one; its Secure Cloud is RunPod's own data centres.
func IsMarketplace(provider, offeringClass string) bool {
	switch provider {
	case VastAI:
		return true
	case RunPod:
		return offeringClass == Community
	}
	return false
}
