package report

import (
	"context"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/alerting/digest"
	"github.com/pricewatch/pricewatch/analysis"
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
	rows, err := st.Prices(ctx, storage.PriceFilter{OS: pricewatch.Linux, Since: now.Add(-history)})
	if err != nil {
		return digest.Input{}, err
	}
	ivs := make([]analysis.Interval, 0, len(rows))
	for _, r := range rows {
		iv := analysis.Interval{Offer: r.Offer, Effective: r.EffectiveHourly, From: r.ValidFrom}
		if r.ValidTo != nil {
			iv.To = *r.ValidTo
		}
		ivs = append(ivs, iv)
	}
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
