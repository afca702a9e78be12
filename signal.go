package pricewatch

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// SignalKind names what a capacity signal measures (issue 23). Signals sit
// beside prices and stock states: they say where capacity is, not what it
// costs, and each kind is compared only with itself.
type SignalKind string

const (
	// InterruptionBand is AWS Spot Advisor's interruption-frequency band
	// of a type in a region ("<5%", "5-10%", …), per operating system.
	InterruptionBand SignalKind = "interruption_band"
	// CapacityBlock is an EC2 Capacity Block for ML offering: capacity that
	// exists for a window, at an upfront fee. Its value is the fee.
	CapacityBlock SignalKind = "capacity_block"
	// PlacementScore is a spot placement score (AWS 1–10, Azure
	// High/Medium/Low) for a requested capacity.
	PlacementScore SignalKind = "placement_score"
	// EvictionBand is Azure's spot eviction-rate band of a SKU in a
	// location.
	EvictionBand SignalKind = "eviction_band"
)

// SignalKinds lists every kind in display order.
var SignalKinds = []SignalKind{InterruptionBand, CapacityBlock, PlacementScore, EvictionBand}

// Valid reports whether k is a known kind.
func (k SignalKind) Valid() bool { return slices.Contains(SignalKinds, k) }

// Signal is one observation of a capacity signal. Value is the cloud's own
// word or number as text ("<5%", "7", "High", a fee "31464.00"); Unit says
// what it is ("band", "score", or a currency code for a fee).
type Signal struct {
	Provider     string
	Kind         SignalKind
	Region       string
	Zone         string // empty when the signal is regional
	InstanceType string
	// Shape is the request the signal answers, where it matters: the
	// operating system of a Spot Advisor band, the instance count and
	// duration of a capacity block, the target capacity of a placement
	// score. Canonical "key=value" pairs, sorted, joined by commas (see
	// ShapeOf), so that equal requests have equal text.
	Shape string
	// Start and End bound a capacity block's window; zero for the other
	// kinds.
	Start, End time.Time
	Value      string
	Unit       string
	// Detail is what the source says beside the value, for display only
	// (Spot Advisor's savings over on-demand, a block's offering ID); a
	// change of Detail alone is not a transition.
	Detail string
	// Source names where the observation came from ("spot-advisor",
	// "ec2:DescribeCapacityBlockOfferings").
	Source string
	Hardware
}

// SignalKey identifies one signal across runs: two observations with the
// same key are the same signal, possibly with another value.
type SignalKey struct {
	Provider     string
	Kind         SignalKind
	Region, Zone string
	InstanceType string
	Shape        string
	Start, End   time.Time
}

// Key returns the identity of the observation.
func (s Signal) Key() SignalKey {
	return SignalKey{s.Provider, s.Kind, s.Region, s.Zone, s.InstanceType, s.Shape, s.Start.UTC(), s.End.UTC()}
}

// Place is the availability key of the signal's type and place, which
// alert filters and messages speak.
func (s Signal) Place() AvailabilityKey {
	return AvailabilityKey{Provider: s.Provider, Region: s.Region, Zone: s.Zone, InstanceType: s.InstanceType}
}

// ShapeOf builds a canonical Shape from key, value pairs; pairs with an
// empty value are left out.
func ShapeOf(kv ...string) string {
	var parts []string
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			parts = append(parts, kv[i]+"="+kv[i+1])
		}
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

// ShapeValue returns the value of key in a canonical shape, "" if absent.
func ShapeValue(shape, key string) string {
	for _, p := range strings.Split(shape, ",") {
		if k, v, ok := strings.Cut(p, "="); ok && k == key {
			return v
		}
	}
	return ""
}

