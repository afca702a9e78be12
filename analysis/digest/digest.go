// Package digest builds the weekly FinOps digest: for each watched GPU
// model, the cheapest on-demand, spot and commitment price per GPU-hour
// across clouds in one currency and how it moved over the week; the offers
// that moved most; new availability and sell-outs of the week; the best
// commitment against on-demand with its break-even utilisation; providers
// whose data is stale; the exchange rates used (stale or missing ones
// flagged); and a chart of the cheapest H100 and A100 per GPU-hour over the
// last twelve weeks.
//
// Data flows one way: stored rows → analysis → Digest → renderers (text,
// Markdown, JSON, Slack Block Kit, PNG chart, in alerting/digest). Build is pure computation
// over values: the caller loads the rows and passes them in with the
// clock, so a digest can be rebuilt for any moment from a fixture.
//
// Prices are pricewatch's: the digest states opportunity (list and
// commitment rates), not anyone's bill.
package digest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/fx"
	"github.com/pricewatch/pricewatch/gpu"
)

// Kind is the outbox kind of a digest message.
const Kind = "digest"

// Windows of the digest.
const (
	// Week is the period week-over-week moves and events cover.
	Week = 7 * 24 * time.Hour
	// ChartWeeks is how far back the chart goes, in weekly points.
	ChartWeeks = 12
	// StaleFactor: a provider whose last successful run is older than this
	// many expected intervals is stale.
	StaleFactor = 2
	// MaxMoves is how many single-offer moves the digest lists.
	MaxMoves = 8
)

// ChartModels are the GPU families the chart draws (gpu.Matches family
// queries: every H100 and every A100 variant).
var ChartModels = []string{"H100", "A100"}

// chartPriceTypes are drawn per family. Commitments are left out: their
// effective rate assumes every hour of the term is used.
var chartPriceTypes = []pricewatch.PriceType{pricewatch.OnDemand, pricewatch.Spot}

// chartSellers: each price type's line is the clouds' own offers, and a
// line of its own for marketplace hosts where they have a price, never
// one mixed cheapest (issue 31 item 1: a Vast.ai single-GPU box led the
// chart of every GPU).
var chartSellers = []analysis.Seller{analysis.SellerCloud, analysis.SellerMarketplace}

// Input is everything Build needs. Nothing in it is read from a clock, a
// file or the network.
type Input struct {
	// Now is the moment the digest describes.
	Now time.Time
	// Location is where dates are shown and the ISO week is counted
	// (digest.timezone); nil means UTC.
	Location *time.Location
	// Currency every price is converted to (digest.currency).
	Currency string
	// Models are the watched GPU models or families (digest.gpu_models).
	Models []string
	// WithoutSavings leaves the best commitments (Digest.Savings) out:
	// the dashboard's overview shows none, and working them out was a
	// quarter of its computation (issue 30).
	WithoutSavings bool
	// WithoutChart leaves the 12-week chart out (Digest.Chart has no
	// series): the overview draws none.
	WithoutChart bool
	// WithoutMoves leaves the week's movers out (Digest.Moves and Moved):
	// the overview lists none, and finding them was a quarter of its
	// digest's computation at 45k offers (issue 30).
	WithoutMoves bool
	// Prices are the stored price intervals in force at the weekly sample
	// points Now, Now − Week, … Now − ChartWeeks weeks (storage.Prices with
	// At; every interval since Now − ChartWeeks weeks gives the same
	// digest), of any
	// OS; only Linux prices are compared. The raw prices (Hourly, Upfront)
	// are read only of intervals in force at Now. Build may
	// reorder them (it groups them in place when it needs no copy of its
	// own), never changes them.
	Prices []analysis.Interval
	// WeekChanges counts the week's price changes of Linux offers per GPU
	// model and region, read from every interval of the week (Prices, read
	// at the weekly points only, miss the changes between them). Nil: they
	// are counted among Prices, which then hold every interval of the week.
	WeekChanges []ChangeCount
	// Availability are the availability intervals open at some time since
	// Now − Week (storage.Availability with All and Since).
	Availability []pricewatch.AvailabilityInterval
	// Runs are each provider's latest run and its latest successful run
	// (storage.LastRuns plus storage.LastSuccess), in any order.
	Runs []pricewatch.Run
	// Expected maps each enabled provider to how often it is meant to run;
	// a provider missing here is not checked for staleness.
	Expected map[string]time.Duration
	// FX converts prices into Currency; a missing rate leaves the price
	// out and says so, never treats it as already in Currency.
	FX analysis.Converter
	// Regions scopes the digest to these region codes (digest.regions,
	// matched ignoring case); empty means every region.
	Regions []string
	// Providers (digest.providers) and Seller (digest.sellers) scope it
	// further to these clouds and to the clouds' own capacity or
	// marketplace hosts' (issue 31); empty and "" keep every one.
	Providers []string
	Seller    analysis.Seller
	// FleetGPUs is the reference fleet the monthly run-rate is for
	// (digest.fleet_gpus); 0 leaves the run-rate out.
	FleetGPUs int
	// CapacityBlocks are the stored capacity block offerings open at some
	// time since Now − Week (storage.Signals, kind capacity_block, All and
	// Since).
	CapacityBlocks []BlockInterval
}

