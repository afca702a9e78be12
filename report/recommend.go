package report

import (
	"context"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/fx"
	"github.com/pricewatch/pricewatch/storage"
)

// RecommendSignals are what recommend weighs beside prices (issue 23 item
// 7): each spot offer's interruption band and the current capacity
// blocks.
func RecommendSignals(ctx context.Context, st Store) (band func(pricewatch.Offer) string, blocks []pricewatch.Signal, err error) {
	bands, err := CurrentSpotBands(ctx, st)
	if err != nil {
		return nil, nil, err
	}
	rows, err := st.Signals(ctx, storage.SignalFilter{Kinds: []pricewatch.SignalKind{pricewatch.CapacityBlock}, CurrentOnly: true})
	if err != nil {
		return nil, nil, err
	}
	for _, r := range rows {
		blocks = append(blocks, r.Signal)
	}
	return func(o pricewatch.Offer) string {
		interruption, _ := bands.Of(o)
		return interruption
	}, blocks, nil
}

// OptionRow is the JSON shape of one option of `recommend`; keep the names. Unconverted
// options have a null rank and null costs.
type OptionRow struct {
	Rank  *int   `json:"rank"`
	Label string `json:"label"`
	pricewatch.OfferKeyJSON
	GPUModel             string      `json:"gpu_model"`
	GPUsPerInstance      float64     `json:"gpu_count"`
	Instances            int         `json:"instances"`
	Currency             string      `json:"currency"`
	Terms                int         `json:"terms"`
	CommittedHours       int64       `json:"committed_hours"`
	FixedCost            NullDecimal `json:"fixed_cost"`
	VariableCost         NullDecimal `json:"variable_cost_at_full_use"`
	TotalCost            NullDecimal `json:"total_cost"`
	CostPerGPUHour       NullDecimal `json:"cost_per_gpu_hour_used"`
	EffectiveHourly      NullDecimal `json:"effective_hourly"`
	BreakEvenUtilization NullDecimal `json:"break_even_utilization"`
	Interruptible        bool        `json:"interruptible"`
	// A spot option's interruption band (null where none is stored) and
	// the expected-interruption overhead its cost carries (a 0–1 share;
	// null for every option that is not spot).
	InterruptionBand     *string     `json:"interruption_band"`
	InterruptionOverhead NullDecimal `json:"interruption_overhead"`
	Marketplace          bool        `json:"marketplace"`
	Available            bool        `json:"available"`
	Availability         string      `json:"availability"`
	NativeCurrency       string      `json:"native_currency"`
	FXJSON
	FXError     *string `json:"fx_error"`
	Recommended bool    `json:"recommended"`
}

// CrossoverJSON is a utilisation at which another option wins.
type CrossoverJSON struct {
	Utilization Decimal `json:"utilization"`
	Label       string  `json:"option"`
	// Below is true when the option wins below the utilisation.
	Below bool `json:"below"`
}

// RecommendJSON is what `recommend --format json` prints.
type RecommendJSON struct {
	GPU            string     `json:"gpu"`
	Models         []string   `json:"models"`
	Count          int        `json:"count"`
	Utilization    Decimal    `json:"utilization"`
	Horizon        string     `json:"horizon"`
	HorizonHours   int64      `json:"horizon_hours"`
	Currency       string     `json:"currency"`
	Recommendation *OptionRow `json:"recommendation"`
	// CheapestCloud and CheapestMarketplace are the cheapest option (not
	// known to be sold out) of the clouds' own capacity and of marketplace
	// hosts, side by side; null when there is none.
	CheapestCloud       *OptionRow `json:"cheapest_cloud"`
	CheapestMarketplace *OptionRow `json:"cheapest_marketplace"`
	// Hosts is the most machines an option may use (--hosts).
	Hosts       int            `json:"hosts"`
	Options     []OptionRow    `json:"options"`
	Unconverted []OptionRow    `json:"unconverted"`
	Reasons     []string       `json:"reasons"`
	Changes     []string       `json:"changes"`
	Lower       *CrossoverJSON `json:"lower_crossover"`
	Upper       *CrossoverJSON `json:"upper_crossover"`
	StaleRates  bool           `json:"stale_rates"`
	// CapacityBlocks fit the question (at least the GPUs, a window at
	// least the horizon long): offered beside the options, never ranked
	// with them, cheapest per GPU-hour first, unconverted ones last.
	CapacityBlocks []BlockRow `json:"capacity_blocks"`
}

