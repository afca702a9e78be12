package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
)

// The daily summary (table price_days, issue 30 item 3): per offer and UTC
// day on which one of its intervals began or ended, the effective hourly
// price at the day's start (open), the lowest during it (low) and the one
// at its end (close). A chart of a year reads at most one row per offer
// and day, however often a cloud is fetched and however often a spot
// price moves; a day without a row has the previous row's close all day.
//
// It is kept in the run's transaction (SaveSnapshot: a run changes prices
// at one moment, so only that day's rows of the offers it changed move),
// rebuilt for the offers maintenance thins, and filled from the intervals
// by the migration that made it (migrationHooks).

// PriceDay is one row of the daily summary.
type PriceDay struct {
	OfferID int64
	// Day is the UTC date, "2006-01-02".
	Day      string
	Currency string
	// Open, Low and Close are the effective hourly prices in force at the
	// day's start, lowest during it and in force at its end; invalid when
	// no interval was in force then.
	Open, Low, Close decimal.NullDecimal
	// Changes is how many of the offer's intervals began that day.
	Changes int
}

// dayRow is a PriceDay as stored: the prices' decimal texts ("" for none).
type dayRow struct {
	offerID          int64
	day, currency    string
	open, low, close string
	changes          int
	lowValue         decimal.Decimal // low as a number, once lowSet
	lowSet           bool
}

// dayInterval is what the summary needs of one interval: stored texts,
// to "" while current.
type dayInterval struct {
	currency, eff, from, to string
}

const dayLen = len("2006-01-02")

// dayStart is the stored text of a day's first moment.
func dayStart(day string) string { return day + "T00:00:00.000000Z" }

