// Package analysis turns stored prices into decisions: what a GPU-hour
// costs where, on which commitment, in one currency, and whether it is
// getting cheaper. It is pure computation over values: callers load offers,
// price intervals, availability and exchange rates from storage and pass
// them in; nothing here reads a clock, a file or the network.
//
// Money is decimal throughout. Sums and products of prices are exact;
// every division rounds to a stated precision (RateDecimals for hourly
// rates, PercentDecimals for percentages, ShareDecimals for utilisation
// shares), so float rounding never shows in a result.
package analysis

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fx"
)

// Precision of derived figures.
const (
	// RateDecimals is the precision of hourly and per-GPU-hour rates.
	RateDecimals = pricewatch.RateDecimals
	// PercentDecimals is the precision of percentages (0–100 scale).
	PercentDecimals = 4
	// ShareDecimals is the precision of utilisation shares (0–1 scale).
	ShareDecimals = 6
	// divDecimals is the working precision of intermediate divisions.
	divDecimals = 20
)

var (
	one     = decimal.NewFromInt(1)
	hundred = decimal.NewFromInt(100)
)

// Converter gives the rate for converting a price of a given date. *fx.Book
// implements it; a missing rate must be an error, never a rate of 1.
type Converter interface {
	Quote(from, to string, on time.Time) (fx.Quote, error)
}

// FXUsed records the exchange rate behind a converted figure, so that every
// output row can say which rate it used and whether that rate was stale.
type FXUsed struct {
	// FXRate is units of the target currency per unit of the native one
	// (1 when no conversion was needed).
	FXRate decimal.Decimal `json:"fx_rate"`
	// FXDate is the reference day of the rate (YYYY-MM-DD); empty for a
	// configured fixed rate or when no conversion was needed.
	FXDate   string `json:"fx_date"`
	FXSource string `json:"fx_source"`
	FXStale  bool   `json:"fx_stale"`
}

func fxUsed(q fx.Quote) FXUsed {
	u := FXUsed{FXRate: q.Rate, FXSource: q.Source, FXStale: q.Stale}
	if !q.Date.IsZero() {
		u.FXDate = q.Date.Format(time.DateOnly)
	}
	return u
}

// ErrNoConverter is returned when a figure needs converting and the caller
// passed no Converter.
var ErrNoConverter = errors.New("no exchange rates available")

// quote returns the rate from one currency to another; same currency needs
// no converter.
func quote(conv Converter, from, to string, on time.Time) (fx.Quote, error) {
	if strings.EqualFold(from, to) {
		return fx.Identity(from), nil
	}
	if conv == nil {
		return fx.Quote{}, fmt.Errorf("converting %s to %s: %w", from, to, ErrNoConverter)
	}
	return conv.Quote(from, to, on)
}

// pct returns (1 - a/b) × 100, rounded to PercentDecimals.
func savingsPct(a, b decimal.Decimal) decimal.Decimal {
	return one.Sub(a.DivRound(b, divDecimals)).Mul(hundred).Round(PercentDecimals)
}

// ParseUtilization reads a utilisation share ("0.7", "70%") and checks it
// lies in (0, 1].
func ParseUtilization(s string) (decimal.Decimal, error) {
	t := strings.TrimSpace(s)
	percent := strings.HasSuffix(t, "%")
	t = strings.TrimSuffix(t, "%")
	u, err := decimal.NewFromString(strings.TrimSpace(t))
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("utilisation %q: want a share such as 0.7 or 70%%", s)
	}
	if percent {
		u = u.Div(hundred)
	}
	if err := checkUtilization(u); err != nil {
		return decimal.Decimal{}, err
	}
	return u, nil
}

func checkUtilization(u decimal.Decimal) error {
	if !u.IsPositive() || u.GreaterThan(one) {
		return fmt.Errorf("utilisation %s: want a share of the hours above 0 and at most 1", u)
	}
	return nil
}

// ParseWindow reads a window such as "7d", "30d", "12w", "48h" or "3m"
// (months of 30 days).
func ParseWindow(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if len(t) < 2 {
		return 0, fmt.Errorf("window %q: want a number and a unit (h, d, w, m), e.g. 30d", s)
	}
	var n int64
	if _, err := fmt.Sscanf(t[:len(t)-1], "%d", &n); err != nil || n <= 0 || fmt.Sprint(n) != t[:len(t)-1] {
		return 0, fmt.Errorf("window %q: want a positive whole number before the unit", s)
	}
	day := 24 * time.Hour
	switch t[len(t)-1] {
	case 'h':
		return time.Duration(n) * time.Hour, nil
	case 'd':
		return time.Duration(n) * day, nil
	case 'w':
		return time.Duration(n) * 7 * day, nil
	case 'm':
		return time.Duration(n) * 30 * day, nil
	}
	return 0, fmt.Errorf("window %q: unit must be h, d, w or m", s)
}

