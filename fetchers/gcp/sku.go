package gcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
)

// sku is one entry of services.skus.list, as the Catalog API documents
// it (https://cloud.google.com/billing/docs/reference/rest/v1/services.skus/list).
type sku struct {
	Name        string `json:"name"`
	SkuID       string `json:"skuId"`
	Description string `json:"description"`
	Category    *struct {
		ResourceFamily string `json:"resourceFamily"`
		ResourceGroup  string `json:"resourceGroup"`
		UsageType      string `json:"usageType"`
	} `json:"category"`
	ServiceRegions []string      `json:"serviceRegions"`
	PricingInfo    []pricingInfo `json:"pricingInfo"`
}

type pricingInfo struct {
	EffectiveTime     string             `json:"effectiveTime"`
	PricingExpression *pricingExpression `json:"pricingExpression"`
}

type pricingExpression struct {
	UsageUnit string `json:"usageUnit"`
	BaseUnit  string `json:"baseUnit"`
	// BaseUnitConversionFactor is how many base units one usage unit is
	// (3600 seconds in an hour); absent in some answers.
	BaseUnitConversionFactor *json.Number `json:"baseUnitConversionFactor"`
	TieredRates              []tier       `json:"tieredRates"`
}

type tier struct {
	StartUsageAmount json.Number `json:"startUsageAmount"`
	UnitPrice        *money      `json:"unitPrice"`
}

// money is google.type.Money: units is an int64 written as a JSON
// string, nanos the billionths (same sign as units).
type money struct {
	CurrencyCode string      `json:"currencyCode"`
	Units        json.Number `json:"units"`
	Nanos        json.Number `json:"nanos"`
}

// value is units + nanos/10⁹, exact.
func (m money) value() (decimal.Decimal, error) {
	units, nanos := decimal.Zero, decimal.Zero
	var err error
	if m.Units != "" {
		if units, err = decimal.NewFromString(m.Units.String()); err != nil || !units.IsInteger() {
			return decimal.Decimal{}, fmt.Errorf("units %q is not an integer", m.Units)
		}
	}
	if m.Nanos != "" {
		n, err := strconv.ParseInt(m.Nanos.String(), 10, 32)
		if err != nil || n <= -1e9 || n >= 1e9 {
			return decimal.Decimal{}, fmt.Errorf("nanos %q is not in (-10⁹, 10⁹)", m.Nanos)
		}
		nanos = decimal.New(n, -9)
	}
	if (units.IsPositive() && nanos.IsNegative()) || (units.IsNegative() && nanos.IsPositive()) {
		return decimal.Decimal{}, fmt.Errorf("units %s and nanos %s differ in sign", units, nanos)
	}
	return units.Add(nanos), nil
}

// listPrice is the SKU's price per usage unit: of the pricing in effect
// at now (the latest effectiveTime not after it), the tier that starts at
// 0, which is the list price (later tiers are volume discounts on usage
// an account aggregates, not what one machine costs).
func listPrice(ps []pricingInfo, now time.Time) (pricingExpression, money, decimal.Decimal, error) {
	var best *pricingInfo
	var bestAt time.Time
	for i := range ps {
		p := &ps[i]
		at, err := time.Parse(time.RFC3339Nano, p.EffectiveTime)
		if err != nil {
			return pricingExpression{}, money{}, decimal.Decimal{}, fmt.Errorf("effectiveTime %q: %v", p.EffectiveTime, err)
		}
		if at.After(now) || p.PricingExpression == nil {
			continue // not yet in effect: never stored as today's price
		}
		if best == nil || at.After(bestAt) {
			best, bestAt = p, at
		}
	}
	if best == nil {
		return pricingExpression{}, money{}, decimal.Decimal{}, errors.New("no pricing in effect")
	}
	e := *best.PricingExpression
	for _, t := range e.TieredRates {
		start, err := decimal.NewFromString(t.StartUsageAmount.String())
		if t.StartUsageAmount == "" {
			start, err = decimal.Zero, nil // proto3 JSON leaves a zero out
		}
		if err != nil {
			return pricingExpression{}, money{}, decimal.Decimal{}, fmt.Errorf("startUsageAmount %q: %v", t.StartUsageAmount, err)
		}
		if !start.IsZero() || t.UnitPrice == nil {
			continue
		}
		v, err := t.UnitPrice.value()
		if err != nil {
			return pricingExpression{}, money{}, decimal.Decimal{}, err
		}
		return e, *t.UnitPrice, v, nil
	}
	return pricingExpression{}, money{}, decimal.Decimal{}, errors.New("no tier starting at 0")
}

