// Package pricesheet is the price sheet `pricewatch export` writes: every
// price current at a time, one row per offer, in the cloud's own currency
// and with the cloud's own identifiers, as CSV, JSON lines or a
// FOCUS-aligned CSV.
package pricesheet

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/clouds"
	"github.com/pricewatch/pricewatch/focus"
	"github.com/pricewatch/pricewatch/fx"
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

// Selection is what export keeps beyond the storage filter: a GPU model
// or family as compare matches it ("" every one), and whose capacity.
type Selection struct {
	GPU    string
	Seller analysis.Seller
}

func (s Selection) keep(p *storage.PriceInterval) bool {
	return (s.GPU == "" || gpu.Matches(s.GPU, p.GPUModel)) && s.Seller.KeepsOffer(p.Provider, p.OfferingClass)
}

// Rows turns stored intervals into sheet rows, keeping a GPU model or
// family as compare does. A region's display name, known from the cloud's
// main price list, is given to every row of the region (AWS's spot feed and
// savings-plan files do not name regions).
func Rows(prices []storage.PriceInterval, sel Selection) []Row {
	names := map[[2]string]string{}
	for _, p := range prices {
		if k := [2]string{p.Provider, p.Region}; p.RegionName != "" && names[k] == "" {
			names[k] = p.RegionName
		}
	}
	rows := make([]Row, 0, len(prices))
	for _, p := range prices {
		if !sel.keep(&p) {
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

// FOCUSOptions are what a FOCUS sheet needs beside the prices: the billing
// currency (fx.currency) with the rates to it, and the moment it is of.
type FOCUSOptions struct {
	Currency string
	FX       *fx.Book
	At       time.Time
	// SKUPrice, when set, asks the SKU Price dataset of this window
	// instead (StreamSKUPrice: no conversion, so no rate or moment).
	SKUPrice *Window
}

// PriceStore streams stored prices.
type PriceStore interface {
	EachPrice(ctx context.Context, f storage.PriceFilter, fn func(*storage.PriceInterval) error) error
}

// StreamFOCUS writes the FOCUS price sheet of the prices filter selects
// (and of GPU gpuFilter, a model or family, when set), streamed: one pass
// over the on-demand prices (the list price of the commitments and spot
// prices of the same SKU, and region names), then one over every price,
// each row written as it is read, so that memory holds one entry per
// on-demand offer, never the sheet (issue 27; docs/focus.md).
func StreamFOCUS(ctx context.Context, w io.Writer, db PriceStore, filter storage.PriceFilter, sel Selection, opts FOCUSOptions) error {
	if opts.SKUPrice != nil {
		return StreamSKUPrice(ctx, w, db, filter, sel, *opts.SKUPrice)
	}
	sheet := focus.NewSheet(w, opts.Currency, opts.FX, opts.At, clouds.DisplayName)
	keep := sel.keep
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

// Window is the time the SKU Price dataset covers: the intervals in force
// at some moment of [Since, Until) (a zero bound is open). An interval is
// written whole, its stored start and end, never cut at the window's
// edges: its dates are when the price held.
type Window struct {
	Since, Until time.Time
}

// SKUPriceDataset is export's --dataset of the SKU Price dataset (the
// default, "price-sheet", is the prices at one moment).
const SKUPriceDataset = "sku-price"

// ParseWindow checks export's --dataset and reads its --since and --until
// (a duration back from now or a date), which only the SKU Price dataset
// takes; it is a FOCUS CSV of every interval, so focusCSVNow (--format
// focus-csv without --at) must hold for it.
func ParseWindow(dataset string, focusCSVNow bool, since, until string, now time.Time) (Window, error) {
	if dataset != SKUPriceDataset {
		if dataset != "price-sheet" || since != "" || until != "" {
			return Window{}, &report.ParamError{Msg: fmt.Sprintf("--dataset %q, --since %q, --until %q: want --dataset price-sheet, or %s with --since and --until",
				dataset, since, until, SKUPriceDataset)}
		}
		return Window{}, nil
	}
	if !focusCSVNow {
		return Window{}, &report.ParamError{Msg: "--dataset sku-price is a FOCUS CSV of every interval: it takes neither --at nor a --format other than focus-csv"}
	}
	s, err := report.ParseSince("--since", since, now)
	if err != nil {
		return Window{}, err
	}
	u, err := report.ParseSince("--until", until, now)
	return Window{Since: s, Until: u}, err
}

// StreamSKUPrice writes the SKU Price dataset (focus.NewSKUPriceSheet) of
// the intervals filter selects (its time fields are replaced by w), kept by
// sel, streamed as StreamFOCUS is: a first pass learns every on-demand
// interval of the selection, at any time (a commitment that began before
// the window takes the on-demand price in force then), holding one small
// span per on-demand interval; the second writes each interval as it is
// read, in the store's per-offer order (ByOffer: no sort of the year).
func StreamSKUPrice(ctx context.Context, out io.Writer, db PriceStore, filter storage.PriceFilter, sel Selection, w Window) error {
	sheet := focus.NewSKUPriceSheet(out, clouds.DisplayName)
	filter.CurrentOnly, filter.At, filter.Since, filter.ByOffer = false, nil, time.Time{}, true
	learn := filter
	learn.PriceTypes = []pricewatch.PriceType{pricewatch.OnDemand}
	if err := db.EachPrice(ctx, learn, func(p *storage.PriceInterval) error {
		if sel.keep(p) {
			sheet.Learn(p)
		}
		return nil
	}); err != nil {
		return fmt.Errorf("reading the on-demand prices for the SKU Price dataset: %w", err)
	}
	filter.Since = w.Since
	if err := db.EachPrice(ctx, filter, func(p *storage.PriceInterval) error {
		if !sel.keep(p) || (!w.Until.IsZero() && !p.ValidFrom.Before(w.Until)) {
			return nil
		}
		return sheet.Write(p)
	}); err != nil {
		return fmt.Errorf("writing the SKU Price dataset: %w", err)
	}
	return sheet.Flush()
}