// Validate rejects an observation that would poison the history.
func (s Signal) Validate() error {
	if s.Provider == "" || s.InstanceType == "" || s.Region == "" {
		return fmt.Errorf("signal %v: provider, region and instance type are required", s.Key())
	}
	if !s.Kind.Valid() {
		return fmt.Errorf("signal %v: unknown kind %q", s.Key(), s.Kind)
	}
	if !IsRegionCode(s.Region) || (s.Zone != "" && !IsRegionCode(s.Zone)) {
		return fmt.Errorf("signal %v: region %q / zone %q is not a region code", s.Key(), s.Region, s.Zone)
	}
	if strings.TrimSpace(s.Value) == "" || s.Unit == "" || s.Source == "" {
		return fmt.Errorf("signal %v: value, unit and source are required (a missing value is left out, never stored empty)", s.Key())
	}
	if s.Kind == CapacityBlock {
		if s.Start.IsZero() || !s.End.After(s.Start) {
			return fmt.Errorf("signal %v: a capacity block needs a window that ends after it starts", s.Key())
		}
		if !IsCurrencyCode(s.Unit) {
			return fmt.Errorf("signal %v: a capacity block's unit is the fee's currency, not %q", s.Key(), s.Unit)
		}
		fee, err := decimal.NewFromString(s.Value)
		if err != nil || !fee.IsPositive() {
			return fmt.Errorf("signal %v: fee %q is not a positive amount", s.Key(), s.Value)
		}
	} else if !s.Start.IsZero() || !s.End.IsZero() {
		return fmt.Errorf("signal %v: only capacity blocks have a window", s.Key())
	}
	return nil
}

// BlockHours is how many hours a capacity block sells: its duration
// (EC2's CapacityBlockDurationHours, the shape's duration_hours), which
// its fee buys and every per-hour figure of the block is spread over, the
// signal's as its price's (whose term is the same days). The window can be
// shorter than the duration: a one-day block sold from 12:00 ends at 11:30
// the next day, 23.5 hours, for the fee of 24. A signal whose shape has no
// duration falls back to its window's length.
func (s Signal) BlockHours() float64 {
	if h, err := strconv.Atoi(ShapeValue(s.Shape, "duration_hours")); err == nil && h > 0 {
		return float64(h)
	}
	return s.End.Sub(s.Start).Hours()
}

// BlockPerGPUHour is a capacity block's fee spread over every GPU-hour it
// sells (fee ÷ (BlockHours × instances × GPUs per instance)), or false
// when the signal is not a block or a factor is unknown.
func (s Signal) BlockPerGPUHour() (decimal.Decimal, bool) {
	if s.Kind != CapacityBlock || s.GPUCount <= 0 {
		return decimal.Decimal{}, false
	}
	fee, err := decimal.NewFromString(s.Value)
	if err != nil {
		return decimal.Decimal{}, false
	}
	hours := s.BlockHours()
	count := 1
	if n := ShapeValue(s.Shape, "instance_count"); n != "" {
		if _, err := fmt.Sscanf(n, "%d", &count); err != nil || count <= 0 {
			return decimal.Decimal{}, false
		}
	}
	units := decimal.NewFromFloat(hours).Mul(decimal.NewFromInt(int64(count))).Mul(decimal.NewFromFloat(s.GPUCount))
	if !units.IsPositive() {
		return decimal.Decimal{}, false
	}
	return fee.DivRound(units, RateDecimals), true
}

// SignalScope is a part of a provider's signals that a snapshot describes
// completely: a stored current signal of that kind and region (every
// region for AllRegions) missing from the snapshot has ended. Its end is
// recorded quietly: a signal missing from an answer is never a
// transition, and never read as "no capacity".
type SignalScope struct {
	Kind   SignalKind
	Region string
}

// Covers reports whether the scope speaks for a signal.
func (sc SignalScope) Covers(k SignalKey) bool {
	return sc.Kind == k.Kind && (sc.Region == AllRegions || sc.Region == k.Region)
}

// Signal change kinds: transitions within one signal kind.
const (
	// CapacityBlockAvailable: a capacity block offering appeared.
	CapacityBlockAvailable ChangeKind = "capacity_block_available"
	// SignalChanged: a known signal has another value (an interruption
	// band, a placement score, an eviction band moved).
	SignalChanged ChangeKind = "signal_changed"
	// SignalNew: a signal of a kind other than capacity_block was seen for
	// the first time (a baseline, never alerted).
	SignalNew ChangeKind = "signal_new"
)

// SignalChange is what a signal change carries beside the place: the
// signal as now observed and the value it replaced.
type SignalChange struct {
	Signal
	OldValue string
}

// InterruptionBands are AWS Spot Advisor's interruption-frequency bands,
// least interrupted first (the labels of its "ranges"; the Spot Advisor
// itself numbers them 0–4 in this order).
var InterruptionBands = []string{"<5%", "5-10%", "10-15%", "15-20%", ">20%"}

// InterruptionBandRank is a band's place in InterruptionBands (0 least
// interrupted), or false for a label the Spot Advisor does not use: an
// unknown label is no information, never ranked as low or high.
func InterruptionBandRank(label string) (int, bool) {
	i := slices.Index(InterruptionBands, label)
	return i, i >= 0
}
