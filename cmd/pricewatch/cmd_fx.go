package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fx"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
)

func (a *app) fxCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "fx", Short: "Exchange rates (ECB euro reference rates)"}
	cmd.AddCommand(&cobra.Command{
		Use:   "update",
		Short: "Fetch today's ECB reference rates and store them",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			db, err := a.openDB(cmd.Context())
			if err != nil {
				return err
			}
			line, err := a.updateFX(cmd.Context(), db)
			if err != nil {
				return err
			}
			fmt.Fprintln(a.stdout, line)
			return nil
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "show",
		Short: "Show the newest stored rates",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			db, err := a.openReader(cmd.Context())
			if err != nil {
				return err
			}
			days, err := db.FXDays(cmd.Context())
			if err != nil {
				return err
			}
			if len(days) == 0 {
				fmt.Fprintln(a.stdout, "No exchange rates stored yet: run `pricewatch fx update`.")
				return nil
			}
			last := days[len(days)-1]
			age := time.Since(last.Date)
			t := newTable("CURRENCY", ">PER 1 EUR", "DATE", "SOURCE")
			for _, cur := range (fx.Rates{PerEUR: last.PerEUR}).Currencies() {
				t.add(cur, last.PerEUR[cur].String(), last.Date.Format(time.DateOnly), last.Source)
			}
			if err := t.write(a.stdout); err != nil {
				return err
			}
			if age > a.cfg.FX.MaxAge {
				fmt.Fprintf(a.stdout, "STALE: the newest rates are %d days old (fx.max_age is %s).\n", int(age.Hours()/24), a.cfg.FX.MaxAge)
			}
			return nil
		},
	})
	return cmd
}

// updateFX fetches the ECB feed and stores it, returning a summary line.
func (a *app) updateFX(ctx context.Context, db *storage.DB) (string, error) {
	if !a.cfg.FX.Enabled {
		return "", fmt.Errorf("exchange-rate updates are off (fx.enabled: false)")
	}
	client := fetchers.NewClient(fetchers.DefaultRetryPolicy())
	rates, err := fx.Fetch(ctx, client, a.cfg.FX.Endpoint)
	if err != nil {
		return "", fmt.Errorf("updating exchange rates: %w", err)
	}
	if err := db.SaveFXDay(ctx, storage.FXDay{Date: rates.Date, Source: rates.Source, PerEUR: rates.PerEUR}); err != nil {
		return "", err
	}
	return fmt.Sprintf("%-8s ok       %s rates of %s (%d currencies)", "fx", rates.Source, rates.Date.Format(time.DateOnly), len(rates.PerEUR)), nil
}

// fxBook loads every stored reference day plus the configured fixed rates.
func (a *app) fxBook(ctx context.Context, db *storage.DB) (*fx.Book, error) {
	return report.FXBook(ctx, db, a.cfg.FX)
}