// Digest is one week's digest, ready for the renderers.
type Digest struct {
	// Week is the ISO week of Now in Location, e.g. "2026-W11"; the
	// delivery key uses it so that one week posts one digest.
	Week     string
	Now      time.Time
	From     time.Time      // Now − Week
	Location *time.Location `json:"-"` // queued by name (document.go)
	Currency string

	// Offers counts the current Linux offers of watched models; Changed how
	// many price changes of them were observed during the week (stored
	// intervals that began in the week and replaced an earlier price, so
	// a first week with alerts does not read "0 changed").
	Offers, Changed int
	// Moved counts the watched offers whose price now differs from their
	// price 7 days ago: the offers Moves lists the biggest of. It is not
	// Changed: a price that moved and moved back, or an offer listed or
	// withdrawn during the week, is a change but no move.
	Moved int
	// FleetGPUs is the reference fleet of the monthly run-rates (0: none);
	// Regions, Providers and Seller the scope (empty: every one).
	FleetGPUs       int
	Regions         []string
	Providers       []string
	Seller          analysis.Seller
	Models          []ModelRow
	Moves           []Move
	NewAvailability []AvailabilityEvent
	SoldOut         []AvailabilityEvent
	// Baseline lists providers whose first availability data arrived this
	// week: their places are not reported as new.
	Baseline []string
	Savings  []SavingsRow
	// CapacityBlocks are the week's capacity blocks of watched models,
	// cheapest per GPU-hour first, at most MaxBlocks; BlocksSeen counts
	// them all.
	CapacityBlocks []CapacityBlock
	BlocksSeen     int
	Freshness      []ProviderStatus
	Rates          []Rate
	Chart          Chart
}

// Choice is one priced option: what it costs per GPU-hour in the digest's
// currency, in the cloud's own currency, and where it is sold.
type Choice struct {
	PerGPUHour       decimal.Decimal
	NativeCurrency   string
	NativePerGPUHour decimal.Decimal
	FXStale          bool
	Offer            pricewatch.Offer
	// Available: true offered or in stock, false sold out, nil unknown.
	Available *bool
}

// ModelRow is the cheapest of each way to buy one watched model.
type ModelRow struct {
	Model string
	// OnDemand, Spot and Commitment are nil when no offer of that kind
	// could be priced. Commitment is the lowest effective rate of any
	// reserved instance, savings plan or prepaid subscription. OnDemand is
	// the clouds' own capacity and MarketOnDemand marketplace hosts'
	// (clouds.IsMarketplace): the headline shows them side by side, never
	// one mixed winner (issue 31 item 1).
	OnDemand, MarketOnDemand, Spot, Commitment *Choice
	// OnDemandWoW and SpotWoW are how the cheapest price per GPU-hour moved
	// since Now − Week, in percent (each end converted at its own date's
	// rate); invalid when either end had no price.
	OnDemandWoW, SpotWoW decimal.NullDecimal
	// Offers counts the current offers of the model; Unconverted lists, per
	// currency without a rate, how many of them were left out.
	Offers      int
	Unconverted map[string]int
	// The ends the moves were worked out from (MergeRows).
	onDemandEnds, spotEnds ends
}

