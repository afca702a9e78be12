package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch/compose"
	"github.com/pricewatch/pricewatch/config"
	"github.com/pricewatch/pricewatch/fx"
	"github.com/pricewatch/pricewatch/internal/table"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
)

func (a *app) fxCommand() *cobra.Command {
	update := &cobra.Command{
		Use:   "update",
		Short: "Fetch today's ECB reference rates and store them",
		Args:  cobra.NoArgs,
		RunE: withDB(a.openDB, func(ctx context.Context, db *storage.DB) error {
			line, err := a.wiring().Rates().Update(ctx, db)
			if err != nil {
				return err
			}
			fmt.Fprintln(a.stdout, line)
			return nil
		}),
	}
	var format string
	show := &cobra.Command{
		Use:   "show",
		Short: "Show the newest stored rates",
		Args:  cobra.NoArgs,
		RunE: withDB(a.openReader, func(ctx context.Context, db *storage.DB) error {
			days, err := db.FXDays(ctx)
			if err != nil {
				return err
			}
			if len(days) == 0 && format == formatTable {
				fmt.Fprintln(a.stdout, "No exchange rates stored yet: run `pricewatch fx update`.")
				return nil
			}
			rows := []fxRow{}
			var last storage.FXDay
			if len(days) > 0 {
				last = days[len(days)-1]
			}
			age := time.Since(last.Date)
			for _, cur := range (fx.Rates{PerEUR: last.PerEUR}).Currencies() {
				rows = append(rows, fxRow{Currency: cur, PerEUR: jsonDecimal(last.PerEUR[cur]), Date: last.Date.Format(time.DateOnly),
					Source: last.Source, Stale: age > a.cfg.FX.MaxAge})
			}
			switch format {
			case formatJSON:
				return writeJSON(a.stdout, rows)
			case formatCSV:
				return writeRowsCSV(a.stdout, rows)
			}
			t := table.New("CURRENCY", ">PER 1 EUR", "DATE", "SOURCE")
			for _, cur := range (fx.Rates{PerEUR: last.PerEUR}).Currencies() {
				t.Add(cur, last.PerEUR[cur].String(), last.Date.Format(time.DateOnly), last.Source)
			}
			if err := writeTable(a.stdout, t); err != nil {
				return err
			}
			if age > a.cfg.FX.MaxAge {
				fmt.Fprintf(a.stdout, "STALE: the newest rates are %d days old (fx.max_age is %s).\n", int(age.Hours()/24), a.cfg.FX.MaxAge)
			}
			return nil
		}),
	}
	formatFlag(show, &format, "output format: table, json or csv")
	return group("fx", "Exchange rates (ECB euro reference rates)", "", update, show)
}

// fxRow is one currency of `fx show --format json|csv`.
type fxRow struct {
	Currency string      `json:"currency"`
	PerEUR   jsonDecimal `json:"per_eur"`
	Date     string      `json:"fx_date"`
	Source   string      `json:"fx_source"`
	Stale    bool        `json:"fx_stale"`
}

// reportFX is what the reports read of the fx section.
func reportFX(c config.FX) report.FX { return compose.ReportFX(c) }