// BlockRow is a capacity block recommend offers.
type BlockRow struct {
	Label        string `json:"label"`
	Provider     string `json:"provider"`
	Region       string `json:"region"`
	Zone         string `json:"zone"`
	InstanceType string `json:"instance_type"`
	GPUModel     string `json:"gpu_model"`
	// GPUs in the whole block (instances × GPUs per instance).
	GPUs        float64     `json:"gpus"`
	WindowStart any         `json:"window_start"`
	WindowEnd   any         `json:"window_end"`
	Hours       int64       `json:"window_hours"`
	Currency    string      `json:"currency"`
	Fee         NullDecimal `json:"upfront"`
	PerGPUHour  NullDecimal `json:"price_per_gpu_hour"`
	// Native fee in the cloud's currency (the signal's value).
	NativeCurrency string  `json:"native_currency"`
	NativeFee      Decimal `json:"native_upfront"`
	FXJSON
	FXError *string `json:"fx_error"`
}

func blockJSON(b analysis.BlockOption, converted bool) BlockRow {
	row := BlockRow{Label: b.Label(), Provider: b.Provider, Region: b.Region, Zone: b.Zone, InstanceType: b.InstanceType, GPUModel: b.GPUModel,
		GPUs: b.GPUs, WindowStart: optTime(b.Start), WindowEnd: optTime(b.End), Hours: b.Hours, Currency: b.Currency, NativeCurrency: b.Unit,
		FXError: optionalString(b.FXError)}
	if fee, err := decimalOf(b.Value); err == nil {
		row.NativeFee = Decimal(fee)
	}
	if converted {
		row.Fee = NewNullDecimal(b.Fee, true)
		row.PerGPUHour = NewNullDecimal(b.PerGPUHour, true)
		row.FXJSON = FXJSONOf(b.FXUsed)
	}
	return row
}

func optionJSON(o analysis.Option, ranked bool) OptionRow {
	r := OptionRow{Label: o.Label(), OfferKeyJSON: o.OfferKeyJSON, GPUModel: o.GPUModel,
		GPUsPerInstance: o.GPUsPerInstance, Instances: o.Instances, Currency: o.Currency, Terms: o.Terms, CommittedHours: o.CommittedHours,
		BreakEvenUtilization: NewNullDecimal(o.BreakEvenUtilization.Decimal, o.BreakEvenUtilization.Valid), Interruptible: o.Interruptible, Marketplace: o.Marketplace,
		Available: o.Available != nil && *o.Available, Availability: AvailabilityName(o.Availability), NativeCurrency: o.NativeCurrency,
		FXError: optionalString(o.FXError), InterruptionBand: optionalString(o.InterruptionBand),
		InterruptionOverhead: NewNullDecimal(o.InterruptionOverhead.Decimal, o.InterruptionOverhead.Valid)}
	if ranked {
		rank := o.Rank
		r.Rank = &rank
		r.FixedCost = NewNullDecimal(o.FixedCost, true)
		r.VariableCost = NewNullDecimal(o.VariableCost, true)
		r.TotalCost = NewNullDecimal(o.TotalCost, true)
		r.CostPerGPUHour = NewNullDecimal(o.CostPerGPUHour, true)
		r.EffectiveHourly = NewNullDecimal(o.EffectiveHourly, true)
		r.FXJSON = FXJSONOf(o.FXUsed)
	}
	return r
}

