package analysis

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fx"
	"github.com/pricewatch/pricewatch/gpu"
)

// Interval is one stored price of one offer, valid from From until To (To
// zero while the price is current). storage.PriceInterval carries the same
// facts; the caller copies them over.
type Interval struct {
	// Offer is the offer's identity and hardware, one value shared by every
	// interval of the offer (see SharedOffers): a year's weekly digest holds
	// ~52k intervals of ~21k offers, and a copy of the offer in each was
	// most of its live heap. Its Currency, Hourly and Upfront are not read:
	// each interval has its own, below (Priced joins them).
	*pricewatch.Offer
	// Currency, Hourly and Upfront are this interval's price as the cloud
	// gave it.
	Currency        string
	Hourly, Upfront decimal.Decimal
	// Effective is the effective hourly price (hourly plus upfront spread
	// over the term), as stored beside the raw prices.
	Effective decimal.Decimal
	From      time.Time
	To        time.Time
}

// Priced is the interval's offer at the interval's price: a value of its
// own, for a caller that keeps or hands on the offer.
func (iv Interval) Priced() pricewatch.Offer {
	o := *iv.Offer
	o.Currency, o.Hourly, o.Upfront = iv.Currency, iv.Hourly, iv.Upfront
	return o
}

// NewInterval is an interval of o at o's prices (Currency, Hourly,
// Upfront), effective rate effective, from from until to (zero: current),
// with an identity of its own: for a caller that has no shared one.
func NewInterval(o pricewatch.Offer, effective decimal.Decimal, from, to time.Time) Interval {
	iv := Interval{Offer: &o, Currency: o.Currency, Hourly: o.Hourly, Upfront: o.Upfront, Effective: effective, From: from, To: to}
	o.Currency, o.Hourly, o.Upfront = "", decimal.Decimal{}, decimal.Decimal{}
	return iv
}

// Current reports whether the interval has no end.
func (iv Interval) Current() bool { return iv.To.IsZero() }

// contains reports whether the price was in force at t.
func (iv Interval) contains(t time.Time) bool {
	return !t.Before(iv.From) && (iv.To.IsZero() || t.Before(iv.To))
}

// Series is the price history of one offer, oldest first.
type Series struct {
	Key       pricewatch.OfferKey
	Intervals []Interval
}

// Latest is the newest interval (current or not).
func (s Series) Latest() Interval { return s.Intervals[len(s.Intervals)-1] }

// At returns the interval in force at t.
func (s Series) At(t time.Time) (Interval, bool) {
	// Intervals do not overlap; the last one starting at or before t is the
	// only candidate.
	i := sort.Search(len(s.Intervals), func(i int) bool { return s.Intervals[i].From.After(t) })
	if i == 0 {
		return Interval{}, false
	}
	iv := s.Intervals[i-1]
	return iv, iv.contains(t)
}

// LastChange is when the price last moved: the start of the newest
// interval whose price or currency differs from the one before it. Zero
// when the offer has only ever had one price.
func (s Series) LastChange() time.Time {
	for i := len(s.Intervals) - 1; i > 0; i-- {
		a, b := s.Intervals[i-1], s.Intervals[i]
		if !a.Effective.Equal(b.Effective) || a.Currency != b.Currency {
			return b.From
		}
	}
	return time.Time{}
}

// GroupSeries sorts intervals into one series per offer key, each oldest
// first, the series in key order. Overlapping intervals of one key (which
// storage never writes) are an error rather than a silently wrong answer.
func GroupSeries(intervals []Interval) ([]Series, error) {
	return GroupSeriesInPlace(slices.Clone(intervals))
}

