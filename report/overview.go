package report

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/analysis/digest"
	"github.com/pricewatch/pricewatch/gpu"
	"github.com/pricewatch/pricewatch/storage"
)

// OverviewInput is what digest.Build needs for the dashboard's overview,
// which shows each model's cheapest options and their week-over-week
// moves, not the week's changes, movers or chart: it reads only the
// prices in force now and a week ago (digest.Input.Prices' weekly points,
// the first two), not every interval of the week, which under frequent
// runs holds many more intervals than offers (issue 30's load test stores
// an Azure run every 5 s, each adding ~280). WeekChanges is set empty: the
// overview does not count them.
//
// providers, when not nil, keeps only their offers (and availability and
// capacity blocks), and scopes the digest to them (digest.Input.Providers):
// one provider's part of the overview, which digest.MergeRows merges with
// the others'.
//
// present says now is the clock's now: the prices in force then are the
// current ones, read as such (CurrentOnly), which a store keeping the
// current state in memory (CurrentState.Source) answers without the
// database; of the week-ago prices only those closed since are read from
// it (ClosedOnly), not the prices in force then, two lookups an offer.
func OverviewInput(ctx context.Context, st Store, now time.Time, present bool, providers []string) (digest.Input, error) {
	var ivs []analysis.Interval
	keep := func(r *storage.PriceInterval) error {
		ivs = append(ivs, digestInterval(r))
		return nil
	}
	if !present {
		f := storage.PriceFilter{OS: pricewatch.Linux, At: []time.Time{now, now.Add(-digest.Week)}, Providers: providers, Unordered: true}
		if err := st.EachPrice(ctx, f, keep); err != nil {
			return digest.Input{}, err
		}
	} else {
		// The current offers' identities, by offer id, for their closed
		// intervals below. Room for every current price at once where the
		// store knows their number (growing 45k intervals step by step
		// allocated twice as many), and for the providers' own where
		// asked for a part: one provider's room for every provider's was
		// 26 ms of a 256 ms Azure part on the quarter-year database,
		// clearing it.
		var current map[int64]currentOffer
		if c, ok := st.(currentCounter); ok {
			n := c.CurrentPrices()
			if pc, ok := st.(providerCounter); ok && providers != nil {
				n = pc.CurrentPricesOf(providers)
			}
			ivs = make([]analysis.Interval, 0, n+n/16)
			current = make(map[int64]currentOffer, n)
		} else {
			current = map[int64]currentOffer{}
		}
		err := st.EachPrice(ctx, storage.PriceFilter{OS: pricewatch.Linux, CurrentOnly: true, Providers: providers}, func(r *storage.PriceInterval) error {
			current[r.OfferID] = currentOffer{identity(r), r.ValidFrom}
			if r.ValidFrom.After(now) {
				return nil // not yet in force
			}
			return keep(r)
		})
		if err != nil {
			return digest.Input{}, err
		}
		err = eachClosedThisWeek(ctx, st, now, providers, func(offer int64) (time.Time, bool) {
			c, ok := current[offer]
			return c.from, ok
		}, func(r *storage.PriceInterval) {
			ivs = append(ivs, intervalOf(r, current[r.OfferID].offer))
		}, keep)
		if err != nil {
			return digest.Input{}, err
		}
	}
	in, err := digestRest(ctx, st, now, ivs, providers)
	in.WeekChanges = []digest.ChangeCount{}
	in.Providers = providers
	return in, err
}

// eachClosedThisWeek reads what was in force a week before now and is no
// longer: the intervals closed since and begun by then, at most one an
// offer. Those begun within the week are more than the digest needs, and
// change none of its figures (digest.Input.Prices); an offer whose spot
// price moves every run closes dozens a week, so they are left out in the
// read (BegunBySince), not after it. Read without their offers, which are
// mostly current ones held already (start tells when a current offer's
// current price began): decoding every Linux offer for them was a quarter
// of the overview. Each is handed to closed; the offers no longer current
// are read again, with their offers, and handed to gone.
//
// The current prices may come from a snapshot older than the store
// (CurrentState's, while a run commits): that run may have closed a price
// the snapshot holds as current, and opened and closed others after it.
// Of an offer current in the snapshot only the intervals closed by the
// start of its current one are earlier; the rest are later than what is
// shown, and would overlap it.
func eachClosedThisWeek(ctx context.Context, st Store, now time.Time, providers []string, start func(offer int64) (time.Time, bool),
	closed func(r *storage.PriceInterval), gone func(r *storage.PriceInterval) error) error {
	f := storage.PriceFilter{OS: pricewatch.Linux, Since: now.Add(-digest.Week), ClosedOnly: true, BegunBySince: true, PricesOnly: true, Providers: providers}
	var goneIDs []int64
	err := st.EachPrice(ctx, f, func(r *storage.PriceInterval) error {
		from, ok := start(r.OfferID)
		if !ok {
			if len(goneIDs) == 0 || goneIDs[len(goneIDs)-1] != r.OfferID {
				goneIDs = append(goneIDs, r.OfferID)
			}
			return nil
		}
		if r.ValidTo != nil && !r.ValidTo.After(from) {
			closed(r)
		}
		return nil
	})
	if err != nil || len(goneIDs) == 0 {
		return err
	}
	f.PricesOnly, f.OfferIDs = false, goneIDs
	return st.EachPrice(ctx, f, gone)
}

