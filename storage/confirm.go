package storage

import (
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
)

// Large price moves wait one run before they alert (alerts.confirm_change_pct).
//
// A move of at least the threshold is stored at once, like every move, but
// its alert waits in pending_moves for the provider's next complete run:
//   - that run lists the same price: the move is confirmed and alerts in
//     that run's messages, with the old price users were last told about;
//   - the price goes back to what it was: the move is reverted and neither
//     it nor the move back ever alerts;
//   - the price moves on: the move is judged again from the price users
//     were last told about to the new one (waiting again if still large);
//   - the offer is closed: the wait ends without an alert.
// A run that does not cover the offer, or holds its price (package guard),
// leaves the wait as it is. Pending moves live in the database, so a
// restart loses none.

// AlertChanges are the changes of the run that may alert now: the run's
// changes without the large moves still waiting and the reverts, plus the
// moves of earlier runs this run confirmed. Without confirmation
// (SaveOptions.ConfirmChangePct 0 and nothing pending) it is Changes.
func (r *Result) AlertChanges() []pricewatch.Change {
	if r.alertsSet {
		return r.alerts
	}
	return r.Changes
}

type pendingMove struct {
	id       int64
	key      pricewatch.OfferKey
	currency string
	old, new decimal.Decimal
	gpuModel string
	gpuCount float64
	at       string
}

// isLarge reports whether a move from old to new is at least pct percent
// of old (decided exactly, by multiplying).
func isLarge(old, new decimal.Decimal, pct decimal.Decimal) bool {
	if !pct.IsPositive() || !old.IsPositive() {
		return false
	}
	return !new.Sub(old).Abs().Mul(decimal.NewFromInt(100)).LessThan(pct.Mul(old))
}

// confirmMoves sets the run's AlertChanges from its changes and the moves
// pending from earlier runs, and updates pending_moves.
func (s *saver) confirmMoves(snap *pricewatch.Snapshot, confirmPct float64, held map[pricewatch.OfferKey]bool) error {
	pct := decimal.NewFromFloat(confirmPct)
	pending, err := s.loadPending(snap.Provider)
	if err != nil {
		return err
	}
	if len(pending) == 0 && !pct.IsPositive() {
		return nil
	}
	alerts := make([]pricewatch.Change, 0, len(s.res.Changes))
	for _, c := range s.res.Changes {
		p, waiting := pending[c.Offer]
		switch {
		case c.Kind == pricewatch.PriceChanged && c.Old.Valid && c.New.Valid:
			if waiting {
				delete(pending, c.Offer)
				if p.currency == c.Currency && c.New.Decimal.Equal(p.old) {
					s.res.Reverted = append(s.res.Reverted, c)
					if err := s.deletePending(p.id); err != nil {
						return err
					}
					continue
				}
				if p.currency == c.Currency {
					c.Old = decimal.NewNullDecimal(p.old)
				}
			}
			if !s.res.FirstRun && isLarge(c.Old.Decimal, c.New.Decimal, pct) {
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
		case waiting && (c.Kind == pricewatch.PriceGone || c.Kind == pricewatch.PriceChanged || c.Kind == pricewatch.PriceNew):
			// Closed, or moved to another currency: the wait ends.
			delete(pending, c.Offer)
			if err := s.deletePending(p.id); err != nil {
				return err
			}
		}
		alerts = append(alerts, c)
	}
	// What is still pending had no change this run: the same price, if the
	// run listed the offer (or left its scope unchanged).
	seen := make(map[pricewatch.OfferKey]bool, len(snap.Offers))
	for _, o := range snap.Offers {
		seen[o.Key()] = true
	}
	for k, p := range pending {
		if held[k] || !(seen[k] || coveredOffer(snap.Unchanged, k.Region, k.PriceType)) {
			continue
		}
		at, err := parseTime(p.at)
		if err != nil {
			return fmt.Errorf("pending move of %s: %w", k, err)
		}
		c := pricewatch.Change{
			Kind: pricewatch.PriceChanged, At: at, Offer: k, Currency: p.currency,
			Old: decimal.NewNullDecimal(p.old), New: decimal.NewNullDecimal(p.new),
			Hardware: pricewatch.Hardware{GPUModel: p.gpuModel, GPUCount: p.gpuCount},
			Place:    pricewatch.AvailabilityKey{Provider: k.Provider, Region: k.Region, Zone: k.Zone, InstanceType: k.InstanceType},
		}
		s.res.Confirmed = append(s.res.Confirmed, c)
		alerts = append(alerts, c)
		if err := s.deletePending(p.id); err != nil {
			return err
		}
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
		p := pendingMove{key: pricewatch.OfferKey{Provider: provider}}
		var old, new string
		if err := rows.Scan(&p.id, &p.key.Region, &p.key.Zone, &p.key.InstanceType, &p.key.PriceType, &p.key.Term, &p.key.Payment,
			&p.key.OfferingClass, &p.key.OS, &p.currency, &old, &new, &p.gpuModel, &p.gpuCount, &p.at); err != nil {
			return nil, s.wrap(err)
		}
		if p.old, err = decimal.NewFromString(old); err != nil {
			return nil, s.wrap(fmt.Errorf("pending move %d: %w", p.id, err))
		}
		if p.new, err = decimal.NewFromString(new); err != nil {
			return nil, s.wrap(fmt.Errorf("pending move %d: %w", p.id, err))
		}
		out[p.key] = p
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
