package report

import (
	"context"
	"errors"
	"math"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/storage"
)

// The current state holds one price per current offer for as long as a
// data version lasts: 45,050 in the generated scale history (a quarter of
// a year or a whole one: the history grows, the offers do not). Held as
// storage.PriceInterval rows (432 bytes, each with its offer's identity
// of 336 more, 14 strings decoded afresh and three decimals with a big.Int
// each) that was 43 MiB, most of the live heap under issue 30's 100 MB
// budget. Here each price is a fixed 136 bytes: strings as indices into
// one table of the state's distinct strings, the hardware shared per
// distinct machine, decimals as a coefficient and an exponent, times as
// Unix nanoseconds. A read builds the rows it hands out, as the store's
// own reads do.

// field names the string fields of a compact price.
const (
	fProvider = iota
	fRegion
	fZone
	fInstanceType
	fPriceType
	fTerm
	fPayment
	fOfferingClass
	fOS
	fCurrency
	fSkuID
	fSkuPriceID
	fProductID
	fRegionName
	nFields
)

// compactDecimal is a decimal whose coefficient fits an int64 (every
// price a cloud states); exp oddExp marks one that does not, coef then
// being its index in currentPrices.odd.
type compactDecimal struct {
	coef int64
	exp  int32
}

// Two exponents no decimal of a price has mark what is not a plain
// coefficient: oddExp an index into odd, zeroExp decimal.Decimal{} (the
// zero value, unlike decimal.Zero, holds no big.Int).
const (
	oddExp  = math.MinInt32
	zeroExp = math.MinInt32 + 1
)

// noTime marks a zero time.Time (whose Unix nanoseconds do not fit).
const noTime = math.MinInt64

type currentPrice struct {
	id, offerID         int64
	hw                  *pricewatch.Hardware
	str                 [nFields]uint32
	hourly, upfront     compactDecimal
	eff                 compactDecimal
	validFrom, lastSeen int64
}

// currentPrices are the compact prices and the tables they index.
type currentPrices struct {
	// parts are the rows of one provider each, in provider order (a
	// provider's rows in the store's order, each part its own array). A
	// state updated from what ran shares the other providers' parts with
	// the state it was read beside: every data version used to copy every
	// row, and two or three versions are alive at once while answers of
	// the last one are still being computed (issue 30, share 1: 18.4 MB
	// of rows at the live heap's high-water, three whole copies).
	parts [][]currentPrice
	strs  []string
	odd   []decimal.Decimal

	// Only while reading: the rows read (in the store's order, done
	// splits them into parts), each distinct string and machine once.
	rows     []currentPrice
	strIndex map[string]uint32
	hwIndex  map[pricewatch.Hardware]*pricewatch.Hardware
}

// len is how many prices c holds.
func (c *currentPrices) len() int {
	n := 0
	for _, part := range c.parts {
		n += len(part)
	}
	return n
}

// provider is whose prices part holds.
func (c *currentPrices) provider(part []currentPrice) string { return c.rowProvider(&part[0]) }

func (c *currentPrices) rowProvider(r *currentPrice) string { return c.s(r, fProvider) }

// extend is a new table that starts from c's strings (c's rows keep
// their indices in it), for reading more rows beside c's.
func (c *currentPrices) extend() *currentPrices {
	n := &currentPrices{strs: slices.Clone(c.strs), strIndex: make(map[string]uint32, len(c.strs)), hwIndex: map[pricewatch.Hardware]*pricewatch.Hardware{},
		odd: slices.Clone(c.odd)}
	for i, s := range n.strs {
		n.strIndex[s] = uint32(i)
	}
	for _, part := range c.parts {
		for i := range part {
			n.hwIndex[*part[i].hw] = part[i].hw
		}
	}
	return n
}

// mergeKept is c (rows of the providers in ran, read into a table made by
// kept.extend, whose indices kept's rows keep) with kept's parts of every
// other provider, shared, in provider order.
func (c *currentPrices) mergeKept(kept *currentPrices, ran []string) *currentPrices {
	c.parts = mergeParts(kept.parts, c.parts, ran, c.rowProvider)
	return c
}

func newCurrentPrices() *currentPrices {
	return &currentPrices{strs: []string{""}, strIndex: map[string]uint32{"": 0}, hwIndex: map[pricewatch.Hardware]*pricewatch.Hardware{}}
}

func (c *currentPrices) intern(s string) uint32 {
	if i, ok := c.strIndex[s]; ok {
		return i
	}
	i := uint32(len(c.strs))
	c.strs = append(c.strs, s)
	c.strIndex[s] = i
	return i
}

func (c *currentPrices) decimal(d decimal.Decimal) compactDecimal {
	if d == (decimal.Decimal{}) {
		return compactDecimal{exp: zeroExp}
	}
	coef := d.Coefficient() // a copy: d stays as it is
	if coef.IsInt64() {
		return compactDecimal{coef: coef.Int64(), exp: d.Exponent()}
	}
	c.odd = append(c.odd, d)
	return compactDecimal{coef: int64(len(c.odd) - 1), exp: oddExp}
}

