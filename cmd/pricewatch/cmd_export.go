package main

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/focus"
	"github.com/pricewatch/pricewatch/gpu"
	"github.com/pricewatch/pricewatch/internal/clitext"
	"github.com/pricewatch/pricewatch/providers"
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
			pts, err := parsePriceTypes(f.priceTypes)
			if err != nil {
				return err
			}
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
				return a.writeFocus(ctx, db, filter, f.gpu, at)
			}
			prices, err := db.Prices(ctx, filter)
			if err != nil {
				return err
			}
			rows := exportRows(prices, f.gpu)
			if f.format == formatCSV {
				return writeExportCSV(a.stdout, rows)
			}
			return writeExportJSONL(a.stdout, rows)
		},
	}
	cmd.Flags().StringVar(&f.format, "format", formatFocusCSV, "output format: focus-csv, csv or jsonl")
	cmd.Flags().StringVar(&f.at, "at", "", "the prices current at this RFC 3339 time (default now)")
	cmd.Flags().StringVar(&f.gpu, "gpu", "", "only this GPU model or family (A100 covers A100-40GB and A100-80GB)")
	providerFlag(cmd, &f.providers, "only this provider ("+strings.Join(providerNames, ", ")+"); repeatable")
	cmd.Flags().StringSliceVar(&f.regions, "region", nil, "only this region code; repeatable")
	cmd.Flags().StringSliceVar(&f.priceTypes, "price-type", nil, "on_demand, spot, reserved, savings_plan or any (default any); repeatable")
	cmd.Flags().StringVar(&f.os, "os", "", "operating system: linux (default), windows or any")
	return cmd
}

// exportRow is one price of the sheet. The JSON names are the jsonl and
// csv contract.
type exportRow struct {
	pricewatch.OfferKeyJSON
	RegionName      string          `json:"region_name"`
	Currency        string          `json:"currency"`
	HourlyPrice     jsonDecimal     `json:"hourly_price"`
	Upfront         jsonDecimal     `json:"upfront"`
	EffectiveHourly jsonDecimal     `json:"effective_hourly"`
	PricePerGPUHour jsonNullDecimal `json:"price_per_gpu_hour"`
	GPUModel        string          `json:"gpu_model"`
	GPUCount        float64         `json:"gpu_count"`
	SkuID           string          `json:"sku_id"`
	SkuPriceID      string          `json:"sku_price_id"`
	ProductID       string          `json:"product_id"`
	ValidFrom       string          `json:"valid_from"`
}

// exportRows turns stored intervals into sheet rows, keeping a GPU model or
// family as compare does. A region's display name, known from the cloud's
// main price list, is given to every row of the region (AWS's spot feed and
// savings-plan files do not name regions).
func exportRows(prices []storage.PriceInterval, gpuFilter string) []exportRow {
	names := map[[2]string]string{}
	for _, p := range prices {
		if k := [2]string{p.Provider, p.Region}; p.RegionName != "" && names[k] == "" {
			names[k] = p.RegionName
		}
	}
	rows := make([]exportRow, 0, len(prices))
	for _, p := range prices {
		if gpuFilter != "" && !gpu.Matches(gpuFilter, p.GPUModel) {
			continue
		}
		perGPU, ok := pricewatch.PerGPUHour(p.EffectiveHourly, p.GPUCount)
		rows = append(rows, exportRow{
			OfferKeyJSON: p.Key().JSON(), RegionName: names[[2]string{p.Provider, p.Region}], Currency: p.Currency,
			HourlyPrice: jsonDecimal(p.Hourly), Upfront: jsonDecimal(p.Upfront), EffectiveHourly: jsonDecimal(p.EffectiveHourly),
			PricePerGPUHour: nullDecimal(perGPU, ok), GPUModel: p.GPUModel, GPUCount: p.GPUCount,
			SkuID: p.SkuID, SkuPriceID: p.SkuPriceID, ProductID: p.ProductID,
			ValidFrom: p.ValidFrom.UTC().Format(time.RFC3339),
		})
	}
	return rows
}

var exportHeader = []string{"provider", "region", "region_name", "zone", "instance_type", "price_type", "term", "payment",
	"offering_class", "os", "currency", "hourly_price", "upfront", "effective_hourly", "price_per_gpu_hour", "gpu_model",
	"gpu_count", "sku_id", "sku_price_id", "product_id", "valid_from"}

func writeExportCSV(w io.Writer, rows []exportRow) error {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = []string{r.Provider, r.Region, r.RegionName, r.Zone, r.InstanceType, string(r.PriceType), r.Term, r.Payment,
			r.OfferingClass, r.OS, r.Currency, decimal.Decimal(r.HourlyPrice).String(), decimal.Decimal(r.Upfront).String(),
			decimal.Decimal(r.EffectiveHourly).String(), r.PricePerGPUHour.Text(), r.GPUModel, clitext.Float(r.GPUCount),
			r.SkuID, r.SkuPriceID, r.ProductID, r.ValidFrom}
	}
	return writeCSV(w, exportHeader, out)
}

func writeExportJSONL(w io.Writer, rows []exportRow) error {
	enc := json.NewEncoder(w)
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}

// writeFocus streams the FOCUS price sheet: one pass over the on-demand
// prices (the list price of the commitments and spot prices of the same
// SKU, and region names), then one over every price, each row written as
// it is read, so that memory holds one entry per on-demand offer, never
// the sheet (issue 27).
func (a *app) writeFocus(ctx context.Context, db *storage.DB, filter storage.PriceFilter, gpuFilter string, at time.Time) error {
	book, err := a.fxBook(ctx, db)
	if err != nil {
		return err
	}
	sheet := focus.NewSheet(a.stdout, a.cfg.FX.Currency, book, at, providers.DisplayName)
	keep := func(p *storage.PriceInterval) bool { return gpuFilter == "" || gpu.Matches(gpuFilter, p.GPUModel) }
	learn := filter
	learn.PriceTypes = []pricewatch.PriceType{pricewatch.OnDemand}
	if err := db.EachPrice(ctx, learn, func(p *storage.PriceInterval) error {
		if keep(p) {
			sheet.Learn(p)
		}
		return nil
	}); err != nil {
		return err
	}
	if err := db.EachPrice(ctx, filter, func(p *storage.PriceInterval) error {
		if !keep(p) {
			return nil
		}
		return sheet.Write(p)
	}); err != nil {
		return err
	}
	return sheet.Flush()
}
