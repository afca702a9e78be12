package fx

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Store keeps the days of rates Update fetches (storage.DB is one).
type Store interface {
	// SaveRates stores (or replaces) a reference day.
	SaveRates(ctx context.Context, r Rates) error
	// HasRates says whether any day is stored.
	HasRates(ctx context.Context) (bool, error)
}

// Updater refreshes the stored exchange rates from the ECB feed: `fx
// update`, and after each cycle of `fetch` and the daemon.
type Updater struct {
	// Enabled is fx.enabled: off, nothing is fetched.
	Enabled bool
	// Client fetches the feed at Endpoint (empty: DefaultEndpoint).
	Client   Doer
	Endpoint string
}

// Update fetches the feed and stores it, returning a summary line.
func (u *Updater) Update(ctx context.Context, store Store) (string, error) {
	if !u.Enabled {
		return "", errors.New("exchange-rate updates are off (fx.enabled: false)")
	}
	rates, err := Fetch(ctx, u.Client, u.Endpoint)
	if err != nil {
		return "", fmt.Errorf("updating exchange rates: %w", err)
	}
	if err := store.SaveRates(ctx, rates); err != nil {
		return "", err
	}
	return fmt.Sprintf("%-8s ok       %s rates of %s (%d currencies)", "fx", rates.Source, rates.Date.Format(time.DateOnly), len(rates.PerEUR)), nil
}

// AfterCycle runs once after the providers of a cycle have been fetched:
// it refreshes exchange rates. A failure there is never fatal; it comes
// back both as a line for `fetch` to print and as the error for a caller
// that prints nothing (the daemon logs it), so it is reported once either
// way. The line says what the reports fall back on: the rates stored
// earlier, or, when none are, only fx.fixed_rates.
func (u *Updater) AfterCycle(ctx context.Context, store Store) ([]string, error) {
	if !u.Enabled || ctx.Err() != nil {
		return nil, nil
	}
	line, err := u.Update(ctx, store)
	if err == nil {
		return []string{line}, nil
	}
	fallback := "the rates stored earlier still apply"
	if has, herr := store.HasRates(ctx); herr == nil && !has {
		fallback = "no rates are stored yet: only fx.fixed_rates convert, other currencies are left unconverted"
	}
	return []string{fmt.Sprintf("%-8s failed   %v (%s)", "fx", err, fallback)}, err
}