// Move is one offer whose price changed over the week, in its own currency.
type Move struct {
	Key      pricewatch.OfferKey
	Currency string
	pricewatch.Hardware
	From, To decimal.Decimal // effective hourly, whole instance
	// FromPerGPU and ToPerGPU are per GPU-hour (invalid without a GPU count).
	FromPerGPU, ToPerGPU decimal.NullDecimal
	Pct                  decimal.Decimal
}

// Shown is the move as the digest shows it: per GPU-hour when both ends
// are known per GPU-hour, else the whole instance's effective hourly.
func (m Move) Shown() (from, to decimal.Decimal) {
	if m.FromPerGPU.Valid && m.ToPerGPU.Valid {
		return m.FromPerGPU.Decimal, m.ToPerGPU.Decimal
	}
	return m.From, m.To
}

// AvailabilityEvent is a type that became available (or sold out, or was
// withdrawn) in some places of a region during the week.
type AvailabilityEvent struct {
	Provider, Region, InstanceType string
	GPUModel                       string
	GPUCount                       float64
	// Zones are the places affected ("" for the whole region).
	Zones []string
	// State is the new state: offered or in_stock for new availability,
	// sold_out, or "withdrawn".
	State string
	// Back is set for availability that returned after a sell-out.
	Back bool
	// At is the first transition of the week among Zones.
	At time.Time
	// Still reports whether every zone is still in State now.
	Still bool
}

// Withdrawn is the State of a type no longer listed where it was.
const Withdrawn = "withdrawn"

// SavingsRow is the best commitment for one watched model: the largest
// saving against on-demand for the same machine at full use.
type SavingsRow struct {
	Model string
	analysis.Savings
	// EffectivePerGPU and OnDemandPerGPU are per GPU-hour in the digest's
	// currency.
	EffectivePerGPU, OnDemandPerGPU decimal.Decimal
	// Alternative is the cheapest on-demand offer of the clouds' own
	// capacity, on any cloud and in any region, of the commitment's GPU
	// model and GPU count: what the money buys without the lock-in. A
	// commitment that saves on its own machine's on-demand may still cost
	// more than another cloud's (issue 31 item 4). Nil when none is priced.
	Alternative *Choice
}

// LockInDearer reports whether the commitment costs more per GPU-hour than
// the best on-demand alternative on any cloud.
func (s SavingsRow) LockInDearer() bool {
	return s.Alternative != nil && s.Alternative.PerGPUHour.LessThan(s.EffectivePerGPU)
}

// ProviderStatus is how fresh one provider's data is.
type ProviderStatus struct {
	Provider    string
	Expected    time.Duration
	LastSuccess *time.Time
	LastRun     *time.Time
	LastStatus  string
	LastError   string
	Stale       bool
	// Reason says why a provider is stale.
	Reason string
}

// Rate is the exchange rate used for one currency, or why there is none.
type Rate struct {
	From, To string
	Quote    fx.Quote
	// Missing is set when no rate exists; Error says why.
	Missing bool
	Error   string
	// Offers counts the current offers of watched models priced in From.
	Offers int
}

// Chart is the cheapest-per-GPU-hour series drawn by RenderChart.
type Chart struct {
	Title    string
	Currency string
	From, To time.Time
	Series   []ChartSeries
}

// ChartSeries is one line: a GPU family bought one way, a point a week.
type ChartSeries struct {
	Label     string
	GPU       string
	PriceType pricewatch.PriceType
	// Seller is whose offers the line follows: the clouds' own (cloud)
	// or marketplace hosts' (marketplace).
	Seller analysis.Seller
	Points []analysis.CheapestPoint
	// Unconverted says which offers were skipped for lack of a rate.
	Unconverted []string
}

