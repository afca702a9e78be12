// Package pricewatch holds the domain types every other package speaks:
// the normalised GPU offer, availability records, the snapshot a fetcher
// returns, and the money arithmetic that must never round silently.
//
// It imports nothing but the standard library and the decimal type, so
// fetchers, storage, analysis and alerting can all depend on it without
// depending on each other.
package pricewatch

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/shopspring/decimal"
)

// Provider names as they appear in config keys, storage and output.
const (
	AWS     = "aws"
	Azure   = "azure"
	Alibaba = "alibaba"
	Tencent = "tencent"
	Lambda  = "lambda"
	RunPod  = "runpod"
	// VastAI is a marketplace of hosts' machines (see clouds.IsMarketplace).
	VastAI = "vastai"
	// OCI is Oracle Cloud Infrastructure's public list price.
	OCI = "oci"
	// AWSChina is AWS in the China regions (Beijing, Ningxia): its own
	// partition and price list, in CNY, bought separately from AWS.
	AWSChina = "aws-cn"
	// Shadeform is an aggregator reselling other clouds' machines (see
	// clouds.IsMarketplace); each offer's OfferingClass names the cloud
	// the machine runs in.
	Shadeform = "shadeform"
	// Verda is the cloud formerly called DataCrunch.
	Verda = "verda"
	// OVHcloud is OVHcloud's public cloud catalogue.
	OVHcloud = "ovhcloud"
	// GCP is Google Cloud's Compute Engine, priced from the Cloud Billing
	// Catalog API.
	GCP = "gcp"
	// AzureChina is Azure operated by 21Vianet: its own price sheet, in
	// CNY, bought separately from Azure.
	AzureChina = "azure-cn"
	// Huawei is Huawei Cloud's ECS GPU flavors (price inquiry API).
	Huawei = "huawei"
	// Scaleway is Scaleway's Instance product catalogue, per zone, in EUR.
	Scaleway = "scaleway"
	// Vultr is Vultr's plan and bare-metal plan lists.
	Vultr = "vultr"
	// DigitalOcean is DigitalOcean's GPU Droplet sizes.
	DigitalOcean = "digitalocean"
	// CoreWeave: list prices from price sheets (its page states them),
	// Capacity Finder as a confidential availability signal.
	CoreWeave = "coreweave"
	// Crusoe: capacities from its API, list prices from price sheets.
	Crusoe = "crusoe"
	// Hyperstack is NexGen Cloud's Infrahub API (flavors, pricebook,
	// stocks).
	Hyperstack = "hyperstack"
	// Volcengine is ByteDance's cloud: ECS GPU types and stock per zone
	// from its API, prices from price sheets.
	Volcengine = "volcengine"
	// Nebius is Nebius AI Cloud's billing calculator (gRPC).
	Nebius = "nebius"
)

// PriceType says how capacity is bought.
type PriceType string

const (
	OnDemand    PriceType = "on_demand"
	Spot        PriceType = "spot"
	Reserved    PriceType = "reserved"
	SavingsPlan PriceType = "savings_plan"
	// CapacityBlock is an EC2 Capacity Block for ML bought as a price
	// (issue 23 item 3): one instance for a window of whole days, paid all
	// upfront. Term is the duration in days ("1d", "7d"), Payment
	// all_upfront, Upfront the fee for one instance, Hourly 0 and Zone the
	// block's availability zone, so EffectiveHourly is fee ÷ hours and the
	// per-GPU-hour price fee ÷ (hours × GPUs). It is a one-time purchase,
	// not a commitment discount: IsCommitment is false for it.
	CapacityBlockPrice PriceType = "capacity_block"
)

// PriceTypes lists every price type in display order.
var PriceTypes = []PriceType{OnDemand, Spot, Reserved, SavingsPlan, CapacityBlockPrice}

// ListedPriceTypes are the price types a cloud's price list or catalogue
// prices: what a fetcher's coverage may list. A capacity block is an
// offering read by a request of its own (EC2 DescribeCapacityBlockOfferings)
// under a scope of its own, so no price list's coverage claims it.
var ListedPriceTypes = []PriceType{OnDemand, Spot, Reserved, SavingsPlan}

// Valid reports whether p is one of the known price types.
func (p PriceType) Valid() bool {
	for _, k := range PriceTypes {
		if p == k {
			return true
		}
	}
	return false
}

// IsCommitment reports whether the price needs a term commitment.
func (p PriceType) IsCommitment() bool { return p == Reserved || p == SavingsPlan }

// HasTerm reports whether offers of the price type carry a term (and may
// carry an upfront payment): the commitments, and capacity blocks, whose
// term is their window's length.
func (p PriceType) HasTerm() bool { return p.IsCommitment() || p == CapacityBlockPrice }

