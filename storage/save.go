package storage

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
)

// ErrSuspiciousDrop is returned when a run finds far fewer offers than the
// last complete run did in the same scope. An API that answers with an
// empty (but well-formed) list must never read as "every offer vanished".
var ErrSuspiciousDrop = errors.New("run found far fewer offers than the last complete run")

// SaveOptions tune SaveSnapshot.
type SaveOptions struct {
	// MinOfferRatio: if the run's offers inside its coverage fall below this
	// share of what is currently stored there, the run fails. Zero disables
	// the ratio check, but a run that finds nothing where offers are stored
	// always fails.
	MinOfferRatio float64
	// Outbox, if set, turns the run's changes into messages to deliver; they
	// are written in the same transaction as the prices and changes, so a
	// stored change is never without its alert and vice versa. It must not
	// do I/O.
	Outbox func(res *Result) ([]OutboxMessage, error)
	// Held are the prices of the snapshot the guard held (see held.go).
	Held []HeldPrice
	// Policy rules which price moves wait for the next complete run to
	// confirm them, what becomes of a waiting move, and when a pair missing
	// from complete runs is withdrawn (package alerting's Policy, built from
	// alerts.*); the save persists its rulings (confirm.go). Nil: every move
	// alerts at once, a pair missing from one complete run is withdrawn,
	// and moves waiting from earlier runs are left as they are.
	Policy MovePolicy
}

// Result summarises a stored run. Seen counts the offers the run vouches
// for: those it lists (less the held ones, counted in Held) and the stored
// ones of the scopes it found unchanged; Seen = New + Changed + Unchanged.
type Result struct {
	RunID     int64
	Provider  string
	At        time.Time
	FirstRun  bool // no earlier successful run of this provider: a baseline
	Seen      int
	New       int
	Changed   int
	Unchanged int
	Closed    int
	Skipped   int // regions skipped as unchanged
	Changes   []pricewatch.Change
	// Held counts the prices the guard held, by reason in HeldReasons;
	// Accepted the held prices accepted this run (held.go).
	Held        int
	HeldReasons map[string]int
	Accepted    int
	// Awaiting are this run's large moves whose alert waits for the next
	// run, Confirmed the earlier moves this run confirmed, Reverted the
	// moves back that undid a waiting one (confirm.go).
	Awaiting  []pricewatch.Change
	Confirmed []pricewatch.Change
	Reverted  []pricewatch.Change
	alerts    []pricewatch.Change
	alertsSet bool
}

// OutboxMessage is a rendered message to deliver.
type OutboxMessage struct {
	DeliveryKey string // unique; a retry after a restart reuses it
	Channel     string
	Kind        string
	Payload     []byte
}

type currentPrice struct {
	priceID  int64
	lastSeen time.Time
	offerID  int64
	currency string
	// The stored texts: decimals are parsed only when a price differs or
	// closes, not for each of the thousands of unchanged ones.
	hourly, upfront, effective string
	key                        pricewatch.OfferKey
	hw                         pricewatch.Hardware
	ids                        pricewatch.CloudIDs
	// listed: this run's snapshot lists the offer.
	listed bool
}

// samePrice reports whether o's price is the stored one. Stored prices are
// written as Decimal.String, so equal texts are equal prices; other texts
// are compared as decimals.
func (c *currentPrice) samePrice(o pricewatch.Offer) (bool, error) {
	if c.currency != o.Currency {
		return false, nil
	}
	for _, v := range [2]struct {
		stored string
		now    decimal.Decimal
	}{{c.hourly, o.Hourly}, {c.upfront, o.Upfront}} {
		if v.stored == v.now.String() {
			continue
		}
		d, err := decimal.NewFromString(v.stored)
		if err != nil {
			return false, fmt.Errorf("price %d: %w", c.priceID, err)
		}
		if !d.Equal(v.now) {
			return false, nil
		}
	}
	return true, nil
}

func (c *currentPrice) effectiveHourly() (decimal.Decimal, error) {
	d, err := decimal.NewFromString(c.effective)
	if err != nil {
		return d, fmt.Errorf("price %d: %w", c.priceID, err)
	}
	return d, nil
}

type currentAvail struct {
	id          int64
	lastSeen    time.Time
	stockDetail string
	state       pricewatch.AvailabilityState
	since       time.Time
	missingRuns int
	gpuModel    string
	gpuCount    float64
}