// Empty reports whether the chart has nothing to draw.
func (c Chart) Empty() bool {
	for _, s := range c.Series {
		if len(s.Points) > 0 {
			return false
		}
	}
	return true
}

// Loc is where dates are shown: UTC unless the digest says otherwise.
func (d Digest) Loc() *time.Location {
	if d.Location == nil {
		return time.UTC
	}
	return d.Location
}

// Stale lists the providers whose data is stale.
func (d Digest) Stale() []ProviderStatus {
	var out []ProviderStatus
	for _, p := range d.Freshness {
		if p.Stale {
			out = append(out, p)
		}
	}
	return out
}

// StaleRates reports whether any rate used was stale.
func (d Digest) StaleRates() bool {
	for _, r := range d.Rates {
		if !r.Missing && r.Quote.Stale {
			return true
		}
	}
	return false
}

// MissingRates lists the currencies without a rate.
func (d Digest) MissingRates() []string {
	var out []string
	for _, r := range d.Rates {
		if r.Missing {
			out = append(out, r.From)
		}
	}
	return out
}

// ISOWeek is the ISO 8601 week of t in loc, e.g. "2026-W11".
func ISOWeek(t time.Time, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	y, w := t.In(loc).ISOWeek()
	return fmt.Sprintf("%04d-W%02d", y, w)
}

// Build computes the digest.
func Build(in Input) (Digest, error) {
	b, err := NewBuilder(in)
	if err != nil {
		return Digest{}, err
	}
	prices := in.Prices
	b.in.Prices = nil
	if err := b.Add(prices); err != nil {
		return Digest{}, err
	}
	return b.Digest()
}

// Builder builds a digest from prices handed over in parts (Add), so that
// a caller reading a year's history holds one part's series at a time
// instead of every watched offer's (issue 26 item 4: the weekly digest
// held ~21k series through the whole build). Adding every price in one
// part is Build.
//
// Each watched model (Input.Models) is worked out in the part holding its
// offers, so every offer a watched model matches must come in the same
// part: a model or family spread over two parts is an error, never half
// an answer. The chart's families, the movers, the counts and the rates
// are accumulated across parts.
type Builder struct {
	in      Input
	d       Digest
	cur     string
	watched func(string) bool
	// rater rates the watched models' current offers against the
	// current availability, each conversion looked up once.
	rater *analysis.Rater
	// currencies counts the current watched offers per currency (upper
	// case); every series' newest currency is in it, with 0 if unwatched.
	currencies map[string]int
	rows       []ModelRow
	rowDone    []bool
	savings    []*SavingsRow
	chart      []*analysis.CheapestAccumulator // ChartModels × chartPriceTypes
	top        []analysis.OfferTrend
	moved      int
	changed    int
}

