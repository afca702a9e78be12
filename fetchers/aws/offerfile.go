package aws

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/shopspring/decimal"
)

// regionPrices is what one region's EC2 price file yields.
type regionPrices struct {
	Version string // the file's own version field
	// Types are the GPU and accelerator types the file lists in the region
	// (under any operating system or tenancy), with their hardware facts.
	Types map[string]typeFacts
	// Offers are Linux on-demand and reserved prices, without hardware.
	Offers []pricewatch.Offer
	// LinuxSKU maps each GPU type to its plain Linux on-demand product.
	LinuxSKU map[string]string
	// NotYetInEffect counts terms left out because their effectiveDate
	// lies after the fetch.
	NotYetInEffect int
	// RegionName is the region's display name (the products' `location`).
	RegionName string
	// csv is set when the file was read in its CSV form.
	csv bool
}

// errLayout marks a document that parses but does not have the shape of
// an AWS price file.
var errLayout = errors.New("unexpected price file layout")

// Attributes the on-demand filter and hardware need, as indexes into
// productAttrs.val.
const (
	aInstanceType = iota
	aInstanceFamily
	aGPU
	aGPUMemory
	aVCPU
	aMemory
	aNetwork
	aStorage
	aOS
	aTenancy
	aPreInstalledSw
	aCapacityStatus
	aLicenseModel
	aMarketOption
	aOperation
	aRegionCode
	aLocation
	nAttrs
)

// productAttrs collects one product's interesting attributes in a reused
// arena, so that the hundreds of thousands of products in a file cost no
// allocations.
type productAttrs struct {
	arena []byte
	start [nAttrs]int
	end   [nAttrs]int
	set   [nAttrs]bool
}

func (p *productAttrs) reset() {
	p.arena = p.arena[:0]
	p.set = [nAttrs]bool{}
}

func (p *productAttrs) put(i int, v []byte) {
	p.start[i] = len(p.arena)
	p.arena = append(p.arena, v...)
	p.end[i] = len(p.arena)
	p.set[i] = true
}

func (p *productAttrs) get(i int) string {
	if !p.set[i] {
		return ""
	}
	return string(p.arena[p.start[i]:p.end[i]])
}

// is compares without allocating.
func (p *productAttrs) is(i int, want string) bool {
	return p.set[i] && string(p.arena[p.start[i]:p.end[i]]) == want
}

func attrIndex(key []byte) int {
	switch string(key) {
	case "instanceType":
		return aInstanceType
	case "instanceFamily":
		return aInstanceFamily
	case "gpu":
		return aGPU
	case "gpuMemory":
		return aGPUMemory
	case "vcpu":
		return aVCPU
	case "memory":
		return aMemory
	case "networkPerformance":
		return aNetwork
	case "storage":
		return aStorage
	case "operatingSystem":
		return aOS
	case "tenancy":
		return aTenancy
	case "preInstalledSw":
		return aPreInstalledSw
	case "capacitystatus":
		return aCapacityStatus
	case "licenseModel":
		return aLicenseModel
	case "marketoption":
		return aMarketOption
	case "operation":
		return aOperation
	case "regionCode":
		return aRegionCode
	case "location":
		return aLocation
	}
	return -1
}

// plainLinux is the one product per instance type whose price users
// compare: Linux, shared tenancy, nothing pre-installed, capacity used
// (not a capacity-reservation line), no licence, ordinary on-demand market.
// Attributes missing from older files (capacitystatus, licenseModel,
// marketoption before 2019) do not disqualify.
func (p *productAttrs) plainLinux() bool {
	return p.is(aOS, "Linux") &&
		p.is(aTenancy, "Shared") &&
		p.is(aPreInstalledSw, "NA") &&
		(!p.set[aCapacityStatus] || p.is(aCapacityStatus, "Used")) &&
		(!p.set[aLicenseModel] || p.is(aLicenseModel, "No License required")) &&
		(!p.set[aMarketOption] || p.is(aMarketOption, "OnDemand")) &&
		(!p.set[aOperation] || p.is(aOperation, "RunInstances"))
}

