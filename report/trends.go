package report

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/fx"
	"github.com/pricewatch/pricewatch/gpu"
	"github.com/pricewatch/pricewatch/storage"
)

// DefaultTrendPriceTypes are the pay-as-you-go prices: a commitment's
// effective hourly assumes every hour is used, so it is not a price per
// GPU-hour anyone can buy by the hour.
var DefaultTrendPriceTypes = []pricewatch.PriceType{pricewatch.OnDemand, pricewatch.Spot}

// TrendsQuery is `trends` and GET /api/v1/trends.
type TrendsQuery struct {
	Scope
	GPU        string // "" every model, one cheapest series each
	Window     time.Duration
	PriceTypes []pricewatch.PriceType // nil: every type
	Top        int                    // movers to list; 0 all
	// Seller keeps the clouds' own offers, marketplace hosts' or both.
	Seller analysis.Seller
}

// CheapestSeries is the cheapest price per GPU-hour of one GPU through the
// window.
type CheapestSeries struct {
	GPU string
	analysis.CheapestResult
	// Currencies are the native currencies of the series it was picked
	// from, one per series (to tell which had no rate).
	Currencies []string
}

// Trends is the biggest movers over a window and the cheapest series.
type Trends struct {
	Window   string
	From, To time.Time
	Currency string
	Movers   []analysis.OfferTrend
	Cheapest []CheapestSeries
}

// windowFilter is the window's prices in scope, the GPU matched in SQL
// (resolved to the stored models it covers).
func windowFilter(ctx context.Context, st Store, q TrendsQuery) (storage.PriceFilter, error) {
	models, err := StoredGPUModels(ctx, st, q.GPU)
	if err != nil {
		return storage.PriceFilter{}, err
	}
	return storage.PriceFilter{Providers: q.Providers, Regions: q.Regions, PriceTypes: q.PriceTypes, OS: StorageOS(q.OS),
		GPUModels: models, Since: q.At.Add(-q.Window)}, nil
}

// windowInterval is r as an interval of the window ending at q.At; false
// for rows the trends leave out (no GPU, not the GPU asked, begun later).
func windowInterval(r *storage.PriceInterval, q TrendsQuery) (analysis.Interval, bool) {
	now := q.At
	if r.GPUModel == "" || (q.GPU != "" && !gpu.Matches(q.GPU, r.GPUModel)) || r.ValidFrom.After(now) || !q.Seller.KeepsOffer(r.Provider, r.OfferingClass) {
		return analysis.Interval{}, false
	}
	iv := analysis.Interval{Offer: identity(r), Currency: r.Currency, Hourly: r.Hourly, Upfront: r.Upfront, Effective: r.EffectiveHourly, From: r.ValidFrom}
	if r.ValidTo != nil && !r.ValidTo.After(now) {
		iv.To = *r.ValidTo
	}
	return iv, true
}

