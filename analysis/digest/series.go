package digest

import (
	"slices"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/gpu"
)

// Price series of the digest: the Linux series, the offers of a model and the week's top movers.

// linuxSeries groups the Linux intervals into series as of now: an
// interval starting after now is ignored and one ending after now is
// current. When every interval is kept as it is (the weekly digest reads
// only Linux prices in force by now) they are grouped in place: a year's
// digest then holds its intervals once.
func linuxSeries(prices []analysis.Interval, now time.Time) ([]analysis.Series, error) {
	keep := func(iv analysis.Interval) bool {
		return iv.OS == pricewatch.Linux && iv.GPUModel != "" && !iv.From.After(now)
	}
	if !slices.ContainsFunc(prices, func(iv analysis.Interval) bool { return !keep(iv) || iv.To.After(now) }) {
		return analysis.GroupSeriesInPlace(prices)
	}
	ivs := make([]analysis.Interval, 0, len(prices))
	for _, iv := range prices {
		if !keep(iv) {
			continue
		}
		if iv.To.After(now) {
			iv.To = time.Time{}
		}
		ivs = append(ivs, iv)
	}
	// ivs is this function's own copy: group it without another.
	return analysis.GroupSeriesInPlace(ivs)
}

// modelOffers appends to dst the offers of series in force at now whose
// GPU model matches model (gpu.Matches), in series order.
func modelOffers(dst []pricewatch.Offer, series []analysis.Series, model string, now time.Time) []pricewatch.Offer {
	for _, s := range series {
		if !gpu.Matches(model, s.Latest().GPUModel) {
			continue
		}
		if iv, ok := s.At(now); ok {
			dst = append(dst, iv.Priced())
		}
	}
	return dst
}

// moverBatch is how many series' trends topMovers holds at once.
const moverBatch = 1024

// topMovers is the n offers among the series keep selects whose price
// moved most over the week (analysis.Movers' order), computed size series
// at a time: a year's watched offers' trends would be tens of MB
// held at once, for the handful the digest lists. Movers orders by move
// then by key, a total order, so the best of each batch's best is the
// best of all.
func topMovers(series []analysis.Series, keep func(analysis.Series) bool, now time.Time, n, size int) (top []analysis.OfferTrend, moved int) {
	label := analysis.WindowLabel(Week)
	opts := analysis.TrendOptions{Now: now, Window: Week, Changes: []time.Duration{Week}}
	batch := make([]analysis.Series, 0, size)
	flush := func() {
		trends := analysis.OfferTrends(batch, opts)
		for _, t := range trends {
			if d, ok := t.Change(label); ok && !d.Change.IsZero() {
				moved++
			}
		}
		top = analysis.Movers(append(top, analysis.Movers(trends, label, n)...), label, n)
		batch = batch[:0]
	}
	for _, s := range series {
		if !keep(s) {
			continue
		}
		if batch = append(batch, s); len(batch) == size {
			flush()
		}
	}
	flush()
	return top, moved
}
