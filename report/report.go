// Package report builds the rows the read commands print with --format json
// and the HTTP API answers with: compare, history, availability, savings,
// trends, runs and alerts. The CLI and the API both call it, so the two
// cannot drift apart; only the table and CSV layouts stay with the CLI.
package report

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fx"
	"github.com/pricewatch/pricewatch/storage"
)

// Store is what the reports read.
type Store interface {
	Prices(ctx context.Context, f storage.PriceFilter) ([]storage.PriceInterval, error)
	// EachPrice streams what Prices returns (fn must not keep p).
	EachPrice(ctx context.Context, f storage.PriceFilter, fn func(p *storage.PriceInterval) error) error
	// EachChartPrice streams a chart's prices from f.Since to "to" at a
	// bounded cost: the daily summary before the last days, the stored
	// intervals in them (storage.DB.EachChartPrice).
	EachChartPrice(ctx context.Context, f storage.PriceFilter, to time.Time, fn func(p *storage.PriceInterval) error) error
	// GPUModels are the GPU models stored on offers, for filters in SQL.
	GPUModels(ctx context.Context) ([]string, error)
	// PriceChanges counts the changes of a span per GPU model and region.
	PriceChanges(ctx context.Context, from, to time.Time, os string, models []string) ([]storage.ChangeCount, error)
	Availability(ctx context.Context, f storage.AvailabilityFilter) ([]pricewatch.AvailabilityInterval, error)
	LastRuns(ctx context.Context) ([]pricewatch.Run, error)
	LastSuccess(ctx context.Context, provider string) (*pricewatch.Run, error)
	ListOutbox(ctx context.Context, f storage.OutboxFilter) ([]storage.OutboxEntry, error)
	FXDays(ctx context.Context) ([]storage.FXDay, error)
	// Signals are the capacity signals' intervals (issue 23).
	Signals(ctx context.Context, f storage.SignalFilter) ([]storage.SignalInterval, error)
}

// FXDayStore is the one read FXBook needs (the reports' Store and the
// metrics collector's store both have it).
type FXDayStore interface {
	FXDays(ctx context.Context) ([]storage.FXDay, error)
}

// FX is what the reports read of the fx section (the composition hands it
// over; the reports read no config).
type FX struct {
	// Currency is the default currency of a comparison (fx.currency).
	Currency string
	// FixedRates are units of each currency per 1 EUR, used where no
	// published rate is stored (fx.fixed_rates).
	FixedRates map[string]string
	// MaxAge: a rate older than this is flagged wherever it is used
	// (fx.max_age).
	MaxAge time.Duration
}

// FXBook is the exchange rates the reports and the metrics convert with:
// the stored ECB days and the configured fixed rates.
func FXBook(ctx context.Context, st FXDayStore, cfg FX) (*fx.Book, error) {
	days, err := st.FXDays(ctx)
	if err != nil {
		return nil, err
	}
	rates := make([]fx.Rates, len(days))
	for i, d := range days {
		rates[i] = fx.Rates{Date: d.Date, Source: d.Source, PerEUR: d.PerEUR}
	}
	fixed, err := fx.ParseFixed(cfg.FixedRates)
	if err != nil {
		return nil, fmt.Errorf("fx.fixed_rates: %w", err)
	}
	return fx.NewBook(rates, fixed, cfg.MaxAge)
}

// Decimal marshals an exact decimal as a JSON number, never through float64.
type Decimal decimal.Decimal

func (d Decimal) MarshalJSON() ([]byte, error) { return []byte(decimal.Decimal(d).String()), nil }

// UnmarshalJSON reads a JSON number (or a string holding one) exactly.
func (d *Decimal) UnmarshalJSON(b []byte) error {
	var v decimal.Decimal
	if err := v.UnmarshalJSON(b); err != nil {
		return err
	}
	*d = Decimal(v)
	return nil
}

// String is every stored digit, as JSON and CSV carry it.
func (d Decimal) String() string { return decimal.Decimal(d).String() }

// NullDecimal is a JSON number or null.
type NullDecimal struct {
	D     decimal.Decimal
	Valid bool
}

// NewNullDecimal is d when ok, else null.
func NewNullDecimal(d decimal.Decimal, ok bool) NullDecimal { return NullDecimal{D: d, Valid: ok} }

func (d NullDecimal) MarshalJSON() ([]byte, error) {
	if !d.Valid {
		return []byte("null"), nil
	}
	return []byte(d.D.String()), nil
}

func (d *NullDecimal) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*d = NullDecimal{}
		return nil
	}
	if err := d.D.UnmarshalJSON(b); err != nil {
		return err
	}
	d.Valid = true
	return nil
}

// Text is the number, or "" for null (a CSV cell).
func (d NullDecimal) Text() string {
	if !d.Valid {
		return ""
	}
	return d.D.String()
}

// Time prints RFC 3339 in UTC; a nil time is null.
func Time(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UTC().Format(time.RFC3339)
}

// WriteJSON writes v as the CLI prints it: indented by two spaces, one
// trailing newline. The API writes the same bytes.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// ParamError is a bad query: a flag or parameter value that makes no sense.
// The API answers it with 400.
type ParamError struct{ Msg string }

func (e *ParamError) Error() string { return e.Msg }

func paramErr(format string, args ...any) error {
	return &ParamError{Msg: fmt.Sprintf(format, args...)}
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
