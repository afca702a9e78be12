package analysis

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/clouds"
	"github.com/pricewatch/pricewatch/gpu"
)

// CompareOptions select and convert the offers to rank.
type CompareOptions struct {
	// GPU is a model or family ("H100", "A100-80GB"); see gpu.Matches.
	GPU string
	// Count keeps instance types with exactly this many GPUs; 0 keeps all.
	Count float64
	// PriceTypes to keep; empty keeps all.
	PriceTypes []pricewatch.PriceType
	// Providers and Regions to keep; empty keeps all.
	Providers, Regions []string
	// OS: "" means Linux, "any" every OS.
	OS string
	// AvailableOnly keeps offers whose type is known to be offered or in
	// stock where it is priced (unknown availability is left out too).
	AvailableOnly bool
	// Seller keeps the clouds' own offers, marketplace hosts' or both.
	Seller Seller
	// Hardware bounds the machine and its converted price; an offer
	// without a rate into Currency is left out by a price bound.
	Hardware HardwareFilter
	// Currency every price is converted to; required.
	Currency string
	// FX supplies exchange rates; At is the date whose rates apply (now,
	// for current prices).
	FX Converter
	At time.Time
	// CheapestOnly is for a caller that only picks the cheapest rows (the
	// digest's cheapest of each kind): the rows stay in the offers' order,
	// without ranks, and without the per-TFLOPS and per-GB figures.
	// Ordering every row, and two exact divisions a row, were a fifth of a
	// first overview.
	CheapestOnly bool
}

// CompareRow is one ranked offer. The JSON names are the ones scripts rely on.
type CompareRow struct {
	Rank int `json:"rank"`
	pricewatch.OfferKeyJSON
	GPUModel string  `json:"gpu_model"`
	GPUCount float64 `json:"gpu_count"`
	Currency string  `json:"currency"`
	// EffectiveHourly is the whole instance's effective hourly price in Currency.
	EffectiveHourly decimal.Decimal `json:"effective_hourly"`
	PricePerGPUHour decimal.Decimal `json:"price_per_gpu_hour"`
	// PricePerTFLOPS is per GPU-hour per dense BF16 (else FP16) TFLOPS;
	// PricePerGB per GPU-hour per GB of GPU memory. Null when the catalogue
	// has no such figure for the model.
	PricePerTFLOPS        decimal.NullDecimal `json:"price_per_gpu_hour_per_tflops"`
	PricePerGB            decimal.NullDecimal `json:"price_per_gpu_hour_per_gb"`
	NativeCurrency        string              `json:"native_currency"`
	NativeEffectiveHourly decimal.Decimal     `json:"native_effective_hourly"`
	FXUsed
	// Available: true offered or in stock, false sold out, null unknown.
	Available *bool `json:"available"`
	// Availability is the state behind Available ("in_stock", "offered",
	// "sold_out", or "" when unknown).
	Availability string `json:"availability"`
	// Marketplace: sold by third-party hosts through a marketplace (see
	// clouds.IsMarketplace), not by the cloud itself.
	Marketplace bool `json:"marketplace"`
	// FXError says why a row could not be converted (only in Unconverted).
	FXError string `json:"fx_error,omitempty"`
	// InterruptionBand is the spot interruption band of a spot row's type
	// and region (AWS Spot Advisor, issue 23), "" when none is stored.
	InterruptionBand string `json:"interruption_band,omitempty"`
	// EvictionBand is the spot eviction-rate band of an Azure spot row's
	// type and location, "" when none is stored.
	EvictionBand string `json:"eviction_band,omitempty"`
	// WindowStart and WindowEnd bound a capacity_block row's window (the
	// soonest current block signal of its zone, type and duration; see
	// report.addWindows); zero for every other row and for a block whose
	// signal is not stored.
	WindowStart time.Time `json:"-"`
	WindowEnd   time.Time `json:"-"`

	Offer pricewatch.Offer `json:"-"`
	// Spec is the catalogue entry used, when the model is known.
	Spec *gpu.Spec `json:"-"`
}

// CompareResult is the ranking and what could not be ranked.
type CompareResult struct {
	Currency string
	// Rows are ranked by price per GPU-hour in Currency, cheapest first.
	Rows []CompareRow
	// Unconverted are matching offers without an exchange rate into
	// Currency. They are shown, never ranked: treating their price as
	// already in Currency would put them anywhere in the list.
	Unconverted []CompareRow
	// Skipped are matching offers that cannot be priced per GPU-hour.
	Skipped []Skipped
	// UnknownModels are GPU models missing from the catalogue (no
	// per-TFLOPS or per-GB figure).
	UnknownModels []string
	// StaleRates is set when any row used a stale rate.
	StaleRates bool
}

