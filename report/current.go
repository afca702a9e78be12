package report

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/storage"
)

// CurrentState is an immutable snapshot of what is in force now: every
// current price interval (with the offer's identity and hardware), every
// current availability interval and every current signal (the spot
// bands), read once per data version (issue 30 item 2). The current-state
// views (the offers table, the GPU index, a GPU page's ranking, the
// overview's cheapest per GPU) read them many times per version; read from
// here, they are filtered in memory rather than decoded again from the
// database for every view. Everything else (history, the prices of 30
// days before, runs) is still read from the store.
//
// The reports stay the same functions over rows: CurrentState.Source
// gives them a Store whose current reads come from the snapshot, in the
// order and with the values the store itself returns, so the CLI (which
// reads the store) and the API answer byte for byte alike.
type CurrentState struct {
	// Version is the data version the snapshot was read at.
	Version string
	prices  *currentPrices
	// The availability and signals, one part per provider as the prices
	// (currentPrices.parts), shared alike.
	avail   [][]pricewatch.AvailabilityInterval
	signals [][]storage.SignalInterval

	// mark is where the store's runs stood before the snapshot was read
	// (marked: the store tells); whole is when it was last read whole.
	mark   storage.RunMark
	marked bool
	whole  time.Time
	// wholeVersion is the version the state was last read whole at, and
	// readAt the version each provider read again since was (ReadAt).
	wholeVersion string
	readAt       map[string]string
}

// ReadAt is the data version provider's current rows were last read at:
// it changes when the provider runs, and for every provider when the
// state is read whole again (every readWholeEvery, and what no run
// announces with it). What is worked out from one provider's rows alone
// can be kept while it stays (the overview's parts).
func (c *CurrentState) ReadAt(provider string) string {
	if v, ok := c.readAt[provider]; ok {
		return v
	}
	return c.wholeVersion
}

// ReadMarks are when each provider's rows of a state were read (ReadAt),
// for a later state to tell which it read again since (ReadAgainSince).
type ReadMarks struct {
	whole string
	at    map[string]string // the state's own: never written once it is made
}

// Marks are c's read marks.
func (c *CurrentState) Marks() ReadMarks { return ReadMarks{whole: c.wholeVersion, at: c.readAt} }

// ReadAgainSince lists the providers whose rows c read again after the
// state m was taken of, in order: the providers that ran in between
// (Update). all is set when c was read whole since: then any may have.
func (c *CurrentState) ReadAgainSince(m ReadMarks) (providers []string, all bool) {
	if c.wholeVersion != m.whole {
		return nil, true
	}
	for p, v := range c.readAt {
		if w, ok := m.at[p]; !ok || w != v {
			providers = append(providers, p)
		}
	}
	for p := range m.at {
		if _, ok := c.readAt[p]; !ok {
			providers = append(providers, p) // never from Update, which only adds
		}
	}
	slices.Sort(providers)
	return providers, false
}

// runMarker is a store that tells which providers ran since a mark
// (storage.DB does): a new snapshot then reads only theirs again.
type runMarker interface {
	RunMark(ctx context.Context) (storage.RunMark, error)
	ProvidersRunSince(ctx context.Context, m storage.RunMark) ([]string, error)
}

// readWholeEvery is how long a snapshot is updated from what ran before it
// is read whole again: a change no run announces (retention merging spot
// intervals, say) shows within it.
const readWholeEvery = 10 * time.Minute

// ReadCurrentState reads the current state from st. version is the data
// version read before it: a run committing meanwhile makes the snapshot
// newer than its version says, never older, and the next version's
// snapshot replaces it.
func ReadCurrentState(ctx context.Context, st Store, version string) (*CurrentState, error) {
	c := &CurrentState{Version: version, whole: time.Now(), wholeVersion: version}
	if err := c.markRuns(ctx, st); err != nil {
		return nil, err
	}
	prices, avail, signals, err := readCurrent(ctx, st, nil, newCurrentPrices())
	if err != nil {
		return nil, err
	}
	c.prices, c.avail, c.signals = prices, splitByProvider(avail, availProvider), splitByProvider(signals, signalProvider)
	return c, nil
}

