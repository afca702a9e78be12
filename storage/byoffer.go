package storage

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pricewatch/pricewatch"
)

// priceCursor is one query of price rows ordered by offer id, read a row
// ahead so that two of them can be merged.
type priceCursor struct {
	rows                                           *sql.Rows
	ok                                             bool
	id                                             int64
	offerID                                        int64
	currency, hourly, upfront, eff, from, lastSeen sql.RawBytes
	to                                             sql.NullString
	// grouped: each row is an offer id and its intervals joined into one
	// text (groupedCols), handed out one interval at a time; rest is what
	// is left of the row's text.
	grouped   bool
	joined    sql.RawBytes
	rest      []byte
	fieldsBuf [5][]byte
}

// The separators of a grouped row: ASCII's record and unit separators.
const (
	recordSep = 0x1e
	unitSep   = 0x1f
)

// groupedCols joins, per offer (GROUP BY o.id), the id, currency,
// effective rate, start and end of its closed intervals in end order: one
// row per offer crosses from SQLite into Go instead of one per interval
// (a trends window holds ~26 intervals an offer), which leaves the
// driver's per-row and per-column work (a lock and a Go copy each) out.
//
// Each interval is its id, effective rate, start, end and the currency's
// length in bytes, each ended by a unit separator, then the currency: the
// first five are written by pricewatch (digits, a decimal, fixed-width
// times) and never hold a separator; the currency (a code, checked when
// saved) is read by its length all the same, so that no byte of a row
// edited by hand can be taken for a separator.
const groupedCols = `SELECT o.id, group_concat(p.id || char(31) || p.effective_hourly || char(31) || p.valid_from || char(31) || p.valid_to || char(31) ||
	length(CAST(p.currency AS BLOB)) || char(31) || p.currency, char(30) ORDER BY p.valid_to)`

// offerLookup is a price row's offer identity by offer id, and false for
// an offer the read does not hold (stored after its offers were read).
type offerLookup func(id int64) (*pricewatch.Offer, bool, error)

// lookupIn looks offers up in a map read beforehand (matchingOffers); nil
// stays nil (PricesOnly).
func lookupIn(offers map[int64]*pricewatch.Offer) offerLookup {
	if offers == nil {
		return nil
	}
	return func(id int64) (*pricewatch.Offer, bool, error) {
		o, ok := offers[id]
		return o, ok, nil
	}
}

// priceEmitter decodes cursor rows into one reused PriceInterval for fn.
type priceEmitter struct {
	p PriceInterval
	// offers is nil for PricesOnly.
	offers        offerLookup
	seen          seenIndex
	effectiveOnly bool
	fn            func(*PriceInterval) error
	// A few currencies recur in every row: one copy of each.
	currencies map[string]string
}

func newPriceEmitter(offers offerLookup, seen seenIndex, effectiveOnly bool, fn func(*PriceInterval) error) *priceEmitter {
	return &priceEmitter{offers: offers, seen: seen, effectiveOnly: effectiveOnly, fn: fn, currencies: map[string]string{}}
}

// emit hands c's current row to fn, unless its offer was stored after the
// offers were read.
func (e *priceEmitter) emit(c *priceCursor) error {
	p := &e.p
	if e.offers == nil {
		// PricesOnly: the caller knows its offers.
		p.ID, p.OfferID, p.Offer, p.Identity = c.id, c.offerID, pricewatch.Offer{}, nil
	} else {
		o, ok, err := e.offers(c.offerID)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		p.ID, p.OfferID, p.Offer, p.Identity = c.id, c.offerID, *o, o
	}
	cur, ok := e.currencies[string(c.currency)]
	if !ok {
		cur = string(c.currency)
		e.currencies[cur] = cur
	}
	p.Currency = cur
	if err := p.decode(e.effectiveOnly, c.hourly, c.upfront, c.eff, c.from, c.to, c.lastSeen, e.seen); err != nil {
		return err
	}
	return e.fn(p)
}

