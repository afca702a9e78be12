package storage

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/pricewatch/pricewatch"
)

// What a complete run saw is recorded once per scope it covered, not once
// per row: an unchanged price or availability costs no write. The newest
// run covering a current row is when that row was last seen (a covering
// run either lists the row or closes it, so a row still current was listed
// by every run that covered it).

const (
	subjectPrices       = "prices"
	subjectAvailability = "availability"
)

type seenKey struct {
	provider, subject, region, priceType string
}

// seenIndex holds scope_seen: the newest complete run per scope.
type seenIndex map[seenKey]time.Time

type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// loadSeen reads scope_seen for provider ("" for every provider).
func loadSeen(ctx context.Context, q queryer, provider string) (seenIndex, error) {
	query := `SELECT provider, subject, region, price_type, seen_at FROM scope_seen`
	var args []any
	if provider != "" {
		query += ` WHERE provider = ?`
		args = append(args, provider)
	}
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("reading what runs saw: %w", err)
	}
	defer rows.Close()
	idx := seenIndex{}
	for rows.Next() {
		var k seenKey
		var at string
		if err := rows.Scan(&k.provider, &k.subject, &k.region, &k.priceType, &at); err != nil {
			return nil, fmt.Errorf("reading what runs saw: %w", err)
		}
		t, err := parseTime(at)
		if err != nil {
			return nil, fmt.Errorf("reading what runs saw: %w", err)
		}
		idx[k] = t
	}
	return idx, rows.Err()
}

// PriceSeen is when complete runs last covered each provider's offers,
// by region and price type (scope_seen): for a caller that reads current
// prices without their offers (PriceFilter.PricesOnly) and knows them, to
// work out each one's LastSeen as a read with its offer does.
type PriceSeen struct{ idx seenIndex }

// LastSeen is a current price's LastSeen, stored as stored, of an offer
// of provider in region with price type pt.
func (s PriceSeen) LastSeen(stored time.Time, provider, region string, pt pricewatch.PriceType) time.Time {
	return later(stored, s.idx.price(provider, region, pt))
}

// PriceSeen reads what complete runs covered.
func (db *DB) PriceSeen(ctx context.Context) (PriceSeen, error) {
	idx, err := loadSeen(ctx, db.read, "")
	return PriceSeen{idx}, err
}

// price is when a complete run last covered an offer of provider in region
// with price type pt (zero if none did).
func (idx seenIndex) price(provider, region string, pt pricewatch.PriceType) time.Time {
	var newest time.Time
	for _, r := range [2]string{region, pricewatch.AllRegions} {
		for _, p := range [2]string{string(pt), ""} {
			if t, ok := idx[seenKey{provider, subjectPrices, r, p}]; ok && t.After(newest) {
				newest = t
			}
		}
	}
	return newest
}

// availability is when a complete run last described availability of
// provider in region.
func (idx seenIndex) availability(provider, region string) time.Time {
	var newest time.Time
	for _, r := range [2]string{region, pricewatch.AllRegions} {
		if t, ok := idx[seenKey{provider, subjectAvailability, r, ""}]; ok && t.After(newest) {
			newest = t
		}
	}
	return newest
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// recordSeen stores the scopes a run described (fully or as unchanged).
func (s *saver) recordSeen(snap *pricewatch.Snapshot) error {
	put := func(subject, region, pt string) error {
		_, err := s.exec(`INSERT INTO scope_seen (provider, subject, region, price_type, run_id, seen_at) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (provider, subject, region, price_type) DO UPDATE SET run_id = excluded.run_id, seen_at = excluded.seen_at`,
			snap.Provider, subject, region, pt, s.runID, s.ts)
		return err
	}
	for _, scopes := range [][]pricewatch.Scope{snap.Coverage, snap.Unchanged} {
		for _, sc := range scopes {
			if len(sc.PriceTypes) == 0 {
				if err := put(subjectPrices, sc.Region, ""); err != nil {
					return err
				}
			}
			for _, pt := range sc.PriceTypes {
				if err := put(subjectPrices, sc.Region, string(pt)); err != nil {
					return err
				}
			}
			if sc.Availability {
				if err := put(subjectAvailability, sc.Region, ""); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
