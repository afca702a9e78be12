package storage

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
)

// HeldPrice is a price of a run that the guard (package guard) judged
// implausible. Unless Accepted, SaveSnapshot does not store it: the
// offer's stored price stays current (not closed, not "gone"), no change is
// recorded and nothing alerts; the hold itself is recorded in held_prices
// and counted in the run record.
type HeldPrice struct {
	Offer pricewatch.Offer
	// Reason is a short code (HeldBelowFloor, HeldFractionOfPrice); Detail
	// says it for people, with the figures compared.
	Reason string
	Detail string
	// Stored is the offer's stored effective price the held one would
	// have replaced (invalid when the offer is new).
	Stored decimal.NullDecimal
	// Accepted: the price came back in enough consecutive complete runs
	// (guard.accept_after_runs); it is stored now and its hold closed.
	Accepted bool
}

// Reasons a price is held.
const (
	HeldBelowFloor      = "below_floor"
	HeldFractionOfPrice = "fraction_of_price"
	// HeldBelowOnDemand: a commitment priced below a plausible fraction of
	// the same offer's on-demand price (guard.commitment_min_fraction).
	HeldBelowOnDemand = "below_on_demand_fraction"
)

// HeldStreak is how often in a row a held price has come back.
type HeldStreak struct {
	Currency string
	Hourly   decimal.Decimal
	Upfront  decimal.Decimal
	// Runs is the number of consecutive complete runs, up to the
	// provider's last one, that held this price.
	Runs int
}

// Same reports whether o sells at the streak's price.
func (h HeldStreak) Same(o pricewatch.Offer) bool {
	return h.Currency == o.Currency && h.Hourly.Equal(o.Hourly) && h.Upfront.Equal(o.Upfront)
}