// providerCounter is a store that knows how many current prices some
// providers hold.
type providerCounter interface {
	CurrentPricesOf(providers []string) int
}

// currentOffer is an offer current in the prices the overview reads, and
// the start of its current price.
type currentOffer struct {
	offer *pricewatch.Offer
	from  time.Time
}

// WeeklyDigestInput is what digest.Build needs for the weekly digest over
// a long history, without its prices: WeeklyDigest reads them part by part. The
// week's changes are counted here for the GPU models matching queries
// (digest.gpu_models and the chart's models).
func WeeklyDigestInput(ctx context.Context, st Store, now time.Time, queries []string) (digest.Input, error) {
	all, err := st.GPUModels(ctx)
	if err != nil {
		return digest.Input{}, err
	}
	changes, err := weekChanges(ctx, st, now, matchingModels(all, queries))
	if err != nil {
		return digest.Input{}, err
	}
	in, err := digestRest(ctx, st, now, nil, nil)
	in.WeekChanges = changes
	return in, err
}

// WeeklyDigest builds the weekly digest of in (WeeklyDigestInput's, with
// the caller's currency, models and rates), reading only what the digest
// looks at: the Linux prices of the GPU models matching in.Models and the
// chart's, in force at the chart's weekly points (which include both ends
// of the week-over-week moves and of the offers' moves of the week), not
// every interval of twelve weeks. They are read and handed to the digest
// one part of the stored models at a time (digestParts), so that a year's
// digest holds one part's intervals, not every watched offer's (issue 26
// item 4: ~52k intervals of ~21k offers were most of its live heap).
func WeeklyDigest(ctx context.Context, st Store, in digest.Input) (digest.Digest, error) {
	var at []time.Time
	for w := 0; w <= digest.ChartWeeks; w++ {
		at = append(at, in.Now.Add(-time.Duration(w)*digest.Week))
	}
	all, err := st.GPUModels(ctx)
	if err != nil {
		return digest.Digest{}, err
	}
	b, err := digest.NewBuilder(in)
	if err != nil {
		return digest.Digest{}, err
	}
	for _, part := range digestParts(all, in.Models, digest.ChartModels) {
		prices := offerPrices{now: in.Now}
		err := st.EachPrice(ctx, storage.PriceFilter{OS: pricewatch.Linux, At: at, GPUModels: part, Unordered: true}, func(r *storage.PriceInterval) error {
			if r.GPUModel != "" {
				prices.add(r)
			}
			return nil
		})
		if err != nil {
			return digest.Digest{}, err
		}
		if err := b.Add(prices.intervals()); err != nil {
			return digest.Digest{}, err
		}
	}
	return b.Digest()
}

// BuildInParts is digest.Build(in) with in.Prices handed to the builder
// one part of their GPU models at a time (digestParts, as WeeklyDigest
// reads them), so that the series of one part are held at once, not every
// offer's. Issue 30: on the share-1 database the overview's Azure part
// grouped ~9 MB of series at once, beside the ~10 MB of prices it was
// built from, and the daemon's heap peaked there after each stored run.
// The prices are reordered (grouped by part), never changed.
func BuildInParts(in digest.Input) (digest.Digest, error) {
	prices := in.Prices
	in.Prices = nil
	b, err := digest.NewBuilder(in)
	if err != nil {
		return digest.Digest{}, err
	}
	stored := map[string]bool{}
	for i := range prices {
		stored[prices[i].GPUModel] = true
	}
	parts := overviewParts(stored, in)
	partOf := make(map[string]int, len(stored))
	for i, part := range parts {
		for _, name := range part {
			partOf[name] = i
		}
	}
	slices.SortStableFunc(prices, func(a, b analysis.Interval) int { return partOf[a.GPUModel] - partOf[b.GPUModel] })
	for start := 0; start < len(prices); {
		end := start + 1
		for end < len(prices) && partOf[prices[end].GPUModel] == partOf[prices[start].GPUModel] {
			end++
		}
		if err := b.Add(prices[start:end]); err != nil {
			return digest.Digest{}, err
		}
		start = end
	}
	return b.Digest()
}