// Payment options for commitments.
const (
	NoUpfront      = "no_upfront"
	PartialUpfront = "partial_upfront"
	AllUpfront     = "all_upfront"
)

// Offering classes (AWS reserved instances; savings-plan kinds).
const (
	Standard    = "standard"
	Convertible = "convertible"
	// ComputeSavingsPlan and EC2InstanceSavingsPlan tell AWS's two savings
	// plan kinds apart; both apply to the same instance type and term, so
	// without them two different prices would share one key.
	ComputeSavingsPlan     = "compute"
	EC2InstanceSavingsPlan = "ec2_instance"
	// FlexStart and CalendarMode are Google Cloud's Dynamic Workload
	// Scheduler models, sold beside on-demand at their own prices and
	// stored as on_demand with this class: flex-start (the catalogue's
	// "DWS Defined Duration": queued, runs up to seven days) and calendar
	// mode (capacity booked ahead for a fixed number of days).
	FlexStart    = "flex_start"
	CalendarMode = "calendar_mode"
)

// Operating systems kept apart: Linux is what users compare.
const (
	Linux   = "linux"
	Windows = "windows"
)

// Hardware is what a GPU buyer compares between instance types.
type Hardware struct {
	// GPUModel is one normalised name per model ("H100", "A100-80GB",
	// "MI300X"); see package gpu: the catalogue names, or the cloud's own
	// name for a GPU the resolver could not identify (gpu.Resolve).
	GPUModel string
	// GPUCount may be fractional: a vGPU slice (Tencent GN7 vGPU, Azure
	// NVadsA10 v5) is sold as a share of one card.
	GPUCount float64
	// GPUMemoryGB is per GPU (or per slice for fractional GPUs).
	GPUMemoryGB float64
	VCPUs       int
	MemoryGB    float64
	// Interconnect is the network or GPU interconnect as the cloud states
	// it for this type ("3200 Gigabit", "NVLink"); LocalStorage is its
	// local disk ("8 x 3800 GB NVMe SSD", "none (EBS only)"). Both are ""
	// where the cloud's answer does not say: they are never inferred from
	// the GPU model or the family.
	// omitempty: records (and golden files) of clouds that state neither
	// read as before.
	Interconnect string `json:",omitempty"`
	LocalStorage string `json:",omitempty"`
}

// Offer is one purchasable price point, normalised across clouds.
//
// Hourly and Upfront are exact decimals in the cloud's own currency.
// EffectiveHourly is derived (see EffectiveHourly) and stored alongside
// so that readers never recompute it differently.
type Offer struct {
	Provider      string
	Region        string // the cloud's own region code
	Zone          string // empty when the price is regional
	InstanceType  string // the cloud's own name
	PriceType     PriceType
	Term          string // "1m", "1y", "3y"; a capacity block's "1d", "7d"; empty for on-demand and spot
	Payment       string // no_upfront, partial_upfront, all_upfront; empty where none
	OfferingClass string // standard/convertible, compute/ec2_instance; empty where none
	OS            string // linux or windows
	Currency      string // ISO 4217, as the cloud gave it
	Hourly        decimal.Decimal
	Upfront       decimal.Decimal
	Hardware
	// CloudIDs are the cloud's own names for what is priced; they are not
	// part of the key (a cloud may renumber a SKU without it becoming
	// another thing for sale).
	CloudIDs
}

// CloudIDs are the cloud's own identifiers of an offer, so that a price
// can be joined with the cloud's bills and price sheets. Each is empty
// where the cloud's API has no such field (Alibaba's and Tencent's price
// APIs carry none, nor does AWS's spot feed); none is ever made up.
type CloudIDs struct {
	// SkuID is the product the price belongs to: AWS's product `sku`
	// (for a savings-plan rate, the `discountedSku` it applies to), Azure's
	// `skuId`.
	SkuID string
	// SkuPriceID is the price itself: AWS's `rateCode` (SKU.OfferTermCode.
	// RateCode; the hourly dimension of a reservation; a savings plan's
	// rate code), Azure's `meterId` (the meter bills carry; reservations
	// and savings plans are priced on the VM's meter).
	SkuPriceID string
	// ProductID is Azure's `productId`.
	ProductID string
	// RegionName is the cloud's display name of the region (Azure's
	// `location`, AWS's `location` attribute).
	RegionName string
}

// Key identifies the price point across fetches: two offers with the same
// key are the same thing for sale, possibly at a different price.
func (o Offer) Key() OfferKey {
	return OfferKey{
		Provider: o.Provider, Region: o.Region, Zone: o.Zone,
		InstanceType: o.InstanceType, PriceType: o.PriceType, Term: o.Term,
		Payment: o.Payment, OfferingClass: o.OfferingClass, OS: o.OS,
	}
}

