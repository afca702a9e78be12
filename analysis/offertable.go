package analysis

import (
	"cmp"
	"errors"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fx"
)

// Rater prices offers one at a time as Compare prices the offers of one
// GPU, in one currency, without the GPU filter and without dropping what
// Compare skips: the offers table shows every current offer, so an offer
// whose GPU count is unknown is a row with its hourly price and no
// per-GPU-hour figure (Skipped says why), and one without an exchange rate
// a row with its native price only (FXError says why). opts.GPU, Count
// and AvailableOnly are ignored: the table filters on its own. One at a
// time, a caller that streams the current offers keeps only the rows it
// shows (45k offers in the scale history); SortRated puts them in
// Compare's order.
type Rater struct {
	avail availabilityIndex
	opts  CompareOptions
}

// NewRater is a Rater of offers in opts.Currency.
func NewRater(avail AvailabilityIndex, opts CompareOptions) (*Rater, error) {
	if opts.Currency == "" {
		return nil, errors.New("rating offers: a currency is needed to compare offers from different clouds")
	}
	// Tens of thousands of offers in a handful of currencies: each
	// conversion is looked up once.
	if opts.FX != nil {
		opts.FX = &memoConverter{c: opts.FX, m: map[memoKey]memoQuote{}}
	}
	return &Rater{avail: avail.index, opts: opts}, nil
}

// Rate rates o; false when opts' providers, regions, price types or OS
// leave it out.
func (r *Rater) Rate(o *pricewatch.Offer) (RatedOffer, bool) {
	opts := r.opts
	if !priceTypeIn(opts.PriceTypes, o.PriceType) || !inSet(opts.Providers, o.Provider) ||
		!inSet(opts.Regions, o.Region) || !osMatches(opts.OS, o.OS) {
		return RatedOffer{}, false
	}
	row, err := compareRow(*o, r.avail, opts)
	rated := RatedOffer{CompareRow: row, PerGPU: err == nil}
	switch {
	case err == nil:
		rated.Converted = true
	case errors.As(err, new(*fxError)):
		rated.FXError = err.Error()
	default:
		// No per-GPU-hour figure; the hourly one is converted when the
		// error came after the conversion (an unknown GPU count).
		rated.Skipped = err.Error()
		rated.Converted = row.Currency != ""
	}
	return rated, true
}

// SortRated orders rows, in place, as Compare does: by price per
// GPU-hour, rows without one after, by key.
func SortRated(rows []RatedOffer) {
	SortByPrice(rows, func(r *RatedOffer) (bool, decimal.Decimal, *pricewatch.OfferKeyJSON) {
		return r.PerGPU, r.PricePerGPUHour, &r.OfferKeyJSON
	})
}

// SortByPrice orders rows, in place, by price per GPU-hour (those without
// one, perGPU false, last), then by offer key, stably, through an index of
// precomputed keys: moving the large rows themselves at every swap, and
// comparing decimals at every step, was most of the table's time at 50k
// offers (and sort.SliceStable's reflection-swapped rows a quarter of a
// first overview's). A float64 orders two prices exactly when the floats
// differ (rounding keeps order); only equal floats are compared as
// decimals.
func SortByPrice[T any](rows []T, of func(*T) (perGPU bool, price decimal.Decimal, k *pricewatch.OfferKeyJSON)) {
	type key struct {
		i      int
		perGPU bool
		price  float64
	}
	if len(rows) == 0 {
		return
	}
	keys := make([]key, len(rows))
	for i := range rows {
		perGPU, price, _ := of(&rows[i])
		keys[i] = key{i: i, perGPU: perGPU, price: price.InexactFloat64()}
	}
	slices.SortStableFunc(keys, func(x, y key) int {
		// The floats decide most comparisons without the decimals: one
		// price below another as a float is below it exactly.
		if x.perGPU && y.perGPU && x.price != y.price {
			return cmp.Compare(x.price, y.price)
		}
		xp, a, ak := of(&rows[x.i])
		yp, b, bk := of(&rows[y.i])
		return PriceCompare(xp, a, ak, yp, b, bk)
	})
	// The order is applied in place, one cycle of the permutation at a
	// time: each row moves once, and no second array of large rows (39 MB
	// at 45k offers) is allocated for the collector to chase.
	perm := make([]int, len(keys))
	for i, k := range keys {
		perm[i] = k.i
	}
	for i := range perm {
		if perm[i] == i {
			continue
		}
		first := rows[i]
		j := i
		for {
			k := perm[j]
			perm[j] = j
			if k == i {
				rows[j] = first
				break
			}
			rows[j] = rows[k]
			j = k
		}
	}
}

