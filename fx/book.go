package fx

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
)

// DefaultMaxAge is how old a rate may be before it is flagged as stale: a
// week covers every weekend and TARGET holiday run (Easter is four days).
const DefaultMaxAge = 7 * 24 * time.Hour

// AmountDecimals is the precision of converted amounts. Ten places is what
// the clouds publish for hourly rates, so a conversion never reads as more
// precise than its input.
const AmountDecimals = 10

// RateDecimals is the precision of Quote.Rate, the rate shown to users.
// Conversions do not use the rounded rate (see Quote.Convert).
const RateDecimals = 10

// internalDecimals is the precision of the one division a conversion makes,
// far beyond AmountDecimals so that rounding never shows in results.
const internalDecimals = 20

// ErrNoRate is returned when neither a published nor a configured rate
// exists for a currency. Callers must show the price as unconverted, never
// treat the rate as 1.
var ErrNoRate = errors.New("no exchange rate")

// Book holds every stored reference day plus the configured fixed rates, and
// answers "what rate applies to a price of this date".
type Book struct {
	days   []Rates // oldest first
	fixed  map[string]decimal.Decimal
	maxAge time.Duration
}

// NewBook builds a Book. days may come in any order; fixed are units per
// 1 EUR (the ECB convention, as in fx.fixed_rates); maxAge <= 0 means
// DefaultMaxAge. The inputs are copied.
func NewBook(days []Rates, fixed map[string]decimal.Decimal, maxAge time.Duration) (*Book, error) {
	if maxAge <= 0 {
		maxAge = DefaultMaxAge
	}
	b := &Book{maxAge: maxAge, fixed: map[string]decimal.Decimal{}}
	seen := map[time.Time]int{}
	for _, d := range days {
		date := dayOf(d.Date)
		rates := make(map[string]decimal.Decimal, len(d.PerEUR))
		for c, r := range d.PerEUR {
			c = strings.ToUpper(c)
			if !pricewatch.IsCurrencyCode(c) || !r.IsPositive() {
				return nil, fmt.Errorf("building exchange-rate book: %s rate for %q is %s", date.Format(time.DateOnly), c, r)
			}
			rates[c] = r
		}
		if i, ok := seen[date]; ok {
			// Two stored copies of one day (e.g. two sources): merge, the
			// later one in the input winning per currency.
			for c, r := range rates {
				b.days[i].PerEUR[c] = r
			}
			continue
		}
		seen[date] = len(b.days)
		b.days = append(b.days, Rates{Date: date, Source: d.Source, PerEUR: rates})
	}
	sort.Slice(b.days, func(i, j int) bool { return b.days[i].Date.Before(b.days[j].Date) })
	for c, r := range fixed {
		c = strings.ToUpper(c)
		if !pricewatch.IsCurrencyCode(c) || !r.IsPositive() {
			return nil, fmt.Errorf("building exchange-rate book: fixed rate for %q is %s", c, r)
		}
		b.fixed[c] = r
	}
	return b, nil
}

// ParseFixed turns the configuration's fixed rates (strings, units per
// 1 EUR) into decimals.
func ParseFixed(m map[string]string) (map[string]decimal.Decimal, error) {
	out := make(map[string]decimal.Decimal, len(m))
	for c, s := range m {
		r, err := decimal.NewFromString(strings.TrimSpace(s))
		if err != nil || !r.IsPositive() {
			return nil, fmt.Errorf("fx.fixed_rates.%s: %q is not a positive number", c, s)
		}
		out[strings.ToUpper(c)] = r
	}
	return out, nil
}

// MaxAge is the age beyond which a rate is flagged stale.
func (b *Book) MaxAge() time.Duration { return b.maxAge }

// Latest returns the newest stored day.
func (b *Book) Latest() (Rates, bool) {
	if len(b.days) == 0 {
		return Rates{}, false
	}
	return b.days[len(b.days)-1], true
}

// Quote is the rate used for one conversion, with its provenance.
type Quote struct {
	From, To string
	// Rate is units of To per one unit of From, rounded to RateDecimals
	// for display.
	Rate decimal.Decimal
	// Date is the reference day of the rates used: the older of the two
	// legs when they come from different days. Zero for fixed and identity.
	Date time.Time
	// Source is SourceECB, SourceFixed, SourceIdentity, or "ECB+fixed"
	// when one leg had a published rate and the other only a fixed one.
	Source string
	// Stale is set when a published rate is older than the book's MaxAge
	// at the time it is applied to.
	Stale bool
	// Age is how old the rate was at the time it was applied to.
	Age time.Duration

	// Exact legs: an amount converts as amount × num ÷ den, so that one
	// division is the only rounding.
	num, den decimal.Decimal
}

// Convert turns an amount in From into To.
func (q Quote) Convert(amount decimal.Decimal) decimal.Decimal {
	if q.Source == SourceIdentity {
		return amount
	}
	return amount.Mul(q.num).DivRound(q.den, internalDecimals).Round(AmountDecimals)
}

// Inverse is the quote for the opposite direction, same provenance.
func (q Quote) Inverse() Quote {
	r := q
	r.From, r.To = q.To, q.From
	r.num, r.den = q.den, q.num
	if q.Source != SourceIdentity {
		r.Rate = r.num.DivRound(r.den, RateDecimals)
	}
	return r
}

