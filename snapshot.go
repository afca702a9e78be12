package pricewatch

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

// AvailabilityState is what a cloud says about a type in a region or zone.
type AvailabilityState string

const (
	// Offered: the type is listed for sale; the cloud says nothing of stock.
	Offered AvailabilityState = "offered"
	// InStock and SoldOut come from clouds that report stock per zone.
	InStock AvailabilityState = "in_stock"
	SoldOut AvailabilityState = "sold_out"
)

// Availability is one observation of a type's sale state in a region or zone.
type Availability struct {
	Provider     string
	Region       string
	Zone         string // empty when the cloud only says "offered in the region"
	InstanceType string
	State        AvailabilityState
	// StockDetail keeps the cloud's own finer category ("WithStock",
	// "ClosedWithoutStock", "EnoughStock", …) for display; State is what
	// history and alerts compare.
	StockDetail string
	Hardware
}

// AvailabilityKey identifies one (type, place) pair across fetches.
type AvailabilityKey struct {
	Provider, Region, Zone, InstanceType string
}

// Key returns the identity of the observation.
func (a Availability) Key() AvailabilityKey {
	return AvailabilityKey{a.Provider, a.Region, a.Zone, a.InstanceType}
}

// AllRegions in a Scope means the snapshot covers every region the provider has.
const AllRegions = "*"

// Scope is a part of a provider's catalogue that a snapshot describes
// completely. Storage closes what is stored inside a scope but missing from
// the snapshot, and never touches what lies outside every scope. That is how
// a fetch that skipped an unchanged AWS region, or fetched only the spot feed,
// avoids reading as "everything else vanished".
type Scope struct {
	Region string // a region code, or AllRegions
	// PriceTypes the scope covers; empty means all of them.
	PriceTypes []PriceType
	// Availability is true when the snapshot lists every type offered in
	// the region (and so absence means withdrawn).
	Availability bool
}

// CoversOffer reports whether an offer in region with price type pt falls
// inside the scope.
func (s Scope) CoversOffer(region string, pt PriceType) bool {
	if s.Region != AllRegions && s.Region != region {
		return false
	}
	if len(s.PriceTypes) == 0 {
		return true
	}
	for _, p := range s.PriceTypes {
		if p == pt {
			return true
		}
	}
	return false
}

// CoversAvailability reports whether availability in region is fully described.
func (s Scope) CoversAvailability(region string) bool {
	return s.Availability && (s.Region == AllRegions || s.Region == region)
}

// Snapshot is the complete result of one provider fetch. A fetcher returns
// a Snapshot only when every page and file it needed was read in full;
// anything less is an error.
type Snapshot struct {
	Provider     string
	Offers       []Offer
	Availability []Availability
	// Coverage lists what this snapshot describes completely.
	Coverage []Scope
	// Unchanged lists scopes whose source was not downloaded because it has
	// not changed since the last stored run; their current prices stay
	// current and their last-seen time moves to this run.
	Unchanged []Scope
	// Versions are source version tokens (an AWS price-file version per
	// region, an ETag) to remember for the next run, keyed by the fetcher's
	// own names. Storage saves them with the run and hands them back.
	// Only version tokens: anything else goes in State.
	Versions map[string]string
	// State is whatever else the fetcher keeps between runs (AWS's GPU
	// catalogue of the types it has read, Alibaba's region cursor,
	// Lambda's regions with capacity, Vast.ai's stock memory): one
	// document in a typed, versioned form the fetcher owns (see
	// fetchers.EncodeState). Storage keeps it, opaque, in the run's
	// transaction; nil leaves the stored state as it is.
	State []byte
	// SourceVersion summarises the versions for the fetch-run record.
	SourceVersion string
	// Skipped counts regions (or files) skipped as unchanged, for the summary.
	Skipped int
	// Signals are the capacity signals observed (issue 23), and
	// SignalCoverage the parts of them the snapshot describes completely.
	// A source that did not change since the last run (an unchanged Spot
	// Advisor file) lists neither, and so writes nothing.
	Signals        []Signal
	SignalCoverage []SignalScope
	// Unread are the parts of the provider the run could not read (an AWS
	// region whose price file was cut off mid-download), and why. What
	// was not read lies outside every scope, so its stored prices stay as
	// they were; the rest is stored, and the run is partial, not a success.
	Unread []Unread
}

// Unread is a region a run could not read, and why.
type Unread struct {
	Region string
	// Reason is the error that cost the region, free of secrets.
	Reason string
}

// UnreadText says which regions were not read and why, in one line:
// "us-west-2 (price file cut off …); eu-west-1 (…)"; "" for none.
func UnreadText(parts []Unread) string {
	out := make([]string, 0, len(parts))
	for _, u := range parts {
		out = append(out, u.Region+" ("+u.Reason+")")
	}
	return strings.Join(out, "; ")
}

