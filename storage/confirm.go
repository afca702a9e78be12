package storage

import (
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
)

// Large price moves wait one run before they alert. Which moves wait, and
// what becomes of a waiting move in a later run, is the alert policy's
// ruling (SaveOptions.Policy, package alerting's Policy); storage records
// every move at once, as always, and persists the rulings in the run's
// transaction: a waiting move lives in pending_moves until a ruling ends
// it, so a restart loses none.

// MovePolicy is the alert policy a save applies to the run's price moves
// and missing types (package alerting's Policy satisfies it). Its methods
// decide; storage only persists what they decide.
type MovePolicy interface {
	// Judge rules on a move from old to new (effective hourly prices in
	// one currency): alert now, or wait for the next complete run.
	Judge(old, new decimal.Decimal) pricewatch.MoveDecision
	// Settle rules on a move waiting from an earlier run (pending) given
	// the run's change of its offer (now; zero Kind when there is none)
	// and whether the run saw the offer's price; it returns the change
	// that carries the ruling.
	Settle(pending, now pricewatch.Change, observed bool) (pricewatch.MoveSettlement, pricewatch.Change)
	// Withdraw reports whether a type missing from missedRuns complete
	// runs in a row is withdrawn.
	Withdraw(missedRuns int) bool
}

// AlertChanges are the changes of the run that may alert now: the run's
// changes without the large moves still waiting and the reverts, plus the
// moves of earlier runs this run confirmed. Without a policy
// (SaveOptions.Policy nil) it is Changes.
func (r *Result) AlertChanges() []pricewatch.Change {
	if r.alertsSet {
		return r.alerts
	}
	return r.Changes
}

// pendingMove is a row of pending_moves: the waiting move as a change
// (Old the price users were last told about, New the one that waits).
type pendingMove struct {
	id   int64
	move pricewatch.Change
}

// priceMove reports whether c is a move from one price to another in one
// currency, the only change the policy judges.
func priceMove(c pricewatch.Change) bool {
	return c.Kind == pricewatch.PriceChanged && c.Old.Valid && c.New.Valid
}

// confirmMoves asks the policy about the run's price moves and the moves
// pending from earlier runs, sets the run's AlertChanges from its rulings,
// and updates pending_moves to match.
func (s *saver) confirmMoves(snap *pricewatch.Snapshot, policy MovePolicy, held map[pricewatch.OfferKey]bool) error {
	pending, err := s.loadPending(snap.Provider)
	if err != nil {
		return err
	}
	hadPending := len(pending) > 0
	alerts := make([]pricewatch.Change, 0, len(s.res.Changes))
	for _, c := range s.res.Changes {
		p, waiting := pending[c.Offer]
		if waiting {
			settled, move := policy.Settle(p.move, c, true)
			switch settled {
			case pricewatch.MoveReverted:
				delete(pending, c.Offer)
				s.res.Reverted = append(s.res.Reverted, move)
				if err := s.deletePending(p.id); err != nil {
					return err
				}
				continue
			case pricewatch.MoveEnded:
				delete(pending, c.Offer)
				if err := s.deletePending(p.id); err != nil {
					return err
				}
				alerts = append(alerts, move)
				continue
			case pricewatch.MoveRejudged:
				// Judged below; the row is replaced if it waits again.
				delete(pending, c.Offer)
				c = move
			default:
				// Not a ruling on this change: the wait is settled with the
				// run's unchanged offers below.
				waiting = false
			}
		}
		// A baseline run has no earlier price that users were told about.
		if priceMove(c) && !s.res.FirstRun && policy.Judge(c.Old.Decimal, c.New.Decimal) == pricewatch.MoveAwaits {
			s.res.Awaiting = append(s.res.Awaiting, c)
			if err := s.savePending(c); err != nil {
				return err
			}
			continue
		}
		if waiting {
			if err := s.deletePending(p.id); err != nil {
				return err
			}
		}
		alerts = append(alerts, c)
	}
	// What is still pending had no change this run: the same price, if the
	// run saw the offer at all.
	var seen map[pricewatch.OfferKey]bool
	if len(pending) > 0 {
		seen = make(map[pricewatch.OfferKey]bool, len(snap.Offers))
		for _, o := range snap.Offers {
			seen[o.Key()] = true
		}
	}
	for k, p := range pending {
		observed := !held[k] && (seen[k] || coveredOffer(snap.Unchanged, k.Region, k.PriceType))
		switch settled, move := policy.Settle(p.move, pricewatch.Change{}, observed); settled {
		case pricewatch.MovePending:
		case pricewatch.MoveConfirmed:
			s.res.Confirmed = append(s.res.Confirmed, move)
			alerts = append(alerts, move)
			if err := s.deletePending(p.id); err != nil {
				return err
			}
		default:
			return s.wrap(fmt.Errorf("pending move of %s: the alert policy ruled %v on a run with no change of the offer", k, settled))
		}
	}
	if !hadPending && len(s.res.Awaiting) == 0 {
		// Every change alerts as it is: AlertChanges is Changes.
		return nil
	}
	s.res.alerts, s.res.alertsSet = alerts, true
	return nil
}

