package report

import (
	"context"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/analysis/digest"
	"github.com/pricewatch/pricewatch/gpu"
	"github.com/pricewatch/pricewatch/storage"
)

// DigestInput loads from the store what digest.Build needs as of now: the
// Linux prices of the last `history` (digest.ChartWeeks weeks for the
// digest's chart; a week and a day is enough for the week's moves), the
// availability of the last week, and each provider's latest run and latest
// successful run. The weekly digest and the dashboard's overview both start
// from it; the caller adds the currency, the models, the expected intervals
// and the exchange rates.
func DigestInput(ctx context.Context, st Store, now time.Time, history time.Duration) (digest.Input, error) {
	var ivs []analysis.Interval
	err := st.EachPrice(ctx, storage.PriceFilter{OS: pricewatch.Linux, Since: now.Add(-history)}, func(r *storage.PriceInterval) error {
		ivs = append(ivs, digestInterval(r))
		return nil
	})
	if err != nil {
		return digest.Input{}, err
	}
	return digestRest(ctx, st, now, ivs)
}

// WeeklyDigestInput is DigestInput for the weekly digest over a long
// history, reading only what the digest looks at: the Linux prices of the
// GPU models matching queries (digest.gpu_models and the chart's models,
// resolved to stored models and filtered in SQL) in force at the chart's
// weekly points, which include both ends of the week-over-week moves and
// of the offers' moves of the week. Not every interval of twelve weeks.
func WeeklyDigestInput(ctx context.Context, st Store, now time.Time, queries []string) (digest.Input, error) {
	var at []time.Time
	for w := 0; w <= digest.ChartWeeks; w++ {
		at = append(at, now.Add(-time.Duration(w)*digest.Week))
	}
	all, err := st.GPUModels(ctx)
	if err != nil {
		return digest.Input{}, err
	}
	models := []string{}
	for _, m := range all {
		for _, q := range queries {
			if gpu.Matches(q, m) {
				models = append(models, m)
				break
			}
		}
	}
	// Counted first, so that the pass's garbage is not live beside the
	// compact prices below.
	changes, err := weekChanges(ctx, st, now, models)
	if err != nil {
		return digest.Input{}, err
	}
	prices := offerPrices{now: now}
	err = st.EachPrice(ctx, storage.PriceFilter{OS: pricewatch.Linux, At: at, GPUModels: models, Unordered: true}, func(r *storage.PriceInterval) error {
		if r.GPUModel != "" {
			prices.add(r)
		}
		return nil
	})
	if err != nil {
		return digest.Input{}, err
	}
	in, err := digestRest(ctx, st, now, prices.intervals())
	in.WeekChanges = changes
	return in, err
}

// weekChanges counts the week's price changes per GPU model and region
// in SQL (storage.PriceChanges): the weekly points alone would miss a
// change made between them, and nothing but the counts is held.
func weekChanges(ctx context.Context, st Store, now time.Time, models []string) ([]digest.ChangeCount, error) {
	counts, err := st.PriceChanges(ctx, now.Add(-digest.Week), now, pricewatch.Linux, models)
	if err != nil {
		return nil, err
	}
	out := make([]digest.ChangeCount, 0, len(counts))
	for _, c := range counts {
		out = append(out, digest.ChangeCount(c))
	}
	return out, nil
}

// offerPrices collects the weekly digest's intervals, each pointing at
// its offer's one identity (storage's PriceInterval.Identity): at a year's
// scale ~52k intervals of ~21k offers, where a copy of the offer (368
// bytes) in each interval was most of the digest's live heap.
type offerPrices struct {
	ivs []analysis.Interval
	now time.Time
}

func (c *offerPrices) add(r *storage.PriceInterval) {
	iv := digestInterval(r)
	// The digest reads the raw prices only of offers in force at now (its
	// comparison and savings); of a price ended by then it reads the
	// effective rate.
	if !iv.To.IsZero() && !iv.To.After(c.now) {
		iv.Hourly, iv.Upfront = decimal.Decimal{}, decimal.Decimal{}
	}
	c.ivs = append(c.ivs, iv)
}

// intervals hands the intervals over.
func (c *offerPrices) intervals() []analysis.Interval {
	ivs := c.ivs
	c.ivs = nil
	return ivs
}

func digestInterval(r *storage.PriceInterval) analysis.Interval {
	iv := analysis.Interval{Offer: identity(r), Currency: r.Currency, Hourly: r.Hourly, Upfront: r.Upfront, Effective: r.EffectiveHourly, From: r.ValidFrom}
	if r.ValidTo != nil {
		iv.To = *r.ValidTo
	}
	return iv
}

// identity is r's offer identity shared by the read's intervals; a row
// built elsewhere than storage's reads gets one of its own.
func identity(r *storage.PriceInterval) *pricewatch.Offer {
	if r.Identity != nil {
		return r.Identity
	}
	o := r.Offer
	o.Currency, o.Hourly, o.Upfront = "", decimal.Decimal{}, decimal.Decimal{}
	return &o
}

// digestRest completes a digest's input from ivs: the availability of the
// last week and each provider's latest run and latest successful run.
func digestRest(ctx context.Context, st Store, now time.Time, ivs []analysis.Interval) (digest.Input, error) {
	avail, err := st.Availability(ctx, storage.AvailabilityFilter{All: true, Since: now.Add(-digest.Week)})
	if err != nil {
		return digest.Input{}, err
	}
	runs, err := st.LastRuns(ctx)
	if err != nil {
		return digest.Input{}, err
	}
	for _, r := range runs {
		if r.Status == storage.RunOK {
			continue
		}
		ok, err := st.LastSuccess(ctx, r.Provider)
		if err != nil {
			return digest.Input{}, err
		}
		if ok != nil {
			runs = append(runs, *ok)
		}
	}
	blocks, err := st.Signals(ctx, storage.SignalFilter{Kinds: []pricewatch.SignalKind{pricewatch.CapacityBlock}, Since: now.Add(-digest.Week)})
	if err != nil {
		return digest.Input{}, err
	}
	in := digest.Input{Now: now, Prices: ivs}
	for _, b := range blocks {
		in.CapacityBlocks = append(in.CapacityBlocks, digest.BlockInterval{Signal: b.Signal, Since: b.Since, Until: b.Until})
	}
	// The digest declares the fields it reads; storage's rows convert.
	for _, a := range avail {
		in.Availability = append(in.Availability, digest.AvailabilityInterval(a))
	}
	for _, r := range runs {
		in.Runs = append(in.Runs, digest.Run(r))
	}
	return in, nil
}
