package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch/cmd/internal/buyflags"
	"github.com/pricewatch/pricewatch/cmd/internal/datasetflags"
	"github.com/pricewatch/pricewatch/pricesheet"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
)

// Export formats.
const (
	formatFocusCSV = "focus-csv"
	formatJSONL    = "jsonl"
)

type exportFlags struct {
	format     string
	at         string
	gpu        string
	providers  []string
	regions    []string
	priceTypes []string
	os         string
	seller     string
	dataset    datasetflags.Flags
}

func (a *app) exportCommand() *cobra.Command {
	var f exportFlags
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write the prices current at a time as a price sheet (FOCUS-aligned CSV, CSV or JSON lines)",
		Long: `Write every stored price current at a time (now unless --at) as one row per
offer, in the cloud's own currency, with the cloud's own identifiers (AWS
product SKU and rate code, Azure skuId and meterId) so that the rows join
with the clouds' bills.

--format focus-csv writes a FOCUS 1.2 price sheet (docs/focus.md): the FOCUS
columns that apply to a price list, filled to the specification's rules, then
pricewatch's own with the x_ prefix. Every row has one SkuPriceId and one
unit price; a commitment's ListUnitPrice is the on-demand price of the same
SKU and its own rate is ContractedUnitPrice; a fee paid at once is a
Purchase row of its own; prices are billed in fx.currency (PricingCurrency
and PricingCurrencyListUnitPrice keep the cloud's). It is a price sheet, not
a cost-and-usage dataset: no billing period, no cost.`,
		Example: `  pricewatch export --format focus-csv > prices.csv
  pricewatch export --gpu H100 --provider azure --price-type reserved --format jsonl
  pricewatch export --at 2026-11-01T00:00:00Z --format csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(f.format, formatFocusCSV, formatCSV, formatJSONL); err != nil {
				return err
			}
			if err := checkOS(f.os); err != nil {
				return err
			}
			pts, seller, err := parseSale(f.priceTypes, f.seller)
			if err != nil {
				return err
			}
			sel := pricesheet.Selection{GPU: f.gpu, Seller: seller}
			filter := storage.PriceFilter{Providers: f.providers, Regions: f.regions, PriceTypes: pts, OS: sqlOS(f.os), CurrentOnly: true}
			if f.at != "" {
				at, err := time.Parse(time.RFC3339, f.at)
				if err != nil {
					return usagef("--at %q: want an RFC 3339 time such as 2026-11-01T00:00:00Z", f.at)
				}
				filter.CurrentOnly, filter.At = false, []time.Time{at.UTC()}
			}
			ctx := cmd.Context()
			db, err := a.openReader(ctx)
			if err != nil {
				return err
			}
			if f.gpu != "" {
				// An unknown model is "not stored" (exit 4, with the
				// nearest stored names), as compare says, not an empty sheet.
				if err := report.CheckGPUModel(ctx, db, f.gpu); err != nil {
					return err
				}
			}
			if f.format == formatFocusCSV {
				at := time.Now().UTC()
				if len(filter.At) > 0 {
					at = filter.At[0]
				}
				book, err := report.FXBook(ctx, db, reportFX(a.cfg.FX))
				if err != nil {
					return err
				}
				return pricesheet.StreamFOCUS(ctx, a.stdout, db, filter, sel, pricesheet.FOCUSOptions{Currency: a.cfg.FX.Currency, FX: book, At: at, SKUPrice: f.dataset.SKUPriceWindow()})
			}
			prices, err := db.Prices(ctx, filter)
			if err != nil {
				return err
			}
			rows := pricesheet.Rows(prices, sel)
			if f.format == formatCSV {
				return pricesheet.WriteCSV(a.stdout, rows)
			}
			return pricesheet.WriteJSONL(a.stdout, rows)
		},
	}
	cmd.Flags().StringVar(&f.format, "format", formatFocusCSV, "output format: focus-csv, csv or jsonl")
	cmd.Flags().StringVar(&f.at, "at", "", "the prices current at this RFC 3339 time (default now)")
	cmd.Flags().StringVar(&f.gpu, "gpu", "", "only this GPU model or family (A100 covers A100-40GB and A100-80GB)")
	providerFlag(cmd, &f.providers, "only this provider")
	cmd.Flags().StringSliceVar(&f.regions, "region", nil, "only this region code; repeatable")
	cmd.Flags().StringSliceVar(&f.priceTypes, "price-type", nil, "on_demand, spot, reserved, savings_plan, capacity_block or any (default any); repeatable")
	cmd.Flags().StringVar(&f.os, "os", "", "operating system: linux (default), windows or any")
	buyflags.AddSeller(cmd, &f.seller)
	datasetflags.Add(cmd, &f.dataset, func() bool { return f.format == formatFocusCSV && f.at == "" })
	return cmd
}