func (db *DB) openCursor(ctx context.Context, q string, args []any) (*priceCursor, error) {
	return openCursorOn(ctx, db.read, q, args)
}

// openCursorOn opens the cursor on one connection (or the pool). On an
// error nothing is left open: a connection's Close waits for its rows.
func openCursorOn(ctx context.Context, on queryer, q string, args []any) (*priceCursor, error) {
	rows, err := on.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("reading price history: %w", err)
	}
	c := &priceCursor{rows: rows}
	if err := c.next(); err != nil {
		rows.Close()
		return nil, err
	}
	return c, nil
}

// openGroupedCursor is openCursorOn for a query of groupedCols.
func openGroupedCursor(ctx context.Context, on queryer, q string, args []any) (*priceCursor, error) {
	rows, err := on.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("reading price history: %w", err)
	}
	c := &priceCursor{rows: rows, grouped: true}
	if err := c.next(); err != nil {
		rows.Close()
		return nil, err
	}
	return c, nil
}

// next reads the following row; ok is false once the rows are done.
func (c *priceCursor) next() error {
	if c.grouped {
		return c.nextGrouped()
	}
	if c.ok = c.rows.Next(); !c.ok {
		if err := c.rows.Err(); err != nil {
			return fmt.Errorf("reading price history: %w", err)
		}
		return nil
	}
	if err := c.rows.Scan(&c.id, &c.offerID, &c.currency, &c.hourly, &c.upfront, &c.eff, &c.from, &c.to, &c.lastSeen); err != nil {
		return fmt.Errorf("reading price history: %w", err)
	}
	return nil
}

// nextGrouped hands out the next interval of a grouped row, reading the
// next row when this one's are done.
func (c *priceCursor) nextGrouped() error {
	for len(c.rest) == 0 {
		if c.ok = c.rows.Next(); !c.ok {
			if err := c.rows.Err(); err != nil {
				return fmt.Errorf("reading price history: %w", err)
			}
			return nil
		}
		if err := c.rows.Scan(&c.offerID, &c.joined); err != nil {
			return fmt.Errorf("reading price history: %w", err)
		}
		c.rest = c.joined
	}
	rec := c.rest
	f := c.fieldsBuf[:0]
	for range 5 {
		i := bytes.IndexByte(rec, unitSep)
		if i < 0 {
			return fmt.Errorf("reading price history: offer %d: a malformed interval %.120q", c.offerID, c.rest)
		}
		f, rec = append(f, rec[:i]), rec[i+1:]
	}
	n, err := strconv.Atoi(string(f[4]))
	if err != nil || n < 0 || n > len(rec) || (n < len(rec) && rec[n] != recordSep) {
		return fmt.Errorf("reading price history: offer %d: a malformed interval %.120q", c.offerID, c.rest)
	}
	id, err := strconv.ParseInt(string(f[0]), 10, 64)
	if err != nil {
		return fmt.Errorf("reading price history: offer %d: %w", c.offerID, err)
	}
	c.id, c.eff, c.from, c.currency = id, f[1], f[2], rec[:n]
	c.to = sql.NullString{String: string(f[3]), Valid: true}
	c.rest = rec[min(n+1, len(rec)):]
	c.hourly, c.upfront, c.lastSeen = nil, nil, nil
	c.ok = true
	return nil
}