// GroupSeriesInPlace is GroupSeries for a caller handing its intervals
// over: they are sorted in place and the series share their array, so a
// large set (the digest's) is held once, not copied.
func GroupSeriesInPlace(ivs []Interval) ([]Series, error) {
	for _, iv := range ivs {
		if !iv.To.IsZero() && !iv.To.After(iv.From) {
			return nil, fmt.Errorf("price interval of %s ends (%s) before it starts (%s)", iv.Key(), iv.To, iv.From)
		}
	}
	// Compared field by field, not as built OfferKeys, and not at all
	// between intervals of one offer (which share its identity): building
	// two keys per comparison was most of a first overview's grouping.
	sameKey := func(a, b *pricewatch.Offer) int {
		if a == b {
			return 0
		}
		return offerCompare(a, b)
	}
	slices.SortFunc(ivs, func(a, b Interval) int {
		if c := sameKey(a.Offer, b.Offer); c != 0 {
			return c
		}
		return a.From.Compare(b.From)
	})
	// Counted first, so that the series are made at once: grown step by
	// step, 45k series (a first overview's) were allocated twice over.
	n := 0
	for i := range ivs {
		if i == 0 || sameKey(ivs[i].Offer, ivs[i-1].Offer) != 0 {
			n++
		}
	}
	out := make([]Series, 0, n)
	for start := 0; start < len(ivs); {
		k := ivs[start].Key()
		end := start + 1
		for end < len(ivs) && sameKey(ivs[end].Offer, ivs[start].Offer) == 0 {
			if ivs[end-1].To.IsZero() || ivs[end-1].To.After(ivs[end].From) {
				return nil, fmt.Errorf("price intervals of %s overlap at %s", k, ivs[end].From)
			}
			end++
		}
		out = append(out, Series{Key: k, Intervals: ivs[start:end:end]})
		start = end
	}
	return out, nil
}

// Delta is how a price moved over a window ending now.
type Delta struct {
	Label  string          `json:"window"` // "7d", "30d", …
	Window time.Duration   `json:"-"`
	From   decimal.Decimal `json:"from"` // price in force at now − window
	To     decimal.Decimal `json:"to"`   // price now
	Change decimal.Decimal `json:"change"`
	// Pct is Change ÷ From × 100, rounded to PercentDecimals.
	Pct decimal.Decimal `json:"pct"`
}

// OfferTrend summarises one offer's recent history. Prices are effective
// hourly rates in the offer's own currency.
type OfferTrend struct {
	Key      pricewatch.OfferKey `json:"-"`
	Currency string              `json:"currency"`
	pricewatch.Hardware
	// Current is the price now; invalid when the offer is no longer listed.
	Current decimal.NullDecimal `json:"current"`
	// PerGPUHour is Current per GPU; invalid without a current price or GPUs.
	PerGPUHour decimal.NullDecimal `json:"per_gpu_hour"`
	// Changes holds one Delta per requested window in which the offer was
	// listed both at the start and now.
	Changes []Delta `json:"changes"`
	// Min and Max are the lowest and highest prices in force during the
	// trend window, with the first moment each was in force there.
	Min   decimal.Decimal `json:"min"`
	MinAt time.Time       `json:"min_at"`
	Max   decimal.Decimal `json:"max"`
	MaxAt time.Time       `json:"max_at"`
	// LastChange is when the price last moved (zero: never).
	LastChange time.Time `json:"last_change"`
	// SpotDiscountPct is, for spot offers, how far below the matching
	// on-demand price the spot price is now (0–100).
	SpotDiscountPct decimal.NullDecimal `json:"spot_discount_pct"`
}

// Change returns the delta of the window with the given label.
func (t OfferTrend) Change(label string) (Delta, bool) {
	for _, d := range t.Changes {
		if d.Label == label {
			return d, true
		}
	}
	return Delta{}, false
}

// TrendOptions say which windows to look at.
type TrendOptions struct {
	// Now is the end of every window.
	Now time.Time
	// Window bounds the min/max search; zero means 30 days.
	Window time.Duration
	// Changes are the windows to report moves over; nil means 7, 30 and 90 days.
	Changes []time.Duration
	// FirstListedStep, when set, moves the baseline of an offer that was
	// not listed at the start of a change window (its history, or the
	// database, is younger than the window) to its price at the first
	// sample of the window (start + k × step) at which it was listed. Without
	// it such an offer shows no move at all, so a 90-day window on a
	// 40-day-old database said "no price moved" while 30 days showed every
	// drop. The step is the caller's sample grid, so that a read of only the
	// sampled intervals and a read of every interval agree on the baseline.
	FirstListedStep time.Duration
}

