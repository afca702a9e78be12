package storage

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// CurrentPriceKey is what tells a held current price from the store's:
// the interval's id and its offer's, and the row's last_seen as stored
// (before PriceSeen applies what runs covered). An interval's prices and
// start never change once stored, so a holder whose interval has the same
// id needs nothing else of it.
type CurrentPriceKey struct {
	ID, OfferID int64
	LastSeen    time.Time
}

// EachCurrentPriceKey calls fn with the key of each current price of the
// providers' offers (every OS), in no particular order. Issue 30: the
// current state's update after a run read every current price of the
// provider that ran, nine columns sorted by offer, to find the few the
// run changed; this is three columns from prices_current_cover, unsorted.
func (db *DB) EachCurrentPriceKey(ctx context.Context, providers []string, fn func(CurrentPriceKey) error) error {
	if len(providers) == 0 {
		return nil
	}
	where, args := offerConditions(PriceFilter{Providers: providers})
	q := `SELECT p.id, p.offer_id, p.last_seen FROM prices p INDEXED BY prices_current_cover
		WHERE p.valid_to IS NULL AND p.offer_id IN (SELECT o.id FROM offers o WHERE ` + strings.Join(where, " AND ") + `)`
	rows, err := db.read.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("reading the current prices' keys: %w", err)
	}
	defer rows.Close()
	var seen []byte
	for rows.Next() {
		var k CurrentPriceKey
		if err := rows.Scan(&k.ID, &k.OfferID, &seen); err != nil {
			return fmt.Errorf("reading the current prices' keys: %w", err)
		}
		if k.LastSeen, err = parseTime(string(seen)); err != nil {
			return fmt.Errorf("reading the current prices' keys: price %d: %w", k.ID, err)
		}
		if err := fn(k); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("reading the current prices' keys: %w", err)
	}
	return nil
}