// mayBeAccelerated reports whether a product's text holds a "gpu" key or
// the ML ASIC instance family. Both contain a 'g' (gpu", Learnin|g ASIC),
// a letter that occurs a few times per product, so one IndexByte hop from
// 'g' to 'g' finds either.
func mayBeAccelerated(raw []byte) bool {
	const asic = "Learning ASIC"
	const at = len("Learnin") // where the 'g' of asic sits
	for i := 0; ; i++ {
		j := bytes.IndexByte(raw[i:], 'g')
		if j < 0 {
			return false
		}
		i += j
		if bytes.HasPrefix(raw[i:], []byte(`gpu"`)) ||
			i >= at && bytes.HasPrefix(raw[i-at:], []byte(asic)) {
			return true
		}
	}
}

// termKind is the section of `terms` being read.
type termKind int

const (
	onDemandTerms termKind = iota
	reservedTerms
)

// parseOfferFile streams one region's EC2 price file (JSON form) and keeps
// the GPU types and their Linux prices. The file lists `products` before
// `terms` (checked: a file in the other order is rejected rather than read
// into memory), so GPU SKUs are known by the time their terms pass by and
// every other SKU's terms are skipped unparsed.
func parseOfferFile(r io.Reader, region string) (*regionPrices, error) {
	return parseOfferFileAt(r, region, time.Now())
}

// termSeen is the term kept so far for an offer.
type termSeen struct {
	code      string
	effective time.Time // zero when the term has no effectiveDate
	index     int       // in regionPrices.Offers
}

// parseOfferFileAt is parseOfferFile judging terms' effectiveDate at now:
// a term that takes effect later is not the price now, and where two terms
// price one offer the one that took effect later replaced the other. Two
// terms in effect since the same moment (or without dates) that price one
// offer are a broken file: the run fails rather than guess, never keeping
// "the lower".
func parseOfferFileAt(r io.Reader, region string, now time.Time) (*regionPrices, error) {
	s := newScanner(r)
	var sub scanner // reads one captured product
	out := &regionPrices{Types: map[string]typeFacts{}, LinuxSKU: map[string]string{}}
	priced := map[string]string{} // Linux SKU → instance type
	var (
		sawProducts, sawTerms bool
		products, termSKUs    int
		attrs                 productAttrs
		sku                   []byte
		family                []byte
		seen                  = map[pricewatch.OfferKey]termSeen{}
	)

	product := func(key []byte) error {
		sku = append(sku[:0], key...)
		products++
		if c, err := s.next("product"); err != nil {
			return err
		} else if c != '{' {
			return s.fail("product %s is not an object", sku)
		}
		raw, err := s.captureComposite("product")
		if err != nil {
			return err
		}
		// Most products are not GPU types; they are passed over on sight
		// of their bytes (no "gpu" attribute, not an ML ASIC family)
		// without parsing their forty attributes. A product written with
		// escapes is parsed in full, so the test cannot be fooled.
		escaped := s.nextSlash(s.pos-len(raw)) < s.pos
		if !escaped && !mayBeAccelerated(raw) {
			return nil
		}
		family = family[:0]
		attrs.reset()
		sub.reset(raw)
		err = sub.object("product", func(k []byte) error {
			switch string(k) {
			case "productFamily":
				v, err := sub.readString("productFamily")
				family = append(family, v...)
				return err
			case "attributes":
				return sub.object("attributes", func(k []byte) error {
					i := attrIndex(k)
					if i < 0 {
						return sub.skipValue("attributes")
					}
					v, err := sub.readString("attributes")
					if err == nil {
						attrs.put(i, v)
					}
					return err
				})
			}
			return sub.skipValue("product")
		})
		if err != nil {
			return err
		}
		return out.product(&attrs, string(family), string(sku), region, priced)
	}

	termsOf := func(kind termKind) func([]byte) error {
		return func(key []byte) error {
			termSKUs++
			itype, ok := priced[string(key)]
			if !ok {
				return s.skipValue("terms")
			}
			skuName := string(key)
			return s.object("terms of "+skuName, func([]byte) error {
				t, err := parseTerm(s)
				if err != nil {
					return err
				}
				return out.addTerm(seen, kind, region, itype, skuName, t, now)
			})
		}
	}

	err := s.object("price file", func(k []byte) error {
		switch string(k) {
		case "version":
			v, err := s.readString("version")
			out.Version = string(v)
			return err
		case "products":
			if sawTerms {
				return fmt.Errorf("%w: terms come before products", errLayout)
			}
			sawProducts = true
			return s.object("products", product)
		case "terms":
			if !sawProducts {
				return fmt.Errorf("%w: terms come before products, which a streaming reader cannot use", errLayout)
			}
			sawTerms = true
			return s.object("terms", func(k []byte) error {
				switch string(k) {
				case "OnDemand":
					return s.object("OnDemand terms", termsOf(onDemandTerms))
				case "Reserved":
					return s.object("Reserved terms", termsOf(reservedTerms))
				}
				return s.skipValue("terms")
			})
		}
		return s.skipValue("price file")
	})
	if err == nil {
		err = s.finish("price file")
	}
	if err != nil {
		return nil, err
	}
	switch {
	case !sawProducts || products == 0:
		return nil, fmt.Errorf("%w: no products", errLayout)
	case !sawTerms || termSKUs == 0:
		return nil, fmt.Errorf("%w: %d products but no terms", errLayout, products)
	}
	sort.Slice(out.Offers, func(i, j int) bool { return out.Offers[i].Key().String() < out.Offers[j].Key().String() })
	return out, nil
}

