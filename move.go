package pricewatch

import "fmt"

// The rulings of the alert policy on price moves. Package alerting decides
// them (alerting.Policy) and package storage persists them in a run's
// transaction; they are named here, beside Change, so that storage can
// declare the interface it consumes (storage.MovePolicy) without importing
// alerting, and alerting can satisfy it without importing storage.

// MoveDecision is the policy's ruling on a move from one price to another.
type MoveDecision int

const (
	// MoveAlerts: the move alerts in this run.
	MoveAlerts MoveDecision = iota
	// MoveAwaits: the move is large; it is stored at once like every move,
	// but its alert waits for the next complete run to confirm it.
	MoveAwaits
)

func (d MoveDecision) String() string {
	switch d {
	case MoveAlerts:
		return "alerts"
	case MoveAwaits:
		return "awaits"
	}
	return fmt.Sprintf("MoveDecision(%d)", int(d))
}

// MoveSettlement is what becomes of a move waiting for confirmation when a
// later run is stored.
type MoveSettlement int

const (
	// MovePending: the run says nothing about the offer's price; the move
	// keeps waiting.
	MovePending MoveSettlement = iota
	// MoveConfirmed: the run lists the same price; the waiting move alerts
	// now, from the price users were last told about.
	MoveConfirmed
	// MoveReverted: the price went back to what users were last told; the
	// move and the move back never alert.
	MoveReverted
	// MoveRejudged: the price moved on; the new move is judged again, from
	// the price users were last told about.
	MoveRejudged
	// MoveEnded: the offer closed, or its price is now in another currency;
	// the wait ends without an alert of its own and the run's change
	// alerts as itself.
	MoveEnded
)

func (s MoveSettlement) String() string {
	switch s {
	case MovePending:
		return "pending"
	case MoveConfirmed:
		return "confirmed"
	case MoveReverted:
		return "reverted"
	case MoveRejudged:
		return "rejudged"
	case MoveEnded:
		return "ended"
	}
	return fmt.Sprintf("MoveSettlement(%d)", int(s))
}