// PriceCompare is SortByPrice's order of two rows, each its price per
// GPU-hour (perGPU: it has one) and key: those with a price first,
// cheapest first, then by key. A caller keeping the first rows of the
// order without ordering every row (the offers page) compares with it.
func PriceCompare(aPerGPU bool, a decimal.Decimal, ak *pricewatch.OfferKeyJSON, bPerGPU bool, b decimal.Decimal, bk *pricewatch.OfferKeyJSON) int {
	switch {
	case aPerGPU != bPerGPU:
		if aPerGPU {
			return -1
		}
		return 1
	case aPerGPU:
		if c := a.Cmp(b); c != 0 {
			return c
		}
	}
	return keyCompare((*pricewatch.OfferKey)(ak), (*pricewatch.OfferKey)(bk))
}

// keyCompare orders offer keys as keyLess does, without building slices.
func keyCompare(a, b *pricewatch.OfferKey) int {
	return fieldsCompare(keyFields(a.Provider, a.Region, a.Zone, a.InstanceType, a.OS, a.PriceType, a.Term, a.Payment, a.OfferingClass),
		keyFields(b.Provider, b.Region, b.Zone, b.InstanceType, b.OS, b.PriceType, b.Term, b.Payment, b.OfferingClass))
}

// offerCompare is keyCompare of two offers' keys.
func offerCompare(a, b *pricewatch.Offer) int {
	return fieldsCompare(keyFields(a.Provider, a.Region, a.Zone, a.InstanceType, a.OS, a.PriceType, a.Term, a.Payment, a.OfferingClass),
		keyFields(b.Provider, b.Region, b.Zone, b.InstanceType, b.OS, b.PriceType, b.Term, b.Payment, b.OfferingClass))
}

// keyFields are a key's fields in keyLess's order.
func keyFields(provider, region, zone, typ, os string, pt pricewatch.PriceType, term, payment, class string) [9]string {
	return [9]string{provider, region, zone, typ, os, string(pt), term, payment, class}
}

func fieldsCompare(a, b [9]string) int {
	for i := range a {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

type memoKey struct {
	from, to string
	on       int64
}

type memoQuote struct {
	q   fx.Quote
	err error
}

// memoConverter remembers each quote it was asked for (one Rater's).
type memoConverter struct {
	c Converter
	m map[memoKey]memoQuote
}

func (m *memoConverter) Quote(from, to string, on time.Time) (fx.Quote, error) {
	k := memoKey{from, to, on.UnixNano()}
	if v, ok := m.m[k]; ok {
		return v.q, v.err
	}
	q, err := m.c.Quote(from, to, on)
	m.m[k] = memoQuote{q, err}
	return q, err
}

// RatedOffer is one row of the offers table.
type RatedOffer struct {
	CompareRow
	// Converted: EffectiveHourly is in the asked currency.
	Converted bool
	// PerGPU: PricePerGPUHour (and per TFLOPS where known) is set.
	PerGPU bool
	// Skipped says why the offer has no per-GPU-hour price (no GPU count).
	Skipped string
}

// AvailabilityIndex is the current availability, indexed once for many
// offers (what Compare builds from its avail argument).
type AvailabilityIndex struct{ index availabilityIndex }

// IndexAvailability indexes the current availability records.
func IndexAvailability(avail []pricewatch.Availability) AvailabilityIndex {
	return AvailabilityIndex{index: indexAvailability(avail)}
}