// product takes in one product whose attributes are in attrs (either
// form): a GPU or accelerator type of this region is listed in Types, and
// its plain Linux product is the one whose terms are priced.
func (out *regionPrices) product(attrs *productAttrs, family, sku, region string, priced map[string]string) error {
	if !strings.HasPrefix(family, "Compute Instance") || !attrs.set[aInstanceType] {
		return nil
	}
	if attrs.set[aRegionCode] && !attrs.is(aRegionCode, region) {
		return nil // another location (Local Zone) with its own file
	}
	itype := attrs.get(aInstanceType)
	facts, ok := acceleratedFacts(itype, attrs.get(aInstanceFamily), attrs.get(aGPU),
		attrs.get(aGPUMemory), attrs.get(aVCPU), attrs.get(aMemory))
	if !ok {
		return nil
	}
	facts.Network, facts.Storage = attrs.get(aNetwork), attrs.get(aStorage)
	if _, dup := out.Types[itype]; !dup {
		out.Types[itype] = facts
	}
	if attrs.plainLinux() {
		if other, dup := out.LinuxSKU[itype]; dup {
			return fmt.Errorf("%w: %s has two plain Linux products (%s and %s)", errLayout, itype, other, sku)
		}
		out.LinuxSKU[itype] = sku
		priced[sku] = itype
		if out.RegionName == "" {
			out.RegionName = attrs.get(aLocation)
		}
	}
	return nil
}

// addTerm turns one term of a plain Linux GPU product into an offer (either
// form), judging its effectiveDate at now: a later term replaces an
// earlier one, two in effect since the same date fail the file.
func (out *regionPrices) addTerm(seen map[pricewatch.OfferKey]termSeen, kind termKind, region, itype, skuName string, t term, now time.Time) error {
	o, keep, err := t.offer(kind, region, itype)
	if err != nil {
		return fmt.Errorf("%s term %s: %w", skuName, t.code, err)
	}
	if !keep {
		return nil
	}
	eff, err := effectiveDate(t.effective)
	if err != nil {
		return fmt.Errorf("%s term %s: %w", skuName, t.code, err)
	}
	if eff.After(now) {
		out.NotYetInEffect++
		return nil
	}
	o.SkuID, o.RegionName = skuName, out.RegionName
	prev, dup := seen[o.Key()]
	switch {
	case !dup:
		seen[o.Key()] = termSeen{code: t.code, effective: eff, index: len(out.Offers)}
		out.Offers = append(out.Offers, o)
	case eff.After(prev.effective):
		seen[o.Key()] = termSeen{code: t.code, effective: eff, index: prev.index}
		out.Offers[prev.index] = o
	case prev.effective.After(eff):
	default:
		return fmt.Errorf("%w: %s and %s both price %s, in effect since the same date", errLayout, prev.code, t.code, o.Key())
	}
	return nil
}

// term is one offer term of a GPU SKU, parsed in full (these are few).
type term struct {
	effective string // effectiveDate
	code      string // offerTermCode
	lease     string // termAttributes.LeaseContractLength
	class     string // termAttributes.OfferingClass
	purch     string // termAttributes.PurchaseOption
	dims      []priceDimension
}

type priceDimension struct {
	rateCode          string // the dimension's key: SKU.OfferTermCode.RateCode
	unit, description string
	currency, price   string
}

// effectiveDate parses a term's effectiveDate (on-demand, reserved and
// savings-plan terms alike); none is the zero time.
func effectiveDate(v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	e, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: effectiveDate %q", errLayout, v)
	}
	return e, nil
}