// OverviewDigest is BuildInParts of OverviewInput(ctx, st, now, true,
// providers), the input's settings (currency, rates, models, what to
// leave out) set by set, with the prices read one part of their models at
// a time rather than all at once. Issue 30: on the share-1 database the
// overview's Azure part held every current Azure price expanded at once
// (~10.7 MB: an identity and three decimals each), the daemon's largest
// live heap after each stored run. Only what places each price in its
// part is held throughout: each current offer's model and start, and the
// week's closed prices (at most one an offer). The digest is the same,
// byte for byte (TestOverviewDigestMatchesBuildInParts): each part holds
// the same prices in the same order as BuildInParts' grouping of
// OverviewInput's.
func OverviewDigest(ctx context.Context, st Store, now time.Time, providers []string, set func(*digest.Input)) (digest.Digest, error) {
	in, err := digestRest(ctx, st, now, nil, providers)
	if err != nil {
		return digest.Digest{}, err
	}
	in.WeekChanges, in.Providers = []digest.ChangeCount{}, providers
	set(&in)
	b, err := digest.NewBuilder(in)
	if err != nil {
		return digest.Digest{}, err
	}
	// Each current offer's model and the start of its current price (a
	// price not yet in force is not shown, but places the offer's closed
	// ones, as in OverviewInput).
	type currentStart struct {
		model string
		from  time.Time
	}
	current := map[int64]currentStart{}
	stored := map[string]bool{}
	f := storage.PriceFilter{OS: pricewatch.Linux, CurrentOnly: true, Providers: providers, EffectiveOnly: true}
	err = st.EachPrice(ctx, f, func(r *storage.PriceInterval) error {
		current[r.OfferID] = currentStart{r.GPUModel, r.ValidFrom}
		if !r.ValidFrom.After(now) {
			stored[r.GPUModel] = true
		}
		return nil
	})
	if err != nil {
		return digest.Digest{}, err
	}
	// The week's closed prices, held without their offers until their
	// part is read.
	type closedPrice struct {
		offer int64
		iv    analysis.Interval
	}
	var closed []closedPrice
	var goneIvs []analysis.Interval
	err = eachClosedThisWeek(ctx, st, now, providers, func(offer int64) (time.Time, bool) {
		c, ok := current[offer]
		return c.from, ok
	}, func(r *storage.PriceInterval) {
		closed = append(closed, closedPrice{r.OfferID, intervalOf(r, nil)})
		stored[current[r.OfferID].model] = true
	}, func(r *storage.PriceInterval) error {
		goneIvs = append(goneIvs, digestInterval(r))
		stored[r.GPUModel] = true
		return nil
	})
	if err != nil {
		return digest.Digest{}, err
	}
	var prices []analysis.Interval
	ids := map[int64]*pricewatch.Offer{}
	for _, part := range overviewParts(stored, in) {
		prices = prices[:0]
		clear(ids)
		f := storage.PriceFilter{OS: pricewatch.Linux, CurrentOnly: true, Providers: providers, GPUModels: part}
		err := st.EachPrice(ctx, f, func(r *storage.PriceInterval) error {
			id := identity(r)
			ids[r.OfferID] = id
			if !r.ValidFrom.After(now) {
				prices = append(prices, intervalOf(r, id))
			}
			return nil
		})
		if err != nil {
			return digest.Digest{}, err
		}
		for _, c := range closed {
			if id, ok := ids[c.offer]; ok {
				c.iv.Offer = id
				prices = append(prices, c.iv)
			}
		}
		for _, iv := range goneIvs {
			if slices.Contains(part, iv.GPUModel) {
				prices = append(prices, iv)
			}
		}
		if len(prices) == 0 {
			continue
		}
		if err := b.Add(prices); err != nil {
			return digest.Digest{}, err
		}
		// What this part's prices point at is not kept for the next.
		clear(prices)
	}
	return b.Digest()
}

