package digest

import (
	"iter"
	"slices"
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
	cheaper := func(r *analysis.RatedOffer, c *Choice) bool {
		if c == nil {
			return true
		}
		if d := r.PricePerGPUHour.Cmp(c.PerGPUHour); d != 0 {
			return d < 0
		}
		return analysis.KeyLess(r.Offer.Key(), c.Offer.Key())
	}
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
		if !cheaper(&r, *best) {
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
	for _, pt := range []pricewatch.PriceType{pricewatch.OnDemand, pricewatch.Spot} {
		of := series
		if pt == pricewatch.OnDemand {
			of = cloudSeries
		}
		wow, err := weekOverWeek(of, model, pt, in.FX, cur, in.Now)
		if err != nil {
			return row, err
		}
		if pt == pricewatch.OnDemand {
			row.OnDemandWoW = wow
		} else {
			row.SpotWoW = wow
		}
	}
	return row, nil
}

// weekOverWeek is the move of the cheapest price per GPU-hour of a model
// and price type between now − Week and now, in percent.
func weekOverWeek(series []analysis.Series, model string, pt pricewatch.PriceType, conv analysis.Converter, cur string, now time.Time) (decimal.NullDecimal, error) {
	res, err := analysis.CheapestPerGPUHour(series, analysis.CheapestOptions{GPU: model, PriceTypes: []pricewatch.PriceType{pt},
		From: now.Add(-Week), To: now, Step: Week, Currency: cur, FX: conv})
	if err != nil {
		return decimal.NullDecimal{}, err
	}
	if len(res.Points) != 2 || !res.Points[0].PerGPUHour.IsPositive() {
		return decimal.NullDecimal{}, nil
	}
	then, nowP := res.Points[0].PerGPUHour, res.Points[1].PerGPUHour
	return decimal.NewNullDecimal(nowP.Sub(then).DivRound(then, 20).Mul(decimal.NewFromInt(100)).Round(analysis.PercentDecimals)), nil
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
