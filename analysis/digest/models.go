package digest

import (
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/clouds"
	"github.com/pricewatch/pricewatch/gpu"
)

// Each watched model's row: its cheapest prices, their move over the week and the best commitment.

// currentAvailability is the state of each place at now.
func currentAvailability(ivs []pricewatch.AvailabilityInterval, now time.Time) []pricewatch.Availability {
	var out []pricewatch.Availability
	for _, a := range ivs {
		if a.Since.After(now) || (a.Until != nil && !a.Until.After(now)) {
			continue
		}
		out = append(out, pricewatch.Availability{Provider: a.Provider, Region: a.Region, Zone: a.Zone, InstanceType: a.InstanceType,
			State: a.State, StockDetail: a.StockDetail, Hardware: pricewatch.Hardware{GPUModel: a.GPUModel, GPUCount: a.GPUCount}})
	}
	return out
}

func modelRow(model string, offers []pricewatch.Offer, rater *analysis.Rater, series []analysis.Series, in Input, cur string) (ModelRow, error) {
	row := ModelRow{Model: model}
	// The cheapest of each kind is the least by price per GPU-hour, then
	// by key (the order Compare ranks by, a total order), over every
	// region. Each offer is rated and weighed as it comes: a comparison's
	// rows of every offer of a model, made for four of them, were half
	// the overview's build.
	for i := range offers {
		r, ok := rater.Rate(&offers[i])
		if !ok {
			continue
		}
		// As Compare counts them: its rows, those it could not convert
		// and those it skipped (no GPU count).
		row.Offers++
		if r.FXError != "" {
			if row.Unconverted == nil {
				row.Unconverted = map[string]int{}
			}
			row.Unconverted[r.NativeCurrency]++
			continue
		}
		if !r.PerGPU {
			continue
		}
		var best **Choice
		switch {
		case r.PriceType == pricewatch.OnDemand && r.Marketplace:
			best = &row.MarketOnDemand
		case r.PriceType == pricewatch.OnDemand:
			best = &row.OnDemand
		case r.PriceType == pricewatch.Spot:
			best = &row.Spot
		case r.PriceType.IsCommitment():
			best = &row.Commitment
		default:
			continue
		}
		if !cheaperThan(r.PricePerGPUHour, r.Offer.Key(), *best) {
			continue
		}
		c := &Choice{PerGPUHour: r.PricePerGPUHour, NativeCurrency: r.NativeCurrency, FXStale: r.FXStale, Offer: r.Offer, Available: r.Available}
		c.NativePerGPUHour, _ = pricewatch.PerGPUHour(r.NativeEffectiveHourly, r.GPUCount)
		*best = c
	}
	// The on-demand move is the clouds' own, as OnDemand is.
	// Copied only when there is a marketplace series to leave out: the
	// copy of every series of every model was a tenth of a first overview.
	market := func(s analysis.Series) bool {
		l := s.Latest()
		return clouds.IsMarketplace(l.Provider, l.OfferingClass)
	}
	cloudSeries := series
	if slices.ContainsFunc(series, market) {
		cloudSeries = slices.DeleteFunc(slices.Clone(series), market)
	}
	var err error
	if row.onDemandEnds, err = weekEnds(cloudSeries, model, pricewatch.OnDemand, in.FX, cur, in.Now); err != nil {
		return row, err
	}
	if row.spotEnds, err = weekEnds(series, model, pricewatch.Spot, in.FX, cur, in.Now); err != nil {
		return row, err
	}
	row.OnDemandWoW, row.SpotWoW = row.onDemandEnds.move(), row.spotEnds.move()
	return row, nil
}

// cheaperThan: an offer at price per GPU-hour p with key k comes before
// c (none: it does). The cheapest of each kind is the least by price per
// GPU-hour, then by key (the order Compare ranks by, a total order), over
// every region.
func cheaperThan(p decimal.Decimal, k pricewatch.OfferKey, c *Choice) bool {
	if c == nil {
		return true
	}
	if d := p.Cmp(c.PerGPUHour); d != 0 {
		return d < 0
	}
	return analysis.KeyLess(k, c.Offer.Key())
}