// overviewParts are the parts a digest of in is built in from prices of
// the stored models (digestParts of those its watched and charted models
// match), then, last and in a part of their own, the stored models no
// part holds: their prices still count (their currency).
func overviewParts(stored map[string]bool, in digest.Input) [][]string {
	var chart []string
	if !in.WithoutChart {
		chart = digest.ChartModels
	}
	names := slices.Sorted(maps.Keys(stored))
	parts := digestParts(names, in.Models, chart)
	inPart := map[string]bool{}
	for _, part := range parts {
		for _, name := range part {
			inPart[name] = true
		}
	}
	var rest []string
	for _, name := range names {
		if !inPart[name] {
			rest = append(rest, name)
		}
	}
	if rest != nil {
		parts = append(parts, rest)
	}
	return parts
}

// matchingModels are the stored models some query matches (gpu.Matches).
func matchingModels(stored, queries []string) []string {
	models := []string{}
	for _, m := range stored {
		for _, q := range queries {
			if gpu.Matches(q, m) {
				models = append(models, m)
				break
			}
		}
	}
	return models
}

// digestParts splits the stored models a digest reads (those a watched or
// a chart query matches) into parts, each holding every stored model of
// any watched query matching one of its models, as digest.Builder needs (a
// watched model is worked out from its offers all at once; the chart is
// accumulated across parts). A family watched ("A100") keeps its models
// together; otherwise each stored model is a part of its own.
func digestParts(stored, watched, chart []string) [][]string {
	models := matchingModels(stored, append(append([]string(nil), watched...), chart...))
	part := make([]int, len(models)) // union-find over models' indexes
	for i := range part {
		part[i] = i
	}
	root := func(i int) int {
		for part[i] != i {
			part[i] = part[part[i]]
			i = part[i]
		}
		return i
	}
	for _, q := range watched {
		first := -1
		for i, m := range models {
			if !gpu.Matches(q, m) {
				continue
			}
			if first < 0 {
				first = i
				continue
			}
			part[root(i)] = root(first)
		}
	}
	var out [][]string
	at := map[int]int{}
	for i, m := range models {
		r := root(i)
		j, ok := at[r]
		if !ok {
			j = len(out)
			at[r] = j
			out = append(out, nil)
		}
		out[j] = append(out[j], m)
	}
	return out
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
	return intervalOf(r, identity(r))
}

// intervalOf is r's interval as the digest reads it, of the offer id.
func intervalOf(r *storage.PriceInterval, id *pricewatch.Offer) analysis.Interval {
	iv := analysis.Interval{Offer: id, Currency: r.Currency, Hourly: r.Hourly, Upfront: r.Upfront, Effective: r.EffectiveHourly, From: r.ValidFrom}
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

// ProviderRuns are each provider's latest run and, where that one did not
// succeed, its latest successful one: what digest.Freshness judges.
func ProviderRuns(ctx context.Context, st Store) ([]pricewatch.Run, error) {
	runs, err := st.LastRuns(ctx)
	if err != nil {
		return nil, err
	}
	for _, r := range runs {
		if r.Status == pricewatch.RunOK {
			continue
		}
		ok, err := st.LastSuccess(ctx, r.Provider)
		if err != nil {
			return nil, err
		}
		if ok != nil {
			runs = append(runs, *ok)
		}
	}
	return runs, nil
}

// digestRest completes a digest's input from ivs: the availability of the
// last week and each provider's latest run and latest successful run.
func digestRest(ctx context.Context, st Store, now time.Time, ivs []analysis.Interval, providers []string) (digest.Input, error) {
	avail, err := st.Availability(ctx, storage.AvailabilityFilter{All: true, Since: now.Add(-digest.Week), Providers: providers})
	if err != nil {
		return digest.Input{}, err
	}
	runs, err := ProviderRuns(ctx, st)
	if err != nil {
		return digest.Input{}, err
	}
	blocks, err := st.Signals(ctx, storage.SignalFilter{Kinds: []pricewatch.SignalKind{pricewatch.CapacityBlock}, Since: now.Add(-digest.Week), Providers: providers})
	if err != nil {
		return digest.Input{}, err
	}
	// The availability intervals and runs are the domain's own types,
	// which storage reads and the digest computes over.
	in := digest.Input{Now: now, Prices: ivs, Availability: avail, Runs: runs}
	for _, b := range blocks {
		in.CapacityBlocks = append(in.CapacityBlocks, digest.BlockInterval{Signal: b.Signal, Since: b.Since, Until: b.Until})
	}
	return in, nil
}