// keyLess orders offer keys for stable output.
// KeyLess is the order of offer keys every ranking breaks ties by
// (provider, region, zone, instance type, OS, price type, term, payment,
// offering class): a caller merging rankings made in parts orders them so.
func KeyLess(a, b pricewatch.OfferKey) bool { return keyLess(a, b) }

func keyLess(a, b pricewatch.OfferKey) bool {
	as := []string{a.Provider, a.Region, a.Zone, a.InstanceType, a.OS, string(a.PriceType), a.Term, a.Payment, a.OfferingClass}
	bs := []string{b.Provider, b.Region, b.Zone, b.InstanceType, b.OS, string(b.PriceType), b.Term, b.Payment, b.OfferingClass}
	for i := range as {
		if as[i] != bs[i] {
			return as[i] < bs[i]
		}
	}
	return false
}

// inSet reports whether v is in set (case-insensitive); an empty set holds everything.
func inSet(set []string, v string) bool {
	if len(set) == 0 {
		return true
	}
	for _, s := range set {
		if strings.EqualFold(s, v) {
			return true
		}
	}
	return false
}

func priceTypeIn(set []pricewatch.PriceType, p pricewatch.PriceType) bool {
	if len(set) == 0 {
		return true
	}
	for _, s := range set {
		if s == p {
			return true
		}
	}
	return false
}

// osMatches applies an OS filter: "" means Linux (what users compare),
// "any" means every OS.
func osMatches(filter, os string) bool {
	switch strings.ToLower(filter) {
	case "":
		return os == pricewatch.Linux
	case "any", "all":
		return true
	}
	return strings.EqualFold(filter, os)
}

// availabilityIndex groups availability records by provider, region and
// instance type, the places availabilityOf looks at, so that rating many
// offers reads each offer's few records, not all of them.
type availabilityIndex map[availabilityPlace][]pricewatch.Availability

type availabilityPlace struct{ provider, region, instanceType string }

func indexAvailability(avail []pricewatch.Availability) availabilityIndex {
	idx := availabilityIndex{}
	for _, a := range avail {
		k := availabilityPlace{a.Provider, a.Region, a.InstanceType}
		idx[k] = append(idx[k], a)
	}
	return idx
}

func (idx availabilityIndex) of(o pricewatch.Offer) (*bool, string) {
	return availabilityOf(o, idx[availabilityPlace{o.Provider, o.Region, o.InstanceType}])
}

// availabilityOf says whether an offer's type can be bought where the offer
// is priced: true if any matching record is offered or in stock, false if
// every matching record is sold out, nil when nothing is known. A zonal
// offer looks at its zone, then at region-wide records; a regional offer
// at every record of its region.
func availabilityOf(o pricewatch.Offer, avail []pricewatch.Availability) (*bool, string) {
	var zoneStates, regionStates []pricewatch.AvailabilityState
	for _, a := range avail {
		if a.Provider != o.Provider || a.Region != o.Region || a.InstanceType != o.InstanceType {
			continue
		}
		switch {
		case o.Zone != "" && a.Zone == o.Zone:
			zoneStates = append(zoneStates, a.State)
		case o.Zone == "" || a.Zone == "":
			regionStates = append(regionStates, a.State)
		}
	}
	states := zoneStates
	if len(states) == 0 {
		states = regionStates
	}
	if len(states) == 0 {
		return nil, ""
	}
	best := pricewatch.SoldOut
	for _, s := range states {
		if s == pricewatch.InStock || (s == pricewatch.Offered && best == pricewatch.SoldOut) {
			best = s
		}
	}
	yes := best != pricewatch.SoldOut
	return &yes, string(best)
}

// perGPU divides an instance price by its GPU count at RateDecimals.
func perGPU(price decimal.Decimal, gpus float64) (decimal.Decimal, bool) {
	return pricewatch.PerGPUHour(price, gpus)
}

// SortedKeys are m's keys in order, never nil: a list of none is [] in
// JSON, not null.
func SortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
