package alerting

import (
	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
)

// Policy is the alert policy of a run's changes: which price moves wait for
// confirmation (alerts.confirm_change_pct) and when a type missing from
// complete runs counts as withdrawn (alerts.withdraw_after_runs). Its
// methods are pure decisions; storage persists what they decide in the
// run's transaction (storage.SaveOptions.Policy), so a restart loses no
// waiting move.
//
// A move of at least the threshold is stored at once, like every move, but
// its alert waits for the provider's next complete run:
//   - that run lists the same price: the move is confirmed and alerts in
//     that run's messages, with the old price users were last told about;
//   - the price goes back to what it was: the move is reverted and neither
//     it nor the move back ever alerts;
//   - the price moves on: the move is judged again from the price users
//     were last told about to the new one (waiting again if still large);
//   - the offer is closed: the wait ends without an alert.
//
// A run that does not cover the offer, or holds its price (package guard),
// leaves the wait as it is.
//
// The zero Policy alerts every move at once and withdraws a type at its
// first miss.
type Policy struct {
	confirmPct    decimal.Decimal
	withdrawAfter int
}

// NewPolicy builds the policy from the configuration's numbers:
// confirmChangePct 0 alerts every move at once; withdrawAfterRuns below 1
// counts as 1.
func NewPolicy(confirmChangePct float64, withdrawAfterRuns int) Policy {
	return Policy{confirmPct: decimal.NewFromFloat(confirmChangePct), withdrawAfter: withdrawAfterRuns}
}

// Judge rules on a move from old to new (effective hourly prices in one
// currency): it awaits confirmation when it is at least the threshold's
// percentage of old, decided exactly (by multiplying, not dividing).
func (p Policy) Judge(old, new decimal.Decimal) pricewatch.MoveDecision {
	if !p.confirmPct.IsPositive() || !old.IsPositive() {
		return pricewatch.MoveAlerts
	}
	if new.Sub(old).Abs().Mul(decimal.NewFromInt(100)).LessThan(p.confirmPct.Mul(old)) {
		return pricewatch.MoveAlerts
	}
	return pricewatch.MoveAwaits
}

// Settle rules on a move waiting from an earlier run (pending: Old is the
// price users were last told about, New the price that waits) given what
// this run found for the same offer: now is the run's change of the offer
// (zero Kind when it has none), observed whether the run saw the offer's
// price (it lists the offer or reports its scope unchanged, and the guard
// did not hold it). It returns the change that carries the ruling:
//   - MoveConfirmed: pending itself, to alert now;
//   - MoveReverted: now, the move back, which never alerts;
//   - MoveRejudged: now, from the price users were last told about, for
//     Judge;
//   - MoveEnded: now, which alerts as itself;
//   - MovePending: pending, unchanged.
func (p Policy) Settle(pending, now pricewatch.Change, observed bool) (pricewatch.MoveSettlement, pricewatch.Change) {
	switch {
	case now.Kind == pricewatch.PriceChanged && now.Old.Valid && now.New.Valid:
		if now.Currency != pending.Currency {
			// Nothing users were told about is in this currency.
			return pricewatch.MoveRejudged, now
		}
		if now.New.Decimal.Equal(pending.Old.Decimal) {
			return pricewatch.MoveReverted, now
		}
		now.Old = pending.Old
		return pricewatch.MoveRejudged, now
	case now.Kind == pricewatch.PriceGone || now.Kind == pricewatch.PriceChanged || now.Kind == pricewatch.PriceNew:
		// Closed, or moved to another currency.
		return pricewatch.MoveEnded, now
	case now.Kind == "" && observed:
		// The run lists the waiting price again.
		return pricewatch.MoveConfirmed, pending
	}
	// Not seen, or a change that is not of the offer's price.
	return pricewatch.MovePending, pending
}

// Withdraw reports whether a type missing from missedRuns complete runs in
// a row counts as withdrawn (its availability closes and alerts).
func (p Policy) Withdraw(missedRuns int) bool {
	return missedRuns >= max(p.withdrawAfter, 1)
}
