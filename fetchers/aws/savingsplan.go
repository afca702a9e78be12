package aws

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pricewatch/pricewatch"
)

// Savings-plan rate files (JSON form), as documented in "Reading the
// service price list file for a Savings Plan" (AWS Billing guide):
//
//	{"version", "publicationDate", "regionCode",
//	 "products": [{"sku", "productFamily", "serviceCode", "usageType", "operation",
//	               "attributes": {"purchaseOption", "purchaseTerm", ...}}],
//	 "terms": {"savingsPlan": [{"sku", "description", "effectiveDate",
//	     "leaseContractLength": {"duration": 1, "unit": "year"},
//	     "rates": [{"discountedSku", "discountedUsageType", "discountedOperation",
//	                "discountedServiceCode", "rateCode", "unit",
//	                "discountedRate": {"price", "currency"},
//	                "discountedRegionCode", "discountedInstanceType"}]}]}}
//
// One file (AWSComputeSavingsPlan) holds both kinds: productFamily
// "ComputeSavingsPlans" and "EC2InstanceSavingsPlans". Every plan lists a
// rate for every EC2 usage it discounts (each type × operating system ×
// tenancy), plus Fargate and Lambda for Compute plans.

var planClasses = map[string]string{
	"ComputeSavingsPlans":     pricewatch.ComputeSavingsPlan,
	"EC2InstanceSavingsPlans": pricewatch.EC2InstanceSavingsPlan,
}

type savingsPlan struct {
	class, payment, term string
}

type planRate struct {
	itype, price, currency string
	sku, rateCode          string // discountedSku and rateCode
}

// parseSavingsPlanFile streams a savings-plan rate file and returns the
// Linux, shared-tenancy rates of the instance types want accepts, as
// savings_plan offers without hardware. Rates are kept only for those
// types, so memory does not grow with the file.
//
// A plan's terms carry an effectiveDate, as on-demand terms do: a term
// that takes effect after now is not the rate now, and where a plan lists
// several terms in effect, the latest wins (a repriced plan keeps its old
// term beside the new one for a while). Only two different rates in effect
// since the same date are an error.
func parseSavingsPlanFile(r io.Reader, region string, now time.Time, want func(itype string) bool) (version string, offers []pricewatch.Offer, err error) {
	s := newScanner(r)
	acc := newPlanRates(now)
	var products, terms int

	product := func() error {
		products++
		var sku, family, purchase, purchaseTerm string
		err := s.stringObject("savings plan product", []field{{"sku", &sku, nil}, {"productFamily", &family, nil},
			{"attributes", nil, []field{{"purchaseOption", &purchase, nil}, {"purchaseTerm", &purchaseTerm, nil}}}})
		if err != nil {
			return err
		}
		acc.plan(sku, family, purchase, purchaseTerm)
		return nil
	}

	rate := func(rates *[]planRate) error {
		var usage, op, svc, unit, price, ccy, rregion, itype, discountedSKU, rateCode string
		err := s.stringObject("rate", []field{{"discountedSku", &discountedSKU, nil}, {"rateCode", &rateCode, nil},
			{"discountedUsageType", &usage, nil}, {"discountedOperation", &op, nil}, {"discountedServiceCode", &svc, nil},
			{"unit", &unit, nil}, {"discountedRegionCode", &rregion, nil}, {"discountedInstanceType", &itype, nil},
			{"discountedRate", nil, []field{{"price", &price, nil}, {"currency", &ccy, nil}}}})
		if err != nil {
			return err
		}
		if pr, keep := acceptRate(region, want, svc, unit, op, usage, rregion, itype, price, ccy, discountedSKU, rateCode); keep {
			*rates = append(*rates, pr)
		}
		return nil
	}

	planTerm := func() error {
		terms++
		var sku, duration, unit, effective string
		var rates []planRate
		err := s.object("savings plan term", func(k []byte) error {
			switch string(k) {
			case "leaseContractLength":
				return s.object("leaseContractLength", func(k []byte) error {
					if string(k) == "duration" { // a number, not a string
						v, err := s.readScalar("duration")
						duration = string(v)
						return err
					}
					return s.stringMember("leaseContractLength", k, []field{{"unit", &unit, nil}})
				})
			case "rates":
				return s.array("rates", func() error { return rate(&rates) })
			}
			return s.stringMember("savings plan term", k, []field{{"sku", &sku, nil}, {"effectiveDate", &effective, nil}})
		})
		if err != nil {
			return err
		}
		return acc.term(sku, effective, leaseTerm(duration, unit), rates)
	}

	err = s.object("savings plan file", func(k []byte) error {
		switch string(k) {
		case "products":
			return s.array("products", product)
		case "terms":
			return s.object("terms", func(k []byte) error {
				if string(k) != "savingsPlan" {
					return s.skipValue("terms")
				}
				return s.array("savingsPlan terms", planTerm)
			})
		}
		return s.stringMember("savings plan file", k, []field{{"version", &version, nil}})
	})
	if err == nil {
		err = s.finish("savings plan file")
	}
	if err != nil {
		return "", nil, err
	}
	if products > 0 && terms == 0 {
		return "", nil, fmt.Errorf("%w: %d savings plans but no terms", errLayout, products)
	}
	offers, err = acc.offers(region)
	if err != nil {
		return "", nil, err
	}
	return version, offers, nil
}

// planRates gathers a savings-plan file's plans and the rates of each
// plan's latest term in effect, whichever form (JSON, CSV) it is read
// from, and turns them into offers.
type planRates struct {
	now       time.Time
	plans     map[string]savingsPlan
	kept      map[string][]planRate // plan SKU → rates of its latest term in effect
	keptSince map[string]time.Time  // plan SKU → that term's effectiveDate
	lengths   map[string]string     // plan SKU → term from leaseContractLength
}