// markRuns notes where the runs stand, before anything is read.
func (c *CurrentState) markRuns(ctx context.Context, st Store) error {
	rm, ok := st.(runMarker)
	if !ok {
		return nil
	}
	m, err := rm.RunMark(ctx)
	if err != nil {
		return err
	}
	c.mark, c.marked = m, true
	return nil
}

// readCurrent reads the current prices (into cp), availability and
// signals of providers (nil: every one).
func readCurrent(ctx context.Context, st Store, providers []string, cp *currentPrices) (*currentPrices, []pricewatch.AvailabilityInterval, []storage.SignalInterval, error) {
	err := st.EachPrice(ctx, storage.PriceFilter{CurrentOnly: true, Providers: providers}, func(p *storage.PriceInterval) error {
		cp.add(p)
		return nil
	})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("reading the current prices: %w", err)
	}
	return readCurrentRest(ctx, st, providers, cp)
}

// readCurrentRest is readCurrent after the prices (read into cp).
func readCurrentRest(ctx context.Context, st Store, providers []string, cp *currentPrices) (*currentPrices, []pricewatch.AvailabilityInterval, []storage.SignalInterval, error) {
	cp.done()
	avail, err := st.Availability(ctx, storage.AvailabilityFilter{Providers: providers})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("reading the current availability: %w", err)
	}
	signals, err := st.Signals(ctx, storage.SignalFilter{CurrentOnly: true, Providers: providers})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("reading the current signals: %w", err)
	}
	return cp, avail, signals, nil
}

// priceSeer is a store that tells when runs last covered each place
// (storage.DB does): an update can then read the prices of what ran
// without their offers (readRan).
type priceSeer interface {
	PriceSeen(ctx context.Context) (storage.PriceSeen, error)
}

// readRan is readCurrent of the providers in ran, into a table extending
// kept: their prices read with the identities kept's rows hold where the
// store tells what runs covered, else with their offers.
func readRan(ctx context.Context, st Store, ran []string, kept *currentPrices) (*currentPrices, []pricewatch.AvailabilityInterval, []storage.SignalInterval, error) {
	ps, ok := st.(priceSeer)
	if !ok {
		return readCurrent(ctx, st, ran, kept.extend())
	}
	// As the store's own read does: what runs covered, then the prices.
	seen, err := ps.PriceSeen(ctx)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("reading the current prices: %w", err)
	}
	cp := kept.extend()
	if err := kept.readKnown(ctx, st, seen, ran, cp); err != nil {
		return nil, nil, nil, fmt.Errorf("reading the current prices: %w", err)
	}
	return readCurrentRest(ctx, st, ran, cp)
}

// Update is the state at version, read from st as little as it can be
// (issue 30 item 2: incrementally from what a run changed): the current
// prices, availability and signals of the providers that ran since c was
// read are read again, and the others' kept. c is not changed. A store
// that cannot tell what ran, or a snapshot last read whole readWholeEvery
// ago, is read whole.
func (c *CurrentState) Update(ctx context.Context, st Store, version string) (*CurrentState, error) {
	rm, ok := st.(runMarker)
	if !ok || !c.marked || time.Since(c.whole) >= readWholeEvery {
		return ReadCurrentState(ctx, st, version)
	}
	n := &CurrentState{Version: version, whole: c.whole, wholeVersion: c.wholeVersion, readAt: c.readAt}
	if err := n.markRuns(ctx, st); err != nil {
		return nil, err
	}
	ran, err := rm.ProvidersRunSince(ctx, c.mark)
	if err != nil {
		return nil, err
	}
	if len(ran) == 0 {
		n.prices, n.avail, n.signals = c.prices, c.avail, c.signals
		return n, nil
	}
	prices, avail, signals, err := readRan(ctx, st, ran, c.prices)
	if err != nil {
		return nil, err
	}
	n.readAt = maps.Clone(c.readAt)
	if n.readAt == nil {
		n.readAt = make(map[string]string, len(ran))
	}
	for _, p := range ran {
		n.readAt[p] = version
	}
	n.prices = prices.mergeKept(c.prices, ran)
	n.avail = mergeParts(c.avail, splitByProvider(avail, availProvider), ran, availProvider)
	n.signals = mergeParts(c.signals, splitByProvider(signals, signalProvider), ran, signalProvider)
	return n, nil
}