// DefaultChangeWindows are the windows reported unless others are asked for.
var DefaultChangeWindows = []time.Duration{7 * 24 * time.Hour, 30 * 24 * time.Hour, 90 * 24 * time.Hour}

// WindowLabel prints a window the way users type it: "7d", "36h".
func WindowLabel(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	return fmt.Sprintf("%dh", d/time.Hour)
}

// OfferTrends computes the trend of every series.
func OfferTrends(series []Series, opts TrendOptions) []OfferTrend {
	window := opts.Window
	if window <= 0 {
		window = 30 * 24 * time.Hour
	}
	changes := opts.Changes
	if changes == nil {
		changes = DefaultChangeWindows
	}
	now := opts.Now
	// On-demand prices now, for spot discounts.
	type place struct{ provider, region, zone, instanceType, os string }
	onDemand := map[place]Interval{}
	for _, s := range series {
		if s.Key.PriceType != pricewatch.OnDemand {
			continue
		}
		if iv, ok := s.At(now); ok {
			onDemand[place{s.Key.Provider, s.Key.Region, s.Key.Zone, s.Key.InstanceType, s.Key.OS}] = iv
		}
	}
	out := make([]OfferTrend, 0, len(series))
	for _, s := range series {
		if len(s.Intervals) == 0 {
			continue
		}
		latest := s.Latest()
		tr := OfferTrend{Key: s.Key, Currency: latest.Currency, Hardware: latest.Hardware, LastChange: s.LastChange()}
		cur, listed := s.At(now)
		if listed {
			tr.Current = decimal.NewNullDecimal(cur.Effective)
			if p, ok := perGPU(cur.Effective, cur.GPUCount); ok {
				tr.PerGPUHour = decimal.NewNullDecimal(p)
			}
			for _, w := range changes {
				then, ok := s.At(now.Add(-w))
				if !ok && opts.FirstListedStep > 0 {
					then, ok = firstListed(s, now.Add(-w), now, opts.FirstListedStep)
				}
				if !ok || then.Currency != cur.Currency || !then.Effective.IsPositive() {
					continue
				}
				ch := cur.Effective.Sub(then.Effective)
				tr.Changes = append(tr.Changes, Delta{
					Label: WindowLabel(w), Window: w, From: then.Effective, To: cur.Effective, Change: ch,
					Pct: ch.DivRound(then.Effective, divDecimals).Mul(hundred).Round(PercentDecimals),
				})
			}
		}
		tr.Min, tr.MinAt, tr.Max, tr.MaxAt = minMax(s, now.Add(-window), now)
		if listed && s.Key.PriceType == pricewatch.Spot {
			k := s.Key
			od, ok := onDemand[place{k.Provider, k.Region, k.Zone, k.InstanceType, k.OS}]
			if !ok {
				od, ok = onDemand[place{k.Provider, k.Region, "", k.InstanceType, k.OS}]
			}
			if ok && od.Currency == cur.Currency && od.Effective.IsPositive() {
				tr.SpotDiscountPct = decimal.NewNullDecimal(savingsPct(cur.Effective, od.Effective))
			}
		}
		out = append(out, tr)
	}
	return out
}

// firstListed is the price in force at the first sample from, from+step, …
// before to at which s was listed.
func firstListed(s Series, from, to time.Time, step time.Duration) (Interval, bool) {
	if len(s.Intervals) == 0 {
		return Interval{}, false
	}
	// Skip the samples before the series begins rather than probing each.
	if first := s.Intervals[0].From; first.After(from) {
		k := first.Sub(from) / step
		from = from.Add(k * step)
	}
	for t := from; t.Before(to); t = t.Add(step) {
		if iv, ok := s.At(t); ok {
			return iv, true
		}
	}
	return Interval{}, false
}