// Time units a usage unit may be counted in, in seconds. A month is
// Google's 730 hours (its pricing pages convert so).
var timeUnits = map[string]int64{"s": 1, "min": 60, "h": 3600, "d": 86400, "mo": pricewatch.HoursPerMonth * 3600}

// Byte units a RAM SKU may be counted in, in bytes.
var byteUnits = map[string]int64{"MiBy": 1 << 20, "GiBy": 1 << 30, "TiBy": 1 << 40, "MBy": 1e6, "GBy": 1e9, "TBy": 1e12}

const gib = 1 << 30

// perHour turns a price per usage unit into a price per hour (a vCPU-,
// GPU- or slice-hour) or, when memory is set, per GiB-hour. It reads the
// unit from usageUnit and, where the answer gives it, checks
// baseUnitConversionFactor against it: a SKU whose unit is anything else,
// or whose two unit fields disagree, is not priced (never assumed
// hourly).
func perHour(e pricingExpression, price decimal.Decimal, memory bool) (decimal.Decimal, error) {
	unit := e.UsageUnit
	bytes := int64(1)
	if memory {
		size, t, ok := strings.Cut(unit, ".")
		b, known := byteUnits[size]
		if !ok || !known {
			return decimal.Decimal{}, fmt.Errorf("usage unit %q is not a memory size per time", unit)
		}
		bytes, unit = b, t
	}
	secs, ok := timeUnits[unit]
	if !ok {
		return decimal.Decimal{}, fmt.Errorf("usage unit %q is not a time", e.UsageUnit)
	}
	if e.BaseUnitConversionFactor != nil {
		f, err := decimal.NewFromString(e.BaseUnitConversionFactor.String())
		want := decimal.NewFromInt(secs).Mul(decimal.NewFromInt(bytes))
		if err != nil || !f.Equal(want) {
			return decimal.Decimal{}, fmt.Errorf("baseUnitConversionFactor %s of %q (base unit %q), want %s", e.BaseUnitConversionFactor, e.UsageUnit, e.BaseUnit, want)
		}
	}
	// price per (bytes × secs) → per (GiB × 3600 s).
	num := decimal.NewFromInt(3600)
	den := decimal.NewFromInt(secs)
	if memory {
		num = num.Mul(decimal.NewFromInt(gib))
		den = den.Mul(decimal.NewFromInt(bytes))
	}
	v := price.Mul(num)
	if q, r := v.QuoRem(den, 0); r.IsZero() {
		return q, nil
	}
	return v.DivRound(den, pricewatch.RateDecimals+4), nil
}

// mode is how a SKU's capacity is bought.
type mode struct {
	pt    pricewatch.PriceType
	term  string
	class string
}

var (
	onDemand = mode{pt: pricewatch.OnDemand}
	spot     = mode{pt: pricewatch.Spot}
	commit1y = mode{pt: pricewatch.Reserved, term: "1y"}
	commit3y = mode{pt: pricewatch.Reserved, term: "3y"}
	flex     = mode{pt: pricewatch.OnDemand, class: pricewatch.FlexStart}
	calendar = mode{pt: pricewatch.OnDemand, class: pricewatch.CalendarMode}
	// modes in the order offers are built.
	modes = []mode{onDemand, spot, commit1y, commit3y, flex, calendar}
)

// Reasons a SKU is left out, counted in the log.
const (
	skipNotCompute   = "not a Compute resource"
	skipReserved     = "Reserved placeholder"
	skipUsage        = "usage type not priced"
	skipConflict     = "usage type and description disagree"
	skipNotPart      = "not a machine part"
	skipUnknownPart  = "part of no machine type in the table"
	skipBadPrice     = "price or unit not readable"
	skipZero         = "zero price"
	skipNoRegion     = "no serviceRegions"
	skipDuplicate    = "priced twice differently"
	skipUndecodable  = "not a SKU object"
	skipWrongCurrncy = "currency differs from the other parts"
)

// phrase is a wording of a consumption model inside a description.
type phrase struct {
	text string
	m    mode
}