// summarizeDays is the summary of one offer's intervals, ordered by start
// (stored intervals of an offer never overlap, so their ends are ordered
// too), keeping the days keep accepts (nil: every day).
func summarizeDays(offerID int64, ivs []dayInterval, keep func(day string) bool) ([]dayRow, error) {
	var days []string
	for _, iv := range ivs {
		days = append(days, iv.from[:dayLen])
		if iv.to != "" {
			days = append(days, iv.to[:dayLen])
		}
	}
	slices.Sort(days)
	days = slices.Compact(days)
	var out []dayRow
	first, begun := 0, 0 // the first interval not ended by the day's start; past the newest begun by its end
	for _, d := range days {
		if keep != nil && !keep(d) {
			continue
		}
		start := dayStart(d)
		for first < len(ivs) && ivs[first].to != "" && ivs[first].to <= start {
			first++
		}
		for begun < len(ivs) && ivs[begun].from[:dayLen] <= d {
			begun++
		}
		r := dayRow{offerID: offerID, day: d}
		if begun > 0 {
			r.currency = ivs[begun-1].currency
		}
		for _, iv := range ivs[first:begun] {
			eff, err := decimal.NewFromString(iv.eff)
			if err != nil {
				return nil, fmt.Errorf("summarising offer %d on %s: %w", offerID, d, err)
			}
			if iv.from <= start {
				r.open = iv.eff
			}
			if !r.lowSet || eff.LessThan(r.lowValue) {
				r.low, r.lowValue, r.lowSet = iv.eff, eff, true
			}
			if iv.to == "" || iv.to[:dayLen] > d {
				r.close = iv.eff
			}
			if iv.from[:dayLen] == d {
				r.changes++
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// nullText is a stored price text, NULL for "".
func nullText(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// writeDays upserts rows, a few hundred a statement.
func writeDays(ctx context.Context, tx *sql.Tx, rows []dayRow) error {
	const batch = 500 // 3,500 parameters: under either backend's limit
	for len(rows) > 0 {
		n := min(batch, len(rows))
		var q strings.Builder
		q.WriteString(`INSERT INTO price_days (offer_id, day, currency, open, low, close, changes) VALUES `)
		args := make([]any, 0, 7*n)
		for i, r := range rows[:n] {
			if i > 0 {
				q.WriteString(", ")
			}
			q.WriteString("(?, ?, ?, ?, ?, ?, ?)")
			args = append(args, r.offerID, r.day, r.currency, nullText(r.open), nullText(r.low), nullText(r.close), r.changes)
		}
		q.WriteString(` ON CONFLICT (offer_id, day) DO UPDATE SET currency = excluded.currency, open = excluded.open, low = excluded.low,
			close = excluded.close, changes = excluded.changes`)
		if _, err := tx.ExecContext(ctx, q.String(), args...); err != nil {
			return fmt.Errorf("writing the daily price summary: %w", err)
		}
		rows = rows[n:]
	}
	return nil
}

// eachOfferIntervals reads intervals (columns offer_id, currency,
// effective_hourly, valid_from, valid_to, ordered by offer and start) and
// hands fn each offer's together.
func eachOfferIntervals(ctx context.Context, q queryer, query string, args []any, fn func(offerID int64, ivs []dayInterval) error) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("reading prices to summarise: %w", err)
	}
	defer rows.Close()
	var ivs []dayInterval
	offer := int64(-1)
	for rows.Next() {
		var id int64
		var iv dayInterval
		var to sql.NullString
		if err := rows.Scan(&id, &iv.currency, &iv.eff, &iv.from, &to); err != nil {
			return fmt.Errorf("reading prices to summarise: %w", err)
		}
		iv.to = to.String
		if id != offer && len(ivs) > 0 {
			if err := fn(offer, ivs); err != nil {
				return err
			}
			ivs = ivs[:0]
		}
		offer = id
		ivs = append(ivs, iv)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("reading prices to summarise: %w", err)
	}
	if len(ivs) > 0 {
		return fn(offer, ivs)
	}
	return nil
}

// rebuildDays replaces the summary of the offers given (nil: every offer)
// with one computed from their intervals, in tx.
func rebuildDays(ctx context.Context, tx *sql.Tx, offerIDs []int64) error {
	cond, args := "", []any(nil)
	if offerIDs != nil {
		if len(offerIDs) == 0 {
			return nil
		}
		ids, _ := json.Marshal(offerIDs) // []int64 always marshals
		cond, args = ` WHERE offer_id IN (SELECT value FROM json_each(?))`, []any{string(ids)}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM price_days`+cond, args...); err != nil {
		return fmt.Errorf("clearing the daily price summary: %w", err)
	}
	// Collected first: a connection streams one result at a time.
	var all []dayRow
	err := eachOfferIntervals(ctx, tx, `SELECT offer_id, currency, effective_hourly, valid_from, valid_to FROM prices`+cond+` ORDER BY offer_id, valid_from`, args,
		func(offerID int64, ivs []dayInterval) error {
			rows, err := summarizeDays(offerID, ivs, nil)
			all = append(all, rows...)
			return err
		})
	if err != nil {
		return err
	}
	return writeDays(ctx, tx, all)
}

// backfillDays is the daily summary's migration step: every offer's.
func backfillDays(ctx context.Context, tx *sql.Tx) error { return rebuildDays(ctx, tx, nil) }

// migrationHooks are Go steps of migrations, run in the migration's
// transaction after its SQL, by the file name after the number (numbers
// change at merges); the same on both backends.
var migrationHooks = map[string]func(context.Context, *sql.Tx) error{
	"price_days.sql": backfillDays,
}

// runMigrationHook runs the hook of migration name, if it has one.
func runMigrationHook(ctx context.Context, tx *sql.Tx, name string) error {
	_, rest, _ := strings.Cut(name[strings.LastIndex(name, "/")+1:], "_")
	if hook := migrationHooks[rest]; hook != nil {
		return hook(ctx, tx)
	}
	return nil
}

// summarizeRun updates, in a run's transaction, the rows of the run's day
// of the offers whose prices it opened or closed (all at the run's time
// ts: no other day's row of theirs changes).
func summarizeRun(ctx context.Context, tx *sql.Tx, ts string, offerIDs []int64) error {
	if len(offerIDs) == 0 {
		return nil
	}
	day := ts[:dayLen]
	ids, _ := json.Marshal(offerIDs) // []int64 always marshals
	// The intervals in force during the day: closed ones ended after its
	// start (through prices_offer_to) and current ones.
	q := `SELECT * FROM (SELECT offer_id, currency, effective_hourly, valid_from, valid_to FROM prices INDEXED BY prices_offer_to
			WHERE offer_id IN (SELECT value FROM json_each(?)) AND valid_to IS NOT NULL AND valid_to > ?
		UNION ALL SELECT offer_id, currency, effective_hourly, valid_from, valid_to FROM prices
			WHERE offer_id IN (SELECT value FROM json_each(?)) AND valid_to IS NULL) m ORDER BY offer_id, valid_from`
	var all []dayRow
	err := eachOfferIntervals(ctx, tx, q, []any{string(ids), dayStart(day), string(ids)}, func(offerID int64, ivs []dayInterval) error {
		rows, err := summarizeDays(offerID, ivs, func(d string) bool { return d == day })
		all = append(all, rows...)
		return err
	})
	if err != nil {
		return err
	}
	return writeDays(ctx, tx, all)
}

// PriceDays returns the daily summary of the offers f selects (its offer
// conditions only), ordered by offer id and day: what the charts read, and
// what a test compares with the intervals.
func (db *DB) PriceDays(ctx context.Context, f PriceFilter) ([]PriceDay, error) {
	var out []PriceDay
	where, args := offerConditions(f)
	q := `SELECT d.offer_id, d.day, d.currency, d.open, d.low, d.close, d.changes FROM price_days d JOIN offers o ON o.id = d.offer_id`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	err := db.eachDay(ctx, q+` ORDER BY d.offer_id, d.day`, args, func(r *PriceDay) error {
		out = append(out, *r)
		return nil
	})
	return out, err
}

// eachDay runs a query of the seven price_days columns and hands fn each
// row decoded (fn must not keep it).
func (db *DB) eachDay(ctx context.Context, q string, args []any, fn func(*PriceDay) error) error {
	rows, err := db.read.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("reading the daily price summary: %w", err)
	}
	defer rows.Close()
	var d PriceDay
	for rows.Next() {
		var open, low, close sql.NullString
		if err := rows.Scan(&d.OfferID, &d.Day, &d.Currency, &open, &low, &close, &d.Changes); err != nil {
			return fmt.Errorf("reading the daily price summary: %w", err)
		}
		for _, v := range []struct {
			text sql.NullString
			to   *decimal.NullDecimal
		}{{open, &d.Open}, {low, &d.Low}, {close, &d.Close}} {
			*v.to = decimal.NullDecimal{}
			if v.text.Valid {
				x, err := decimal.NewFromString(v.text.String)
				if err != nil {
					return fmt.Errorf("reading the daily price summary of offer %d on %s: %w", d.OfferID, d.Day, err)
				}
				*v.to = decimal.NewNullDecimal(x)
			}
		}
		if err := fn(&d); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("reading the daily price summary: %w", err)
	}
	return nil
}

// ChartRecentDays is how many whole days before the day of a chart's end
// a chart reads as stored intervals (every change point) rather than from
// the daily summary.
const ChartRecentDays = 2

// ChartCut is where a chart ending at "to" switches from the daily
// summary to the stored intervals: the start of the UTC day ChartRecentDays
// before to's.
func ChartCut(to time.Time) time.Time {
	y, m, d := to.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -ChartRecentDays)
}

// EachChartPrice hands fn the prices of a chart of the offers f selects
// from f.Since to "to", at bounded cost: before ChartCut(to) from the daily
// summary, as at most two intervals per offer and day with a change (from
// the day's start its low, from the next day's start its close, until the
// next such day), and from the cut on the stored intervals, the one in
// force at the cut starting there. Only the identity, currency, effective
// rate and validity are set (ID is 0 on the summary's). Offers come in no
// particular order, an offer's intervals in time order within each part;
// fn must not keep p.
func (db *DB) EachChartPrice(ctx context.Context, f PriceFilter, to time.Time, fn func(p *PriceInterval) error) error {
	if (f.GPUModels != nil && len(f.GPUModels) == 0) || (f.OfferIDs != nil && len(f.OfferIDs) == 0) {
		return nil
	}
	cut := ChartCut(to)
	where, args := offerConditions(f)
	if f.Since.Before(cut) {
		offers, err := db.matchingOffers(ctx, where, args)
		if err != nil {
			return err
		}
		if err := db.eachSummaryInterval(ctx, f, where, args, offers, cut, fn); err != nil {
			return err
		}
	}
	recent := f
	recent.Since, recent.ByOffer, recent.EffectiveOnly = later(f.Since, cut), true, true
	recent.At, recent.CurrentOnly, recent.Limit, recent.Samples = nil, false, 0, nil
	return db.EachPrice(ctx, recent, func(p *PriceInterval) error {
		if p.ValidTo != nil && !p.ValidTo.After(recent.Since) {
			return nil // ended at the cut: the summary's
		}
		if p.ValidFrom.Before(recent.Since) {
			p.ValidFrom = recent.Since
		}
		return fn(p)
	})
}

// eachSummaryInterval is EachChartPrice's part before cut: each offer's
// summary rows of the days from f.Since's to cut's, and its last row
// before (the price in force when the chart begins).
func (db *DB) eachSummaryInterval(ctx context.Context, f PriceFilter, where []string, args []any, offers map[int64]*pricewatch.Offer, cut time.Time, fn func(p *PriceInterval) error) error {
	first := formatTime(f.Since)[:dayLen]
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	// The days in range, and each offer's last day before (one seek each).
	cols := `SELECT d.offer_id, d.day, d.currency, d.open, d.low, d.close, d.changes FROM offers o JOIN price_days d ON d.offer_id = o.id`
	q := cols + ` AND d.day >= ? AND d.day < ?` + cond + ` UNION ALL ` +
		cols + ` AND d.day = (SELECT MAX(b.day) FROM price_days b WHERE b.offer_id = o.id AND b.day < ?)` + cond + ` ORDER BY offer_id, day`
	qargs := append([]any{first, formatTime(cut)[:dayLen]}, args...)
	qargs = append(append(qargs, first), args...)
	var p PriceInterval
	// A row's close lasts until the next row's day: each row is handed
	// out when the next one (or the offer's end) is read.
	var prev *PriceDay
	var prevRow PriceDay
	emit := func(from, until time.Time, currency string, eff decimal.NullDecimal, id int64) error {
		if !eff.Valid || !from.Before(until) {
			return nil
		}
		o := offers[id]
		if o == nil {
			return nil // stored after the offers were read
		}
		end := until
		p = PriceInterval{OfferID: id, Offer: *o, Identity: o, EffectiveHourly: eff.Decimal, ValidFrom: from, ValidTo: &end}
		p.Currency = currency
		return fn(&p)
	}
	flush := func(until time.Time) error {
		if prev == nil {
			return nil
		}
		day, err := time.Parse(time.DateOnly, prev.Day)
		if err != nil {
			return fmt.Errorf("reading the daily price summary of offer %d: %w", prev.OfferID, err)
		}
		next := day.AddDate(0, 0, 1)
		if prev.Low.Valid && prev.Close.Valid && prev.Low.Decimal.Equal(prev.Close.Decimal) {
			return emit(day, until, prev.Currency, prev.Close, prev.OfferID)
		}
		if err := emit(day, next, prev.Currency, prev.Low, prev.OfferID); err != nil {
			return err
		}
		return emit(next, until, prev.Currency, prev.Close, prev.OfferID)
	}
	err := db.eachDay(ctx, q, qargs, func(r *PriceDay) error {
		if prev != nil {
			until := cut
			if prev.OfferID == r.OfferID {
				if t, err := time.Parse(time.DateOnly, r.Day); err == nil {
					until = t
				}
			}
			if err := flush(until); err != nil {
				return err
			}
		}
		prevRow = *r
		prev = &prevRow
		return nil
	})
	if err != nil {
		return err
	}
	return flush(cut)
}
