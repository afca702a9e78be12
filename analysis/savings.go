package analysis

import (
	"fmt"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fx"
)

// A commitment (reserved instance, savings plan, Alibaba/Tencent
// subscription) is paid for every hour of its term, used or not: its cost
// over the term is
//
//	term cost = upfront + hourly × term hours
//
// whatever the utilisation u. Running the same machine on demand for the
// hours actually used costs on-demand hourly × term hours × u. Everything
// below follows from those two lines:
//
//	effective hourly       = term cost ÷ term hours
//	break-even utilisation = term cost ÷ (on-demand hourly × term hours)
//	                       = effective hourly ÷ on-demand hourly
//	savings at u           = 1 − term cost ÷ (on-demand hourly × term hours × u)
//	payback (hours of use) = upfront ÷ (on-demand hourly − hourly)
//
// A formula that circulates multiplies the on-demand rate by the term's
// hours but the reserved hourly rate only by the number of years, and so
// reports savings near 100%; the tests pin this down.

// Savings compares one commitment offer with the on-demand offer for the
// same machine. Money fields are in Currency (converted when the caller
// asked for another currency; NativeCurrency and FXUsed say from what).
// The JSON names are the ones scripts rely on.
type Savings struct {
	pricewatch.OfferKeyJSON
	GPUModel  string  `json:"gpu_model"`
	GPUCount  float64 `json:"gpu_count"`
	Currency  string  `json:"currency"`
	TermHours int64   `json:"term_hours"`

	Upfront         decimal.Decimal `json:"upfront"`
	Hourly          decimal.Decimal `json:"hourly"` // the recurring charge, billed every hour of the term
	OnDemandHourly  decimal.Decimal `json:"on_demand_hourly"`
	EffectiveHourly decimal.Decimal `json:"effective_hourly"`

	// Utilization is the share of the term's hours the machine runs.
	Utilization decimal.Decimal `json:"utilization"`
	// SavingsPct is the saving against on-demand at Utilization, 0–100
	// (negative when the commitment costs more than paying for the hours used).
	SavingsPct decimal.Decimal `json:"savings_pct"`
	// FullUseSavingsPct is the saving when the machine runs every hour.
	FullUseSavingsPct decimal.Decimal `json:"full_use_savings_pct"`
	// DiscountPct is the discount the commitment's rate gives against
	// on-demand, (1 − effective_hourly / on_demand_hourly) × 100: the
	// figure AWS and Azure quote as the saving of a reservation.
	DiscountPct decimal.Decimal `json:"discount_pct"`
	// BreakEvenUtilization is the share of the term's hours above which the
	// commitment costs less than on-demand for the hours used. Above 1 it
	// never does (BreaksEven is false).
	BreakEvenUtilization decimal.Decimal `json:"break_even_utilization"`
	BreaksEven           bool            `json:"breaks_even"`
	// TermCost is what the commitment costs over its term (independent of
	// utilisation); OnDemandTermCost is on-demand for the hours used at
	// Utilization over the same term.
	TermCost         decimal.Decimal `json:"term_cost"`
	OnDemandTermCost decimal.Decimal `json:"on_demand_term_cost"`
	// PaybackHours is how many hours of full use earn the upfront payment
	// back against on-demand; null without an upfront payment or when the
	// hourly charge alone is not below on-demand.
	PaybackHours decimal.NullDecimal `json:"payback_hours"`
	// Best marks the cheapest option at Utilization among the commitments
	// for the same machine, when it also beats on-demand.
	Best bool `json:"best"`

	NativeCurrency string `json:"native_currency"`
	FXUsed

	// Offer and OnDemand are the inputs, for callers that need more.
	Offer    pricewatch.Offer `json:"-"`
	OnDemand pricewatch.Offer `json:"-"`
}

// PaybackDays is PaybackHours in days of round-the-clock use.
func (s Savings) PaybackDays() decimal.NullDecimal {
	if !s.PaybackHours.Valid {
		return s.PaybackHours
	}
	return decimal.NewNullDecimal(s.PaybackHours.Decimal.DivRound(decimal.NewFromInt(24), 2))
}