// SaveSnapshot stores a complete provider snapshot as run runID, in one
// transaction: prices and availability intervals, source versions, the
// detected changes, the outbox messages and the run record. Any error
// rolls everything back, so a failed or cancelled run stores no prices.
func (db *DB) SaveSnapshot(ctx context.Context, runID int64, snap *pricewatch.Snapshot, opts SaveOptions) (*Result, error) {
	if err := snap.Validate(); err != nil {
		return nil, fmt.Errorf("refusing snapshot: %w", err)
	}
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("storing %s run: %w", snap.Provider, err)
	}
	defer tx.Rollback()
	// One save of a provider at a time (PostgreSQL; SQLite's writer is
	// one already): the run compares with the current prices as they stand.
	if err := db.lockProvider(ctx, tx, snap.Provider); err != nil {
		return nil, fmt.Errorf("storing %s run %d: %w", snap.Provider, runID, err)
	}
	// The run's time is read now that the write lock is held, and never
	// precedes the newest stored time (see runTime in lease.go).
	now, err := db.runTime(ctx, tx, db.Now().UTC(), snap.Provider, runID)
	if err != nil {
		return nil, fmt.Errorf("storing %s run %d: %w", snap.Provider, runID, err)
	}
	res := &Result{RunID: runID, Provider: snap.Provider, At: now, Skipped: snap.Skipped}
	s := &saver{ctx: ctx, tx: tx, now: now, ts: formatTime(now), runID: runID, res: res, held: heldKeys(opts.Held)}
	defer s.closeStmts()

	var prevOK int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM fetch_runs WHERE provider = ? AND status = 'ok'`, snap.Provider).Scan(&prevOK); err != nil {
		return nil, s.wrap(err)
	}
	res.FirstRun = prevOK == 0

	if s.seen, err = loadSeen(ctx, tx, snap.Provider); err != nil {
		return nil, s.wrap(err)
	}
	current, err := s.loadCurrentPrices(snap.Provider)
	if err != nil {
		return nil, s.wrap(err)
	}
	if err := checkDrop(snap, current, opts.MinOfferRatio); err != nil {
		return nil, err
	}
	if err := s.storeOffers(snap, current); err != nil {
		return nil, s.wrap(err)
	}
	if err := summarizeRun(ctx, tx, s.ts, s.touched); err != nil {
		return nil, s.wrap(err)
	}
	if err := s.storeAvailability(snap, opts.Policy); err != nil {
		return nil, s.wrap(err)
	}
	signalChanges, err := s.storeSignals(snap)
	if err != nil {
		return nil, s.wrap(err)
	}
	if err := s.recordSeen(snap); err != nil {
		return nil, s.wrap(err)
	}
	for k, v := range snap.Versions {
		if _, err := tx.ExecContext(ctx, `INSERT INTO source_versions (provider, key, version, updated_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (provider, key) DO UPDATE SET version = excluded.version, updated_at = excluded.updated_at`, snap.Provider, k, v, s.ts); err != nil {
			return nil, s.wrap(err)
		}
	}
	if snap.State != nil {
		if _, err := tx.ExecContext(ctx, `INSERT INTO fetcher_state (provider, state, updated_at) VALUES (?, ?, ?)
			ON CONFLICT (provider) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`, snap.Provider, string(snap.State), s.ts); err != nil {
			return nil, s.wrap(err)
		}
	}
	if err := s.insertChanges(); err != nil {
		return nil, s.wrap(err)
	}
	// Signal changes alert (signals.go) but are kept in table signals.
	res.Changes = append(res.Changes, signalChanges...)
	if err := s.recordHeld(snap, opts.Held); err != nil {
		return nil, s.wrap(err)
	}
	if opts.Policy != nil {
		if err := s.confirmMoves(snap, opts.Policy, s.held); err != nil {
			return nil, err
		}
	}
	if opts.Outbox != nil {
		msgs, err := opts.Outbox(res)
		if err != nil {
			return nil, fmt.Errorf("preparing alerts for %s run: %w", snap.Provider, err)
		}
		if err := insertOutbox(ctx, tx, now, msgs); err != nil {
			return nil, s.wrap(err)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE fetch_runs SET status = 'ok', finished_at = ?, offers_seen = ?, offers_new = ?, offers_changed = ?,
		offers_unchanged = ?, offers_closed = ?, regions_skipped = ?, changes = ?, source_version = ?, error = ? WHERE id = ?`,
		s.ts, res.Seen, res.New, res.Changed, res.Unchanged, res.Closed, res.Skipped, len(res.Changes), snap.SourceVersion,
		NotReadText(snap.Unread), runID); err != nil {
		return nil, s.wrap(err)
	}
	if err := tx.Commit(); err != nil {
		return nil, s.wrap(err)
	}
	return res, nil
}

