package pricewatch

// OfferKeyJSON is an offer's key as every JSON and CSV output row carries
// it: the rows embed it, so the nine names (report.Vocabulary's) and their
// order are written once. encoding/json flattens an embedded struct's
// fields into the row at the embed's position.
//
// OfferKey itself stays without JSON tags: queued digest documents in the
// outbox hold OfferKeys in their default JSON form (Go field names), and a
// tag would stop those from decoding.
type OfferKeyJSON struct {
	Provider      string    `json:"provider"`
	Region        string    `json:"region"`
	Zone          string    `json:"zone"`
	InstanceType  string    `json:"instance_type"`
	PriceType     PriceType `json:"price_type"`
	Term          string    `json:"term"`
	Payment       string    `json:"payment"`
	OfferingClass string    `json:"offering_class"`
	OS            string    `json:"os"`
}

// JSON is the key as output rows carry it. The two types have the same
// fields in the same order, so they convert; a field added to one and not
// the other stops this from compiling.
func (k OfferKey) JSON() OfferKeyJSON { return OfferKeyJSON(k) }

// Key is the OfferKey a row names (for a row read back, such as a queued
// alert's item).
func (j OfferKeyJSON) Key() OfferKey { return OfferKey(j) }

// HowBought is the key's HowBought label.
func (j OfferKeyJSON) HowBought() string {
	return HowBought(j.PriceType, j.Term, j.Payment, j.OfferingClass)
}
