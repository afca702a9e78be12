// Package alerting decides which of a run's changes people are told about,
// and delivers the messages.
//
// Two halves, joined by the outbox table:
//
//   - Rules (pure, no I/O) runs inside the transaction that stores a
//     provider run: it maps the run's changes to events (price drop, back in
//     stock, …), applies each configured rule's filters and thresholds, and
//     groups what matched into one message per rule, event and channel. A
//     message is a versioned Document holding the group's data, written to
//     the outbox in the same transaction as the changes, so a stored change
//     is never without its alert.
//   - Dispatcher drains the outbox through a Notifier: in order per
//     channel, at least once, honouring rate limits and backing off on
//     transient errors, giving up only on errors that resending cannot fix.
//     The notifier renders the document when it sends (Block Kit in
//     alerting/slack, a JSON body in alerting/webhook), so a template fix
//     reaches messages that were queued before it.
//
// The package knows neither the database nor the configuration file: the
// dispatcher declares the outbox methods it uses (Outbox), the rules take
// their own RulesConfig, and cmd/pricewatch joins them.
package alerting

import (
	"context"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
)

// Event is what a rule can ask to be told about.
type Event string

// Events, as named in alerts.rules[].events.
const (
	// AvailabilityNew: a type is newly offered in a region or zone (or again,
	// after being withdrawn).
	AvailabilityNew Event = "availability_new"
	// AvailabilityGone: a type was withdrawn from a region or zone; storage
	// reports it only after alerts.withdraw_after_runs complete runs
	// without it.
	AvailabilityGone Event = "availability_gone"
	// BackInStock and SoldOut: stock transitions in a zone, minus flaps.
	BackInStock Event = "back_in_stock"
	SoldOut     Event = "sold_out"
	// PriceDrop and PriceRise: a known price point moved by at least the
	// rule's thresholds.
	PriceDrop Event = "price_drop"
	PriceRise Event = "price_rise"
	// SpotBelow: a spot price per GPU-hour went below the rule's threshold
	// (new spot offers included).
	SpotBelow Event = "spot_below"
	// PriceNew: a price point seen for the first time.
	PriceNew Event = "price_new"
	// CapacityBlockAvailable: an EC2 Capacity Block offering appeared (a
	// type, zone and window, with its fee); issue 23.
	CapacityBlockAvailable Event = "capacity_block_available"
	// InterruptionBandChanged: a type's Spot Advisor interruption band in
	// a region moved. A band missing from an answer is no change.
	InterruptionBandChanged Event = "interruption_band_changed"
	// PlacementScoreChanged: a spot placement score of one request moved
	// across an edge of alerts.placement_score_thresholds (a numeric score),
	// or to another word (a score given as High/Medium/Low). A move within
	// a band, a first score and a score missing from an answer are no
	// change.
	PlacementScoreChanged Event = "placement_score_changed"
	// EvictionBandChanged: a type's spot eviction-rate band in a location
	// moved ("0-5" → "10-15"). A first band is a baseline, a band missing
	// from an answer no change.
	EvictionBandChanged Event = "eviction_band_changed"
)

// DefaultPlacementScoreThresholds are alerts.placement_score_thresholds'
// default: AWS's 1–10 scale cut into low (1–2), medium (3–6) and high
// (7–10), so that a score alerts when it changes band and not on every
// point of jitter.
var DefaultPlacementScoreThresholds = []int{3, 7}

// Events lists every event in the order messages of one rule are queued.
var Events = []Event{AvailabilityNew, BackInStock, CapacityBlockAvailable, PriceDrop, SpotBelow, PriceNew, PriceRise, SoldOut, AvailabilityGone,
	InterruptionBandChanged, PlacementScoreChanged, EvictionBandChanged}

func (e Event) valid() bool {
	for _, k := range Events {
		if e == k {
			return true
		}
	}
	return false
}

// IsPrice reports whether the event is about a price rather than where a
// type is offered.
func (e Event) IsPrice() bool {
	// Capacity signals are neither prices nor places.
	return e == PriceDrop || e == PriceRise || e == SpotBelow || e == PriceNew
}

// Item is one change as a rule reports it, with the figures a message shows.
type Item struct {
	Event  Event
	Change pricewatch.Change
	// OldPerGPU and NewPerGPU are the effective hourly prices divided by
	// the GPU count; unset when the count is unknown or the price absent.
	OldPerGPU, NewPerGPU decimal.NullDecimal
	// Delta is New − Old per instance-hour, DeltaPerGPU the same per
	// GPU-hour, DeltaPct the move in percent of Old (two decimals); set for
	// price moves only.
	Delta, DeltaPerGPU, DeltaPct decimal.NullDecimal
}

// Group is one message: what one rule selected from one run for one event
// and channel, most important first.
type Group struct {
	// Key is the outbox delivery key: run, channel, rule and event, so that
	// storing the same result twice cannot queue the message twice.
	Key      string
	Channel  string
	Rule     string
	Event    Event
	Criteria string // the rule's filters and thresholds, for the footer
	RunID    int64
	Provider string
	At       time.Time
	Items    []Item
}

// Renderer turns a group into what one notifier sends (Slack's
// chat.postMessage JSON for alerting/slack). Notifiers call it at send
// time; it must not do I/O.
type Renderer interface {
	Render(g Group) ([]byte, error)
}

// Notifier posts one stored message to a channel: payload is what the
// outbox holds, a Document (DecodeDocument) or, for messages queued by an
// older pricewatch, the bytes it rendered then. Errors are retryable unless
// wrapped with Permanent; RetryAfter sets when to try again.
type Notifier interface {
	Post(ctx context.Context, channel string, payload []byte) error
}