// NewBuilder starts the digest of in; in.Prices are left out (Add them).
func NewBuilder(in Input) (*Builder, error) {
	if in.Now.IsZero() {
		return nil, errors.New("building the digest: no time given")
	}
	cur := strings.ToUpper(strings.TrimSpace(in.Currency))
	if !pricewatch.IsCurrencyCode(cur) {
		return nil, fmt.Errorf("building the digest: currency %q is not a three-letter code", in.Currency)
	}
	loc := in.Location
	if loc == nil {
		loc = time.UTC
	}
	now := in.Now
	b := &Builder{cur: cur, currencies: map[string]int{},
		rows: make([]ModelRow, len(in.Models)), rowDone: make([]bool, len(in.Models)), savings: make([]*SavingsRow, len(in.Models))}
	b.d = Digest{Week: ISOWeek(now, loc), Now: now, From: now.Add(-Week), Location: loc, Currency: cur,
		FleetGPUs: in.FleetGPUs, Regions: in.Regions, Providers: in.Providers, Seller: in.Seller}
	in.Prices = nil
	if in.scoped() {
		in.Availability = slices.DeleteFunc(slices.Clone(in.Availability), func(a pricewatch.AvailabilityInterval) bool { return !in.inScope(a.Provider, a.Region, "") })
	}
	b.in = in
	b.watched = func(model string) bool {
		for _, m := range in.Models {
			if gpu.Matches(m, model) {
				return true
			}
		}
		return false
	}
	rater, err := analysis.NewRater(analysis.IndexAvailability(currentAvailability(in.Availability, now)),
		analysis.CompareOptions{Currency: cur, FX: in.FX, At: now, CheapestOnly: true})
	if err != nil {
		return nil, fmt.Errorf("building the digest: %w", err)
	}
	b.rater = rater
	for _, m := range ChartModels {
		if in.WithoutChart {
			break
		}
		for _, pt := range chartPriceTypes {
			for _, seller := range chartSellers {
				b.chart = append(b.chart, analysis.NewCheapestAccumulator(analysis.CheapestOptions{GPU: m, PriceTypes: []pricewatch.PriceType{pt},
					From: now.Add(-ChartWeeks * Week), To: now, Step: Week, Currency: cur, FX: in.FX, Seller: seller}))
			}
		}
	}
	return b, nil
}

// Add takes in one part of the prices (see Input.Prices): every interval
// of the offers it holds. It may reorder prices, never changes them, and
// keeps none of them.
func (b *Builder) Add(prices []analysis.Interval) error {
	in, now := &b.in, b.in.Now
	if in.scoped() {
		prices = slices.DeleteFunc(slices.Clone(prices), func(iv analysis.Interval) bool { return !in.inScope(iv.Provider, iv.Region, iv.OfferingClass) })
	}
	series, err := linuxSeries(prices, now)
	if err != nil {
		return fmt.Errorf("building the digest: %w", err)
	}
	// The series by stored GPU model name, in series order: a watched
	// model's series are those of the few stored names it matches, found
	// once per name rather than by matching every series against every
	// model (at 45k current offers and ~60 models, the overview's scans
	// of every series per model were most of its build).
	byName := map[string][]int{}
	for i, s := range series {
		name := s.Latest().GPUModel
		byName[name] = append(byName[name], i)
	}
	watchedName := make(map[string]bool, len(byName))
	for name := range byName {
		watchedName[name] = b.watched(name)
	}
	isWatched := func(s analysis.Series) bool { return watchedName[s.Latest().GPUModel] }
	// The current offers are taken from the series one model at a time
	// (modelOffers), never all at once: at a year's scale the watched
	// offers alone are tens of thousands of copies of an offer. Here only
	// their count and currencies are kept.
	for _, s := range series {
		if iv, ok := s.At(now); ok && isWatched(s) {
			b.d.Offers++
			b.currencies[strings.ToUpper(iv.Currency)]++
		}
		if c := strings.ToUpper(s.Latest().Currency); b.currencies[c] == 0 {
			b.currencies[c] = 0
		}
	}
	var ofModel []pricewatch.Offer
	var idx []int
	var sub []analysis.Series
	for i, m := range in.Models {
		idx = idx[:0]
		for name, is := range byName {
			if gpu.Matches(m, name) {
				idx = append(idx, is...)
			}
		}
		if len(idx) == 0 {
			continue
		}
		if b.rowDone[i] {
			return fmt.Errorf("building the digest for %s: its prices came in two parts", m)
		}
		// In series order, as every series was read before.
		slices.Sort(idx)
		sub = sub[:0]
		for _, j := range idx {
			sub = append(sub, series[j])
		}
		ofModel = modelOffers(ofModel[:0], sub, m, now)
		if err := b.model(i, ofModel, sub); err != nil {
			return err
		}
	}
	if in.WeekChanges == nil {
		b.changed += observedChanges(series, isWatched, b.d.From, now)
	}
	if !in.WithoutMoves {
		top, moved := topMovers(series, isWatched, now, MaxMoves, moverBatch)
		// Movers orders by move then by key, a total order: the best of
		// each part's best is the best of all.
		b.top, b.moved = analysis.Movers(append(b.top, top...), analysis.WindowLabel(Week), MaxMoves), b.moved+moved
	}
	for _, c := range b.chart {
		for _, s := range series {
			if err := c.Add(s); err != nil {
				return fmt.Errorf("building the digest chart: %w", err)
			}
		}
	}
	return nil
}

