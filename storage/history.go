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

// PriceInterval is one stored price of one offer, valid from ValidFrom
// until ValidTo (nil while current).
type PriceInterval struct {
	ID int64
	pricewatch.Offer
	EffectiveHourly decimal.Decimal
	ValidFrom       time.Time
	ValidTo         *time.Time
	LastSeen        time.Time
}

// PriceFilter selects intervals. Empty fields match everything.
type PriceFilter struct {
	InstanceType string
	GPUModel     string
	Providers    []string
	Regions      []string
	PriceTypes   []pricewatch.PriceType
	OS           string
	// Since keeps intervals still valid at or after this time.
	Since time.Time
	// CurrentOnly keeps only intervals without an end.
	CurrentOnly bool
	// At, when set, keeps the intervals valid at that time: begun at or
	// before it and not ended by then.
	At time.Time
}

// Prices returns the intervals matching f, ordered by offer and time.
func (db *DB) Prices(ctx context.Context, f PriceFilter) ([]PriceInterval, error) {
	var where []string
	var args []any
	if f.InstanceType != "" {
		where = append(where, "o.instance_type = ?")
		args = append(args, f.InstanceType)
	}
	if f.GPUModel != "" {
		where = append(where, "o.gpu_model = ? COLLATE NOCASE")
		args = append(args, f.GPUModel)
	}
	where, args = inList(where, args, "o.provider", f.Providers)
	where, args = inList(where, args, "o.region", f.Regions)
	pts := make([]string, len(f.PriceTypes))
	for i, p := range f.PriceTypes {
		pts[i] = string(p)
	}
	where, args = inList(where, args, "o.price_type", pts)
	if f.OS != "" {
		where = append(where, "o.os = ?")
		args = append(args, f.OS)
	}
	if !f.Since.IsZero() {
		where = append(where, "(p.valid_to IS NULL OR p.valid_to >= ?)")
		args = append(args, formatTime(f.Since))
	}
	if f.CurrentOnly {
		where = append(where, "p.valid_to IS NULL")
	}
	if !f.At.IsZero() {
		at := formatTime(f.At)
		where = append(where, "p.valid_from <= ? AND (p.valid_to IS NULL OR p.valid_to > ?)")
		args = append(args, at, at)
	}
	q := `SELECT p.id, o.provider, o.region, o.zone, o.instance_type, o.price_type, o.term, o.payment, o.offering_class, o.os,
		p.currency, p.hourly, p.upfront, p.effective_hourly, o.gpu_model, o.gpu_count, o.gpu_memory_gb, o.vcpus, o.memory_gb,
		o.sku_id, o.sku_price_id, o.product_id, o.region_name, p.valid_from, p.valid_to, p.last_seen
		FROM prices p JOIN offers o ON o.id = p.offer_id`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += ` ORDER BY o.provider, o.region, o.zone, o.instance_type, o.os, o.price_type, o.term, o.payment, o.offering_class, p.valid_from, p.id`
	rows, err := db.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("reading price history: %w", err)
	}
	defer rows.Close()
	var out []PriceInterval
	for rows.Next() {
		var p PriceInterval
		var hourly, upfront, eff, from, seen string
		var to sql.NullString
		if err := rows.Scan(&p.ID, &p.Provider, &p.Region, &p.Zone, &p.InstanceType, &p.PriceType, &p.Term, &p.Payment, &p.OfferingClass, &p.OS,
			&p.Currency, &hourly, &upfront, &eff, &p.GPUModel, &p.GPUCount, &p.GPUMemoryGB, &p.VCPUs, &p.MemoryGB,
			&p.SkuID, &p.SkuPriceID, &p.ProductID, &p.RegionName, &from, &to, &seen); err != nil {
			return nil, fmt.Errorf("reading price history: %w", err)
		}
		var err error
		if p.Hourly, err = decimal.NewFromString(hourly); err == nil {
			if p.Upfront, err = decimal.NewFromString(upfront); err == nil {
				p.EffectiveHourly, err = decimal.NewFromString(eff)
			}
		}
		if err == nil {
			if p.ValidFrom, err = parseTime(from); err == nil {
				if p.ValidTo, err = parseNullTime(to); err == nil {
					p.LastSeen, err = parseTime(seen)
				}
			}
		}
		if err != nil {
			return nil, fmt.Errorf("reading price %d: %w", p.ID, err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// AvailabilityInterval is one stored availability state of a type in a
// region or zone.
type AvailabilityInterval struct {
	ID int64
	pricewatch.AvailabilityKey
	GPUModel    string
	GPUCount    float64
	State       pricewatch.AvailabilityState
	StockDetail string
	Since       time.Time
	Until       *time.Time
	LastSeen    time.Time
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
func (db *DB) Availability(ctx context.Context, f AvailabilityFilter) ([]AvailabilityInterval, error) {
	var where []string
	var args []any
	if f.InstanceType != "" {
		where = append(where, "instance_type = ?")
		args = append(args, f.InstanceType)
	}
	if f.GPUModel != "" {
		where = append(where, "gpu_model = ? COLLATE NOCASE")
		args = append(args, f.GPUModel)
	}
	where, args = inList(where, args, "provider", f.Providers)
	where, args = inList(where, args, "region", f.Regions)
	if !f.All {
		where = append(where, "until IS NULL")
	}
	if !f.Since.IsZero() {
		where = append(where, "(until IS NULL OR until >= ?)")
		args = append(args, formatTime(f.Since))
	}
	q := `SELECT id, provider, region, zone, instance_type, gpu_model, gpu_count, state, stock_detail, since, until, last_seen FROM availability`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY provider, region, zone, instance_type, since, id"
	rows, err := db.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("reading availability: %w", err)
	}
	defer rows.Close()
	var out []AvailabilityInterval
	for rows.Next() {
		var a AvailabilityInterval
		var since, seen string
		var until sql.NullString
		if err := rows.Scan(&a.ID, &a.Provider, &a.Region, &a.Zone, &a.InstanceType, &a.GPUModel, &a.GPUCount, &a.State, &a.StockDetail, &since, &until, &seen); err != nil {
			return nil, fmt.Errorf("reading availability: %w", err)
		}
		var err error
		if a.Since, err = parseTime(since); err == nil {
			if a.Until, err = parseNullTime(until); err == nil {
				a.LastSeen, err = parseTime(seen)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("reading availability %d: %w", a.ID, err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
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
