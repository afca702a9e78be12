package report

import (
	"context"
	"runtime"
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
	prices := offerPrices{index: map[int64]int32{}, now: now}
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

// offerPrices collects the weekly digest's intervals holding each offer's
// identity once: at a year's scale ~52k intervals of ~21k offers, each
// analysis.Interval a full copy of its offer (368 bytes). Held compactly
// while storage still holds its own offers, they are expanded only once
// the read is done, into a slice of the exact length (no append growth
// holding two copies at once).
type offerPrices struct {
	offers []pricewatch.Offer // identity; Currency, Hourly and Upfront come from each price
	index  map[int64]int32    // offer id → offers
	prices []offerPrice
	now    time.Time
}

// offerPrice is one interval of offers[offer].
type offerPrice struct {
	offer                      int32
	currency                   string
	hourly, upfront, effective decimal.Decimal
	from, to                   time.Time
}

func (c *offerPrices) add(r *storage.PriceInterval) {
	i, ok := c.index[r.OfferID]
	if !ok {
		i = int32(len(c.offers))
		c.index[r.OfferID] = i
		c.offers = append(c.offers, r.Offer)
	}
	p := offerPrice{offer: i, currency: r.Currency, effective: r.EffectiveHourly, from: r.ValidFrom}
	if r.ValidTo != nil {
		p.to = *r.ValidTo
	}
	// The digest reads the raw prices only of offers in force at now (its
	// comparison and savings); of a price ended by then it reads the
	// effective rate.
	if p.to.IsZero() || p.to.After(c.now) {
		p.hourly, p.upfront = r.Hourly, r.Upfront
	}
	c.prices = append(c.prices, p)
}

// intervals expands the prices into the digest's intervals, releasing the
// compact form.
func (c *offerPrices) intervals() []analysis.Interval {
	// The read leaves storage's offers and row buffers (~10 MB at a year)
	// as garbage, and the expansion allocates its ~20 MB at once, faster
	// than the collector paces: collected first, the heap stays under the
	// daemon's soft limit (GOMEMLIMIT) instead of overshooting it by the
	// size of the allocation. Once a week, tens of milliseconds.
	runtime.GC()
	ivs := make([]analysis.Interval, len(c.prices))
	for i, p := range c.prices {
		o := c.offers[p.offer]
		o.Currency, o.Hourly, o.Upfront = p.currency, p.hourly, p.upfront
		ivs[i] = analysis.Interval{Offer: o, Effective: p.effective, From: p.from, To: p.to}
	}
	c.offers, c.index, c.prices = nil, nil, nil
	return ivs
}

func digestInterval(r *storage.PriceInterval) analysis.Interval {
	iv := analysis.Interval{Offer: r.Offer, Effective: r.EffectiveHourly, From: r.ValidFrom}
	if r.ValidTo != nil {
		iv.To = *r.ValidTo
	}
	return iv
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
	in := digest.Input{Now: now, Prices: ivs}
	// The digest declares the fields it reads; storage's rows convert.
	for _, a := range avail {
		in.Availability = append(in.Availability, digest.AvailabilityInterval(a))
	}
	for _, r := range runs {
		in.Runs = append(in.Runs, digest.Run(r))
	}
	return in, nil
}