// Description wordings seen in the catalogue: a prefix ("Spot Preemptible
// A3 Instance Core running in Americas") or an infix of GPU SKUs ("Nvidia
// H100 80GB GPU attached to Spot Preemptible VMs running in Americas").
var (
	prefixes = []phrase{
		{"Spot Preemptible ", spot},
		{"DWS Defined Duration ", flex},
		{"DWS Flex Start ", flex},
		{"DWS Calendar Mode ", calendar},
	}
	infixes = []phrase{
		{" attached to Spot Preemptible VMs", spot},
		{" attached to DWS Defined Duration VMs", flex},
		{" attached to DWS Flex Start VMs", flex},
		{" attached to DWS Calendar Mode VMs", calendar},
	}
)

// classify reads how a SKU is bought from its usageType and description
// and returns the description with the consumption-model words removed
// ("A3 Instance Core running in Americas"), or why it is left out.
// usageType is the API's own field; the description must not contradict
// it, except that a spot wording wins over OnDemand (B200 spot SKUs have
// been listed as OnDemand).
func classify(usage, desc string) (mode, string, string) {
	d := strings.TrimSpace(desc)
	if strings.HasPrefix(d, "Reserved ") {
		// "Reserved Nvidia Tesla A100 GPU in Americas" is priced 0: the
		// reservation is billed through the ordinary SKUs.
		return mode{}, "", skipReserved
	}
	switch usage {
	case "Commit1Yr", "Commit3Yr":
		rest, ok := strings.CutPrefix(d, "Commitment v1: ")
		if !ok {
			return mode{}, "", skipConflict
		}
		m, years := commit1y, []string{" for 1 Year"}
		if usage == "Commit3Yr" {
			m, years = commit3y, []string{" for 3 Years", " for 3 Year"}
		}
		for _, y := range years {
			if body, ok := strings.CutSuffix(rest, y); ok {
				return m, body, ""
			}
		}
		return mode{}, "", skipConflict
	case "OnDemand", "Preemptible":
	default:
		return mode{}, "", skipUsage
	}
	m, found := onDemand, false
	for _, p := range prefixes {
		if rest, ok := strings.CutPrefix(d, p.text); ok {
			m, d, found = p.m, rest, true
			break
		}
	}
	if !found {
		for _, p := range infixes {
			if strings.Contains(d, p.text) {
				m, d, found = p.m, strings.Replace(d, p.text, "", 1), true
				break
			}
		}
	}
	if strings.HasPrefix(d, "Commitment") {
		return mode{}, "", skipConflict
	}
	if usage == "Preemptible" {
		if found && m != spot {
			return mode{}, "", skipConflict
		}
		m = spot
	}
	return m, d, ""
}

// part is what a SKU prices: a family's vCPU or GiB of RAM, or one GPU
// (or GPU slice) of a kind.
type part struct {
	kind string // core, ram, gpu
	name string // family ("A3") or GPU SKU name, lower case ("nvidia h100 80gb")
}

const (
	partCore = "core"
	partRAM  = "ram"
	partGPU  = "gpu"
)

// partOf reads the part from the resource group and the description left
// by classify: "A3 Instance Core running in Americas", "A2 Cpu in APAC",
// "Nvidia H100 80GB GPU running in Americas", "A4 Nvidia B200 (1 gpu
// slice) running in Americas". Custom, sole-tenant and other variants
// ("G2 Custom Instance Core") are not a machine type's part.
func partOf(group, body string) (part, bool) {
	name := body
	if i := strings.LastIndex(name, " running in "); i > 0 {
		name = name[:i]
	} else if i := strings.LastIndex(name, " in "); i > 0 {
		name = name[:i]
	}
	name = strings.TrimSpace(name)
	switch group {
	case "CPU", "RAM":
		fam, rest, ok := strings.Cut(name, " ")
		if !ok {
			return part{}, false
		}
		words := map[string][]string{"CPU": {"Instance Core", "Cpu", "Core"}, "RAM": {"Instance Ram", "Ram"}}[group]
		for _, w := range words {
			if rest == w {
				kind := partCore
				if group == "RAM" {
					kind = partRAM
				}
				return part{kind: kind, name: strings.ToLower(fam)}, true
			}
		}
	case "GPU":
		low := strings.ToLower(name)
		if g, ok := strings.CutSuffix(low, " gpu"); ok {
			return part{kind: partGPU, name: g}, true
		}
		if strings.HasSuffix(low, "(1 gpu slice)") {
			return part{kind: partGPU, name: low}, true
		}
	}
	return part{}, false
}
