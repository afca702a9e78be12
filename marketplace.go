package pricewatch

// OfferingClass values of marketplace offers (which offers are sold
// through a marketplace is package clouds' table: clouds.IsMarketplace).
const (
	// Community is RunPod's Community Cloud: machines of third-party hosts,
	// sold next to RunPod's own Secure Cloud.
	Community = "community"
)