// eachByOffer hands fn each matching offer's intervals ended since
// f.Since (every closed one when Since is zero), oldest first, then its
// current one, offer after offer by id. Two queries, each one index range
// per offer and already in offer order: the closed rows through
// prices_offer_to, the current ones through prices_current_cover, merged
// here. The offers are scanned by rowid (the table is small), so that
// neither query sorts the window; only the offers of the filter are
// visited.
//
// Both cursors are open at once, so both run on one connection taken for
// the merge: one from the pool each, readPoolSize merges at once would each
// hold one and wait for a second forever (issue 20 item 19: four parallel
// trends froze the API until their timeout). SQLite steps several
// statements of one connection in turn, and they share its snapshot.
func (db *DB) eachByOffer(ctx context.Context, f PriceFilter, where []string, args []any, seen seenIndex, fn func(*PriceInterval) error) error {
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	since := ""
	if !f.Since.IsZero() {
		since = formatTime(f.Since)
	}
	cols := `SELECT p.id, p.offer_id, p.currency, p.hourly, p.upfront, p.effective_hourly, p.valid_from, p.valid_to, p.last_seen`
	if f.EffectiveOnly {
		// Neither raw price nor last_seen is decoded: leave them in the table.
		cols = `SELECT p.id, p.offer_id, p.currency, '', '', p.effective_hourly, p.valid_from, p.valid_to, ''`
	}
	closedArgs := []any{since}
	onGrid := ""
	if g := f.Samples; g != nil {
		onGrid, closedArgs = g.condition(closedArgs)
	}
	closedArgs = append(closedArgs, args...)
	if db.pg {
		// A PostgreSQL connection streams one result at a time, so the
		// merge is the server's: both ranges in one query, ordered by
		// offer, closed intervals by their end and the current one last
		// (NULLs sort last), which PostgreSQL serves as a merge of the two
		// index scans.
		q := `SELECT * FROM (` + cols + ` FROM offers o JOIN prices p ON p.offer_id = o.id AND p.valid_to IS NOT NULL AND p.valid_to >= ?` + onGrid + cond +
			` UNION ALL ` + cols + ` FROM offers o JOIN prices p ON p.offer_id = o.id AND p.valid_to IS NULL` + cond + `) m ORDER BY offer_id, valid_to`
		// The identities as a map read first: the connection streaming
		// the merge has no other result to give meanwhile.
		var offers map[int64]*pricewatch.Offer
		if !f.PricesOnly {
			var err error
			if offers, err = db.matchingOffers(ctx, where, args); err != nil || len(offers) == 0 {
				return err
			}
		}
		return db.scanPrices(ctx, q, append(closedArgs, args...), lookupIn(offers), seen, nil, f.EffectiveOnly, fn)
	}
	conn, err := db.read.Conn(ctx)
	if err != nil {
		return fmt.Errorf("reading price history: %w", err)
	}
	defer conn.Close()
	from := ` FROM offers o NOT INDEXED CROSS JOIN prices p INDEXED BY prices_offer_to
		ON p.offer_id = o.id AND p.valid_to IS NOT NULL AND p.valid_to >= ?` + onGrid + cond
	var closed *priceCursor
	if f.EffectiveOnly {
		// The five columns trends read are all in prices_offer_to: one
		// row per offer, its intervals joined.
		closed, err = openGroupedCursor(ctx, conn, groupedCols+from+` GROUP BY o.id ORDER BY o.id`, closedArgs)
	} else {
		closed, err = openCursorOn(ctx, conn, cols+from+` ORDER BY o.id, p.valid_to`, closedArgs)
	}
	if err != nil {
		return err
	}
	defer closed.rows.Close()
	current, err := openCursorOn(ctx, conn, cols+` FROM offers o NOT INDEXED CROSS JOIN prices p INDEXED BY prices_current_cover
		ON p.offer_id = o.id AND p.valid_to IS NULL`+cond+` ORDER BY o.id`, args)
	if err != nil {
		return err
	}
	defer current.rows.Close()
	var offers offerLookup
	if !f.PricesOnly {
		// The identities too are read in offer order, a third statement
		// of the connection (its snapshot), one offer held at a time:
		// issue 30, the map of every offer a 90-day trends answer read
		// first was 6 MB of the 9 MB it held while computed.
		oc, err := openOfferCursor(ctx, conn, cond, args)
		if err != nil {
			return err
		}
		defer oc.rows.Close()
		offers = oc.lookup
	}
	e := newPriceEmitter(offers, seen, f.EffectiveOnly, fn)
	for closed.ok || current.ok {
		c := closed
		if !closed.ok || (current.ok && current.offerID < closed.offerID) {
			c = current
		}
		if err := e.emit(c); err != nil {
			return err
		}
		if err := c.next(); err != nil {
			return err
		}
	}
	return nil
}

