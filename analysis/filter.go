package analysis

import (
	"strings"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/clouds"
)

// Seller says whose capacity an answer may name (issue 31 item 1): the
// clouds' own ("cloud"), third-party hosts' machines on a marketplace
// ("marketplace", see clouds.IsMarketplace), or both ("any", also "").
// A company that cannot buy from a marketplace asks for cloud, and no
// answer then leads with a host's single-GPU box.
type Seller string

// Seller values, as --seller and the seller parameter take them.
const (
	SellerAny         Seller = "any"
	SellerCloud       Seller = "cloud"
	SellerMarketplace Seller = "marketplace"
)

// Sellers are the values in the order help texts list them.
var Sellers = []Seller{SellerCloud, SellerMarketplace, SellerAny}

// Valid reports whether s is a seller value ("" is any).
func (s Seller) Valid() bool {
	switch s {
	case "", SellerAny, SellerCloud, SellerMarketplace:
		return true
	}
	return false
}

// Keeps reports whether a row sold through a marketplace (marketplace
// true) or by the cloud itself is wanted.
func (s Seller) Keeps(marketplace bool) bool {
	switch s {
	case SellerCloud:
		return !marketplace
	case SellerMarketplace:
		return marketplace
	}
	return true
}

// KeepsOffer is Keeps for an offer (or availability record) of a provider
// and offering class.
func (s Seller) KeepsOffer(provider, offeringClass string) bool {
	if s == "" || s == SellerAny {
		return true
	}
	return s.Keeps(clouds.IsMarketplace(provider, offeringClass))
}

// Hardware bounds what a machine must have (issue 31 item 2), as gpuhunt's
// query() does: each zero bound keeps everything. A machine whose figure
// the cloud does not state is left out by a bound on that figure: unknown
// is never taken to be enough.
type HardwareFilter struct {
	// MinGPUMemoryGB is per GPU; MinMemoryGB the machine's RAM.
	MinGPUMemoryGB float64
	MinVCPUs       int
	MinMemoryGB    float64
	// Interconnect must occur, without regard to case, in the interconnect
	// the cloud states ("efa", "infiniband", "nvlink", "3200").
	Interconnect string
	// MaxPrice bounds the converted price: per instance-hour, or per
	// GPU-hour when MaxPricePerGPU. Null: no bound.
	MaxPrice       decimal.NullDecimal
	MaxPricePerGPU bool
}

// Zero reports whether f bounds nothing.
func (f HardwareFilter) Zero() bool {
	return f.MinGPUMemoryGB <= 0 && f.MinVCPUs <= 0 && f.MinMemoryGB <= 0 && strings.TrimSpace(f.Interconnect) == "" && !f.MaxPrice.Valid
}

// KeepsMachine reports whether the machine meets every hardware bound
// (the price bound is KeepsPrice's).
func (f HardwareFilter) KeepsMachine(h pricewatch.Hardware) bool {
	if f.MinGPUMemoryGB > 0 && h.GPUMemoryGB < f.MinGPUMemoryGB {
		return false
	}
	if f.MinVCPUs > 0 && h.VCPUs < f.MinVCPUs {
		return false
	}
	if f.MinMemoryGB > 0 && h.MemoryGB < f.MinMemoryGB {
		return false
	}
	if w := strings.ToLower(strings.TrimSpace(f.Interconnect)); w != "" && !strings.Contains(strings.ToLower(h.Interconnect), w) {
		return false
	}
	return true
}

// KeepsPrice reports whether a converted price is within MaxPrice: the
// instance-hour price, or the GPU-hour price with MaxPricePerGPU.
func (f HardwareFilter) KeepsPrice(perHour, perGPUHour decimal.Decimal) bool {
	if !f.MaxPrice.Valid {
		return true
	}
	if f.MaxPricePerGPU {
		return !perGPUHour.GreaterThan(f.MaxPrice.Decimal)
	}
	return !perHour.GreaterThan(f.MaxPrice.Decimal)
}