// String describes the quote for tables and reasoning text, e.g.
// "1 USD = 6.7002853291 CNY (ECB 2022-07-08)".
func (q Quote) String() string {
	if q.Source == SourceIdentity {
		return "no conversion"
	}
	s := fmt.Sprintf("1 %s = %s %s (%s", q.From, q.Rate, q.To, q.Source)
	if !q.Date.IsZero() {
		s += " " + q.Date.Format(time.DateOnly)
	}
	if q.Stale {
		s += fmt.Sprintf(", STALE: %d days old", int(q.Age.Hours()/24))
	}
	return s + ")"
}

// Identity is the quote for a figure already in the wanted currency: rate
// 1, Source SourceIdentity. It is the only way a rate of 1 arises.
func Identity(currency string) Quote {
	c := strings.ToUpper(strings.TrimSpace(currency))
	return Quote{From: c, To: c, Rate: one, Source: SourceIdentity, num: one, den: one}
}

// one is shared by every identity quote: a decimal is never changed in
// place, and a new one (a big.Int each) per quote was a sixteenth of
// what a refresh round allocated, an identity quote per offer rated.
var one = decimal.NewFromInt(1)

// leg is one currency's rate against the euro.
type leg struct {
	perEUR decimal.Decimal
	date   time.Time // zero for fixed and for EUR
	source string
}

// Quote returns the rate to convert a price dated on from one currency to
// another. The rate is the last one published on or before on's day
// (carrying Friday's rate over the weekend and holidays); where none was
// published for a currency, the configured fixed rate; else ErrNoRate.
// A published rate older than MaxAge is used but flagged Stale.
func (b *Book) Quote(from, to string, on time.Time) (Quote, error) {
	from, to = strings.ToUpper(strings.TrimSpace(from)), strings.ToUpper(strings.TrimSpace(to))
	if !pricewatch.IsCurrencyCode(from) || !pricewatch.IsCurrencyCode(to) {
		return Quote{}, fmt.Errorf("converting %q to %q: not currency codes", from, to)
	}
	if from == to {
		return Identity(from), nil
	}
	lf, err := b.leg(from, on)
	if err != nil {
		return Quote{}, fmt.Errorf("converting %s to %s on %s: %w", from, to, on.UTC().Format(time.DateOnly), err)
	}
	lt, err := b.leg(to, on)
	if err != nil {
		return Quote{}, fmt.Errorf("converting %s to %s on %s: %w", from, to, on.UTC().Format(time.DateOnly), err)
	}
	// 1 From = (perEUR[to] / perEUR[from]) To.
	q := Quote{From: from, To: to, num: lt.perEUR, den: lf.perEUR}
	q.Rate = q.num.DivRound(q.den, RateDecimals)
	q.Source = joinSources(lf.source, lt.source)
	for _, l := range []leg{lf, lt} {
		if l.date.IsZero() {
			continue
		}
		if q.Date.IsZero() || l.date.Before(q.Date) {
			q.Date = l.date
		}
	}
	if !q.Date.IsZero() {
		q.Age = on.Sub(q.Date)
		q.Stale = q.Age > b.maxAge
	}
	return q, nil
}

func (b *Book) leg(cur string, on time.Time) (leg, error) {
	if cur == Base {
		return leg{perEUR: decimal.NewFromInt(1)}, nil
	}
	day := dayOf(on)
	// Newest day on or before the price's day that lists the currency.
	i := sort.Search(len(b.days), func(i int) bool { return b.days[i].Date.After(day) })
	for j := i - 1; j >= 0; j-- {
		if r, ok := b.days[j].PerEUR[cur]; ok {
			src := b.days[j].Source
			if src == "" {
				src = SourceECB
			}
			return leg{perEUR: r, date: b.days[j].Date, source: src}, nil
		}
	}
	if r, ok := b.fixed[cur]; ok {
		return leg{perEUR: r, source: SourceFixed}, nil
	}
	if i < len(b.days) {
		return leg{}, fmt.Errorf("%w for %s: the first stored rate is of %s and no fixed rate is configured",
			ErrNoRate, cur, b.days[i].Date.Format(time.DateOnly))
	}
	return leg{}, fmt.Errorf("%w for %s: none stored and no fixed rate configured", ErrNoRate, cur)
}

func joinSources(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "" || a == b:
		return a
	case a == SourceFixed:
		return b + "+" + a
	}
	return a + "+" + b
}

// dayOf truncates t to its UTC calendar day.
func dayOf(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// ecbCurrencies are the currencies the ECB has published reference rates
// for since 2022 (the fixtures' files), beside the euro: the currencies a
// conversion can reach without fx.fixed_rates.
var ecbCurrencies = map[string]bool{"EUR": true,
	"AUD": true, "BGN": true, "BRL": true, "CAD": true, "CHF": true, "CNY": true, "CZK": true, "DKK": true, "GBP": true, "HKD": true,
	"HRK": true, "HUF": true, "IDR": true, "ILS": true, "INR": true, "ISK": true, "JPY": true, "KRW": true, "MXN": true, "MYR": true,
	"NOK": true, "NZD": true, "PHP": true, "PLN": true, "RON": true, "RUB": true, "SEK": true, "SGD": true, "THB": true, "TRY": true,
	"USD": true, "ZAR": true}

// Knows reports whether cur can be a conversion's target: the euro, a
// currency the ECB publishes, a fixed rate or one on a stored day. A
// three-letter code outside them (XYZ) is a typo: no price can reach it.
func (b *Book) Knows(cur string) bool {
	if ecbCurrencies[cur] {
		return true
	}
	if _, ok := b.fixed[cur]; ok {
		return true
	}
	for _, d := range b.days {
		if _, ok := d.PerEUR[cur]; ok {
			return true
		}
	}
	return false
}