func parseTerm(s *scanner) (term, error) {
	var t term
	err := s.object("term", func(k []byte) error {
		switch string(k) {
		case "termAttributes":
			return s.stringObject("termAttributes", []field{{"LeaseContractLength", &t.lease, nil}, {"OfferingClass", &t.class, nil}, {"PurchaseOption", &t.purch, nil}})
		case "priceDimensions":
			return s.object("priceDimensions", func(key []byte) error {
				d := priceDimension{rateCode: string(key)}
				err := s.object("price dimension", func(k []byte) error {
					if string(k) == "pricePerUnit" {
						return s.object("pricePerUnit", func(ccy []byte) error {
							if d.currency != "" {
								return fmt.Errorf("%w: a price in two currencies (%s, %s)", errLayout, d.currency, ccy)
							}
							d.currency = string(ccy)
							v, err := s.readString("pricePerUnit")
							d.price = string(v)
							return err
						})
					}
					return s.stringMember("price dimension", k, []field{{"unit", &d.unit, nil}, {"description", &d.description, nil}})
				})
				t.dims = append(t.dims, d)
				return err
			})
		}
		return s.stringMember("term", k, []field{{"offerTermCode", &t.code, nil}, {"effectiveDate", &t.effective, nil}})
	})
	return t, err
}

var (
	leaseTerms = map[string]string{"1yr": "1y", "3yr": "3y"}
	payments   = map[string]string{
		"No Upfront":      pricewatch.NoUpfront,
		"Partial Upfront": pricewatch.PartialUpfront,
		"All Upfront":     pricewatch.AllUpfront,
	}
	offeringClasses = map[string]string{"standard": pricewatch.Standard, "convertible": pricewatch.Convertible}
)

// offer turns a term into a Linux offer. keep is false for terms that
// are no price to store: an on-demand rate of 0 (AWS lists reservation-only
// types such as p5e this way, skypilot#4657) and legacy reservation kinds
// (Heavy/Light Utilization) that can no longer be bought.
func (t term) offer(kind termKind, region, itype string) (o pricewatch.Offer, keep bool, err error) {
	o = pricewatch.Offer{Provider: pricewatch.AWS, Region: region, InstanceType: itype, OS: pricewatch.Linux}
	var hourly, upfront *priceDimension
	for i := range t.dims {
		d := &t.dims[i]
		switch {
		case d.unit == "Hrs" && hourly == nil:
			hourly = d
		case d.unit == "Quantity" && upfront == nil && kind == reservedTerms:
			upfront = d
		default:
			return o, false, fmt.Errorf("%w: unexpected price dimension %q (%s)", errLayout, d.unit, d.description)
		}
	}
	if hourly == nil {
		return o, false, fmt.Errorf("%w: no hourly price dimension", errLayout)
	}
	if o.Hourly, err = pricewatch.ParsePrice(hourly.price); err != nil {
		return o, false, err
	}
	o.Currency = hourly.currency
	// The hourly dimension's rate code names the price ListUnitPrice
	// exports; a reservation's upfront fee has a rate code of its own.
	o.SkuPriceID = hourly.rateCode
	switch kind {
	case onDemandTerms:
		o.PriceType = pricewatch.OnDemand
		return o, !o.Hourly.IsZero(), nil
	case reservedTerms:
		o.PriceType = pricewatch.Reserved
	}
	var ok1, ok2, ok3 bool
	o.Term, ok1 = leaseTerms[t.lease]
	o.Payment, ok2 = payments[t.purch]
	o.OfferingClass, ok3 = offeringClasses[t.class]
	if !ok1 || !ok2 || !ok3 {
		return o, false, nil
	}
	o.Upfront = decimal.Zero
	if upfront != nil {
		if o.Upfront, err = pricewatch.ParsePrice(upfront.price); err != nil {
			return o, false, err
		}
		if upfront.currency != o.Currency {
			return o, false, fmt.Errorf("%w: upfront in %s, hourly in %s", errLayout, upfront.currency, o.Currency)
		}
	}
	if (o.Payment == pricewatch.NoUpfront) != o.Upfront.IsZero() {
		return o, false, fmt.Errorf("%w: %s term with upfront fee %s", errLayout, t.purch, o.Upfront)
	}
	return o, !(o.Hourly.IsZero() && o.Upfront.IsZero()), nil
}