// minMax finds the lowest and highest price in force during [from, to] and
// the first moment each was in force there (clipped to from).
func minMax(s Series, from, to time.Time) (lo decimal.Decimal, loAt time.Time, hi decimal.Decimal, hiAt time.Time) {
	first := true
	for _, iv := range s.Intervals {
		if iv.From.After(to) || (!iv.To.IsZero() && !iv.To.After(from)) {
			continue
		}
		at := iv.From
		if at.Before(from) {
			at = from
		}
		if first || iv.Effective.LessThan(lo) {
			lo, loAt = iv.Effective, at
		}
		if first || iv.Effective.GreaterThan(hi) {
			hi, hiAt = iv.Effective, at
		}
		first = false
	}
	return lo, loAt, hi, hiAt
}

// Movers returns the n trends that moved most (by absolute percentage) over
// the window with the given label, biggest first; n <= 0 returns all.
func Movers(trends []OfferTrend, label string, n int) []OfferTrend {
	type mover struct {
		t   OfferTrend
		pct decimal.Decimal
	}
	var ms []mover
	for _, t := range trends {
		if d, ok := t.Change(label); ok && !d.Change.IsZero() {
			ms = append(ms, mover{t, d.Pct.Abs()})
		}
	}
	sort.SliceStable(ms, func(i, j int) bool {
		if c := ms[i].pct.Cmp(ms[j].pct); c != 0 {
			return c > 0
		}
		return keyLess(ms[i].t.Key, ms[j].t.Key)
	})
	if n > 0 && len(ms) > n {
		ms = ms[:n]
	}
	out := make([]OfferTrend, len(ms))
	for i, m := range ms {
		out[i] = m.t
	}
	return out
}

// CheapestOptions select the offers and the grid of the cheapest series.
type CheapestOptions struct {
	// GPU is a model or family (see gpu.Matches).
	GPU string
	// PriceTypes to consider; empty means all.
	PriceTypes []pricewatch.PriceType
	// OS: "" means Linux, "any" every OS.
	OS string
	// From and To bound the series; Step is the sampling interval (zero
	// means a day). The series is sampled at From, From+Step, … ≤ To.
	From, To time.Time
	Step     time.Duration
	// Currency all prices are converted to, with the rate of each sample's
	// date from FX.
	Currency string
	FX       Converter
	// Seller keeps only the clouds' own offers or only marketplace hosts'
	// ("" or any: both).
	Seller Seller
}

// CheapestPoint is the cheapest price per GPU-hour at one moment, and
// where it was.
type CheapestPoint struct {
	At               time.Time           `json:"at"`
	Key              pricewatch.OfferKey `json:"-"`
	GPUModel         string              `json:"gpu_model"`
	GPUCount         float64             `json:"gpu_count"`
	Currency         string              `json:"currency"`
	PerGPUHour       decimal.Decimal     `json:"price_per_gpu_hour"`
	NativeCurrency   string              `json:"native_currency"`
	NativePerGPUHour decimal.Decimal     `json:"native_price_per_gpu_hour"`
	FXUsed
}

// CheapestResult is the cheapest-per-GPU-hour series and what could not be
// taken into account.
type CheapestResult struct {
	Points []CheapestPoint
	// Unconverted lists offers skipped at some sample because no exchange
	// rate was available, with the reason (deduplicated).
	Unconverted []string
	// StaleRates is set when any point was converted with a stale rate.
	StaleRates bool
}

