package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/shopspring/decimal"
)

// FXDay is one reference day of exchange rates: units of each currency per
// 1 EUR, with where they came from.
type FXDay struct {
	Date   time.Time
	Source string
	PerEUR map[string]decimal.Decimal
}

// SaveFXDay stores (or replaces) a reference day.
func (db *DB) SaveFXDay(ctx context.Context, day FXDay) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("storing exchange rates: %w", err)
	}
	defer tx.Rollback()
	date, fetched := day.Date.UTC().Format(time.DateOnly), formatTime(db.Now())
	for cur, rate := range day.PerEUR {
		if _, err := tx.ExecContext(ctx, `INSERT INTO fx_rates (date, currency, rate, source, fetched_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (date, currency) DO UPDATE SET rate = excluded.rate, source = excluded.source, fetched_at = excluded.fetched_at`,
			date, cur, rate.String(), day.Source, fetched); err != nil {
			return fmt.Errorf("storing exchange rate %s %s: %w", date, cur, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("storing exchange rates: %w", err)
	}
	return nil
}

// FXDays returns every stored reference day, oldest first.
func (db *DB) FXDays(ctx context.Context) ([]FXDay, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT date, currency, rate, source FROM fx_rates ORDER BY date, currency`)
	if err != nil {
		return nil, fmt.Errorf("reading exchange rates: %w", err)
	}
	defer rows.Close()
	var out []FXDay
	for rows.Next() {
		var date, cur, rate, source string
		if err := rows.Scan(&date, &cur, &rate, &source); err != nil {
			return nil, fmt.Errorf("reading exchange rates: %w", err)
		}
		d, err := time.Parse(time.DateOnly, date)
		if err != nil {
			return nil, fmt.Errorf("reading exchange rate date %q: %w", date, err)
		}
		r, err := decimal.NewFromString(rate)
		if err != nil {
			return nil, fmt.Errorf("reading exchange rate %s %s: %w", date, cur, err)
		}
		if len(out) == 0 || !out[len(out)-1].Date.Equal(d) {
			out = append(out, FXDay{Date: d, Source: source, PerEUR: map[string]decimal.Decimal{}})
		}
		out[len(out)-1].PerEUR[cur] = r
	}
	return out, rows.Err()
}
