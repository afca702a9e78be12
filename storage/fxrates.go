package storage

import (
	"context"

	"github.com/pricewatch/pricewatch/fx"
)

// SaveRates stores a day of rates fx fetched (fx.Store).
func (db *DB) SaveRates(ctx context.Context, r fx.Rates) error {
	return db.SaveFXDay(ctx, FXDay{Date: r.Date, Source: r.Source, PerEUR: r.PerEUR})
}

// HasRates says whether any day of rates is stored (fx.Store).
func (db *DB) HasRates(ctx context.Context) (bool, error) {
	days, err := db.FXDays(ctx)
	return len(days) > 0, err
}
