package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
)

// PriceInterval is one stored price of one offer, valid from ValidFrom
// until ValidTo (nil while current).
type PriceInterval struct {
	ID int64
	// OfferID is the stored offer's id: the same for every interval of
	// one offer, and what PriceFilter.OfferIDs selects.
	OfferID int64
	pricewatch.Offer
	// Identity is the offer's identity and hardware, one value per offer
	// for the whole read (its Currency, Hourly and Upfront empty: they are
	// the interval's, in Offer): a caller holding many intervals points at
	// it instead of keeping a copy of Offer in each. It must not be changed.
	Identity        *pricewatch.Offer
	EffectiveHourly decimal.Decimal
	ValidFrom       time.Time
	ValidTo         *time.Time
	LastSeen        time.Time
}

// PriceFilter selects intervals. Empty fields match everything.
type PriceFilter struct {
	InstanceType string
	GPUModel     string
	// GPUModels, when not nil, keeps only offers whose stored GPU model is
	// one of these (exactly); an empty, non-nil list matches nothing. Callers
	// resolve a family ("A100") to stored models with GPUModels.
	GPUModels  []string
	Providers  []string
	Regions    []string
	PriceTypes []pricewatch.PriceType
	OS         string
	// Since keeps intervals still valid at or after this time.
	Since time.Time
	// At keeps the intervals in force at any of these times (begun at or
	// before it and not ended by then). With Since as well, an interval is
	// kept when either holds.
	At []time.Time
	// CurrentOnly keeps only intervals without an end.
	CurrentOnly bool
	// ClosedOnly (with Since alone) keeps only intervals with an end, at
	// or after Since: for a caller holding the current ones already (the
	// overview reads them from the current state), the closed intervals
	// of a recent window are a few index ranges per offer, where the
	// prices in force at a moment are two lookups per offer.
	ClosedOnly bool
	// BegunBySince (with ClosedOnly) keeps only the closed intervals begun
	// by Since as well: those in force at Since, at most one an offer. The
	// overview needs no other, and an offer whose spot price moves every
	// run closes many more within a week (issue 30: read and sorted, they
	// were most of its Azure part's cost late in the load test).
	BegunBySince bool
	// ByOffer (with Since, or no time filter) returns each offer's
	// intervals together and in time order, but offers in no particular
	// order: a window of a year's history then needs no sort. Ignored with
	// At, CurrentOnly or Limit.
	ByOffer bool
	// Unordered (with At and no Since) returns each matching interval once,
	// in no particular order: one query per moment, no union or sort of
	// them all. For callers that group intervals themselves (the digest).
	Unordered bool
	// Samples (with ByOffer) leaves out closed intervals a series
	// sampled on its grid cannot see: see SampleGrid.
	Samples *SampleGrid
	// OfferIDs, when not nil, keeps only these offers (PriceInterval.OfferID).
	OfferIDs []int64
	// EffectiveOnly leaves Hourly, Upfront and LastSeen zero, for callers
	// that use only the effective rate and the validity (trends): two
	// decimals and a time fewer to decode per interval.
	EffectiveOnly bool
	// PricesOnly leaves each interval's offer out (of Offer only the
	// price's own currency, hourly and upfront; Identity nil; OfferID
	// set), for callers that know the offers already: the offers table's
	// 30-day move and the overview, holding the current state. Every matching offer decoded for a few of their prices was
	// most of those reads (issue 30's refresh round). A current price's
	// LastSeen is then as stored, not the newest run covering it.
	PricesOnly bool
	// Limit, when positive, keeps the newest Limit intervals (by start);
	// they are still returned in the usual order.
	Limit int
}

// Prices returns the intervals matching f, ordered by offer and time.
func (db *DB) Prices(ctx context.Context, f PriceFilter) ([]PriceInterval, error) {
	var out []PriceInterval
	err := db.EachPrice(ctx, f, func(p *PriceInterval) error {
		out = append(out, *p)
		return nil
	})
	return out, err
}