type saver struct {
	ctx   context.Context
	tx    *sql.Tx
	now   time.Time
	ts    string
	runID int64
	res   *Result
	held  map[pricewatch.OfferKey]bool // prices the guard held: not stored, not closed
	// seen is scope_seen as it stood before this run.
	seen  seenIndex
	stmts map[string]*sql.Stmt
	// touched are the offers whose prices this run opened or closed: their
	// row of the day in the daily summary is brought up to date.
	touched []int64
}

// exec runs a statement prepared once per run: a run that changes many
// rows runs the same few statements thousands of times.
func (s *saver) exec(query string, args ...any) (sql.Result, error) {
	st, ok := s.stmts[query]
	if !ok {
		var err error
		if st, err = s.tx.PrepareContext(s.ctx, query); err != nil {
			return nil, err
		}
		if s.stmts == nil {
			s.stmts = map[string]*sql.Stmt{}
		}
		s.stmts[query] = st
	}
	return st.ExecContext(s.ctx, args...)
}

func (s *saver) queryRow(query string, args ...any) *sql.Row {
	st, ok := s.stmts[query]
	if !ok {
		var err error
		if st, err = s.tx.PrepareContext(s.ctx, query); err != nil {
			// The error surfaces from Scan through an unprepared query.
			return s.tx.QueryRowContext(s.ctx, query, args...)
		}
		if s.stmts == nil {
			s.stmts = map[string]*sql.Stmt{}
		}
		s.stmts[query] = st
	}
	return st.QueryRowContext(s.ctx, args...)
}

func (s *saver) closeStmts() {
	for _, st := range s.stmts {
		st.Close()
	}
}

func (s *saver) wrap(err error) error {
	return fmt.Errorf("storing %s run %d: %w", s.res.Provider, s.runID, err)
}

func (s *saver) loadCurrentPrices(provider string) (map[pricewatch.OfferKey]*currentPrice, error) {
	rows, err := s.tx.QueryContext(s.ctx, `SELECT p.id, o.id, p.last_seen, p.currency, p.hourly, p.upfront, p.effective_hourly,
		o.region, o.zone, o.instance_type, o.price_type, o.term, o.payment, o.offering_class, o.os,
		o.gpu_model, o.gpu_count, o.gpu_memory_gb, o.vcpus, o.memory_gb, o.interconnect, o.local_storage, o.sku_id, o.sku_price_id, o.product_id, o.region_name
		FROM prices p INDEXED BY prices_current_cover JOIN offers o ON o.id = p.offer_id WHERE o.provider = ? AND p.valid_to IS NULL`, provider)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[pricewatch.OfferKey]*currentPrice{}
	for rows.Next() {
		c := &currentPrice{key: pricewatch.OfferKey{Provider: provider}}
		var seen string
		if err := rows.Scan(&c.priceID, &c.offerID, &seen, &c.currency, &c.hourly, &c.upfront, &c.effective,
			&c.key.Region, &c.key.Zone, &c.key.InstanceType, &c.key.PriceType, &c.key.Term, &c.key.Payment, &c.key.OfferingClass, &c.key.OS,
			&c.hw.GPUModel, &c.hw.GPUCount, &c.hw.GPUMemoryGB, &c.hw.VCPUs, &c.hw.MemoryGB, &c.hw.Interconnect, &c.hw.LocalStorage,
			&c.ids.SkuID, &c.ids.SkuPriceID, &c.ids.ProductID, &c.ids.RegionName); err != nil {
			return nil, err
		}
		if c.lastSeen, err = parseTime(seen); err != nil {
			return nil, fmt.Errorf("price %d: %w", c.priceID, err)
		}
		out[c.key] = c
	}
	return out, rows.Err()
}

func coveredOffer(scopes []pricewatch.Scope, region string, pt pricewatch.PriceType) bool {
	for _, sc := range scopes {
		if sc.CoversOffer(region, pt) {
			return true
		}
	}
	return false
}

func coveredAvailability(scopes []pricewatch.Scope, region string) bool {
	for _, sc := range scopes {
		if sc.CoversAvailability(region) {
			return true
		}
	}
	return false
}