// CompareCommitment computes the savings figures of one commitment against
// its on-demand counterpart at utilisation u, in the offers' own currency.
func CompareCommitment(commit, onDemand pricewatch.Offer, u decimal.Decimal) (Savings, error) {
	if err := checkUtilization(u); err != nil {
		return Savings{}, err
	}
	if !commit.PriceType.IsCommitment() {
		return Savings{}, fmt.Errorf("offer %s is %s, not a commitment", commit.Key(), commit.PriceType)
	}
	if onDemand.PriceType != pricewatch.OnDemand {
		return Savings{}, fmt.Errorf("offer %s is %s, not on-demand", onDemand.Key(), onDemand.PriceType)
	}
	if commit.Currency != onDemand.Currency {
		return Savings{}, fmt.Errorf("offer %s is priced in %s but its on-demand price in %s", commit.Key(), commit.Currency, onDemand.Currency)
	}
	if !onDemand.Hourly.IsPositive() {
		return Savings{}, fmt.Errorf("offer %s: on-demand price %s is not positive", onDemand.Key(), onDemand.Hourly)
	}
	hours, err := pricewatch.TermHours(commit.Term)
	if err != nil {
		return Savings{}, fmt.Errorf("offer %s: %w", commit.Key(), err)
	}
	h := decimal.NewFromInt(hours)
	od := onDemand.Hourly
	termCost := commit.Upfront.Add(commit.Hourly.Mul(h))
	odFull := od.Mul(h)
	odAtU := odFull.Mul(u)
	eff := termCost.DivRound(h, RateDecimals)
	s := Savings{
		OfferKeyJSON: commit.Key().JSON(),
		GPUModel:     commit.GPUModel, GPUCount: commit.GPUCount, Currency: commit.Currency, TermHours: hours,
		Upfront: commit.Upfront, Hourly: commit.Hourly, OnDemandHourly: od,
		EffectiveHourly:      eff,
		DiscountPct:          savingsPct(eff, od),
		Utilization:          u,
		SavingsPct:           savingsPct(termCost, odAtU),
		FullUseSavingsPct:    savingsPct(termCost, odFull),
		BreakEvenUtilization: termCost.DivRound(odFull, ShareDecimals),
		TermCost:             termCost,
		OnDemandTermCost:     odAtU,
		NativeCurrency:       commit.Currency,
		FXUsed:               FXUsed{FXRate: one, FXSource: fx.SourceIdentity},
		Offer:                commit,
		OnDemand:             onDemand,
	}
	s.BreaksEven = termCost.LessThanOrEqual(odFull)
	if commit.Upfront.IsPositive() && od.GreaterThan(commit.Hourly) {
		s.PaybackHours = decimal.NewNullDecimal(commit.Upfront.DivRound(od.Sub(commit.Hourly), 2))
	}
	return s, nil
}

// convert turns the money fields into another currency with one quote;
// shares and percentages do not change.
func (s Savings) convert(conv Converter, currency string, at time.Time) (Savings, error) {
	q, err := quote(conv, s.Currency, currency, at)
	if err != nil {
		return s, err
	}
	out := s
	out.Currency = q.To
	out.FXUsed = fxUsed(q)
	out.Upfront = q.Convert(s.Upfront)
	out.Hourly = q.Convert(s.Hourly)
	out.OnDemandHourly = q.Convert(s.OnDemandHourly)
	out.TermCost = q.Convert(s.TermCost)
	out.OnDemandTermCost = q.Convert(s.OnDemandTermCost)
	out.EffectiveHourly = out.TermCost.DivRound(decimal.NewFromInt(s.TermHours), RateDecimals)
	if s.PaybackHours.Valid {
		out.PaybackHours = s.PaybackHours // hours do not depend on currency
	}
	return out, nil
}

// MatchOnDemand finds the on-demand offer a commitment is compared with:
// same provider, region, instance type and OS; the same zone when the
// commitment is zonal and such an offer exists, else the regional one.
// For many commitments, build an OnDemandIndex once instead.
func MatchOnDemand(commit pricewatch.Offer, offers []pricewatch.Offer) (pricewatch.Offer, bool) {
	return NewOnDemandIndex(offers).Match(commit)
}

// OnDemandIndex finds on-demand offers by key, so that matching every
// commitment costs a lookup each rather than a scan of every offer.
type OnDemandIndex struct {
	byPlace map[onDemandKey]pricewatch.Offer
}

type onDemandKey struct{ provider, region, zone, instanceType, os string }

// NewOnDemandIndex indexes the on-demand offers among offers. Where two
// share a key, the first wins, as a scan would have found it.
func NewOnDemandIndex(offers []pricewatch.Offer) *OnDemandIndex {
	idx := &OnDemandIndex{byPlace: map[onDemandKey]pricewatch.Offer{}}
	for _, o := range offers {
		if o.PriceType != pricewatch.OnDemand {
			continue
		}
		k := onDemandKey{o.Provider, o.Region, o.Zone, o.InstanceType, o.OS}
		if _, dup := idx.byPlace[k]; !dup {
			idx.byPlace[k] = o
		}
	}
	return idx
}

// Match is MatchOnDemand over the indexed offers.
func (idx *OnDemandIndex) Match(commit pricewatch.Offer) (pricewatch.Offer, bool) {
	k := onDemandKey{commit.Provider, commit.Region, commit.Zone, commit.InstanceType, commit.OS}
	if commit.Zone != "" {
		if o, ok := idx.byPlace[k]; ok {
			return o, true
		}
	}
	k.zone = ""
	o, ok := idx.byPlace[k]
	return o, ok
}

