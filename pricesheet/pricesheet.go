// Package pricesheet is the price sheet `pricewatch export` writes: every
// price current at a time, one row per offer, in the cloud's own currency
// and with the cloud's own identifiers, as CSV, JSON lines or a
// FOCUS-aligned CSV.
package pricesheet

import (
	"encoding/json"
	"io"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/clouds"
	"github.com/pricewatch/pricewatch/gpu"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
)

// Row is one price of the sheet. The JSON names are the jsonl and
// csv contract.
type Row struct {
	pricewatch.OfferKeyJSON
	RegionName      string             `json:"region_name"`
	Currency        string             `json:"currency"`
	HourlyPrice     report.Decimal     `json:"hourly_price"`
	Upfront         report.Decimal     `json:"upfront"`
	EffectiveHourly report.Decimal     `json:"effective_hourly"`
	PricePerGPUHour report.NullDecimal `json:"price_per_gpu_hour"`
	GPUModel        string             `json:"gpu_model"`
	GPUCount        float64            `json:"gpu_count"`
	SkuID           string             `json:"sku_id"`
	SkuPriceID      string             `json:"sku_price_id"`
	ProductID       string             `json:"product_id"`
	ValidFrom       string             `json:"valid_from"`
}

// Rows turns stored intervals into sheet rows, keeping a GPU model or
// family as compare does. A region's display name, known from the cloud's
// main price list, is given to every row of the region (AWS's spot feed and
// savings-plan files do not name regions).
func Rows(prices []storage.PriceInterval, gpuFilter string) []Row {
	names := map[[2]string]string{}
	for _, p := range prices {
		if k := [2]string{p.Provider, p.Region}; p.RegionName != "" && names[k] == "" {
			names[k] = p.RegionName
		}
	}
	rows := make([]Row, 0, len(prices))
	for _, p := range prices {
		if gpuFilter != "" && !gpu.Matches(gpuFilter, p.GPUModel) {
			continue
		}
		perGPU, ok := pricewatch.PerGPUHour(p.EffectiveHourly, p.GPUCount)
		rows = append(rows, Row{
			OfferKeyJSON: p.Key().JSON(), RegionName: names[[2]string{p.Provider, p.Region}], Currency: p.Currency,
			HourlyPrice: report.Decimal(p.Hourly), Upfront: report.Decimal(p.Upfront), EffectiveHourly: report.Decimal(p.EffectiveHourly),
			PricePerGPUHour: report.NewNullDecimal(perGPU, ok), GPUModel: p.GPUModel, GPUCount: p.GPUCount,
			SkuID: p.SkuID, SkuPriceID: p.SkuPriceID, ProductID: p.ProductID,
			ValidFrom: p.ValidFrom.UTC().Format(time.RFC3339),
		})
	}
	return rows
}

// Header is the CSV sheet's first line: the JSON names, in order.
var Header = []string{"provider", "region", "region_name", "zone", "instance_type", "price_type", "term", "payment",
	"offering_class", "os", "currency", "hourly_price", "upfront", "effective_hourly", "price_per_gpu_hour", "gpu_model",
	"gpu_count", "sku_id", "sku_price_id", "product_id", "valid_from"}

// WriteCSV writes the sheet as CSV, a column per JSON name.
func WriteCSV(w io.Writer, rows []Row) error {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = []string{r.Provider, r.Region, r.RegionName, r.Zone, r.InstanceType, string(r.PriceType), r.Term, r.Payment,
			r.OfferingClass, r.OS, r.Currency, decimal.Decimal(r.HourlyPrice).String(), decimal.Decimal(r.Upfront).String(),
			decimal.Decimal(r.EffectiveHourly).String(), r.PricePerGPUHour.Text(), r.GPUModel, strconv.FormatFloat(r.GPUCount, 'f', -1, 64),
			r.SkuID, r.SkuPriceID, r.ProductID, r.ValidFrom}
	}
	return report.WriteCSV(w, Header, out)
}

// WriteJSONL writes the sheet as JSON lines.
func WriteJSONL(w io.Writer, rows []Row) error {
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

// WriteFOCUS writes the FOCUS-aligned sheet. ListUnitPrice is the
// published price of one PricingUnit (Hours): the hourly rate; a
// commitment's upfront fee is x_UpfrontPrice and x_EffectiveHourlyPrice
// spreads it over the term. FOCUS writes nulls as empty cells.
func WriteFOCUS(w io.Writer, rows []Row) error {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = []string{
			clouds.FOCUSProviderName(r.Provider), "Compute", r.Region, r.RegionName, r.Zone, r.SkuID, r.SkuPriceID,
			focusPricingCategory(r.PriceType), "Hours", decimal.Decimal(r.HourlyPrice).String(), r.Currency, focusCommitmentType(r.PriceType),
			r.InstanceType, r.OS, r.GPUModel, strconv.FormatFloat(r.GPUCount, 'f', -1, 64), string(r.PriceType), r.Term, r.Payment,
			r.OfferingClass, decimal.Decimal(r.Upfront).String(), decimal.Decimal(r.EffectiveHourly).String(), r.PricePerGPUHour.Text(), r.ProductID,
		}
	}
	return report.WriteCSV(w, focusHeader, out)
}
