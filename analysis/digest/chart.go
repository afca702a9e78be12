package digest

import (
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
)

// The chart, the week's change counts, the digest's scope and the fleet run rate.

// chartResult is the cheapest H100 and A100 per GPU-hour once a week, from
// every series added.
func (b *Builder) chartResult() (Chart, error) {
	now, cur := b.in.Now, b.cur
	c := Chart{Currency: cur, From: now.Add(-ChartWeeks * Week), To: now,
		Title: fmt.Sprintf("Cheapest %s per GPU-hour, last %d weeks (%s)", strings.Join(ChartModels, " and "), ChartWeeks, cur)}
	if b.in.WithoutChart {
		return c, nil
	}
	i := 0
	for _, m := range ChartModels {
		for _, pt := range chartPriceTypes {
			for _, seller := range chartSellers {
				res, err := b.chart[i].Result()
				if err != nil {
					return c, err
				}
				i++
				label := m + " " + PriceTypeLabel(pt)
				if seller == analysis.SellerMarketplace {
					if len(res.Points) == 0 && len(res.Unconverted) == 0 {
						continue // no marketplace host prices it: no line
					}
					label += ", marketplace"
				}
				c.Series = append(c.Series, ChartSeries{Label: label, GPU: m, PriceType: pt, Seller: seller, Points: res.Points, Unconverted: res.Unconverted})
			}
		}
	}
	return c, nil
}

// PriceTypeLabel is a price type as people write it.
func PriceTypeLabel(pt pricewatch.PriceType) string { return pt.Label() }

// ChangeCount is how many stored price intervals of one GPU model in one
// region began during the week and replaced a different earlier price of
// the same offer.
type ChangeCount struct {
	GPUModel, Region        string
	Provider, OfferingClass string
	N                       int
}

// weekChanges sums the counts of the watched models in the digest's scope.
func weekChanges(counts []ChangeCount, watched func(model string) bool, in *Input) int {
	n := 0
	for _, c := range counts {
		if watched(c.GPUModel) && in.inScope(c.Provider, c.Region, c.OfferingClass) {
			n += c.N
		}
	}
	return n
}

// scoped reports whether the digest is scoped at all.
func (in *Input) scoped() bool {
	return len(in.Regions) > 0 || len(in.Providers) > 0 || (in.Seller != "" && in.Seller != analysis.SellerAny)
}

// inScope reports whether an offer (or availability record or capacity
// block: offeringClass "") of provider in region is in the digest's
// scope.
func (in *Input) inScope(provider, region, offeringClass string) bool {
	if len(in.Regions) > 0 && !inRegions(in.Regions, region) {
		return false
	}
	if len(in.Providers) > 0 && !inRegions(in.Providers, provider) {
		return false
	}
	return in.Seller.KeepsOffer(provider, offeringClass)
}

// inRegions reports whether region is one of regions, ignoring case.
func inRegions(regions []string, region string) bool {
	for _, r := range regions {
		if strings.EqualFold(strings.TrimSpace(r), region) {
			return true
		}
	}
	return false
}

// observedChanges counts the price changes stored during (from, to] in
// the series keep selects: an interval that began then and follows an
// earlier one of the same offer.
func observedChanges(series []analysis.Series, keep func(analysis.Series) bool, from, to time.Time) int {
	n := 0
	for _, s := range series {
		if !keep(s) {
			continue
		}
		for i, iv := range s.Intervals {
			// A change replaces the price before it; an offer listed
			// again after a gap is new availability, not a price change.
			prev := s.Intervals[i-min(i, 1)]
			if i > 0 && prev.To.Equal(iv.From) && iv.From.After(from) && !iv.From.After(to) && !iv.Effective.Equal(prev.Effective) {
				n++
			}
		}
	}
	return n
}

// FleetHours is the hours of a month the reference fleet's run-rate is for.
const FleetHours = 730

// MonthlyRunRate is what FleetGPUs GPUs cost for a month of FleetHours at
// perGPUHour; false without a fleet.
func (d Digest) MonthlyRunRate(perGPUHour decimal.Decimal) (decimal.Decimal, bool) {
	if d.FleetGPUs <= 0 {
		return decimal.Decimal{}, false
	}
	return perGPUHour.Mul(decimal.NewFromInt(int64(d.FleetGPUs) * FleetHours)), true
}