// SavingsOptions say at what utilisation and in which currency to compare.
type SavingsOptions struct {
	// Utilization is the share of the term's hours the machine runs, in (0, 1].
	Utilization decimal.Decimal
	// Currency converts every figure; empty keeps each offer's own.
	Currency string
	// FX supplies the rates when Currency differs from an offer's.
	FX Converter
	// At is the date whose exchange rate applies (the prices' date: now
	// for current prices).
	At time.Time
}

// SavingsGroup holds the commitment options for one machine in one place.
type SavingsGroup struct {
	Provider, Region, Zone, InstanceType, OS string
	Currency                                 string
	OnDemand                                 pricewatch.Offer
	// OnDemandHourly is in Currency.
	OnDemandHourly decimal.Decimal
	// OnDemandBest is set when, at the utilisation asked, paying on demand
	// for the hours used is cheaper than every commitment.
	OnDemandBest bool
	// Options are the commitments, cheapest effective hourly first.
	Options []Savings
}

// Skipped is an offer left out of a report, and why.
type Skipped struct {
	Offer  pricewatch.Offer
	Reason string
}

// SavingsReport is every commitment option found beside on-demand.
type SavingsReport struct {
	Utilization decimal.Decimal
	Groups      []SavingsGroup
	// Unmatched are commitments without an on-demand price to compare
	// with, or whose figures could not be computed or converted.
	Unmatched []Skipped
	// StaleRates is set when any row was converted with a stale rate.
	StaleRates bool
}

// Rows flattens the groups in display order.
func (r SavingsReport) Rows() []Savings {
	var out []Savings
	for _, g := range r.Groups {
		out = append(out, g.Options...)
	}
	return out
}

// ComputeSavings compares every commitment offer in offers with its
// on-demand counterpart. offers are the current offers of the machines of
// interest (any price types; on-demand ones are the baselines).
func ComputeSavings(offers []pricewatch.Offer, opts SavingsOptions) (SavingsReport, error) {
	if err := checkUtilization(opts.Utilization); err != nil {
		return SavingsReport{}, err
	}
	rep := SavingsReport{Utilization: opts.Utilization}
	type groupKey struct{ provider, region, zone, instanceType, os string }
	groups := map[groupKey]*SavingsGroup{}
	onDemand := NewOnDemandIndex(offers)
	for _, c := range offers {
		if !c.PriceType.IsCommitment() {
			continue
		}
		od, ok := onDemand.Match(c)
		if !ok {
			rep.Unmatched = append(rep.Unmatched, Skipped{c, "no on-demand price for the same type, region and OS"})
			continue
		}
		s, err := CompareCommitment(c, od, opts.Utilization)
		if err != nil {
			rep.Unmatched = append(rep.Unmatched, Skipped{c, err.Error()})
			continue
		}
		if opts.Currency != "" {
			if s, err = s.convert(opts.FX, opts.Currency, opts.At); err != nil {
				rep.Unmatched = append(rep.Unmatched, Skipped{c, err.Error()})
				continue
			}
		}
		rep.StaleRates = rep.StaleRates || s.FXStale
		k := groupKey{c.Provider, c.Region, c.Zone, c.InstanceType, c.OS}
		g := groups[k]
		if g == nil {
			g = &SavingsGroup{Provider: c.Provider, Region: c.Region, Zone: c.Zone, InstanceType: c.InstanceType, OS: c.OS,
				Currency: s.Currency, OnDemand: od, OnDemandHourly: s.OnDemandHourly}
			groups[k] = g
		}
		g.Options = append(g.Options, s)
	}
	for _, g := range groups {
		sort.SliceStable(g.Options, func(i, j int) bool {
			a, b := g.Options[i], g.Options[j]
			if c := a.EffectiveHourly.Cmp(b.EffectiveHourly); c != 0 {
				return c < 0
			}
			return keyLess(a.Offer.Key(), b.Offer.Key())
		})
		// Per hour of the term, a commitment costs its effective hourly
		// rate and on-demand costs its hourly rate × u.
		best := g.Options[0]
		if best.SavingsPct.IsPositive() {
			g.Options[0].Best = true
		} else {
			g.OnDemandBest = true
		}
		rep.Groups = append(rep.Groups, *g)
	}
	sort.Slice(rep.Groups, func(i, j int) bool {
		a, b := rep.Groups[i], rep.Groups[j]
		for _, p := range [][2]string{{a.Provider, b.Provider}, {a.Region, b.Region}, {a.Zone, b.Zone}, {a.InstanceType, b.InstanceType}, {a.OS, b.OS}} {
			if p[0] != p[1] {
				return p[0] < p[1]
			}
		}
		return false
	})
	sort.SliceStable(rep.Unmatched, func(i, j int) bool { return keyLess(rep.Unmatched[i].Offer.Key(), rep.Unmatched[j].Offer.Key()) })
	return rep, nil
}