// chartSeries reads the window's prices in scope as one series per offer,
// as a chart draws them (Store.EachChartPrice): at daily resolution, a
// changed day at its low, before the last days, and every change in them,
// so that a long window costs at most a point per offer and day.
func chartSeries(ctx context.Context, st Store, q TrendsQuery) ([]analysis.Series, error) {
	f, err := windowFilter(ctx, st, q)
	if err != nil {
		return nil, err
	}
	var ivs []analysis.Interval
	err = st.EachChartPrice(ctx, f, q.At, func(r *storage.PriceInterval) error {
		if iv, ok := windowInterval(r, q); ok {
			ivs = append(ivs, iv)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	series, err := analysis.GroupSeries(ivs)
	if err != nil {
		return nil, fmt.Errorf("reading price history: %w", err)
	}
	return series, nil
}

// trendStep samples a window daily, or hourly when it is under two days.
func trendStep(window time.Duration) time.Duration {
	if window < 48*time.Hour {
		return time.Hour
	}
	return 24 * time.Hour
}

// CheapestByPriceType is, for one GPU (q.GPU, a model or family), the
// cheapest price per GPU-hour through the window for each price type of
// q.PriceTypes apart: one read of the window (chartSeries) for every
// series (the dashboard draws on-demand and spot as two lines).
func CheapestByPriceType(ctx context.Context, st Store, book *fx.Book, q TrendsQuery) ([]CheapestSeries, error) {
	series, err := chartSeries(ctx, st, q)
	if err != nil {
		return nil, err
	}
	var out []CheapestSeries
	for _, pt := range q.PriceTypes {
		res, err := analysis.CheapestPerGPUHour(series, analysis.CheapestOptions{GPU: q.GPU, PriceTypes: []pricewatch.PriceType{pt}, OS: q.OS,
			From: q.At.Add(-q.Window), To: q.At, Step: trendStep(q.Window), Currency: q.Currency, FX: book})
		if err != nil {
			return nil, err
		}
		out = append(out, CheapestSeries{GPU: q.GPU, CheapestResult: res})
	}
	return out, nil
}

// ComputeTrends reads the window's prices and finds movers and the
// cheapest price per GPU-hour through it. It streams offer by offer as the
// rows come: one offer's history is held at a time, its move kept if it
// moved, its prices folded into the cheapest series of its model, so
// memory is bounded by one offer's history whatever the window holds.
//
// Both need an offer's price only at the daily samples (the move is from
// the first sample to now), so the first read takes of each offer only the
// intervals in force at a sample and its newest one; only the movers
// listed (the top q.Top), whose lowest, highest and last change look at
// every interval, are read again in full.
func ComputeTrends(ctx context.Context, st Store, book *fx.Book, q TrendsQuery) (Trends, error) {
	now := q.At
	from := now.Add(-q.Window)
	f, err := windowFilter(ctx, st, q)
	if err != nil {
		return Trends{}, err
	}
	// Offers in storage order, each one's intervals together; only the
	// effective rate is decoded (trends use nothing else).
	f.ByOffer, f.EffectiveOnly = true, true
	label := analysis.WindowLabel(q.Window)
	step := trendStep(q.Window)
	// An offer younger than the window moves from its first sampled price
	// (issue 20 item 14: a 90-day window on a younger history showed nothing).
	trendOpts := analysis.TrendOptions{Now: now, Window: q.Window, Changes: []time.Duration{q.Window}, FirstListedStep: step}
	cheapest := map[string]*analysis.CheapestAccumulator{}
	currencies := map[string][]string{}
	accumulator := func(model string) *analysis.CheapestAccumulator {
		if cheapest[model] == nil {
			cheapest[model] = analysis.NewCheapestAccumulator(analysis.CheapestOptions{GPU: model, PriceTypes: q.PriceTypes, OS: q.OS,
				From: from, To: now, Step: step, Currency: q.Currency, FX: book})
		}
		return cheapest[model]
	}
	if q.GPU != "" {
		accumulator(q.GPU)
	}
	var moved []analysis.OfferTrend
	offerIDs := map[pricewatch.OfferKey]int64{}
	sampled := f
	if q.Top > 0 {
		// Asked for every mover, the offers that moved (most of them over
		// a long window) would be read twice: read everything once.
		sampled.Samples = &storage.SampleGrid{From: from, To: now, Step: step}
	}
	err = eachOfferSeries(ctx, st, sampled, q, func(offerID int64, sr analysis.Series) error {
		for _, t := range analysis.OfferTrends([]analysis.Series{sr}, trendOpts) {
			if d, ok := t.Change(label); ok && !d.Change.IsZero() {
				moved = append(moved, t)
				offerIDs[t.Key] = offerID
			}
		}
		model := q.GPU
		if model == "" {
			// One series per stored model: "A100-80GB" as a query
			// would also take in A100-80GB-PCIe.
			model = sr.Latest().GPUModel
		}
		if err := accumulator(model).Add(sr); err != nil {
			return err
		}
		currencies[model] = append(currencies[model], sr.Latest().Currency)
		return nil
	})
	if err != nil {
		return Trends{}, err
	}
	movers := analysis.Movers(moved, label, q.Top)
	if sampled.Samples != nil {
		if err := completeMovers(ctx, st, f, q, trendOpts, movers, offerIDs); err != nil {
			return Trends{}, err
		}
	}
	rep := Trends{Window: label, From: from, To: now, Currency: q.Currency, Movers: movers}
	models := make([]string, 0, len(cheapest))
	for m := range cheapest {
		models = append(models, m)
	}
	sort.Strings(models)
	for _, model := range models {
		res, err := cheapest[model].Result()
		if err != nil {
			return Trends{}, err
		}
		rep.Cheapest = append(rep.Cheapest, CheapestSeries{GPU: model, CheapestResult: res, Currencies: currencies[model]})
	}
	return rep, nil
}

// completeMovers recomputes each mover's trend from every interval of the
// window (its lowest and highest price and last change), reading only
// those offers; the move itself, and so the order, is unchanged.
func completeMovers(ctx context.Context, st Store, f storage.PriceFilter, q TrendsQuery, opts analysis.TrendOptions, movers []analysis.OfferTrend, offerIDs map[pricewatch.OfferKey]int64) error {
	if len(movers) == 0 {
		return nil
	}
	at := map[pricewatch.OfferKey]int{}
	f.OfferIDs = make([]int64, 0, len(movers))
	for i, t := range movers {
		at[t.Key] = i
		f.OfferIDs = append(f.OfferIDs, offerIDs[t.Key])
	}
	return eachOfferSeries(ctx, st, f, q, func(_ int64, sr analysis.Series) error {
		for _, t := range analysis.OfferTrends([]analysis.Series{sr}, opts) {
			if i, ok := at[t.Key]; ok {
				movers[i] = t
			}
		}
		return nil
	})
}

// eachOfferSeries streams the intervals f selects (f.ByOffer) as one
// series per offer, the rows trends leave out dropped.
func eachOfferSeries(ctx context.Context, st Store, f storage.PriceFilter, q TrendsQuery, fn func(offerID int64, sr analysis.Series) error) error {
	var ivs []analysis.Interval
	offer := int64(-1)
	flush := func() error {
		if len(ivs) == 0 {
			return nil
		}
		// In place: fn keeps nothing of a series, so the buffer is reused
		// for the next offer.
		series, err := analysis.GroupSeriesInPlace(ivs)
		ivs = ivs[:0]
		if err != nil {
			return fmt.Errorf("reading price history: %w", err)
		}
		for _, sr := range series {
			if err := fn(offer, sr); err != nil {
				return err
			}
		}
		return nil
	}
	err := st.EachPrice(ctx, f, func(r *storage.PriceInterval) error {
		iv, ok := windowInterval(r, q)
		if !ok {
			return nil
		}
		if r.OfferID != offer {
			if err := flush(); err != nil {
				return err
			}
			offer = r.OfferID
		}
		ivs = append(ivs, iv)
		return nil
	})
	if err == nil {
		err = flush()
	}
	return err
}

// MoverRow and CheapestRow are the JSON shapes scripts rely on; keep the names.
type MoverRow struct {
	pricewatch.OfferKeyJSON
	GPUModel            string  `json:"gpu_model"`
	GPUCount            float64 `json:"gpu_count"`
	Currency            string  `json:"currency"`
	ThenEffectiveHourly Decimal `json:"then_effective_hourly"`
	EffectiveHourly     Decimal `json:"effective_hourly"`
	Change              Decimal `json:"change"`
	ChangePct           Decimal `json:"change_pct"`
	LastChange          any     `json:"last_change"`
}

type CheapestRow struct {
	GPU string `json:"gpu"`
	At  string `json:"at"`
	pricewatch.OfferKeyJSON
	GPUModel              string  `json:"gpu_model"`
	GPUCount              float64 `json:"gpu_count"`
	Currency              string  `json:"currency"`
	PricePerGPUHour       Decimal `json:"price_per_gpu_hour"`
	NativeCurrency        string  `json:"native_currency"`
	NativePricePerGPUHour Decimal `json:"native_price_per_gpu_hour"`
	// FXJSON's rate is never null here: a point without a rate is left
	// out (and named in unconverted).
	FXJSON
}

// TrendsJSON is what `trends --format json` prints.
type TrendsJSON struct {
	Window      string        `json:"window"`
	From        string        `json:"from"`
	To          string        `json:"to"`
	Currency    string        `json:"currency"`
	Movers      []MoverRow    `json:"movers"`
	Cheapest    []CheapestRow `json:"cheapest"`
	Unconverted []string      `json:"unconverted"`
}

// MoverRows are the movers, biggest first.
func (r Trends) MoverRows() []MoverRow {
	out := make([]MoverRow, 0, len(r.Movers))
	for _, t := range r.Movers {
		d, _ := t.Change(r.Window)
		var last any
		if !t.LastChange.IsZero() {
			last = t.LastChange.UTC().Format(time.RFC3339)
		}
		out = append(out, MoverRow{OfferKeyJSON: t.Key.JSON(),
			GPUModel: t.GPUModel, GPUCount: t.GPUCount, Currency: t.Currency, ThenEffectiveHourly: Decimal(d.From),
			EffectiveHourly: Decimal(d.To), Change: Decimal(d.Change), ChangePct: Decimal(d.Pct), LastChange: last})
	}
	return out
}

// CheapestRows are every series' points, and the offers left out of them.
func (r Trends) CheapestRows() ([]CheapestRow, []string) {
	out := []CheapestRow{}
	unconverted := []string{}
	for _, s := range r.Cheapest {
		for _, p := range s.Points {
			out = append(out, CheapestRow{GPU: s.GPU, At: p.At.UTC().Format(time.RFC3339), OfferKeyJSON: p.Key.JSON(),
				GPUModel: p.GPUModel, GPUCount: p.GPUCount, Currency: p.Currency,
				PricePerGPUHour: Decimal(p.PerGPUHour), NativeCurrency: p.NativeCurrency,
				NativePricePerGPUHour: Decimal(p.NativePerGPUHour), FXJSON: FXJSONOf(p.FXUsed)})
		}
		unconverted = append(unconverted, s.Unconverted...)
	}
	return out, unconverted
}

// JSON is the whole report as `trends --format json` prints it.
func (r Trends) JSON() TrendsJSON {
	cheapest, unconverted := r.CheapestRows()
	return TrendsJSON{Window: r.Window, From: r.From.UTC().Format(time.RFC3339), To: r.To.UTC().Format(time.RFC3339),
		Currency: r.Currency, Movers: r.MoverRows(), Cheapest: cheapest, Unconverted: unconverted}
}