// EachPrice calls fn for each interval matching f, in the order Prices
// returns them, without holding them all: the digest and trends read
// hundreds of thousands. fn must not keep p (it is reused); an error from
// fn stops the scan and is returned. fn runs while a pooled read
// connection is held, so it must not read the database itself: a read
// waiting for a second connection while holding one is how the API froze
// (issue 20 item 19).
func (db *DB) EachPrice(ctx context.Context, f PriceFilter, fn func(p *PriceInterval) error) error {
	if f.ClosedOnly && (f.Since.IsZero() || len(f.At) > 0 || f.CurrentOnly || f.ByOffer || f.Limit > 0) {
		return errors.New("reading prices: ClosedOnly goes with Since alone")
	}
	if f.BegunBySince && !f.ClosedOnly {
		return errors.New("reading prices: BegunBySince goes with ClosedOnly")
	}
	if (f.GPUModels != nil && len(f.GPUModels) == 0) || (f.OfferIDs != nil && len(f.OfferIDs) == 0) {
		return nil
	}
	seen, err := loadSeen(ctx, db.read, "")
	if err != nil {
		return err
	}
	if readsByPlace(f) {
		return db.eachCurrentByPlace(ctx, f, seen, fn)
	}
	return db.eachPrice(ctx, f, seen, fn)
}

// readsByPlace says whether f is a read of many current prices with their
// offers, which eachCurrentByPlace reads one place at a time. A read of
// some GPU models' or one instance type's holds few offers: one query a
// place would cost it more than its map of them.
func readsByPlace(f PriceFilter) bool {
	return f.CurrentOnly && !f.PricesOnly && f.Limit <= 0 && f.OfferIDs == nil && f.InstanceType == "" &&
		f.GPUModel == "" && f.GPUModels == nil && (len(f.Providers) != 1 || len(f.Regions) != 1)
}

// eachCurrentByPlace is eachPrice of f's current prices one provider and
// region at a time, in the same order (the read's order begins with
// provider and region, in the database's own collation here too): the
// identities of one place's offers are decoded at once (matchingOffers),
// not every offer's. Issue 30: the current state's whole read (at start
// and every readWholeEvery) decoded the scale database's 45,050 offers
// into one map first, ~20 MB, the daemon's largest live heap; a place
// holds at most ~1,000 of them.
func (db *DB) eachCurrentByPlace(ctx context.Context, f PriceFilter, seen seenIndex, fn func(p *PriceInterval) error) error {
	where, args := offerConditions(f)
	q := "SELECT DISTINCT o.provider, o.region FROM offers o"
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY o.provider, o.region"
	places, err := queryAll(ctx, db.read, "listing the places of current prices", q, args, func(rows *sql.Rows) ([2]string, error) {
		var pl [2]string
		if err := rows.Scan(&pl[0], &pl[1]); err != nil {
			return pl, fmt.Errorf("listing the places of current prices: %w", err)
		}
		return pl, nil
	})
	if err != nil {
		return err
	}
	for _, pl := range places {
		g := f
		g.Providers, g.Regions = []string{pl[0]}, []string{pl[1]}
		if err := db.eachPrice(ctx, g, seen, fn); err != nil {
			return err
		}
	}
	return nil
}