// ends are the cheapest prices per GPU-hour of a model and price type at
// now − Week and at now (each end converted at its own date's rate;
// invalid where no price was in force): what its move is worked out from,
// and what rows built over parts of the offers are merged by (MergeRows).
type ends struct{ then, now decimal.NullDecimal }

// weekEnds are the ends of a model and price type over series.
func weekEnds(series []analysis.Series, model string, pt pricewatch.PriceType, conv analysis.Converter, cur string, now time.Time) (ends, error) {
	res, err := analysis.CheapestPerGPUHour(series, analysis.CheapestOptions{GPU: model, PriceTypes: []pricewatch.PriceType{pt},
		From: now.Add(-Week), To: now, Step: Week, Currency: cur, FX: conv})
	if err != nil {
		return ends{}, err
	}
	var e ends
	for _, p := range res.Points {
		if p.At.Equal(now) {
			e.now = decimal.NewNullDecimal(p.PerGPUHour)
		} else {
			e.then = decimal.NewNullDecimal(p.PerGPUHour)
		}
	}
	return e, nil
}

// move is the move between the ends, in percent; invalid without both
// or from no price.
func (e ends) move() decimal.NullDecimal {
	if !e.then.Valid || !e.now.Valid || !e.then.Decimal.IsPositive() {
		return decimal.NullDecimal{}
	}
	then, now := e.then.Decimal, e.now.Decimal
	return decimal.NewNullDecimal(now.Sub(then).DivRound(then, 20).Mul(decimal.NewFromInt(100)).Round(analysis.PercentDecimals))
}

// lower is the lower of two ends, each end on its own.
func (e ends) lower(o ends) ends {
	low := func(a, b decimal.NullDecimal) decimal.NullDecimal {
		if !a.Valid || (b.Valid && b.Decimal.LessThan(a.Decimal)) {
			return b
		}
		return a
	}
	return ends{then: low(e.then, o.then), now: low(e.now, o.now)}
}

// MergeRows is the model rows of one digest over the union of the parts'
// offers, each part's rows built (Build, NewBuilder) with the same Input
// but over the prices of some providers only (Input.Providers): the
// cheapest of each kind is the least of the parts', the counts add up, and
// the moves are worked out from the least ends. The dashboard's overview
// keeps one part per provider and builds again only those of the
// providers that ran (issue 30). Only the rows are merged: savings and
// the rest of a digest are not.
func MergeRows(parts [][]ModelRow) ([]ModelRow, error) {
	if len(parts) == 0 {
		return nil, nil
	}
	out := slices.Clone(parts[0])
	for _, part := range parts[1:] {
		if len(part) != len(out) {
			return nil, fmt.Errorf("merging model rows: a part of %d rows into %d", len(part), len(out))
		}
		for i := range part {
			r, m := &part[i], &out[i]
			if r.Model != m.Model {
				return nil, fmt.Errorf("merging model rows: row %d is %s in one part, %s in another", i, r.Model, m.Model)
			}
			for _, c := range []struct{ from, into **Choice }{
				{&r.OnDemand, &m.OnDemand}, {&r.MarketOnDemand, &m.MarketOnDemand}, {&r.Spot, &m.Spot}, {&r.Commitment, &m.Commitment},
			} {
				if *c.from != nil && cheaperThan((*c.from).PerGPUHour, (*c.from).Offer.Key(), *c.into) {
					*c.into = *c.from
				}
			}
			m.Offers += r.Offers
			if len(r.Unconverted) > 0 {
				u := make(map[string]int, len(m.Unconverted)+len(r.Unconverted))
				for _, from := range []map[string]int{m.Unconverted, r.Unconverted} {
					for cur, n := range from {
						u[cur] += n
					}
				}
				m.Unconverted = u
			}
			m.onDemandEnds, m.spotEnds = m.onDemandEnds.lower(r.onDemandEnds), m.spotEnds.lower(r.spotEnds)
			m.OnDemandWoW, m.SpotWoW = m.onDemandEnds.move(), m.spotEnds.move()
		}
	}
	return out, nil
}