// Compare ranks offers of one GPU model or family by price per GPU-hour in
// one currency. avail are the current availability records (used for the
// available column and AvailableOnly).
func Compare(offers []pricewatch.Offer, avail []pricewatch.Availability, opts CompareOptions) (CompareResult, error) {
	if strings.TrimSpace(opts.GPU) == "" {
		return CompareResult{}, errors.New("compare: a GPU model is needed (e.g. H100, A100-80GB)")
	}
	if opts.Currency == "" {
		return CompareResult{}, errors.New("compare: a currency is needed to rank offers from different clouds")
	}
	// Room for every offer: the callers pass one model's offers, and
	// growing a slice of large rows step by step cost as much as rating
	// them.
	res := CompareResult{Currency: strings.ToUpper(opts.Currency), Rows: make([]CompareRow, 0, len(offers))}
	unknown := map[string]bool{}
	places := indexAvailability(avail)
	for _, o := range offers {
		if !gpu.Matches(opts.GPU, o.GPUModel) || !priceTypeIn(opts.PriceTypes, o.PriceType) ||
			!inSet(opts.Providers, o.Provider) || !inSet(opts.Regions, o.Region) || !osMatches(opts.OS, o.OS) {
			continue
		}
		if opts.Count > 0 && o.GPUCount != opts.Count {
			continue
		}
		if !opts.Seller.KeepsOffer(o.Provider, o.OfferingClass) || !opts.Hardware.KeepsMachine(o.Hardware) {
			continue
		}
		row, err := compareRow(o, places, opts)
		if row.Spec == nil {
			unknown[o.GPUModel] = true
		}
		if opts.AvailableOnly && (row.Available == nil || !*row.Available) {
			continue
		}
		if err != nil {
			var fxErr *fxError
			if !errors.As(err, &fxErr) {
				res.Skipped = append(res.Skipped, Skipped{o, err.Error()})
				continue
			}
			if opts.Hardware.MaxPrice.Valid {
				continue
			}
			row.FXError = err.Error()
			res.Unconverted = append(res.Unconverted, row)
			continue
		}
		if !opts.Hardware.KeepsPrice(row.EffectiveHourly, row.PricePerGPUHour) {
			continue
		}
		res.StaleRates = res.StaleRates || row.FXStale
		res.Rows = append(res.Rows, row)
	}
	if len(res.Rows) == 0 {
		res.Rows = nil // as before the room was made: no rows is null in JSON
	}
	if opts.CheapestOnly {
		return res, nil
	}
	SortByPrice(res.Rows, func(r *CompareRow) (bool, decimal.Decimal, *pricewatch.OfferKeyJSON) {
		return true, r.PricePerGPUHour, &r.OfferKeyJSON
	})
	for i := range res.Rows {
		res.Rows[i].Rank = i + 1
	}
	sort.SliceStable(res.Unconverted, func(i, j int) bool { return keyLess(res.Unconverted[i].Offer.Key(), res.Unconverted[j].Offer.Key()) })
	res.UnknownModels = SortedKeys(unknown)
	return res, nil
}

// fxError marks a conversion failure, which leaves a row unranked rather
// than failing the whole comparison.
type fxError struct{ err error }

func (e *fxError) Error() string { return e.err.Error() }
func (e *fxError) Unwrap() error { return e.err }

func compareRow(o pricewatch.Offer, places availabilityIndex, opts CompareOptions) (CompareRow, error) {
	row := CompareRow{
		OfferKeyJSON: o.Key().JSON(),
		GPUModel:     o.GPUModel, GPUCount: o.GPUCount, NativeCurrency: o.Currency, Offer: o,
		Marketplace: clouds.IsMarketplace(o.Provider, o.OfferingClass),
	}
	if spec, ok := gpu.Lookup(o.GPUModel); ok {
		row.Spec = &spec
	}
	row.Available, row.Availability = places.of(o)
	eff, err := o.EffectiveHourly()
	if err != nil {
		return row, fmt.Errorf("offer %s: %w", o.Key(), err)
	}
	row.NativeEffectiveHourly = eff
	q, err := quote(opts.FX, o.Currency, opts.Currency, opts.At)
	if err != nil {
		return row, &fxError{err}
	}
	row.Currency = q.To
	row.FXUsed = fxUsed(q)
	row.EffectiveHourly = q.Convert(eff)
	perGPUHour, ok := perGPU(row.EffectiveHourly, o.GPUCount)
	if !ok {
		return row, fmt.Errorf("offer %s: GPU count %v, cannot price a GPU-hour", o.Key(), o.GPUCount)
	}
	row.PricePerGPUHour = perGPUHour
	if opts.CheapestOnly {
		return row, nil
	}
	if row.Spec != nil {
		if tf := row.Spec.DenseTFLOPS(); tf > 0 {
			row.PricePerTFLOPS = decimal.NewNullDecimal(pricewatch.DivRound(perGPUHour, decimal.NewFromFloat(tf), RateDecimals))
		}
	}
	// Per GB: the catalogue's marketed size of a whole GPU, since the price
	// is per whole GPU-hour (a vGPU slice's memory would overstate it).
	mem := 0.0
	switch {
	case row.Spec != nil:
		mem = row.Spec.MemoryGB
	case o.GPUCount >= 1:
		mem = o.GPUMemoryGB
	}
	if mem > 0 {
		row.PricePerGB = decimal.NewNullDecimal(pricewatch.DivRound(perGPUHour, decimal.NewFromFloat(mem), RateDecimals))
	}
	return row, nil
}
