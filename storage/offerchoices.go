package storage

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/pricewatch/pricewatch"
)

// OfferChoice is one combination of provider, price type, GPU model and
// currency among the current prices, with how many offers have it.
type OfferChoice struct {
	Provider  string
	PriceType pricewatch.PriceType
	GPUModel  string
	Currency  string
	Offers    int
}

// CurrentOfferChoices lists what the current prices of the OS (empty:
// every OS) are made of, for the offers table's filter choices: counted in
// SQL, so that a filtered table need not read every offer to offer the
// others as choices. Plain SQL for SQLite and PostgreSQL alike.
func (db *DB) CurrentOfferChoices(ctx context.Context, os string) ([]OfferChoice, error) {
	q := `SELECT o.provider, o.price_type, o.gpu_model, p.currency, COUNT(*) FROM offers o JOIN prices p ON p.offer_id = o.id
		WHERE p.valid_to IS NULL`
	var args []any
	if os != "" {
		q += ` AND o.os = ?`
		args = append(args, os)
	}
	q += ` GROUP BY o.provider, o.price_type, o.gpu_model, p.currency ORDER BY o.provider, o.price_type, o.gpu_model, p.currency`
	return queryAll(ctx, db.read, "listing the current offers' choices", q, args, func(rows *sql.Rows) (OfferChoice, error) {
		var c OfferChoice
		if err := rows.Scan(&c.Provider, &c.PriceType, &c.GPUModel, &c.Currency, &c.Offers); err != nil {
			return c, fmt.Errorf("listing the current offers' choices: %w", err)
		}
		return c, nil
	})
}