// splitByProvider is rows (in provider order) as one part per provider,
// each in an array of its own where rows hold several providers, so that
// a later state sharing one part (mergeParts) does not keep the others'
// rows alive.
func splitByProvider[T any](rows []T, provider func(*T) string) [][]T {
	var parts [][]T
	for len(rows) > 0 {
		p := provider(&rows[0])
		n := 1
		for n < len(rows) && provider(&rows[n]) == p {
			n++
		}
		if n == len(rows) && parts == nil && cap(rows)-n <= n/16 {
			return [][]T{rows[:n:n]} // one provider, read into an array of its size
		}
		parts = append(parts, slices.Clone(rows[:n]))
		rows = rows[n:]
	}
	return parts
}

// mergeParts is kept's parts of the providers not in ran, shared, with
// read's (the parts of ran), in provider order: the store orders each
// read by provider first, in byte order on both backends.
func mergeParts[T any](kept, read [][]T, ran []string, provider func(*T) string) [][]T {
	parts := make([][]T, 0, len(kept)+len(read))
	for _, part := range kept {
		if !slices.Contains(ran, provider(&part[0])) {
			parts = append(parts, part)
		}
	}
	parts = append(parts, read...)
	slices.SortFunc(parts, func(a, b []T) int { return strings.Compare(provider(&a[0]), provider(&b[0])) })
	return parts
}

func availProvider(a *pricewatch.AvailabilityInterval) string { return a.Provider }
func signalProvider(s *storage.SignalInterval) string         { return s.Provider }

// Offers is how many current price intervals the snapshot holds.
func (c *CurrentState) Offers() int { return c.prices.len() }

// Source is st with its current reads answered from c.
func (c *CurrentState) Source(st Store) Store {
	cs, ok := st.(OfferChoiceStore)
	if !ok {
		return currentSource{Store: st, c: c}
	}
	return currentChoiceSource{currentSource{Store: st, c: c}, cs}
}

type currentSource struct {
	Store
	c *CurrentState
}

// currentChoiceSource keeps the store's choice counts in SQL (a cheap
// count that narrows which offers the table keeps, as without a snapshot).
type currentChoiceSource struct {
	currentSource
	OfferChoiceStore
}

// CurrentOfferChoices resolves the two embeddings' overlap in favour of
// the store's count.
func (s currentChoiceSource) CurrentOfferChoices(ctx context.Context, os string) ([]storage.OfferChoice, error) {
	return s.OfferChoiceStore.CurrentOfferChoices(ctx, os)
}

// currentPriceRead reports whether f asks only for current intervals with
// conditions on the offer, which the snapshot answers; any other read
// (history, a moment, a limit, offer ids) goes to the store.
func currentPriceRead(f storage.PriceFilter) bool {
	return f.CurrentOnly && f.Since.IsZero() && len(f.At) == 0 && f.Limit <= 0 && f.OfferIDs == nil && f.Samples == nil
}

// keepPrice is storage's offer conditions (offerConditions) in memory:
// exact matches, the GPU model compared without case as SQL does.
func (c *currentPrices) keepPrice(f storage.PriceFilter, r *currentPrice) bool {
	return (f.InstanceType == "" || c.s(r, fInstanceType) == f.InstanceType) &&
		(f.GPUModel == "" || strings.EqualFold(r.hw.GPUModel, f.GPUModel)) &&
		(f.GPUModels == nil || slices.Contains(f.GPUModels, r.hw.GPUModel)) &&
		(len(f.Providers) == 0 || slices.Contains(f.Providers, c.s(r, fProvider))) &&
		(len(f.Regions) == 0 || slices.Contains(f.Regions, c.s(r, fRegion))) &&
		(len(f.PriceTypes) == 0 || slices.Contains(f.PriceTypes, pricewatch.PriceType(c.s(r, fPriceType)))) &&
		(f.OS == "" || c.s(r, fOS) == f.OS)
}

// ReadAt is the snapshot's CurrentState.ReadAt.
func (s currentSource) ReadAt(provider string) string { return s.c.ReadAt(provider) }