// MergeRates is the rates of one digest over the union of the parts'
// offers (as MergeRows): each currency once, its offers added up.
func MergeRates(parts [][]Rate) []Rate {
	var out []Rate
	at := map[string]int{}
	for _, part := range parts {
		for _, r := range part {
			if i, ok := at[r.From]; ok {
				out[i].Offers += r.Offers
				continue
			}
			at[r.From] = len(out)
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b Rate) int { return strings.Compare(a.From, b.From) })
	return out
}

// bestSavings picks, for watched model m, the commitment that saves most
// against on-demand at full use among its current offers; nil when none
// breaks even.
//
// One model at a time, over that model's offers only: a commitment and the
// on-demand price it is matched with are of one instance type, so of one
// model, and a year's report over every watched offer (tens of MB of
// options) is never held at once.
func bestSavings(m string, offers []pricewatch.Offer, conv analysis.Converter, cur string, now time.Time) (*SavingsRow, error) {
	// One provider and region at a time (eachPlace), in the order of the
	// report's groups (provider, region, …): the first best over the
	// regions in order is the first best of one report over all of them.
	var best *analysis.Savings
	err := eachPlace(offers, func(offers []pricewatch.Offer) error {
		rep, err := analysis.ComputeSavings(offers, analysis.SavingsOptions{Utilization: decimal.NewFromInt(1), Currency: cur, FX: conv, At: now})
		if err != nil {
			return err
		}
		for _, s := range allOptions(rep) {
			if !gpu.Matches(m, s.GPUModel) || !s.BreaksEven || !s.FullUseSavingsPct.IsPositive() || s.GPUCount <= 0 {
				continue
			}
			if best == nil || s.FullUseSavingsPct.GreaterThan(best.FullUseSavingsPct) {
				s := s
				best = &s
			}
		}
		return nil
	})
	if err != nil || best == nil {
		return nil, err
	}
	eff, _ := pricewatch.PerGPUHour(best.EffectiveHourly, best.GPUCount)
	od, _ := pricewatch.PerGPUHour(best.OnDemandHourly, best.GPUCount)
	alt, err := bestOnDemand(offers, best.GPUModel, best.GPUCount, conv, cur, now)
	if err != nil {
		return nil, err
	}
	return &SavingsRow{Model: m, Savings: *best, EffectivePerGPU: eff, OnDemandPerGPU: od, Alternative: alt}, nil
}

// bestOnDemand is the cheapest on-demand offer per GPU-hour of the clouds'
// own capacity (a marketplace host is no alternative to a reservation)
// among offers, of exactly model and count GPUs per instance, over every
// provider and region; nil when none converts into cur.
func bestOnDemand(offers []pricewatch.Offer, model string, count float64, conv analysis.Converter, cur string, now time.Time) (*Choice, error) {
	var best *Choice
	err := eachPlace(offers, func(offers []pricewatch.Offer) error {
		res, err := analysis.Compare(offers, nil, analysis.CompareOptions{GPU: model, Currency: cur, FX: conv, At: now})
		if err != nil {
			return err
		}
		for _, r := range res.Rows {
			if r.PriceType != pricewatch.OnDemand || r.Marketplace || r.GPUModel != model || r.GPUCount != count {
				continue
			}
			if best == nil || r.PricePerGPUHour.LessThan(best.PerGPUHour) ||
				r.PricePerGPUHour.Equal(best.PerGPUHour) && analysis.KeyLess(r.Offer.Key(), best.Offer.Key()) {
				c := &Choice{PerGPUHour: r.PricePerGPUHour, NativeCurrency: r.NativeCurrency, FXStale: r.FXStale, Offer: r.Offer, Available: r.Available}
				c.NativePerGPUHour, _ = pricewatch.PerGPUHour(r.NativeEffectiveHourly, r.GPUCount)
				best = c
			}
		}
		return nil
	})
	return best, err
}

// allOptions iterates every commitment of a report without copying them
// into one slice (a digest's report holds thousands).
func allOptions(rep analysis.SavingsReport) iter.Seq2[int, analysis.Savings] {
	return func(yield func(int, analysis.Savings) bool) {
		i := 0
		for _, g := range rep.Groups {
			for _, s := range g.Options {
				if !yield(i, s) {
					return
				}
				i++
			}
		}
	}
}