// checkDrop fails a run that finds far fewer offers than are stored as
// current inside its coverage.
func checkDrop(snap *pricewatch.Snapshot, current map[pricewatch.OfferKey]*currentPrice, minRatio float64) error {
	// Capacity blocks are left out of the count: they sell out and pass
	// their start all at once, so every block of a region gone from a
	// complete answer is news, not a fault (the fetcher covers blocks only
	// when every query answered in full).
	stored := 0
	for k := range current {
		if k.PriceType != pricewatch.CapacityBlockPrice && coveredOffer(snap.Coverage, k.Region, k.PriceType) {
			stored++
		}
	}
	found := 0
	for _, o := range snap.Offers {
		if o.PriceType != pricewatch.CapacityBlockPrice && coveredOffer(snap.Coverage, o.Region, o.PriceType) {
			found++
		}
	}
	if stored > 0 && (found == 0 || float64(found) < minRatio*float64(stored)) {
		return fmt.Errorf("%s: %w: %d offers now, %d stored as current in the same scope (below fetch.min_offer_ratio %.2f); nothing was stored",
			snap.Provider, ErrSuspiciousDrop, found, stored, minRatio)
	}
	// One region of several going empty hides inside the whole run's
	// count. A region's full catalogue (a scope holding on-demand prices)
	// that had many offers and now has none is far more likely an API fault
	// than every GPU size leaving at once. Scopes of one volatile price type
	// (a spot feed) are left to the whole-run check.
	for _, sc := range snap.Coverage {
		if !sc.CoversOffer(sc.Region, pricewatch.OnDemand) {
			continue
		}
		stored, found := 0, 0
		for k := range current {
			if k.PriceType != pricewatch.CapacityBlockPrice && sc.CoversOffer(k.Region, k.PriceType) {
				stored++
			}
		}
		for _, o := range snap.Offers {
			if o.PriceType != pricewatch.CapacityBlockPrice && sc.CoversOffer(o.Region, o.PriceType) {
				found++
			}
		}
		if found == 0 && stored >= minScopeOffers {
			return fmt.Errorf("%s region %s: %w: no offers now, %d stored as current; nothing was stored (if the region really lost every GPU type, remove it from providers.%s.regions)",
				snap.Provider, sc.Region, ErrSuspiciousDrop, stored, snap.Provider)
		}
	}
	return nil
}

// minScopeOffers is how many current offers a region must hold before
// finding none there fails a run.
const minScopeOffers = 5

