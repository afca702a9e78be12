package storage

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
)

// ChangeFilter selects stored changes: those detected after Since, of the
// kinds, GPU models, providers, regions and instance types listed (an empty
// list: any). Limit bounds the answer (0: no bound).
type ChangeFilter struct {
	Since         time.Time
	Kinds         []pricewatch.ChangeKind
	GPUModels     []string
	Providers     []string
	Regions       []string
	InstanceTypes []string
	Limit         int
}

// Changes lists the stored changes the filter selects, newest first: the
// facts each run found when it stored (price_new, price_changed, price_gone,
// availability_new, availability_gone, back_in_stock, sold_out), as the
// run's transaction wrote them. They are kept for MinChangesAge at least
// (Maintain); an older since reads what is left.
func (db *DB) Changes(ctx context.Context, f ChangeFilter) ([]pricewatch.Change, error) {
	var where []string
	var args []any
	if !f.Since.IsZero() {
		where = append(where, "at > ?")
		args = append(args, formatTime(f.Since))
	}
	in := func(col string, vals []string) {
		if len(vals) == 0 {
			return
		}
		where = append(where, col+" IN (?"+strings.Repeat(", ?", len(vals)-1)+")")
		for _, v := range vals {
			args = append(args, v)
		}
	}
	kinds := make([]string, len(f.Kinds))
	for i, k := range f.Kinds {
		kinds[i] = string(k)
	}
	in("kind", kinds)
	in("gpu_model", f.GPUModels)
	in("provider", f.Providers)
	in("region", f.Regions)
	in("instance_type", f.InstanceTypes)
	q := `SELECT kind, at, provider, region, zone, instance_type, price_type, term, payment, offering_class, os, currency,
		old_price, new_price, old_state, new_state, gpu_model, gpu_count FROM changes`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	// id breaks ties between the changes of one run, which share their at.
	q += " ORDER BY at DESC, id DESC"
	if f.Limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", f.Limit)
	}
	return queryAll(ctx, db.read, "reading changes", q, args, scanChange)
}

func scanChange(rows *sql.Rows) (pricewatch.Change, error) {
	var c pricewatch.Change
	var kind, at, oldState, newState string
	var oldPrice, newPrice sql.NullString
	if err := rows.Scan(&kind, &at, &c.Place.Provider, &c.Place.Region, &c.Place.Zone, &c.Place.InstanceType,
		&c.Offer.PriceType, &c.Offer.Term, &c.Offer.Payment, &c.Offer.OfferingClass, &c.Offer.OS, &c.Currency,
		&oldPrice, &newPrice, &oldState, &newState, &c.GPUModel, &c.GPUCount); err != nil {
		return c, fmt.Errorf("reading changes: %w", err)
	}
	c.Kind, c.OldState, c.NewState = pricewatch.ChangeKind(kind), pricewatch.AvailabilityState(oldState), pricewatch.AvailabilityState(newState)
	// The offer key repeats the place: a price change names the price
	// point, an availability change only the place.
	c.Offer.Provider, c.Offer.Region, c.Offer.Zone, c.Offer.InstanceType = c.Place.Provider, c.Place.Region, c.Place.Zone, c.Place.InstanceType
	var err error
	if c.At, err = parseTime(at); err != nil {
		return c, fmt.Errorf("reading changes: %w", err)
	}
	for _, p := range []struct {
		s  sql.NullString
		to *decimal.NullDecimal
	}{{oldPrice, &c.Old}, {newPrice, &c.New}} {
		if !p.s.Valid {
			continue
		}
		d, err := decimal.NewFromString(p.s.String)
		if err != nil {
			return c, fmt.Errorf("reading changes: price %q: %w", p.s.String, err)
		}
		*p.to = decimal.NewNullDecimal(d)
	}
	return c, nil
}