// CheapestPerGPUHour samples, across every matching series (all clouds and
// regions), the cheapest effective price per GPU-hour over time. Moments
// without any matching price in force are left out.
func CheapestPerGPUHour(series []Series, opts CheapestOptions) (CheapestResult, error) {
	step := opts.Step
	if step <= 0 {
		step = 24 * time.Hour
	}
	if opts.To.Before(opts.From) {
		return CheapestResult{}, fmt.Errorf("cheapest series: window ends (%s) before it starts (%s)", opts.To, opts.From)
	}
	if opts.Currency == "" {
		return CheapestResult{}, fmt.Errorf("cheapest series: a currency is needed to compare clouds")
	}
	if n := opts.To.Sub(opts.From) / step; n > 100_000 {
		return CheapestResult{}, fmt.Errorf("cheapest series: %d samples is too many; use a longer step", n)
	}
	var cand []Series
	for _, s := range series {
		if len(s.Intervals) == 0 || !priceTypeIn(opts.PriceTypes, s.Key.PriceType) || !osMatches(opts.OS, s.Key.OS) {
			continue
		}
		if gpu.Matches(opts.GPU, s.Latest().GPUModel) {
			cand = append(cand, s)
		}
	}
	var res CheapestResult
	// One reason per offer: the same missing rate recurs at every sample.
	skipped := map[pricewatch.OfferKey]string{}
	// A price stays in force over many samples: its per-GPU figure, and
	// in its own currency the identity quote and converted figure, are
	// worked out once per interval.
	type memo struct {
		iv        int
		native    decimal.Decimal
		ok        bool
		identity  bool
		quote     fx.Quote
		converted decimal.Decimal
	}
	memos := make([]memo, len(cand))
	for i := range memos {
		memos[i].iv = -1
	}
	for t := opts.From; !t.After(opts.To); t = t.Add(step) {
		var best *CheapestPoint
		for ci, s := range cand {
			idx := sort.Search(len(s.Intervals), func(i int) bool { return s.Intervals[i].From.After(t) }) - 1
			if idx < 0 || !s.Intervals[idx].contains(t) {
				continue
			}
			iv := &s.Intervals[idx]
			m := &memos[ci]
			if m.iv != idx {
				m.iv = idx
				m.native, m.ok = perGPU(iv.Effective, iv.GPUCount)
				m.identity = strings.EqualFold(iv.Currency, opts.Currency)
				if m.identity && m.ok {
					m.quote = fx.Identity(iv.Currency)
					m.converted = m.quote.Convert(m.native)
				}
			}
			if !m.ok {
				continue
			}
			q, converted := m.quote, m.converted
			if !m.identity {
				var err error
				if q, err = quote(opts.FX, iv.Currency, opts.Currency, t); err != nil {
					if _, seen := skipped[s.Key]; !seen {
						skipped[s.Key] = fmt.Sprintf("%s: %v", s.Key, err)
					}
					continue
				}
				converted = q.Convert(m.native)
			}
			if best != nil && !(converted.LessThan(best.PerGPUHour) ||
				(converted.Equal(best.PerGPUHour) && keyLess(s.Key, best.Key))) {
				continue
			}
			best = &CheapestPoint{At: t, Key: s.Key, GPUModel: iv.GPUModel, GPUCount: iv.GPUCount, Currency: q.To,
				PerGPUHour: converted, NativeCurrency: iv.Currency, NativePerGPUHour: m.native, FXUsed: fxUsed(q)}
		}
		if best != nil {
			res.Points = append(res.Points, *best)
			res.StaleRates = res.StaleRates || best.FXStale
		}
	}
	for _, why := range skipped {
		res.Unconverted = append(res.Unconverted, why)
	}
	sort.Strings(res.Unconverted)
	return res, nil
}

// CheapestAccumulator builds the result of CheapestPerGPUHour one series
// at a time, so that a caller streaming stored history offer by offer
// never holds every series: adding each series of a set and taking Result
// gives what CheapestPerGPUHour gives for the whole set.
//
// It keeps the best point of each sample in place and walks a series'
// intervals once along the grid: a year's trends add ~10k series of ~90
// samples each, and a result of its own per series (what CheapestPerGPUHour
// of one series would be) was most of their CPU time.
type CheapestAccumulator struct {
	opts    CheapestOptions
	step    time.Duration
	best    []CheapestPoint // by sample index, once a series is added
	has     []bool          // best[i] holds a point
	skipped map[string]bool
	err     error
}