// SampleGrid is the moments a caller samples each offer's series at: From,
// From+Step, … up to To. As PriceFilter.Samples it keeps, of the closed
// intervals, those that may be in force at a sample, and every closed one
// of an offer whose current price had not begun by To (so that the
// interval in force at To, and each offer's newest one begun by To, which
// names its currency, are there): what a series' price at each sample, at
// To and its newest interval need, without the moves in between. Only an
// hourly or a daily grid is narrowed (other steps keep every interval).
type SampleGrid struct {
	From, To time.Time
	Step     time.Duration
}

// condition is the SQL keeping a closed interval p of an offer o, and args
// with its parameters appended.
func (g SampleGrid) condition(args []any) (string, []any) {
	// Samples on an hourly (daily) grid all fall at the same minute and
	// second (time of day) as From. An interval within one hour (day) holds
	// a sample only if it spans that moment; one crossing an hour (day)
	// boundary is kept (most hold one; the rest cost a row). Comparing the
	// stored texts' parts needs no date arithmetic per row.
	var unit int // length of the "2006-01-02T15" (hour) or "2006-01-02" (day) prefix
	switch g.Step {
	case time.Hour:
		unit = len("2006-01-02T15")
	case 24 * time.Hour:
		unit = len("2006-01-02")
	default:
		return "", args
	}
	at := formatTime(g.To)
	within := formatTime(g.From)[unit+1:]
	cond := ` AND (substr(p.valid_from, 1, ?) <> substr(p.valid_to, 1, ?)
		OR (substr(p.valid_from, ?) <= ? AND substr(p.valid_to, ?) > ?)
		OR o.id NOT IN (SELECT c.offer_id FROM prices c INDEXED BY prices_current_cover WHERE c.valid_to IS NULL AND c.valid_from <= ?))`
	return cond, append(args, unit, unit, unit+2, within, unit+2, within, at)
}

// offerCursor reads offers' identities in id order beside price cursors
// in offer order (eachByOffer), so that a read of every offer's history
// holds one identity at a time instead of a map of them all.
type offerCursor struct {
	rows *sql.Rows
	ok   bool
	id   int64
	cur  *pricewatch.Offer
}

func openOfferCursor(ctx context.Context, on queryer, cond string, args []any) (*offerCursor, error) {
	rows, err := on.QueryContext(ctx, `SELECT `+offerColumns+` FROM offers o NOT INDEXED`+cond+` ORDER BY o.id`, args...)
	if err != nil {
		return nil, fmt.Errorf("reading offers: %w", err)
	}
	c := &offerCursor{rows: rows}
	if err := c.next(); err != nil {
		rows.Close()
		return nil, err
	}
	return c, nil
}

// next reads the following offer into a new value: the intervals handed
// out share it, and a caller may keep it (PriceInterval.Identity).
func (c *offerCursor) next() error {
	if c.ok = c.rows.Next(); !c.ok {
		if err := c.rows.Err(); err != nil {
			return fmt.Errorf("reading offers: %w", err)
		}
		return nil
	}
	c.cur = new(pricewatch.Offer)
	return scanOffer(c.rows, &c.id, c.cur)
}

// lookup is the offer of id; ids must come in ascending order.
func (c *offerCursor) lookup(id int64) (*pricewatch.Offer, bool, error) {
	for c.ok && c.id < id {
		if err := c.next(); err != nil {
			return nil, false, err
		}
	}
	if c.ok && c.id == id {
		return c.cur, true, nil
	}
	return nil, false, nil
}