// eachPrice is EachPrice with what runs saw read.
func (db *DB) eachPrice(ctx context.Context, f PriceFilter, seen seenIndex, fn func(p *PriceInterval) error) error {
	where, args := offerConditions(f)
	if f.ByOffer && !f.CurrentOnly && len(f.At) == 0 && f.Limit <= 0 {
		return db.eachByOffer(ctx, f, where, args, seen, fn)
	}
	var offers map[int64]*pricewatch.Offer
	var err error
	if !f.PricesOnly {
		if offers, err = db.matchingOffers(ctx, where, args); err != nil {
			return err
		}
		if len(offers) == 0 {
			return nil
		}
	}
	// Which intervals: stated as sets of price ids each narrowed by an
	// index (the current ones through prices_current, closed ones per
	// offer through prices_offer_to (offer_id, valid_to), points in time
	// per offer through both), never "every interval ever stored, filtered".
	var sets []string
	var setArgs []any
	offerIn := "SELECT o.id FROM offers o"
	if len(where) > 0 {
		offerIn += " WHERE " + strings.Join(where, " AND ")
	}
	switch {
	case f.CurrentOnly:
		sets = append(sets, `SELECT p.id FROM prices p WHERE p.valid_to IS NULL AND p.offer_id IN (`+offerIn+`)`)
		setArgs = append(setArgs, args...)
	case f.Since.IsZero() && len(f.At) == 0:
		sets = append(sets, `SELECT p.id FROM prices p WHERE p.valid_to IS NULL AND p.offer_id IN (`+offerIn+`)`,
			`SELECT p.id FROM prices p WHERE p.valid_to IS NOT NULL AND p.offer_id IN (`+offerIn+`)`)
		setArgs = append(setArgs, args...)
		setArgs = append(setArgs, args...)
	default:
		if !f.Since.IsZero() {
			if !f.ClosedOnly {
				sets = append(sets, `SELECT p.id FROM prices p WHERE p.valid_to IS NULL AND p.offer_id IN (`+offerIn+`)`)
				setArgs = append(setArgs, args...)
			}
			begun := ""
			setArgs = append(setArgs, formatTime(f.Since))
			if f.BegunBySince {
				begun = " AND p.valid_from <= ?"
				setArgs = append(setArgs, formatTime(f.Since))
			}
			sets = append(sets, `SELECT p.id FROM prices p WHERE p.valid_to >= ?`+begun+` AND p.offer_id IN (`+offerIn+`)`)
			setArgs = append(setArgs, args...)
		}
		for _, at := range f.At {
			sets = append(sets, `SELECT p.id`+inForceAt(db.pg, offerIn))
			setArgs = append(setArgs, args...)
			setArgs = append(setArgs, inForceArgs(at)...)
		}
	}
	cols := `SELECT p.id, p.offer_id, p.currency, p.hourly, p.upfront, p.effective_hourly, p.valid_from, p.valid_to, p.last_seen`
	ids := strings.Join(sets, " UNION ")
	q := cols + ` FROM prices p JOIN offers o ON o.id = p.offer_id WHERE p.id IN (` + ids + `)`
	if f.CurrentOnly && f.Limit <= 0 {
		// Straight from prices_current_cover: current prices sit in a few
		// contiguous index pages, not among a year of closed rows.
		q = cols + ` FROM offers o JOIN prices p INDEXED BY prices_current_cover ON p.offer_id = o.id AND p.valid_to IS NULL`
		if len(where) > 0 {
			q += " WHERE " + strings.Join(where, " AND ")
		}
		setArgs = args
	}
	if f.Limit > 0 {
		q = cols + ` FROM (SELECT * FROM prices p WHERE p.id IN (` + ids + `) ORDER BY p.valid_from DESC, p.id DESC LIMIT ?) p
			JOIN offers o ON o.id = p.offer_id`
		setArgs = append(setArgs, f.Limit)
	}
	q += ` ORDER BY o.provider, o.region, o.zone, o.instance_type, o.os, o.price_type, o.term, o.payment, o.offering_class, p.valid_from, p.id`
	if f.Unordered && len(f.At) > 0 && f.Since.IsZero() && !f.CurrentOnly && f.Limit <= 0 {
		return db.eachAt(ctx, f, where, args, offers, seen, fn)
	}
	return db.scanPrices(ctx, q, setArgs, lookupIn(offers), seen, nil, f.EffectiveOnly, fn)
}