// RecommendJSONOf is rec as its JSON rows.
func RecommendJSONOf(rec analysis.Recommendation) RecommendJSON {
	out := RecommendJSON{GPU: rec.GPU, Models: rec.Models, Count: rec.Count, Utilization: Decimal(rec.Utilization),
		Horizon: rec.Horizon, HorizonHours: rec.HorizonHours, Currency: rec.Currency, Options: []OptionRow{},
		Unconverted: []OptionRow{}, Reasons: rec.Reasons, Changes: rec.Changes, StaleRates: rec.StaleRates, CapacityBlocks: []BlockRow{}}
	for _, b := range rec.Blocks {
		out.CapacityBlocks = append(out.CapacityBlocks, blockJSON(b, true))
	}
	for _, b := range rec.UnconvertedBlocks {
		out.CapacityBlocks = append(out.CapacityBlocks, blockJSON(b, false))
	}
	if out.Models == nil {
		out.Models = []string{}
	}
	if out.Changes == nil {
		out.Changes = []string{}
	}
	for i, o := range rec.Options {
		row := optionJSON(o, true)
		row.Recommended = i == rec.Best
		out.Options = append(out.Options, row)
	}
	for _, o := range rec.Unconverted {
		out.Unconverted = append(out.Unconverted, optionJSON(o, false))
	}
	if best, ok := rec.BestOption(); ok {
		r := optionJSON(best, true)
		r.Recommended = true
		out.Recommendation = &r
	}
	out.Hosts = rec.Hosts
	for _, c := range []struct {
		i   int
		dst **OptionRow
	}{{rec.BestCloud, &out.CheapestCloud}, {rec.BestMarketplace, &out.CheapestMarketplace}} {
		if c.i >= 0 {
			r := out.Options[c.i]
			*c.dst = &r
		}
	}
	for _, c := range []struct {
		x   *analysis.Crossover
		dst **CrossoverJSON
	}{{rec.Lower, &out.Lower}, {rec.Upper, &out.Upper}} {
		if c.x != nil {
			*c.dst = &CrossoverJSON{Utilization: Decimal(c.x.Utilization), Label: c.x.Option.Label(), Below: c.x.Below}
		}
	}
	return out
}

func optionalString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func decimalOf(s string) (decimal.Decimal, error) { return decimal.NewFromString(s) }

// RecommendQuery is `recommend` and GET /api/v1/recommend.
type RecommendQuery struct {
	Scope
	GPU         string
	Count       int
	Utilization decimal.Decimal
	Horizon     string
	IncludeSpot bool
	// Seller, Hardware and Hosts: see analysis.RecommendOptions.
	Seller   analysis.Seller
	Hardware analysis.HardwareFilter
	Hosts    int
}

// Recommend prices every way to get the query's GPUs over its horizon from
// the current prices in scope (read in SQL by the GPU's stored models),
// the current availability and the capacity signals.
func Recommend(ctx context.Context, st Store, book *fx.Book, q RecommendQuery) (analysis.Recommendation, error) {
	offers, avail, err := currentOfGPU(ctx, st, q.Scope, q.GPU)
	if err != nil {
		return analysis.Recommendation{}, err
	}
	band, blocks, err := RecommendSignals(ctx, st)
	if err != nil {
		return analysis.Recommendation{}, err
	}
	return analysis.Recommend(offers, avail, analysis.RecommendOptions{
		GPU: q.GPU, Count: q.Count, Utilization: q.Utilization, Horizon: q.Horizon, Currency: q.Currency, FX: book, At: q.At,
		Providers: q.Providers, Regions: q.Regions, OS: q.OS, IncludeSpot: q.IncludeSpot, SpotBand: band, CapacityBlocks: blocks,
		Seller: q.Seller, Hardware: q.Hardware, Hosts: q.Hosts,
	})
}