func (s *saver) storeOffers(snap *pricewatch.Snapshot, current map[pricewatch.OfferKey]*currentPrice) error {
	// Offers new to the store, to catch one listed twice; a stored offer
	// is marked listed instead.
	fresh := map[pricewatch.OfferKey]bool{}
	for _, o := range snap.Offers {
		key := o.Key()
		cur := current[key]
		if cur != nil && cur.listed || cur == nil && fresh[key] {
			return fmt.Errorf("offer %s listed twice in one snapshot", key)
		}
		if cur != nil {
			cur.listed = true
		} else {
			fresh[key] = true
		}
		if s.held[key] {
			// Held by the guard: the stored price stays current, untouched.
			continue
		}
		s.res.Seen++
		same := false
		if cur != nil {
			var err error
			if same, err = cur.samePrice(o); err != nil {
				return err
			}
		}
		if same && cur.hw == o.Hardware && cur.ids == o.CloudIDs {
			s.res.Unchanged++
			if !coveredOffer(snap.Coverage, key.Region, key.PriceType) && !coveredOffer(snap.Unchanged, key.Region, key.PriceType) {
				if _, err := s.exec(`UPDATE prices SET last_seen = ?, last_run_id = ? WHERE id = ?`, s.ts, s.runID, cur.priceID); err != nil {
					return err
				}
			}
			continue
		}
		eff, err := o.EffectiveHourly()
		if err != nil {
			return fmt.Errorf("offer %s: %w", key, err)
		}
		offerID, err := s.upsertOffer(o, cur)
		if err != nil {
			return err
		}
		switch {
		case same:
			s.res.Unchanged++
			// Unchanged is free: scope_seen says this run saw it. Only an
			// offer outside every scope the run states needs its own row
			// moved.
			if !coveredOffer(snap.Coverage, key.Region, key.PriceType) && !coveredOffer(snap.Unchanged, key.Region, key.PriceType) {
				if _, err := s.exec(`UPDATE prices SET last_seen = ?, last_run_id = ? WHERE id = ?`, s.ts, s.runID, cur.priceID); err != nil {
					return err
				}
			}
			continue
		case cur != nil:
			s.res.Changed++
			if err := s.closePrice(cur); err != nil {
				return err
			}
			ch := s.priceChange(pricewatch.PriceChanged, key, o.Currency, o.Hardware)
			if cur.currency == o.Currency {
				old, err := cur.effectiveHourly()
				if err != nil {
					return err
				}
				ch.Old = decimal.NewNullDecimal(old)
			}
			ch.New = decimal.NewNullDecimal(eff)
			s.res.Changes = append(s.res.Changes, ch)
		default:
			s.res.New++
			ch := s.priceChange(pricewatch.PriceNew, key, o.Currency, o.Hardware)
			ch.New = decimal.NewNullDecimal(eff)
			s.res.Changes = append(s.res.Changes, ch)
		}
		if _, err := s.exec(`INSERT INTO prices (offer_id, currency, hourly, upfront, effective_hourly, valid_from, last_seen, first_run_id, last_run_id)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, offerID, o.Currency, o.Hourly.String(), o.Upfront.String(), eff.String(), s.ts, s.ts, s.runID, s.runID); err != nil {
			return err
		}
		s.touched = append(s.touched, offerID)
	}
	// Close what the run's coverage says is gone; what lies in an unchanged
	// scope stays current (scope_seen moves its last_seen). Only the keys
	// closed are sorted, for a stable order of changes.
	var gone []pricewatch.OfferKey
	for k, cur := range current {
		switch {
		case cur.listed:
		case coveredOffer(snap.Coverage, k.Region, k.PriceType):
			gone = append(gone, k)
		case coveredOffer(snap.Unchanged, k.Region, k.PriceType):
			// Its source did not change: seen, unchanged, not listed.
			s.res.Seen++
			s.res.Unchanged++
		}
	}
	slices.SortFunc(gone, compareOfferKeys)
	for _, k := range gone {
		cur := current[k]
		s.res.Closed++
		if err := s.closePrice(cur); err != nil {
			return err
		}
		ch := s.priceChange(pricewatch.PriceGone, k, cur.currency, cur.hw)
		old, err := cur.effectiveHourly()
		if err != nil {
			return err
		}
		ch.Old = decimal.NewNullDecimal(old)
		s.res.Changes = append(s.res.Changes, ch)
	}
	return nil
}

// closePrice ends a current price at this run. Its last_seen becomes
// exact: the newest earlier run that saw it.
func (s *saver) closePrice(cur *currentPrice) error {
	last := later(cur.lastSeen, s.seen.price(s.res.Provider, cur.key.Region, cur.key.PriceType))
	_, err := s.exec(`UPDATE prices SET valid_to = ?, last_seen = ? WHERE id = ?`, s.ts, formatTime(last), cur.priceID)
	s.touched = append(s.touched, cur.offerID)
	return err
}

func compareOfferKeys(a, b pricewatch.OfferKey) int {
	return cmp.Or(cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.Region, b.Region), cmp.Compare(a.Zone, b.Zone),
		cmp.Compare(a.InstanceType, b.InstanceType), cmp.Compare(a.PriceType, b.PriceType), cmp.Compare(a.Term, b.Term),
		cmp.Compare(a.Payment, b.Payment), cmp.Compare(a.OfferingClass, b.OfferingClass), cmp.Compare(a.OS, b.OS))
}

func compareAvailabilityKeys(a, b pricewatch.AvailabilityKey) int {
	return cmp.Or(cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.Region, b.Region), cmp.Compare(a.Zone, b.Zone),
		cmp.Compare(a.InstanceType, b.InstanceType))
}

func (s *saver) priceChange(kind pricewatch.ChangeKind, key pricewatch.OfferKey, currency string, hw pricewatch.Hardware) pricewatch.Change {
	return pricewatch.Change{
		Kind: kind, At: s.now, Offer: key, Currency: currency, Hardware: hw,
		Place: pricewatch.AvailabilityKey{Provider: key.Provider, Region: key.Region, Zone: key.Zone, InstanceType: key.InstanceType},
	}
}

// upsertOffer returns the offer's id, creating the row or refreshing its
// hardware (a fixed misreport in a later file should win) and the cloud's
// identifiers (a cloud may renumber a SKU or meter; the newest is the one
// its bills carry).
func (s *saver) upsertOffer(o pricewatch.Offer, cur *currentPrice) (int64, error) {
	if cur != nil && cur.hw == o.Hardware && cur.ids == o.CloudIDs {
		return cur.offerID, nil
	}
	var id int64
	err := s.queryRow(`INSERT INTO offers (provider, region, zone, instance_type, price_type, term, payment, offering_class, os,
		gpu_model, gpu_count, gpu_memory_gb, vcpus, memory_gb, interconnect, local_storage, sku_id, sku_price_id, product_id, region_name)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (provider, region, zone, instance_type, price_type, term, payment, offering_class, os) DO UPDATE SET
		gpu_model = excluded.gpu_model, gpu_count = excluded.gpu_count, gpu_memory_gb = excluded.gpu_memory_gb,
		vcpus = excluded.vcpus, memory_gb = excluded.memory_gb,
		interconnect = excluded.interconnect, local_storage = excluded.local_storage, sku_id = excluded.sku_id, sku_price_id = excluded.sku_price_id,
		product_id = excluded.product_id, region_name = excluded.region_name RETURNING id`,
		o.Provider, o.Region, o.Zone, o.InstanceType, string(o.PriceType), o.Term, o.Payment, o.OfferingClass, o.OS,
		o.GPUModel, o.GPUCount, o.GPUMemoryGB, o.VCPUs, o.MemoryGB, o.Interconnect, o.LocalStorage, o.SkuID, o.SkuPriceID, o.ProductID, o.RegionName).Scan(&id)
	return id, err
}

func (s *saver) storeAvailability(snap *pricewatch.Snapshot, policy MovePolicy) error {
	rows, err := s.tx.QueryContext(s.ctx, `SELECT id, region, zone, instance_type, state, stock_detail, since, last_seen, missing_runs, gpu_model, gpu_count
		FROM availability WHERE provider = ? AND until IS NULL`, snap.Provider)
	if err != nil {
		return err
	}
	current := map[pricewatch.AvailabilityKey]*currentAvail{}
	for rows.Next() {
		c := &currentAvail{}
		k := pricewatch.AvailabilityKey{Provider: snap.Provider}
		var since, lastSeen string
		if err := rows.Scan(&c.id, &k.Region, &k.Zone, &k.InstanceType, &c.state, &c.stockDetail, &since, &lastSeen, &c.missingRuns, &c.gpuModel, &c.gpuCount); err != nil {
			rows.Close()
			return err
		}
		if c.since, err = parseTime(since); err == nil {
			c.lastSeen, err = parseTime(lastSeen)
		}
		if err != nil {
			rows.Close()
			return err
		}
		current[k] = c
	}
	if err := rows.Close(); err != nil {
		return err
	}
	// lastSeen is when a current pair was last seen before this run:
	// stored while it is missing, else the newest run that described its
	// region.
	lastSeen := func(k pricewatch.AvailabilityKey, c *currentAvail) string {
		if c.missingRuns > 0 {
			return formatTime(c.lastSeen)
		}
		return formatTime(later(c.lastSeen, s.seen.availability(k.Provider, k.Region)))
	}

	seen := map[pricewatch.AvailabilityKey]bool{}
	for _, a := range snap.Availability {
		k := a.Key()
		if seen[k] {
			return fmt.Errorf("availability %v listed twice in one snapshot", k)
		}
		seen[k] = true
		cur := current[k]
		if cur != nil && cur.state == a.State {
			// Unchanged is free unless the row itself must change, or no
			// scope of the run speaks for its region.
			if cur.missingRuns == 0 && cur.stockDetail == a.StockDetail && cur.gpuModel == a.GPUModel && cur.gpuCount == a.GPUCount &&
				(coveredAvailability(snap.Coverage, k.Region) || coveredAvailability(snap.Unchanged, k.Region)) {
				continue
			}
			if _, err := s.exec(`UPDATE availability SET last_seen = ?, stock_detail = ?, missing_runs = 0, missing_since = NULL,
				gpu_model = ?, gpu_count = ? WHERE id = ?`, s.ts, a.StockDetail, a.GPUModel, a.GPUCount, cur.id); err != nil {
				return err
			}
			continue
		}
		ch := pricewatch.Change{At: s.now, Place: k, NewState: a.State, Hardware: a.Hardware}
		if cur != nil {
			if _, err := s.exec(`UPDATE availability SET until = ?, last_seen = ? WHERE id = ?`, s.ts, lastSeen(k, cur), cur.id); err != nil {
				return err
			}
			ch.OldState, ch.OldSince = cur.state, cur.since
			ch.Kind = stockChangeKind(cur.state, a.State)
		} else {
			ch.Kind = pricewatch.AvailabilityNew
		}
		if ch.Kind != "" {
			s.res.Changes = append(s.res.Changes, ch)
		}
		if _, err := s.exec(`INSERT INTO availability (provider, region, zone, instance_type, gpu_model, gpu_count, state, stock_detail, since, last_seen)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, k.Provider, k.Region, k.Zone, k.InstanceType, a.GPUModel, a.GPUCount, string(a.State), a.StockDetail, s.ts, s.ts); err != nil {
			return err
		}
	}
	var missing []pricewatch.AvailabilityKey
	for k := range current {
		if !seen[k] && coveredAvailability(snap.Coverage, k.Region) {
			missing = append(missing, k)
		}
	}
	slices.SortFunc(missing, compareAvailabilityKeys)
	for _, k := range missing {
		cur := current[k]
		n := cur.missingRuns + 1
		if policy == nil || policy.Withdraw(n) {
			// The interval ends when the pair was first missed, not when
			// we became sure of it.
			if _, err := s.exec(`UPDATE availability SET until = COALESCE(missing_since, ?), missing_runs = ?, last_seen = ? WHERE id = ?`, s.ts, n, lastSeen(k, cur), cur.id); err != nil {
				return err
			}
			s.res.Changes = append(s.res.Changes, pricewatch.Change{
				Kind: pricewatch.AvailabilityGone, At: s.now, Place: k, OldState: cur.state, OldSince: cur.since,
				Hardware: pricewatch.Hardware{GPUModel: cur.gpuModel, GPUCount: cur.gpuCount},
			})
		} else if _, err := s.exec(`UPDATE availability SET missing_runs = ?, missing_since = COALESCE(missing_since, ?), last_seen = ? WHERE id = ?`, n, s.ts, lastSeen(k, cur), cur.id); err != nil {
			return err
		}
	}
	return nil
}

