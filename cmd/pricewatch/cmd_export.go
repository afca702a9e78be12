package main

import (
	"encoding/json"
	"io"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/gpu"
	"github.com/pricewatch/pricewatch/internal/clitext"
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

--format focus-csv names the columns as FOCUS does where FOCUS defines them
(ProviderName, RegionId, SkuId, SkuPriceId, PricingCategory, ListUnitPrice,
BillingCurrency, …) and puts pricewatch's own after them with the x_ prefix.
It is a price sheet aligned with FOCUS, not a FOCUS cost-and-usage dataset:
no charge, no billing period, no cost.`,
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
			prices, err := db.Prices(ctx, filter)
			if err != nil {
				return err
			}
			rows := exportRows(prices, f.gpu)
			switch f.format {
			case formatFocusCSV:
				return writeFocusCSV(a.stdout, rows)
			case formatCSV:
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

// FOCUS columns of the sheet (FOCUS 1.x column IDs), then pricewatch's own
// with the x_ prefix FOCUS reserves for custom columns, after all FOCUS
// ones as its column-ordering rules ask.
var focusHeader = []string{
	"ProviderName", "ServiceCategory", "RegionId", "RegionName", "AvailabilityZone", "SkuId", "SkuPriceId",
	"PricingCategory", "PricingUnit", "ListUnitPrice", "BillingCurrency", "CommitmentDiscountType",
	"x_InstanceType", "x_OperatingSystem", "x_GpuModel", "x_GpuCount", "x_PriceType", "x_Term", "x_PaymentOption",
	"x_OfferingClass", "x_UpfrontPrice", "x_EffectiveHourlyPrice", "x_PricePerGpuHour", "x_SkuProductId",
}

// focusProviderNames are the names the clouds give themselves in their own
// FOCUS exports; a provider not listed keeps pricewatch's name.
var focusProviderNames = map[string]string{
	pricewatch.AWS:     "AWS",
	pricewatch.Azure:   "Microsoft",
	pricewatch.Alibaba: "Alibaba Cloud",
	pricewatch.Tencent: "Tencent Cloud",
}

// focusPricing is how FOCUS names each price type: PricingCategory
// follows FOCUS's allowed values (list prices are Standard, spot prices, set
// by the provider and changing without notice, Dynamic, reservation and
// savings-plan rates Committed) and CommitmentDiscountType says which
// commitment a Committed price is.
var focusPricing = map[pricewatch.PriceType]struct{ category, commitment string }{
	pricewatch.OnDemand:    {category: "Standard"},
	pricewatch.Spot:        {category: "Dynamic"},
	pricewatch.Reserved:    {category: "Committed", commitment: "Reservation"},
	pricewatch.SavingsPlan: {category: "Committed", commitment: "Savings Plan"},
}

func focusPricingCategory(pt pricewatch.PriceType) string {
	if p, ok := focusPricing[pt]; ok {
		return p.category
	}
	return "Other"
}

func focusCommitmentType(pt pricewatch.PriceType) string { return focusPricing[pt].commitment }

// writeFocusCSV writes the FOCUS-aligned sheet. ListUnitPrice is the
// published price of one PricingUnit (Hours): the hourly rate; a
// commitment's upfront fee is x_UpfrontPrice and x_EffectiveHourlyPrice
// spreads it over the term. FOCUS writes nulls as empty cells.
func writeFocusCSV(w io.Writer, rows []exportRow) error {
	out := make([][]string, len(rows))
	for i, r := range rows {
		name := focusProviderNames[r.Provider]
		if name == "" {
			name = r.Provider
		}
		out[i] = []string{
			name, "Compute", r.Region, r.RegionName, r.Zone, r.SkuID, r.SkuPriceID,
			focusPricingCategory(r.PriceType), "Hours", decimal.Decimal(r.HourlyPrice).String(), r.Currency, focusCommitmentType(r.PriceType),
			r.InstanceType, r.OS, r.GPUModel, clitext.Float(r.GPUCount), string(r.PriceType), r.Term, r.Payment,
			r.OfferingClass, decimal.Decimal(r.Upfront).String(), decimal.Decimal(r.EffectiveHourly).String(), r.PricePerGPUHour.Text(), r.ProductID,
		}
	}
	return writeCSV(w, focusHeader, out)
}