// OfferKey is the identity part of an Offer.
type OfferKey struct {
	Provider, Region, Zone, InstanceType string
	PriceType                            PriceType
	Term, Payment, OfferingClass, OS     string
}

// Place is where people look for an offer or a stock state: the zone when
// it is zonal, else the region.
func Place(region, zone string) string {
	if zone != "" {
		return zone
	}
	return region
}

func (k OfferKey) String() string {
	parts := []string{k.Provider, k.Region, k.Zone, k.InstanceType, string(k.PriceType), k.Term, k.Payment, k.OfferingClass, k.OS}
	return strings.Join(parts, "/")
}

// EffectiveHourly is the hourly price plus the upfront payment spread over
// every hour of the term.
func (o Offer) EffectiveHourly() (decimal.Decimal, error) {
	return EffectiveHourly(o.Hourly, o.Upfront, o.Term)
}

// Validate rejects offers that would poison the history: an unknown price
// type, a missing currency, a negative price, or a commitment without a term.
// A zero price is allowed only where an upfront fee carries the cost (AWS All
// Upfront reservations bill 0.00 per hour).
// IsCurrencyCode reports whether s has the shape of an ISO 4217 code.
func IsCurrencyCode(s string) bool {
	if len(s) != 3 {
		return false
	}
	for _, r := range s {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}

// regionCode is the shape every cloud's region and zone codes share:
// letters and digits in words joined by hyphens, underscores or dots
// (eastus, us-east-1, cn-hangzhou-h, EU-RO-1, a Vast.ai country JP), at
// most 64 characters. Spaces, slashes, quotes and control characters are
// never part of one.
var regionCode = regexp.MustCompile(`^[A-Za-z0-9]+([-_.][A-Za-z0-9]+)*$`)

// IsRegionCode reports whether s has the shape of a region or zone code.
func IsRegionCode(s string) bool { return len(s) <= 64 && regionCode.MatchString(s) }

func (o Offer) Validate() error {
	if o.Provider == "" || o.Region == "" || o.InstanceType == "" {
		return fmt.Errorf("offer %s: provider, region and instance type are required", o.Key())
	}
	if !o.PriceType.Valid() {
		return fmt.Errorf("offer %s: unknown price type %q", o.Key(), o.PriceType)
	}
	if !IsCurrencyCode(o.Currency) {
		return fmt.Errorf("offer %s: currency %q is not an ISO 4217 code (three capital letters)", o.Key(), o.Currency)
	}
	if !IsRegionCode(o.Region) || (o.Zone != "" && !IsRegionCode(o.Zone)) {
		return fmt.Errorf("offer %s: region %q / zone %q is not a region code (letters and digits joined by hyphens)", o.Key(), o.Region, o.Zone)
	}
	if o.OS != Linux && o.OS != Windows {
		return fmt.Errorf("offer %s: operating system must be %q or %q, not %q", o.Key(), Linux, Windows, o.OS)
	}
	if o.Hourly.IsNegative() || o.Upfront.IsNegative() {
		return fmt.Errorf("offer %s: negative price", o.Key())
	}
	for _, a := range []decimal.Decimal{o.Hourly, o.Upfront} {
		if err := CheckMagnitude(a); err != nil {
			return fmt.Errorf("offer %s: %w", o.Key(), err)
		}
	}
	if o.PriceType.HasTerm() {
		if _, err := TermHours(o.Term); err != nil {
			return fmt.Errorf("offer %s: %w", o.Key(), err)
		}
	} else if o.Term != "" || !o.Upfront.IsZero() {
		return fmt.Errorf("offer %s: %s prices have no term or upfront payment", o.Key(), o.PriceType)
	}
	// A capacity block is one window of whole days in one zone, paid all
	// upfront; anything else under its type would be compared as a block
	// while being something else.
	if o.PriceType == CapacityBlockPrice && (!strings.HasSuffix(o.Term, "d") || o.Zone == "" || o.Payment != AllUpfront || !o.Hourly.IsZero()) {
		return fmt.Errorf("offer %s: a capacity block needs a term in days, a zone, payment %s and no hourly price", o.Key(), AllUpfront)
	}
	if o.PriceType != CapacityBlockPrice && strings.HasSuffix(o.Term, "d") {
		return fmt.Errorf("offer %s: terms in days belong to capacity blocks only", o.Key())
	}
	if o.Hourly.IsZero() && o.Upfront.IsZero() {
		return fmt.Errorf("offer %s: zero price (a missing price must be left out, never stored as 0)", o.Key())
	}
	return nil
}
