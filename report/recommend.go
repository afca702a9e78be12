package report

import (
	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
)

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
	GPU            string         `json:"gpu"`
	Models         []string       `json:"models"`
	Count          int            `json:"count"`
	Utilization    Decimal        `json:"utilization"`
	Horizon        string         `json:"horizon"`
	HorizonHours   int64          `json:"horizon_hours"`
	Currency       string         `json:"currency"`
	Recommendation *OptionRow     `json:"recommendation"`
	Options        []OptionRow    `json:"options"`
	Unconverted    []OptionRow    `json:"unconverted"`
	Reasons        []string       `json:"reasons"`
	Changes        []string       `json:"changes"`
	Lower          *CrossoverJSON `json:"lower_crossover"`
	Upper          *CrossoverJSON `json:"upper_crossover"`
	StaleRates     bool           `json:"stale_rates"`
}

func optionJSON(o analysis.Option, ranked bool) OptionRow {
	r := OptionRow{Label: o.Label(), OfferKeyJSON: o.OfferKeyJSON, GPUModel: o.GPUModel,
		GPUsPerInstance: o.GPUsPerInstance, Instances: o.Instances, Currency: o.Currency, Terms: o.Terms, CommittedHours: o.CommittedHours,
		BreakEvenUtilization: NewNullDecimal(o.BreakEvenUtilization.Decimal, o.BreakEvenUtilization.Valid), Interruptible: o.Interruptible, Marketplace: o.Marketplace,
		Available: o.Available != nil && *o.Available, Availability: AvailabilityName(o.Availability), NativeCurrency: o.NativeCurrency,
		FXError: optionalString(o.FXError)}
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
		Unconverted: []OptionRow{}, Reasons: rec.Reasons, Changes: rec.Changes, StaleRates: rec.StaleRates}
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