func stockChangeKind(from, to pricewatch.AvailabilityState) pricewatch.ChangeKind {
	switch {
	case to == pricewatch.InStock && from == pricewatch.SoldOut:
		return pricewatch.BackInStock
	case to == pricewatch.SoldOut && from == pricewatch.InStock:
		return pricewatch.SoldOutNow
	case to == pricewatch.SoldOut:
		return pricewatch.SoldOutNow
	case to == pricewatch.InStock:
		return pricewatch.BackInStock
	}
	// offered ↔ stock states: a cloud started or stopped reporting stock;
	// nothing a user would want alerted.
	return ""
}

func (s *saver) insertChanges() error {
	for _, c := range s.res.Changes {
		var old, new any
		if c.Old.Valid {
			old = c.Old.Decimal.String()
		}
		if c.New.Valid {
			new = c.New.Decimal.String()
		}
		if _, err := s.exec(`INSERT INTO changes (run_id, kind, at, provider, region, zone, instance_type, price_type, term, payment,
			offering_class, os, currency, old_price, new_price, old_state, new_state, gpu_model, gpu_count)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			s.runID, string(c.Kind), s.ts, c.Place.Provider, c.Place.Region, c.Place.Zone, c.Place.InstanceType,
			string(c.Offer.PriceType), c.Offer.Term, c.Offer.Payment, c.Offer.OfferingClass, c.Offer.OS, c.Currency,
			old, new, string(c.OldState), string(c.NewState), c.GPUModel, c.GPUCount); err != nil {
			return err
		}
	}
	return nil
}

func insertOutbox(ctx context.Context, tx *sql.Tx, now time.Time, msgs []OutboxMessage) error {
	ts := formatTime(now)
	for _, m := range msgs {
		// A message whose key is already stored was enqueued before (a
		// replayed run); inserting it again would deliver it twice.
		if _, err := tx.ExecContext(ctx, `INSERT INTO outbox (delivery_key, channel, kind, payload, created_at, next_attempt_at)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (delivery_key) DO NOTHING`, m.DeliveryKey, m.Channel, m.Kind, string(m.Payload), ts, ts); err != nil {
			return fmt.Errorf("queueing message %s: %w", m.DeliveryKey, err)
		}
	}
	return nil
}