// NewCheapestAccumulator starts an empty accumulation with opts.
func NewCheapestAccumulator(opts CheapestOptions) *CheapestAccumulator {
	a := &CheapestAccumulator{opts: opts, skipped: map[string]bool{}}
	// The options' errors are CheapestPerGPUHour's, from Add and Result.
	if _, err := CheapestPerGPUHour(nil, opts); err != nil {
		a.err = err
	}
	a.step = opts.Step
	if a.step <= 0 {
		a.step = 24 * time.Hour
	}
	return a
}

// Add takes one series into account.
func (a *CheapestAccumulator) Add(s Series) error {
	if a.err != nil {
		return a.err
	}
	o := &a.opts
	if len(s.Intervals) == 0 || !priceTypeIn(o.PriceTypes, s.Key.PriceType) || !osMatches(o.OS, s.Key.OS) || !gpu.Matches(o.GPU, s.Latest().GPUModel) ||
		!o.Seller.KeepsOffer(s.Key.Provider, s.Latest().OfferingClass) {
		return nil
	}
	if a.best == nil {
		n := int(o.To.Sub(o.From)/a.step) + 1
		a.best, a.has = make([]CheapestPoint, n), make([]bool, n)
	}
	// As in CheapestPerGPUHour: an interval's per-GPU figure (and, in its
	// own currency, its conversion) is worked out once.
	idx, memo := -1, -1
	var native, converted decimal.Decimal
	var ok, identity, skipped bool
	var q fx.Quote
	for k, t := 0, o.From; !t.After(o.To); k, t = k+1, t.Add(a.step) {
		// The last interval begun by t: the intervals are in time order
		// and the samples too.
		for idx+1 < len(s.Intervals) && !s.Intervals[idx+1].From.After(t) {
			idx++
		}
		if idx < 0 || !s.Intervals[idx].contains(t) {
			continue
		}
		iv := &s.Intervals[idx]
		if memo != idx {
			memo = idx
			native, ok = perGPU(iv.Effective, iv.GPUCount)
			identity = strings.EqualFold(iv.Currency, o.Currency)
			if identity && ok {
				q = fx.Identity(iv.Currency)
				converted = q.Convert(native)
			}
		}
		if !ok {
			continue
		}
		pq, pc := q, converted
		if !identity {
			var err error
			if pq, err = quote(o.FX, iv.Currency, o.Currency, t); err != nil {
				// One reason per offer: the same missing rate recurs at
				// every sample.
				if !skipped {
					skipped = true
					a.skipped[fmt.Sprintf("%s: %v", s.Key, err)] = true
				}
				continue
			}
			pc = pq.Convert(native)
		}
		b := &a.best[k]
		if a.has[k] && !(pc.LessThan(b.PerGPUHour) || (pc.Equal(b.PerGPUHour) && keyLess(s.Key, b.Key))) {
			continue
		}
		*b = CheapestPoint{At: t, Key: s.Key, GPUModel: iv.GPUModel, GPUCount: iv.GPUCount, Currency: pq.To,
			PerGPUHour: pc, NativeCurrency: iv.Currency, NativePerGPUHour: native, FXUsed: fxUsed(pq)}
		a.has[k] = true
	}
	return nil
}

// Result is the cheapest series over every series added.
func (a *CheapestAccumulator) Result() (CheapestResult, error) {
	if a.err != nil {
		return CheapestResult{}, a.err
	}
	var res CheapestResult
	for i, p := range a.best {
		if a.has[i] {
			res.Points = append(res.Points, p)
			res.StaleRates = res.StaleRates || p.FXStale
		}
	}
	for why := range a.skipped {
		res.Unconverted = append(res.Unconverted, why)
	}
	sort.Strings(res.Unconverted)
	return res, nil
}