// eachAt runs one query per moment of f.At, each reading per offer the
// interval in force then, and hands each interval to fn once.
func (db *DB) eachAt(ctx context.Context, f PriceFilter, where []string, args []any, offers map[int64]*pricewatch.Offer, seen seenIndex, fn func(*PriceInterval) error) error {
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	q := `SELECT p.id, p.offer_id, p.currency, p.hourly, p.upfront, p.effective_hourly, p.valid_from, p.valid_to, p.last_seen` +
		inForceAt(db.pg, `SELECT o.id FROM offers o`+cond)
	done := map[int64]bool{}
	for _, at := range f.At {
		skip := func(id int64) bool {
			if done[id] {
				return true
			}
			done[id] = true
			return false
		}
		err := db.scanPrices(ctx, q, append(append([]any(nil), args...), inForceArgs(at)...), lookupIn(offers), seen, skip, f.EffectiveOnly, fn)
		if err != nil {
			return err
		}
	}
	return nil
}

// inForceAt is the FROM and WHERE of a query reading, for each offer id
// offerIn selects, the price p in force at a moment (inForceArgs): the
// first closed interval ending after it (through prices_offer_to), else
// the current one, if it had begun by then. Intervals never overlap, so no
// other can hold the moment.
//
// On PostgreSQL the same reads as a lateral join whose first branch, when
// it finds a row, ends it: joined on the COALESCE of two subqueries, its
// planner hashes every price begun by then instead of fetching one per
// offer (a digest's 13 points took seconds each).
func inForceAt(pg bool, offerIn string) string {
	if pg {
		return ` FROM (` + offerIn + `) oo JOIN LATERAL (
		(SELECT p2.* FROM prices p2 WHERE p2.offer_id = oo.id AND p2.valid_to IS NOT NULL AND p2.valid_to > ? ORDER BY p2.valid_to LIMIT 1)
		UNION ALL (SELECT p3.* FROM prices p3 WHERE p3.offer_id = oo.id AND p3.valid_to IS NULL) LIMIT 1) p ON true
		WHERE p.valid_from <= ?`
	}
	return ` FROM (` + offerIn + `) oo JOIN prices p ON p.id = COALESCE(
		(SELECT p2.id FROM prices p2 INDEXED BY prices_offer_to WHERE p2.offer_id = oo.id AND p2.valid_to IS NOT NULL AND p2.valid_to > ?
			ORDER BY p2.valid_to LIMIT 1),
		(SELECT p3.id FROM prices p3 WHERE p3.offer_id = oo.id AND p3.valid_to IS NULL))
		WHERE p.valid_from <= ?`
}

func inForceArgs(at time.Time) []any {
	ts := formatTime(at)
	return []any{ts, ts}
}

// scanPrices runs a query selecting the nine price columns of EachPrice
// and hands each row to fn. skip (nil: none), checked before a row is
// decoded, leaves rows out.
func (db *DB) scanPrices(ctx context.Context, q string, args []any, offers offerLookup, seen seenIndex, skip func(id int64) bool, effectiveOnly bool, fn func(*PriceInterval) error) error {
	c, err := db.openCursor(ctx, q, args)
	if err != nil {
		return err
	}
	defer c.rows.Close()
	e := newPriceEmitter(offers, seen, effectiveOnly, fn)
	for c.ok {
		if skip == nil || !skip(c.id) {
			if err := e.emit(c); err != nil {
				return err
			}
		}
		if err := c.next(); err != nil {
			return err
		}
	}
	return nil
}