// Validate checks every offer and availability record and that the
// snapshot says what it covers.
func (s *Snapshot) Validate() error {
	if s.Provider == "" {
		return fmt.Errorf("snapshot has no provider")
	}
	if len(s.Coverage) == 0 && len(s.Unchanged) == 0 {
		return fmt.Errorf("%s snapshot covers nothing", s.Provider)
	}
	for _, o := range s.Offers {
		if o.Provider != s.Provider {
			return fmt.Errorf("%s snapshot holds an offer of %s", s.Provider, o.Provider)
		}
		if err := o.Validate(); err != nil {
			return err
		}
	}
	for _, a := range s.Availability {
		if a.Provider != s.Provider {
			return fmt.Errorf("%s snapshot holds availability of %s", s.Provider, a.Provider)
		}
		switch a.State {
		case Offered, InStock, SoldOut:
		default:
			return fmt.Errorf("availability %v: unknown state %q", a.Key(), a.State)
		}
	}
	seen := make(map[SignalKey]bool, len(s.Signals))
	for _, sg := range s.Signals {
		if sg.Provider != s.Provider {
			return fmt.Errorf("%s snapshot holds a signal of %s", s.Provider, sg.Provider)
		}
		if err := sg.Validate(); err != nil {
			return err
		}
		if seen[sg.Key()] {
			return fmt.Errorf("signal %v listed twice in one snapshot", sg.Key())
		}
		seen[sg.Key()] = true
	}
	for _, u := range s.Unread {
		if !IsRegionCode(u.Region) || strings.TrimSpace(u.Reason) == "" {
			return fmt.Errorf("%s snapshot: unread region %q needs a region code and a reason", s.Provider, u.Region)
		}
	}
	return nil
}

// ChangeKind names a fact found by comparing a run with stored history.
type ChangeKind string

const (
	// PriceNew: a price point seen for the first time.
	PriceNew ChangeKind = "price_new"
	// PriceChanged: a known price point now costs something else.
	PriceChanged ChangeKind = "price_changed"
	// PriceGone: a price point no longer listed by a complete run.
	PriceGone ChangeKind = "price_gone"
	// AvailabilityNew: a type is offered in a region or zone where it was
	// not before (or comes back after being withdrawn).
	AvailabilityNew ChangeKind = "availability_new"
	// AvailabilityGone: a type is no longer listed in a region or zone.
	AvailabilityGone ChangeKind = "availability_gone"
	// BackInStock and SoldOutNow: stock transitions in a zone.
	BackInStock ChangeKind = "back_in_stock"
	SoldOutNow  ChangeKind = "sold_out"
)

// Change is one fact detected while storing a run. Prices are effective
// hourly rates in Currency; Old is zero-valued for new offers and New for
// gone ones.
type Change struct {
	Kind     ChangeKind
	At       time.Time
	Offer    OfferKey // for price changes
	Place    AvailabilityKey
	Currency string
	Old, New decimal.NullDecimal
	OldState AvailabilityState
	NewState AvailabilityState
	// OldSince is when the replaced availability state began, so that a
	// state which lasted only minutes (a flap) can be told apart.
	OldSince time.Time
	// Signal is set for a capacity signal's change (CapacityBlockAvailable,
	// SignalChanged, SignalNew); Place then names its type and place.
	Signal *SignalChange
	Hardware
}

// StripControl removes control characters (C0 and C1: ESC, BEL, the OSC
// introducer, CR, LF, DEL, …) and bidirectional-override characters from
// every name in the snapshot that came from the provider: region, zone,
// instance type, GPU model, term and payment words, stock detail, cloud
// IDs. No cloud names a thing with them; a name that carries them is
// hostile or broken, and stored raw it would reach terminals (a table
// printing it runs the escape sequence) and alerts. It runs once on every
// snapshot between fetch and store (see package hardware) and returns how
// many fields it changed.
func (s *Snapshot) StripControl() int {
	n := 0
	clean := func(f *string) {
		if c := StripControl(*f); c != *f {
			*f = c
			n++
		}
	}
	for i := range s.Offers {
		o := &s.Offers[i]
		for _, f := range []*string{&o.Region, &o.Zone, &o.InstanceType, &o.Term, &o.Payment, &o.OfferingClass, &o.OS, &o.Currency,
			&o.GPUModel, &o.SkuID, &o.SkuPriceID, &o.ProductID, &o.RegionName} {
			clean(f)
		}
	}
	for i := range s.Availability {
		a := &s.Availability[i]
		for _, f := range []*string{&a.Region, &a.Zone, &a.InstanceType, &a.StockDetail, &a.GPUModel} {
			clean(f)
		}
	}
	for i := range s.Signals {
		sg := &s.Signals[i]
		for _, f := range []*string{&sg.Region, &sg.Zone, &sg.InstanceType, &sg.Shape, &sg.Value, &sg.Unit, &sg.Detail, &sg.GPUModel} {
			clean(f)
		}
	}
	for i := range s.Unread {
		// A reason may quote the cloud's answer.
		clean(&s.Unread[i].Region)
		clean(&s.Unread[i].Reason)
	}
	return n
}

// StripControl returns name without control or bidirectional-override
// characters (see Snapshot.StripControl), trimmed. Bytes that are not
// UTF-8 are left for the reader to reject or escape.
func StripControl(name string) string {
	if !strings.ContainsFunc(name, unsafeRune) {
		return name
	}
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if unsafeRune(r) {
			return -1
		}
		return r
	}, name))
}

// unsafeRune: a control character, or one that reorders text around it
// (U+202A–U+202E, U+2066–U+2069) and so can make a name read as another.
func unsafeRune(r rune) bool {
	return unicode.IsControl(r) || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
}

// Printable is s made safe for a terminal: control and bidirectional
// characters, and bytes that are not UTF-8, are written as Go escapes
// (\x1b, \u202e, \xff), so that nothing a provider or a database holds
// can move the cursor, retitle the window or hide text. Other text is
// unchanged.
func Printable(s string) string {
	if !strings.ContainsFunc(s, unsafeRune) && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x100 && unsafeRune(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}