func newPlanRates(now time.Time) *planRates {
	return &planRates{now: now, plans: map[string]savingsPlan{}, kept: map[string][]planRate{},
		keptSince: map[string]time.Time{}, lengths: map[string]string{}}
}

// plan records a plan product; other product families and purchase
// options are left out.
func (a *planRates) plan(sku, family, purchase, purchaseTerm string) {
	class, ok := planClasses[family]
	if !ok {
		return
	}
	pay, ok := payments[purchase]
	if !ok {
		return
	}
	a.plans[sku] = savingsPlan{class: class, payment: pay, term: leaseTerms[purchaseTerm]}
}

// acceptRate keeps a rate that prices a GPU type want accepts, Linux on
// shared tenancy, by the hour, in region.
func acceptRate(region string, want func(string) bool, svc, unit, op, usage, rregion, itype, price, ccy, discountedSKU, rateCode string) (planRate, bool) {
	if svc != "AmazonEC2" || unit != "Hrs" || op != "RunInstances" {
		return planRate{}, false // other services, operating systems, units
	}
	boxType, ok := boxUsageType(usage)
	if !ok {
		return planRate{}, false // dedicated, host, capacity reservations
	}
	if itype == "" {
		itype = boxType
	}
	if itype != boxType || (rregion != "" && rregion != region) || !want(itype) {
		return planRate{}, false
	}
	return planRate{itype: itype, price: price, currency: ccy, sku: discountedSKU, rateCode: rateCode}, true
}

// term records one plan term's kept rates: a term that takes effect after
// now is left out, the latest one in effect wins, and two in effect since
// the same date both stand (offers fails the file if they disagree).
func (a *planRates) term(sku, effective, length string, rates []planRate) error {
	if len(rates) == 0 {
		return nil
	}
	eff, err := effectiveDate(effective)
	if err != nil {
		return fmt.Errorf("savings plan %s: %w", sku, err)
	}
	if eff.After(a.now) {
		return nil // announced, not yet the rate
	}
	if length != "" {
		a.lengths[sku] = length
	}
	since, have := a.keptSince[sku]
	switch {
	case !have || eff.After(since):
		a.kept[sku], a.keptSince[sku] = rates, eff
	case eff.Equal(since):
		a.kept[sku] = append(a.kept[sku], rates...)
	}
	return nil
}

// offers turns the kept rates into savings_plan offers, sorted by key.
func (a *planRates) offers(region string) ([]pricewatch.Offer, error) {
	var offers []pricewatch.Offer
	seen := map[pricewatch.OfferKey]pricewatch.Offer{}
	skus := slices.Sorted(maps.Keys(a.kept))
	for _, sku := range skus {
		p, ok := a.plans[sku]
		if !ok || p.class == "" {
			// Rates of a plan the products section does not describe (or
			// describes as another kind, e.g. a SageMaker plan) cannot be
			// labelled.
			if !ok {
				return nil, fmt.Errorf("%w: rates for savings plan %s, which is not among the products", errLayout, sku)
			}
			continue
		}
		if t, ok := a.lengths[sku]; ok {
			p.term = t // the term's own length wins over purchaseTerm
		}
		if _, err := pricewatch.TermHours(p.term); err != nil {
			return nil, fmt.Errorf("%w: savings plan %s has no usable term length: %v", errLayout, sku, err)
		}
		for _, r := range a.kept[sku] {
			price, err := pricewatch.ParsePrice(r.price)
			if err != nil {
				return nil, fmt.Errorf("savings plan %s, %s: %w", sku, r.itype, err)
			}
			if price.IsZero() {
				continue
			}
			o := pricewatch.Offer{
				Provider: pricewatch.AWS, Region: region, InstanceType: r.itype,
				PriceType: pricewatch.SavingsPlan, Term: p.term, Payment: p.payment,
				OfferingClass: p.class, OS: pricewatch.Linux, Currency: r.currency, Hourly: price,
				// The rate applies to the EC2 product its discountedSku
				// names; its rate code is the plan's own.
				CloudIDs: pricewatch.CloudIDs{SkuID: r.sku, SkuPriceID: r.rateCode},
			}
			if prev, dup := seen[o.Key()]; dup {
				if !prev.Hourly.Equal(o.Hourly) {
					return nil, fmt.Errorf("%w: two rates for %s (%s and %s)", errLayout, o.Key(), prev.Hourly, o.Hourly)
				}
				continue
			}
			seen[o.Key()] = o
			offers = append(offers, o)
		}
	}
	sort.Slice(offers, func(i, j int) bool { return offers[i].Key().String() < offers[j].Key().String() })
	return offers, nil
}

// boxUsageType extracts the instance type from a shared-tenancy usage type
// ("BoxUsage:p5.48xlarge" in us-east-1, "APE2-BoxUsage:r7g.2xlarge"
// elsewhere). Dedicated ("DedicatedUsage:"), host and capacity-reservation
// ("UnusedBox:") usage types do not match.
func boxUsageType(usage string) (string, bool) {
	i := strings.Index(usage, "BoxUsage:")
	if i < 0 || (i > 0 && usage[i-1] != '-') {
		return "", false
	}
	t := usage[i+len("BoxUsage:"):]
	return t, t != ""
}

// leaseTerm turns {"duration": 1, "unit": "year"} into "1y".
func leaseTerm(duration, unit string) string {
	switch unit {
	case "year", "years", "yr":
		return duration + "y"
	case "month", "months":
		return duration + "m"
	}
	return ""
}