// HeldStreaks returns, per offer of provider, the held price whose streak
// reaches the provider's last complete run (a hold followed by a complete
// run that did not hold it again has no streak any more).
func (db *DB) HeldStreaks(ctx context.Context, provider string) (map[pricewatch.OfferKey]HeldStreak, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT region, zone, instance_type, price_type, term, payment, offering_class, os,
		currency, hourly, upfront, runs FROM held_prices
		WHERE provider = ? AND accepted_at IS NULL
		AND last_run_id = (SELECT MAX(id) FROM fetch_runs WHERE provider = ? AND status = 'ok')`, provider, provider)
	if err != nil {
		return nil, fmt.Errorf("reading held prices of %s: %w", provider, err)
	}
	defer rows.Close()
	out := map[pricewatch.OfferKey]HeldStreak{}
	for rows.Next() {
		k := pricewatch.OfferKey{Provider: provider}
		var h HeldStreak
		var hourly, upfront string
		if err := rows.Scan(&k.Region, &k.Zone, &k.InstanceType, &k.PriceType, &k.Term, &k.Payment, &k.OfferingClass, &k.OS,
			&h.Currency, &hourly, &upfront, &h.Runs); err != nil {
			return nil, fmt.Errorf("reading held prices of %s: %w", provider, err)
		}
		if h.Hourly, err = decimal.NewFromString(hourly); err != nil {
			return nil, fmt.Errorf("held price of %s: %w", k, err)
		}
		if h.Upfront, err = decimal.NewFromString(upfront); err != nil {
			return nil, fmt.Errorf("held price of %s: %w", k, err)
		}
		out[k] = h
	}
	return out, rows.Err()
}

// heldKeys indexes the holds SaveSnapshot must not store.
func heldKeys(held []HeldPrice) map[pricewatch.OfferKey]bool {
	out := map[pricewatch.OfferKey]bool{}
	for _, h := range held {
		if !h.Accepted {
			out[h.Offer.Key()] = true
		}
	}
	return out
}

// recordHeld writes the run's holds (a hold that continues a streak
// extends its row) and counts them in the result and the run record.
func (s *saver) recordHeld(snap *pricewatch.Snapshot, held []HeldPrice) error {
	var prevOK sql.NullInt64
	if err := s.tx.QueryRowContext(s.ctx, `SELECT MAX(id) FROM fetch_runs WHERE provider = ? AND status = 'ok' AND id < ?`,
		s.res.Provider, s.runID).Scan(&prevOK); err != nil {
		return err
	}
	if err := s.extendUnchangedHolds(snap, prevOK); err != nil {
		return err
	}
	if len(held) == 0 {
		return nil
	}
	for _, h := range held {
		o, k := h.Offer, h.Offer.Key()
		eff, err := o.EffectiveHourly()
		if err != nil {
			return fmt.Errorf("held offer %s: %w", k, err)
		}
		var accepted any
		if h.Accepted {
			accepted = s.ts
			s.res.Accepted++
		} else {
			s.res.Held++
			if s.res.HeldReasons == nil {
				s.res.HeldReasons = map[string]int{}
			}
			s.res.HeldReasons[h.Reason]++
		}
		var stored any
		if h.Stored.Valid {
			stored = h.Stored.Decimal.String()
		}
		var id int64
		err = s.tx.QueryRowContext(s.ctx, `SELECT id FROM held_prices WHERE provider = ? AND region = ? AND zone = ? AND instance_type = ?
			AND price_type = ? AND term = ? AND payment = ? AND offering_class = ? AND os = ? AND currency = ? AND hourly = ? AND upfront = ?
			AND accepted_at IS NULL AND last_run_id = ?`,
			k.Provider, k.Region, k.Zone, k.InstanceType, string(k.PriceType), k.Term, k.Payment, k.OfferingClass, k.OS,
			o.Currency, o.Hourly.String(), o.Upfront.String(), prevOK).Scan(&id)
		switch {
		case err == sql.ErrNoRows:
			_, err = s.tx.ExecContext(s.ctx, `INSERT INTO held_prices (provider, region, zone, instance_type, price_type, term, payment,
				offering_class, os, gpu_model, gpu_count, currency, hourly, upfront, effective_hourly, stored_effective, reason, detail,
				first_seen, last_seen, first_run_id, last_run_id, runs, accepted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)`,
				k.Provider, k.Region, k.Zone, k.InstanceType, string(k.PriceType), k.Term, k.Payment, k.OfferingClass, k.OS,
				o.GPUModel, o.GPUCount, o.Currency, o.Hourly.String(), o.Upfront.String(), eff.String(), stored, h.Reason, h.Detail,
				s.ts, s.ts, s.runID, s.runID, accepted)
		case err == nil:
			_, err = s.tx.ExecContext(s.ctx, `UPDATE held_prices SET last_seen = ?, last_run_id = ?, runs = runs + 1, reason = ?, detail = ?,
				stored_effective = ?, accepted_at = ? WHERE id = ?`, s.ts, s.runID, h.Reason, h.Detail, stored, accepted, id)
		}
		if err != nil {
			return fmt.Errorf("recording held price of %s: %w", k, err)
		}
	}
	_, err := s.tx.ExecContext(s.ctx, `UPDATE fetch_runs SET offers_held = ? WHERE id = ?`, s.res.Held, s.runID)
	return err
}

// extendUnchangedHolds carries the streak of a hold whose scope this run
// left unchanged (an AWS price file whose version did not move): the cloud
// still lists the same price there, so it counts as coming back.
func (s *saver) extendUnchangedHolds(snap *pricewatch.Snapshot, prevOK sql.NullInt64) error {
	if len(snap.Unchanged) == 0 || !prevOK.Valid {
		return nil
	}
	rows, err := s.tx.QueryContext(s.ctx, `SELECT id, region, price_type FROM held_prices
		WHERE provider = ? AND accepted_at IS NULL AND last_run_id = ?`, s.res.Provider, prevOK.Int64)
	if err != nil {
		return err
	}
	var ids []int64
	for rows.Next() {
		var id int64
		var region string
		var pt pricewatch.PriceType
		if err := rows.Scan(&id, &region, &pt); err != nil {
			rows.Close()
			return err
		}
		if coveredOffer(snap.Unchanged, region, pt) && !coveredOffer(snap.Coverage, region, pt) {
			ids = append(ids, id)
		}
	}
	if err := rows.Close(); err != nil {
		return err
	}
	for _, id := range ids {
		if _, err := s.tx.ExecContext(s.ctx, `UPDATE held_prices SET last_seen = ?, last_run_id = ?, runs = runs + 1 WHERE id = ?`, s.ts, s.runID, id); err != nil {
			return fmt.Errorf("extending held price %d: %w", id, err)
		}
	}
	return nil
}

// HeldRecord is one row of held_prices, for `pricewatch held`.
type HeldRecord struct {
	pricewatch.Offer
	EffectiveHourly decimal.Decimal
	Stored          decimal.NullDecimal
	Reason, Detail  string
	FirstSeen       time.Time
	LastSeen        time.Time
	FirstRunID      int64
	LastRunID       int64
	Runs            int
	AcceptedAt      *time.Time
}

// HeldFilter selects held prices; empty fields match everything.
type HeldFilter struct {
	Providers []string
	// Since keeps holds last seen at or after this time.
	Since time.Time
}

// HeldPrices lists the holds matching f, newest first.
func (db *DB) HeldPrices(ctx context.Context, f HeldFilter) ([]HeldRecord, error) {
	var where []string
	var args []any
	where, args = inList(where, args, "provider", f.Providers)
	if !f.Since.IsZero() {
		where = append(where, "last_seen >= ?")
		args = append(args, formatTime(f.Since))
	}
	q := `SELECT provider, region, zone, instance_type, price_type, term, payment, offering_class, os, gpu_model, gpu_count,
		currency, hourly, upfront, effective_hourly, stored_effective, reason, detail, first_seen, last_seen, first_run_id, last_run_id,
		runs, accepted_at FROM held_prices`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	return queryAll(ctx, db.read, "reading held prices", q+" ORDER BY last_seen DESC, id DESC", args, func(rows *sql.Rows) (HeldRecord, error) {
		var r HeldRecord
		var hourly, upfront, eff, first, last string
		var stored, accepted sql.NullString
		if err := rows.Scan(&r.Provider, &r.Region, &r.Zone, &r.InstanceType, &r.PriceType, &r.Term, &r.Payment, &r.OfferingClass, &r.OS,
			&r.GPUModel, &r.GPUCount, &r.Currency, &hourly, &upfront, &eff, &stored, &r.Reason, &r.Detail, &first, &last,
			&r.FirstRunID, &r.LastRunID, &r.Runs, &accepted); err != nil {
			return r, fmt.Errorf("reading held prices: %w", err)
		}
		for _, p := range []struct {
			dst *decimal.Decimal
			s   string
		}{{&r.Hourly, hourly}, {&r.Upfront, upfront}, {&r.EffectiveHourly, eff}} {
			var err error
			if *p.dst, err = decimal.NewFromString(p.s); err != nil {
				return r, fmt.Errorf("held price of %s: %w", r.Key(), err)
			}
		}
		if stored.Valid {
			d, err := decimal.NewFromString(stored.String)
			if err != nil {
				return r, fmt.Errorf("held price of %s: %w", r.Key(), err)
			}
			r.Stored = decimal.NewNullDecimal(d)
		}
		return r, parseTimes(timeAt(first, &r.FirstSeen), timeAt(last, &r.LastSeen), nullTimeAt(accepted, &r.AcceptedAt))
	})
}

// HeldReasonsText renders a run's hold counts for its summary line, e.g.
// "2 below the floor per GPU-hour, 1 a thousandth of comparable prices".
func HeldReasonsText(reasons map[string]int) string {
	keys := make([]string, 0, len(reasons))
	for k := range reasons {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		what := k
		switch k {
		case HeldBelowFloor:
			what = "below the floor per GPU-hour"
		case HeldFractionOfPrice:
			what = "a tiny fraction of comparable prices"
		case HeldBelowOnDemand:
			what = "commitments far below on-demand"
		}
		parts = append(parts, fmt.Sprintf("%d %s", reasons[k], what))
	}
	return strings.Join(parts, ", ")
}