// CurrentGPUModels are the GPU models of the current prices of os in
// force at at, sorted, each exactly as stored: what a read of every
// current price would find, without making its rows.
func (s currentSource) CurrentGPUModels(os string, at time.Time) []string {
	cp, in := s.c.prices, unixNano(at)
	models := map[string]bool{}
	for _, part := range cp.parts {
		for i := range part {
			r := &part[i]
			if r.hw.GPUModel != "" && cp.s(r, fOS) == os && r.validFrom <= in {
				models[r.hw.GPUModel] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(models))
}

// CurrentPrices is how many current prices the snapshot holds.
func (s currentSource) CurrentPrices() int { return s.c.prices.len() }

// CurrentPricesOf is how many current prices of these providers the
// snapshot holds.
func (s currentSource) CurrentPricesOf(providers []string) int {
	cp, n := s.c.prices, 0
	for _, part := range cp.parts {
		if slices.Contains(providers, cp.provider(part)) {
			n += len(part)
		}
	}
	return n
}

// EachPrice answers a current read from the snapshot: the store orders by
// the offer's identity, one current interval per offer, so the kept ones
// of the whole ordered list are in the order the store gives them.
func (s currentSource) EachPrice(ctx context.Context, f storage.PriceFilter, fn func(p *storage.PriceInterval) error) error {
	if !currentPriceRead(f) {
		return s.Store.EachPrice(ctx, f, fn)
	}
	var p storage.PriceInterval
	cp := s.c.prices
	for _, part := range cp.parts {
		if len(f.Providers) > 0 && !slices.Contains(f.Providers, cp.provider(part)) {
			continue
		}
		for i := range part {
			if !cp.keepPrice(f, &part[i]) {
				continue
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			cp.fill(&p, &part[i], f.EffectiveOnly)
			if err := fn(&p); err != nil {
				return err
			}
		}
	}
	return nil
}

// Prices is EachPrice collected.
func (s currentSource) Prices(ctx context.Context, f storage.PriceFilter) ([]storage.PriceInterval, error) {
	if !currentPriceRead(f) {
		return s.Store.Prices(ctx, f)
	}
	var out []storage.PriceInterval
	err := s.EachPrice(ctx, f, func(p *storage.PriceInterval) error {
		out = append(out, *p)
		return nil
	})
	return out, err
}

// Availability answers a read of the current intervals from the snapshot
// (storage's placeConditions in memory, in the store's order).
func (s currentSource) Availability(ctx context.Context, f storage.AvailabilityFilter) ([]pricewatch.AvailabilityInterval, error) {
	if f.All || !f.Since.IsZero() {
		return s.Store.Availability(ctx, f)
	}
	var out []pricewatch.AvailabilityInterval
	for _, part := range s.c.avail {
		for _, a := range part {
			if (f.InstanceType == "" || a.InstanceType == f.InstanceType) &&
				(f.GPUModel == "" || strings.EqualFold(a.GPUModel, f.GPUModel)) &&
				(len(f.Providers) == 0 || slices.Contains(f.Providers, a.Provider)) &&
				(len(f.Regions) == 0 || slices.Contains(f.Regions, a.Region)) {
				out = append(out, a)
			}
		}
	}
	return out, nil
}

// Signals answers a read of the current signals from the snapshot
// (storage's conditions in memory, in the store's order).
func (s currentSource) Signals(ctx context.Context, f storage.SignalFilter) ([]storage.SignalInterval, error) {
	if !f.CurrentOnly || f.Limit > 0 {
		return s.Store.Signals(ctx, f)
	}
	var out []storage.SignalInterval
	for _, part := range s.c.signals {
		for _, si := range part {
			if (len(f.Providers) == 0 || slices.Contains(f.Providers, si.Provider)) &&
				(len(f.Kinds) == 0 || slices.Contains(f.Kinds, si.Kind)) &&
				(f.GPUModels == nil || slices.Contains(f.GPUModels, si.GPUModel)) &&
				(f.InstanceType == "" || si.InstanceType == f.InstanceType) &&
				(len(f.Regions) == 0 || slices.Contains(f.Regions, si.Region) || slices.Contains(f.Regions, si.Zone)) {
				out = append(out, si)
			}
		}
	}
	return out, nil
}