// decode fills p's prices and times from a row's stored texts. With
// effectiveOnly only the effective rate and the validity are parsed
// (trends need no more). A current price's last_seen is the newest complete run covering it.
func (p *PriceInterval) decode(effectiveOnly bool, hourly, upfront, eff, from sql.RawBytes, to sql.NullString, lastSeen sql.RawBytes, seen seenIndex) error {
	var err error
	p.Hourly, p.Upfront = decimal.Decimal{}, decimal.Decimal{}
	if !effectiveOnly {
		if p.Hourly, err = decimal.NewFromString(string(hourly)); err != nil {
			return fmt.Errorf("reading price %d: %w", p.ID, err)
		}
		if p.Upfront, err = decimal.NewFromString(string(upfront)); err != nil {
			return fmt.Errorf("reading price %d: %w", p.ID, err)
		}
	}
	if p.EffectiveHourly, err = decimal.NewFromString(string(eff)); err != nil {
		return fmt.Errorf("reading price %d: %w", p.ID, err)
	}
	if p.ValidFrom, err = parseTime(string(from)); err != nil {
		return fmt.Errorf("reading price %d: %w", p.ID, err)
	}
	if p.ValidTo, err = parseNullTime(to); err != nil {
		return fmt.Errorf("reading price %d: %w", p.ID, err)
	}
	if effectiveOnly {
		p.LastSeen = time.Time{}
		return nil
	}
	if p.LastSeen, err = parseTime(string(lastSeen)); err != nil {
		return fmt.Errorf("reading price %d: %w", p.ID, err)
	}
	if p.ValidTo == nil {
		p.LastSeen = later(p.LastSeen, seen.price(p.Provider, p.Region, p.PriceType))
	}
	return nil
}

// placeConditions are the conditions prices and availability share: an
// instance type, a GPU model (ignoring case), providers and regions, on
// columns named with prefix ("o." or "").
func placeConditions(prefix, instanceType, gpuModel string, providers, regions []string) ([]string, []any) {
	var where []string
	var args []any
	if instanceType != "" {
		where = append(where, prefix+"instance_type = ?")
		args = append(args, instanceType)
	}
	if gpuModel != "" {
		// lower() on both sides: SQLite's NOCASE and PostgreSQL's
		// lower() agree on ASCII, which GPU model names are.
		where = append(where, "lower("+prefix+"gpu_model) = lower(?)")
		args = append(args, gpuModel)
	}
	where, args = inList(where, args, prefix+"provider", providers)
	return inList(where, args, prefix+"region", regions)
}

// offerConditions are f's conditions on the offer (alias o).
func offerConditions(f PriceFilter) ([]string, []any) {
	where, args := placeConditions("o.", f.InstanceType, f.GPUModel, f.Providers, f.Regions)
	where, args = inList(where, args, "o.gpu_model", f.GPUModels)
	pts := make([]string, len(f.PriceTypes))
	for i, p := range f.PriceTypes {
		pts[i] = string(p)
	}
	where, args = inList(where, args, "o.price_type", pts)
	if f.OS != "" {
		where = append(where, "o.os = ?")
		args = append(args, f.OS)
	}
	if len(f.OfferIDs) > 0 {
		ids, _ := json.Marshal(f.OfferIDs) // []int64 always marshals
		where = append(where, "o.id IN (SELECT value FROM json_each(?))")
		args = append(args, string(ids))
	}
	return where, args
}

// matchingOffers decodes each matching offer's identity and hardware once;
// its intervals share them (PriceInterval.Identity).
func (db *DB) matchingOffers(ctx context.Context, where []string, args []any) (map[int64]*pricewatch.Offer, error) {
	q := `SELECT ` + offerColumns + ` FROM offers o`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	rows, err := db.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("reading offers: %w", err)
	}
	defer rows.Close()
	out := map[int64]*pricewatch.Offer{}
	for rows.Next() {
		var id int64
		o := new(pricewatch.Offer)
		if err := scanOffer(rows, &id, o); err != nil {
			return nil, err
		}
		out[id] = o
	}
	return out, rows.Err()
}

// offerColumns are an offer's id, identity and hardware, as scanOffer
// reads them.
const offerColumns = `o.id, o.provider, o.region, o.zone, o.instance_type, o.price_type, o.term, o.payment, o.offering_class, o.os,
		o.gpu_model, o.gpu_count, o.gpu_memory_gb, o.vcpus, o.memory_gb, o.interconnect, o.local_storage, o.sku_id, o.sku_price_id, o.product_id, o.region_name`