// model works out watched model i (its row and best commitment) from the
// series of its part matching it and its current offers (in series
// order).
func (b *Builder) model(i int, offers []pricewatch.Offer, series []analysis.Series) error {
	m := b.in.Models[i]
	row, err := modelRow(m, offers, b.rater, series, b.in, b.cur)
	if err != nil {
		return fmt.Errorf("building the digest for %s: %w", m, err)
	}
	b.rows[i], b.rowDone[i] = row, true
	if b.in.WithoutSavings {
		return nil
	}
	sv, err := bestSavings(m, offers, b.in.FX, b.cur, b.in.Now)
	if err != nil {
		return fmt.Errorf("building the digest: %w", err)
	}
	b.savings[i] = sv
	return nil
}

// eachPlace calls fn with each run of offers of one provider and region,
// in order: offers in series order (provider, then region, first) come
// grouped so. A comparison's rows and a savings report are then held for
// one region at a time (a year's model has thousands of offers, and the
// report over all of them was most of the digest's live heap), and every
// on-demand price a commitment is matched with, and every availability
// record an offer's is read from, is of its own provider and region. With
// no offers fn is called once with none, so that option errors surface.
func eachPlace(offers []pricewatch.Offer, fn func([]pricewatch.Offer) error) error {
	if len(offers) == 0 {
		return fn(nil)
	}
	for start := 0; start < len(offers); {
		end := start + 1
		for end < len(offers) && offers[end].Provider == offers[start].Provider && offers[end].Region == offers[start].Region {
			end++
		}
		if err := fn(offers[start:end]); err != nil {
			return err
		}
		start = end
	}
	return nil
}

// Digest is the digest of every part added.
func (b *Builder) Digest() (Digest, error) {
	in, now, d := &b.in, b.in.Now, b.d
	// A watched model no part held has no offers: its row is worked out
	// over none.
	for i := range in.Models {
		if !b.rowDone[i] {
			if err := b.model(i, nil, nil); err != nil {
				return Digest{}, err
			}
		}
	}
	d.Models = b.rows
	if in.WeekChanges != nil {
		d.Changed = weekChanges(in.WeekChanges, b.watched, in)
	} else {
		d.Changed = b.changed
	}
	label := analysis.WindowLabel(Week)
	d.Moved = b.moved
	for _, t := range b.top {
		ch, _ := t.Change(label)
		mv := Move{Key: t.Key, Currency: t.Currency, Hardware: t.Hardware, From: ch.From, To: ch.To, Pct: ch.Pct}
		if p, ok := pricewatch.PerGPUHour(ch.From, t.GPUCount); ok {
			mv.FromPerGPU = decimal.NewNullDecimal(p)
		}
		if p, ok := pricewatch.PerGPUHour(ch.To, t.GPUCount); ok {
			mv.ToPerGPU = decimal.NewNullDecimal(p)
		}
		d.Moves = append(d.Moves, mv)
	}

	d.NewAvailability, d.SoldOut, d.Baseline = availabilityEvents(in.Availability, now, b.watched)
	d.CapacityBlocks, d.BlocksSeen = weekBlocks(in.CapacityBlocks, b.watched, in, in.FX, b.cur, d.From, now)

	for _, s := range b.savings {
		if s != nil {
			d.Savings = append(d.Savings, *s)
		}
	}
	d.Freshness = Freshness(in.Runs, in.Expected, now)
	d.Rates = rates(b.currencies, in.FX, b.cur, now)
	var err error
	if d.Chart, err = b.chartResult(); err != nil {
		return Digest{}, fmt.Errorf("building the digest chart: %w", err)
	}
	return d, nil
}