func (s *saver) loadPending(provider string) (map[pricewatch.OfferKey]pendingMove, error) {
	rows, err := s.tx.QueryContext(s.ctx, `SELECT id, region, zone, instance_type, price_type, term, payment, offering_class, os,
		currency, old_price, new_price, gpu_model, gpu_count, at FROM pending_moves WHERE provider = ?`, provider)
	if err != nil {
		return nil, s.wrap(fmt.Errorf("reading pending moves: %w", err))
	}
	defer rows.Close()
	out := map[pricewatch.OfferKey]pendingMove{}
	for rows.Next() {
		var (
			p               pendingMove
			k               = pricewatch.OfferKey{Provider: provider}
			old, new, at    string
			currency, model string
			count           float64
		)
		if err := rows.Scan(&p.id, &k.Region, &k.Zone, &k.InstanceType, &k.PriceType, &k.Term, &k.Payment,
			&k.OfferingClass, &k.OS, &currency, &old, &new, &model, &count, &at); err != nil {
			return nil, s.wrap(err)
		}
		oldPrice, err := decimal.NewFromString(old)
		if err != nil {
			return nil, s.wrap(fmt.Errorf("pending move %d: %w", p.id, err))
		}
		newPrice, err := decimal.NewFromString(new)
		if err != nil {
			return nil, s.wrap(fmt.Errorf("pending move %d: %w", p.id, err))
		}
		when, err := parseTime(at)
		if err != nil {
			return nil, s.wrap(fmt.Errorf("pending move of %s: %w", k, err))
		}
		p.move = pricewatch.Change{
			Kind: pricewatch.PriceChanged, At: when, Offer: k, Currency: currency,
			Old: decimal.NewNullDecimal(oldPrice), New: decimal.NewNullDecimal(newPrice),
			Hardware: pricewatch.Hardware{GPUModel: model, GPUCount: count},
			Place:    pricewatch.AvailabilityKey{Provider: k.Provider, Region: k.Region, Zone: k.Zone, InstanceType: k.InstanceType},
		}
		out[k] = p
	}
	return out, rows.Err()
}

func (s *saver) savePending(c pricewatch.Change) error {
	k := c.Offer
	_, err := s.tx.ExecContext(s.ctx, `INSERT INTO pending_moves (provider, region, zone, instance_type, price_type, term, payment,
		offering_class, os, currency, old_price, new_price, gpu_model, gpu_count, run_id, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (provider, region, zone, instance_type, price_type, term, payment, offering_class, os) DO UPDATE SET
		currency = excluded.currency, old_price = excluded.old_price, new_price = excluded.new_price, gpu_model = excluded.gpu_model,
		gpu_count = excluded.gpu_count, run_id = excluded.run_id, at = excluded.at`,
		k.Provider, k.Region, k.Zone, k.InstanceType, string(k.PriceType), k.Term, k.Payment, k.OfferingClass, k.OS,
		c.Currency, c.Old.Decimal.String(), c.New.Decimal.String(), c.GPUModel, c.GPUCount, s.runID, formatTime(c.At))
	if err != nil {
		return s.wrap(fmt.Errorf("recording pending move of %s: %w", k, err))
	}
	return nil
}

func (s *saver) deletePending(id int64) error {
	if _, err := s.tx.ExecContext(s.ctx, `DELETE FROM pending_moves WHERE id = ?`, id); err != nil {
		return s.wrap(fmt.Errorf("ending pending move %d: %w", id, err))
	}
	return nil
}