// scanOffer reads a row of offerColumns.
func scanOffer(rows *sql.Rows, id *int64, o *pricewatch.Offer) error {
	if err := rows.Scan(id, &o.Provider, &o.Region, &o.Zone, &o.InstanceType, &o.PriceType, &o.Term, &o.Payment, &o.OfferingClass, &o.OS,
		&o.GPUModel, &o.GPUCount, &o.GPUMemoryGB, &o.VCPUs, &o.MemoryGB, &o.Interconnect, &o.LocalStorage,
		&o.SkuID, &o.SkuPriceID, &o.ProductID, &o.RegionName); err != nil {
		return fmt.Errorf("reading offers: %w", err)
	}
	return nil
}

// GPUModels returns every GPU model stored on an offer, so that a caller
// can resolve a family name to stored models and filter in SQL.
func (db *DB) GPUModels(ctx context.Context) ([]string, error) {
	return queryAll(ctx, db.read, "reading GPU models", `SELECT DISTINCT gpu_model FROM offers ORDER BY gpu_model`, nil, func(rows *sql.Rows) (string, error) {
		var m string
		if err := rows.Scan(&m); err != nil {
			return "", fmt.Errorf("reading GPU models: %w", err)
		}
		return m, nil
	})
}

// AvailabilityFilter selects availability intervals.
type AvailabilityFilter struct {
	InstanceType string
	GPUModel     string
	Providers    []string
	Regions      []string
	// All includes closed intervals; otherwise only current ones.
	All bool
	// Since keeps intervals still open at or after this time (with All).
	Since time.Time
}

// Availability returns availability intervals matching f.
func (db *DB) Availability(ctx context.Context, f AvailabilityFilter) ([]pricewatch.AvailabilityInterval, error) {
	where, args := placeConditions("", f.InstanceType, f.GPUModel, f.Providers, f.Regions)
	if !f.All {
		where = append(where, "until IS NULL")
	}
	if !f.Since.IsZero() {
		where = append(where, "(until IS NULL OR until >= ?)")
		args = append(args, formatTime(f.Since))
	}
	seen, err := loadSeen(ctx, db.read, "")
	if err != nil {
		return nil, err
	}
	q := `SELECT id, provider, region, zone, instance_type, gpu_model, gpu_count, state, stock_detail, since, until, last_seen, missing_runs FROM availability`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY provider, region, zone, instance_type, since, id"
	return queryAll(ctx, db.read, "reading availability", q, args, func(rows *sql.Rows) (pricewatch.AvailabilityInterval, error) {
		var a pricewatch.AvailabilityInterval
		var since, lastSeen string
		var until sql.NullString
		var missing int
		if err := rows.Scan(&a.ID, &a.Provider, &a.Region, &a.Zone, &a.InstanceType, &a.GPUModel, &a.GPUCount, &a.State, &a.StockDetail, &since, &until, &lastSeen, &missing); err != nil {
			return a, fmt.Errorf("reading availability: %w", err)
		}
		if err := parseTimes(timeAt(since, &a.Since), nullTimeAt(until, &a.Until), timeAt(lastSeen, &a.LastSeen)); err != nil {
			return a, fmt.Errorf("reading availability %d: %w", a.ID, err)
		}
		if a.Until == nil && missing == 0 {
			a.LastSeen = later(a.LastSeen, seen.availability(a.Provider, a.Region))
		}
		return a, nil
	})
}

func inList(where []string, args []any, col string, vals []string) ([]string, []any) {
	if len(vals) == 0 {
		return where, args
	}
	marks := make([]string, len(vals))
	for i, v := range vals {
		marks[i] = "?"
		args = append(args, v)
	}
	return append(where, col+" IN ("+strings.Join(marks, ", ")+")"), args
}