func (c *currentPrices) expand(d compactDecimal) decimal.Decimal {
	switch d.exp {
	case oddExp:
		return c.odd[d.coef]
	case zeroExp:
		return decimal.Decimal{}
	}
	return decimal.New(d.coef, d.exp)
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return noTime
	}
	return t.UnixNano()
}

func fromUnixNano(n int64) time.Time {
	if n == noTime {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// add keeps p, a current interval as the store reads it (its times in UTC).
func (c *currentPrices) add(p *storage.PriceInterval) { c.rows = append(c.rows, c.row(p)) }

// row is p as a compact price of c.
func (c *currentPrices) row(p *storage.PriceInterval) currentPrice {
	o := &p.Offer
	hw, ok := c.hwIndex[o.Hardware]
	if !ok {
		hw = new(pricewatch.Hardware)
		*hw = o.Hardware
		c.hwIndex[o.Hardware] = hw
	}
	r := currentPrice{id: p.ID, offerID: p.OfferID, hw: hw,
		hourly: c.decimal(o.Hourly), upfront: c.decimal(o.Upfront), eff: c.decimal(p.EffectiveHourly),
		validFrom: unixNano(p.ValidFrom), lastSeen: unixNano(p.LastSeen)}
	for f, s := range [nFields]string{o.Provider, o.Region, o.Zone, o.InstanceType, string(o.PriceType), o.Term, o.Payment, o.OfferingClass, o.OS,
		o.Currency, o.SkuID, o.SkuPriceID, o.ProductID, o.RegionName} {
		r.str[f] = c.intern(s)
	}
	return r
}

// readKnown reads the current prices of the providers in ran into n (made
// by c.extend) without their offers (storage.PriceFilter.PricesOnly): an
// offer's row never changes once stored, so the identity of each offer
// c holds is taken from c's row, and only the offers c does not hold (new
// ones, or listed again) are read with theirs. Decoding every offer of the
// provider that ran was half of the current state's update (issue 30: it
// comes before every answer of a new version). A store that hands out the
// current prices' keys (readChanged) is asked for those first.
func (c *currentPrices) readKnown(ctx context.Context, st Store, seen storage.PriceSeen, ran []string, n *currentPrices) error {
	known := map[int64]*currentPrice{}
	for _, part := range c.parts {
		if slices.Contains(ran, c.provider(part)) {
			for i := range part {
				known[part[i].offerID] = &part[i]
			}
		}
	}
	if kr, ok := st.(currentKeyReader); ok {
		done, err := c.readChanged(ctx, kr, st, seen, ran, known, n)
		if err != nil || done {
			return err
		}
	}
	// The rows of offers not held wait in their places, in the store's
	// order, for the second read.
	const waiting = -1
	var unknown []int64
	f := storage.PriceFilter{CurrentOnly: true, Providers: ran, PricesOnly: true}
	err := st.EachPrice(ctx, f, func(p *storage.PriceInterval) error {
		old, ok := known[p.OfferID]
		if !ok {
			unknown = append(unknown, p.OfferID)
			n.rows = append(n.rows, currentPrice{id: waiting, offerID: p.OfferID})
			return nil
		}
		n.rows = append(n.rows, c.knownRow(old, p, seen, n))
		return nil
	})
	if err != nil || len(unknown) == 0 {
		return err
	}
	read := make(map[int64]currentPrice, len(unknown))
	f = storage.PriceFilter{CurrentOnly: true, Providers: ran, OfferIDs: unknown}
	if err := st.EachPrice(ctx, f, func(p *storage.PriceInterval) error {
		read[p.OfferID] = n.row(p)
		return nil
	}); err != nil {
		return err
	}
	// An offer closed between the two reads is left out: the run that
	// closed it moved the data version, whose update reads it again.
	n.rows = slices.DeleteFunc(n.rows, func(r currentPrice) bool { return r.id == waiting && read[r.offerID].hw == nil })
	for i := range n.rows {
		if r := &n.rows[i]; r.id == waiting {
			*r = read[r.offerID]
		}
	}
	return nil
}

// currentKeyReader is a store that hands out the keys of the current
// prices (storage.DB.EachCurrentPriceKey).
type currentKeyReader interface {
	EachCurrentPriceKey(ctx context.Context, providers []string, fn func(storage.CurrentPriceKey) error) error
}

// readChanged is readKnown from the current prices' keys: a price whose
// interval c holds already is c's row with the newest last_seen, and only
// the prices of a new interval are read (PricesOnly, by offer). A run
// changes a few of a provider's prices, and reading all of them, nine
// columns sorted by offer, was most of the state's update (issue 30). The
// rows keep c's order, which is the store's: it sorts by the offer's
// identity, one current interval an offer, so a new interval of an offer
// held takes the old one's place and a closed one leaves it. An offer c
// does not hold would need its place found: done is false then, nothing
// is added to n, and readKnown reads in the store's order instead.
func (c *currentPrices) readChanged(ctx context.Context, kr currentKeyReader, st Store, seen storage.PriceSeen, ran []string, known map[int64]*currentPrice, n *currentPrices) (done bool, err error) {
	keys := make(map[int64]storage.CurrentPriceKey, len(known))
	var changed []int64
	err = kr.EachCurrentPriceKey(ctx, ran, func(k storage.CurrentPriceKey) error {
		old, ok := known[k.OfferID]
		if !ok {
			return errOfferNotHeld // the rest of the keys would go unused
		}
		keys[k.OfferID] = k
		if old.id != k.ID {
			changed = append(changed, k.OfferID)
		}
		return nil
	})
	if errors.Is(err, errOfferNotHeld) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	read := make(map[int64]currentPrice, len(changed))
	if len(changed) > 0 {
		f := storage.PriceFilter{CurrentOnly: true, Providers: ran, PricesOnly: true, OfferIDs: changed}
		if err := st.EachPrice(ctx, f, func(p *storage.PriceInterval) error {
			read[p.OfferID] = c.knownRow(known[p.OfferID], p, seen, n)
			return nil
		}); err != nil {
			return false, err
		}
	}
	n.rows = slices.Grow(n.rows, len(keys))
	for _, part := range c.parts {
		if !slices.Contains(ran, c.provider(part)) {
			continue
		}
		for i := range part {
			old := &part[i]
			k, ok := keys[old.offerID]
			if !ok {
				continue // closed
			}
			if k.ID != old.id {
				// Closed again between the two reads, it is left out:
				// the run that closed it moved the data version, whose
				// update reads it again.
				if r, ok := read[old.offerID]; ok {
					n.rows = append(n.rows, r)
				}
				continue
			}
			r := *old
			r.lastSeen = unixNano(seen.LastSeen(k.LastSeen, c.s(old, fProvider), c.s(old, fRegion), pricewatch.PriceType(c.s(old, fPriceType))))
			n.rows = append(n.rows, r)
		}
	}
	return true, nil
}

// errOfferNotHeld stops readChanged's read of the keys at an offer the
// state does not hold: the ordered read places it instead.
var errOfferNotHeld = errors.New("an offer the current state does not hold")

// knownRow is p, a current price read without its offer, as a row of n
// for old's offer: its identity and hardware old's, its prices p's.
func (c *currentPrices) knownRow(old *currentPrice, p *storage.PriceInterval, seen storage.PriceSeen, n *currentPrices) currentPrice {
	r := currentPrice{id: p.ID, offerID: p.OfferID, hw: old.hw, str: old.str,
		hourly: n.decimal(p.Hourly), upfront: n.decimal(p.Upfront), eff: n.decimal(p.EffectiveHourly), validFrom: unixNano(p.ValidFrom),
		lastSeen: unixNano(seen.LastSeen(p.LastSeen, c.s(old, fProvider), c.s(old, fRegion), pricewatch.PriceType(c.s(old, fPriceType))))}
	r.str[fCurrency] = n.intern(p.Currency)
	return r
}

// done splits the rows read into parts (splitByProvider) and drops what
// only reading needed.
func (c *currentPrices) done() {
	c.parts = splitByProvider(c.rows, c.rowProvider)
	c.rows, c.strIndex, c.hwIndex = nil, nil, nil
}

func (c *currentPrices) s(r *currentPrice, f int) string { return c.strs[r.str[f]] }

// identity is r's offer as the store's reads give it: its key, hardware
// and the cloud's ids, without the interval's currency and prices. Each
// call makes a new one: a caller may keep it (PriceInterval.Identity).
func (c *currentPrices) identity(r *currentPrice) *pricewatch.Offer {
	return &pricewatch.Offer{
		Provider: c.s(r, fProvider), Region: c.s(r, fRegion), Zone: c.s(r, fZone), InstanceType: c.s(r, fInstanceType),
		PriceType: pricewatch.PriceType(c.s(r, fPriceType)), Term: c.s(r, fTerm), Payment: c.s(r, fPayment),
		OfferingClass: c.s(r, fOfferingClass), OS: c.s(r, fOS), Hardware: *r.hw,
		CloudIDs: pricewatch.CloudIDs{SkuID: c.s(r, fSkuID), SkuPriceID: c.s(r, fSkuPriceID), ProductID: c.s(r, fProductID), RegionName: c.s(r, fRegionName)},
	}
}

// fill makes p the interval r is, as the store would read it.
func (c *currentPrices) fill(p *storage.PriceInterval, r *currentPrice, effectiveOnly bool) {
	id := c.identity(r)
	*p = storage.PriceInterval{ID: r.id, OfferID: r.offerID, Offer: *id, Identity: id,
		EffectiveHourly: c.expand(r.eff), ValidFrom: fromUnixNano(r.validFrom)}
	p.Currency = c.s(r, fCurrency)
	if !effectiveOnly {
		p.Hourly, p.Upfront, p.LastSeen = c.expand(r.hourly), c.expand(r.upfront), fromUnixNano(r.lastSeen)
	}
}
