package digest

import (
	"encoding/json"
	"io"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis/digest"
)

// The JSON shape scripts rely on: keep the names. Money is a JSON number
// written from the exact decimal (never through float64); times are
// RFC 3339 in UTC; lists are [] when empty, never null.

type jsonDigest struct {
	Week            string         `json:"week"`
	GeneratedAt     string         `json:"generated_at"`
	From            string         `json:"from"`
	Timezone        string         `json:"timezone"`
	Currency        string         `json:"currency"`
	Offers          int            `json:"offers"`
	Changed         int            `json:"offers_changed"`
	Moved           int            `json:"offers_moved"`
	FleetGPUs       int            `json:"fleet_gpus"`
	FleetHours      int            `json:"fleet_hours"`
	Utilization     json.Number    `json:"utilization"`
	Regions         []string       `json:"regions"`
	Models          []jsonModel    `json:"models"`
	Moves           []jsonMove     `json:"moves"`
	NewAvailability []jsonEvent    `json:"new_availability"`
	SoldOut         []jsonEvent    `json:"sold_out"`
	Baseline        []string       `json:"baseline_providers"`
	Savings         []jsonSavings  `json:"best_savings"`
	CapacityBlocks  []jsonBlock    `json:"capacity_blocks"`
	BlocksSeen      int            `json:"capacity_blocks_seen"`
	Providers       []jsonProvider `json:"providers"`
	StaleProviders  []string       `json:"stale_providers"`
	Rates           []jsonRate     `json:"rates"`
	StaleRates      bool           `json:"stale_rates"`
	MissingRates    []string       `json:"missing_rates"`
	Chart           jsonChart      `json:"chart"`
}

type jsonOffer struct {
	pricewatch.OfferKeyJSON
	GPUModel string  `json:"gpu_model"`
	GPUCount float64 `json:"gpu_count"`
}

func offerJSON(o pricewatch.Offer) jsonOffer {
	return keyJSON(o.Key(), o.Hardware)
}

func keyJSON(k pricewatch.OfferKey, hw pricewatch.Hardware) jsonOffer {
	return jsonOffer{OfferKeyJSON: k.JSON(), GPUModel: hw.GPUModel, GPUCount: hw.GPUCount}
}

type jsonChoice struct {
	jsonOffer
	PricePerGPUHour       json.Number `json:"price_per_gpu_hour"`
	NativeCurrency        string      `json:"native_currency"`
	NativePricePerGPUHour json.Number `json:"native_price_per_gpu_hour"`
	FXStale               bool        `json:"fx_stale"`
	Available             *bool       `json:"available"`
}

type jsonModel struct {
	Model    string      `json:"gpu_model"`
	OnDemand *jsonChoice `json:"on_demand"`
	// MarketOnDemand is the cheapest marketplace hosts' on-demand offer,
	// beside OnDemand's cloud one (issue 31).
	MarketOnDemand *jsonChoice    `json:"marketplace_on_demand"`
	Spot           *jsonChoice    `json:"spot"`
	Commitment     *jsonChoice    `json:"best_commitment"`
	OnDemandWoWPct *json.Number   `json:"on_demand_wow_pct"`
	SpotWoWPct     *json.Number   `json:"spot_wow_pct"`
	Offers         int            `json:"offers"`
	Unconverted    map[string]int `json:"unconverted"`
}

type jsonMove struct {
	jsonOffer
	Currency   string       `json:"currency"`
	From       json.Number  `json:"from_effective_hourly"`
	To         json.Number  `json:"to_effective_hourly"`
	FromPerGPU *json.Number `json:"from_per_gpu_hour"`
	ToPerGPU   *json.Number `json:"to_per_gpu_hour"`
	Pct        json.Number  `json:"change_pct"`
}

type jsonEvent struct {
	Provider     string   `json:"provider"`
	Region       string   `json:"region"`
	Zones        []string `json:"zones"`
	InstanceType string   `json:"instance_type"`
	GPUModel     string   `json:"gpu_model"`
	GPUCount     float64  `json:"gpu_count"`
	State        string   `json:"state"`
	Back         bool     `json:"back"`
	At           string   `json:"at"`
	Still        bool     `json:"still"`
}

// jsonBlock is a capacity block of the week.
type jsonBlock struct {
	Provider     string  `json:"provider"`
	Region       string  `json:"region"`
	Zone         string  `json:"zone"`
	InstanceType string  `json:"instance_type"`
	GPUModel     string  `json:"gpu_model"`
	GPUs         float64 `json:"gpus"`
	WindowStart  string  `json:"window_start"`
	WindowEnd    string  `json:"window_end"`
	// In the digest's currency; null without a rate.
	PerGPUHour       *json.Number `json:"price_per_gpu_hour"`
	NativeCurrency   string       `json:"native_currency"`
	NativeUpfront    json.Number  `json:"native_upfront"`
	NativePerGPUHour json.Number  `json:"native_price_per_gpu_hour"`
	FirstSeen        string       `json:"since"`
	Still            bool         `json:"still"`
}

type jsonSavings struct {
	Model string `json:"gpu_model"`
	jsonOffer
	Currency             string       `json:"currency"`
	EffectivePerGPU      json.Number  `json:"price_per_gpu_hour"`
	OnDemandPerGPU       json.Number  `json:"on_demand_per_gpu_hour"`
	SavingsPct           json.Number  `json:"full_use_savings_pct"`
	BreakEvenUtilization json.Number  `json:"break_even_utilization"`
	PaybackDays          *json.Number `json:"payback_days"`
	Upfront              json.Number  `json:"upfront"`
	MonthlyRunRate       *json.Number `json:"monthly_run_rate"`
	NativeCurrency       string       `json:"native_currency"`
	FXRate               json.Number  `json:"fx_rate"`
	FXDate               string       `json:"fx_date"`
	FXStale              bool         `json:"fx_stale"`
}

type jsonProvider struct {
	Provider      string  `json:"provider"`
	ExpectedEvery int64   `json:"expected_every_seconds"`
	LastSuccess   *string `json:"last_success"`
	LastRun       *string `json:"last_run"`
	LastStatus    string  `json:"last_status"`
	LastError     string  `json:"last_error"`
	Stale         bool    `json:"stale"`
	Reason        string  `json:"reason"`
}

type jsonRate struct {
	From    string       `json:"from"`
	To      string       `json:"to"`
	Rate    *json.Number `json:"rate"`
	Date    string       `json:"date"`
	Source  string       `json:"source"`
	Stale   bool         `json:"stale"`
	Missing bool         `json:"missing"`
	Error   string       `json:"error,omitempty"`
	Offers  int          `json:"offers"`
}

type jsonChart struct {
	Title    string            `json:"title"`
	Currency string            `json:"currency"`
	From     string            `json:"from"`
	To       string            `json:"to"`
	Series   []jsonChartSeries `json:"series"`
}

type jsonChartSeries struct {
	Label       string           `json:"label"`
	GPU         string           `json:"gpu"`
	PriceType   string           `json:"price_type"`
	Seller      string           `json:"seller"`
	Points      []jsonChartPoint `json:"points"`
	Unconverted []string         `json:"unconverted"`
}

type jsonChartPoint struct {
	At               string      `json:"at"`
	PerGPUHour       json.Number `json:"price_per_gpu_hour"`
	Provider         string      `json:"provider"`
	Region           string      `json:"region"`
	InstanceType     string      `json:"instance_type"`
	PriceType        string      `json:"price_type"`
	GPUModel         string      `json:"gpu_model"`
	NativeCurrency   string      `json:"native_currency"`
	NativePerGPUHour json.Number `json:"native_price_per_gpu_hour"`
	FXStale          bool        `json:"fx_stale"`
}

func num(d decimal.Decimal) json.Number { return json.Number(d.String()) }

func numNull(d decimal.NullDecimal) *json.Number {
	if !d.Valid {
		return nil
	}
	n := num(d.Decimal)
	return &n
}

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func tsPtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := ts(*t)
	return &s
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func choiceJSON(c *digest.Choice) *jsonChoice {
	if c == nil {
		return nil
	}
	return &jsonChoice{jsonOffer: offerJSON(c.Offer), PricePerGPUHour: num(c.PerGPUHour), NativeCurrency: c.NativeCurrency,
		NativePricePerGPUHour: num(c.NativePerGPUHour), FXStale: c.FXStale, Available: c.Available}
}

// WriteJSON renders the digest as indented JSON.
func WriteJSON(w io.Writer, d digest.Digest) error {
	loc := d.Loc()
	out := jsonDigest{Week: d.Week, GeneratedAt: ts(d.Now), From: ts(d.From), Timezone: loc.String(), Currency: d.Currency,
		Offers: d.Offers, Changed: d.Changed, Moved: d.Moved, FleetGPUs: d.FleetGPUs, FleetHours: digest.FleetHours, Utilization: "1", Regions: orEmpty(d.Regions), Baseline: orEmpty(d.Baseline), StaleRates: d.StaleRates(), MissingRates: orEmpty(d.MissingRates()),
		Models: []jsonModel{}, Moves: []jsonMove{}, NewAvailability: []jsonEvent{}, SoldOut: []jsonEvent{}, Savings: []jsonSavings{}, CapacityBlocks: []jsonBlock{}, BlocksSeen: d.BlocksSeen,
		Providers: []jsonProvider{}, StaleProviders: []string{}, Rates: []jsonRate{}}
	for _, m := range d.Models {
		jm := jsonModel{Model: m.Model, OnDemand: choiceJSON(m.OnDemand), MarketOnDemand: choiceJSON(m.MarketOnDemand), Spot: choiceJSON(m.Spot), Commitment: choiceJSON(m.Commitment),
			OnDemandWoWPct: numNull(m.OnDemandWoW), SpotWoWPct: numNull(m.SpotWoW), Offers: m.Offers, Unconverted: m.Unconverted}
		if jm.Unconverted == nil {
			jm.Unconverted = map[string]int{}
		}
		out.Models = append(out.Models, jm)
	}
	for _, mv := range d.Moves {
		out.Moves = append(out.Moves, jsonMove{jsonOffer: keyJSON(mv.Key, mv.Hardware), Currency: mv.Currency, From: num(mv.From), To: num(mv.To),
			FromPerGPU: numNull(mv.FromPerGPU), ToPerGPU: numNull(mv.ToPerGPU), Pct: num(mv.Pct)})
	}
	for _, list := range []struct {
		in  []digest.AvailabilityEvent
		out *[]jsonEvent
	}{{d.NewAvailability, &out.NewAvailability}, {d.SoldOut, &out.SoldOut}} {
		for _, e := range list.in {
			*list.out = append(*list.out, jsonEvent{Provider: e.Provider, Region: e.Region, Zones: orEmpty(e.Zones), InstanceType: e.InstanceType,
				GPUModel: e.GPUModel, GPUCount: e.GPUCount, State: e.State, Back: e.Back, At: ts(e.At), Still: e.Still})
		}
	}
	for _, c := range d.CapacityBlocks {
		out.CapacityBlocks = append(out.CapacityBlocks, jsonBlock{Provider: c.Provider, Region: c.Region, Zone: c.Zone, InstanceType: c.InstanceType,
			GPUModel: c.GPUModel, GPUs: c.GPUs, WindowStart: ts(c.Start), WindowEnd: ts(c.End), PerGPUHour: numNull(c.PerGPUHour),
			NativeCurrency: c.NativeCurrency, NativeUpfront: num(c.NativeFee), NativePerGPUHour: num(c.NativePerGPUHour), FirstSeen: ts(c.FirstSeen), Still: c.Still})
	}
	for _, s := range d.Savings {
		js := jsonSavings{Model: s.Model, jsonOffer: offerJSON(s.Offer), Currency: s.Currency, EffectivePerGPU: num(s.EffectivePerGPU),
			OnDemandPerGPU: num(s.OnDemandPerGPU), SavingsPct: num(s.FullUseSavingsPct), BreakEvenUtilization: num(s.BreakEvenUtilization),
			PaybackDays: numNull(s.PaybackDays()), Upfront: num(s.Upfront), MonthlyRunRate: runRateJSON(d, s), NativeCurrency: s.NativeCurrency, FXRate: num(s.FXRate), FXDate: s.FXDate, FXStale: s.FXStale}
		out.Savings = append(out.Savings, js)
	}
	for _, p := range d.Freshness {
		out.Providers = append(out.Providers, jsonProvider{Provider: p.Provider, ExpectedEvery: int64(p.Expected / time.Second), LastSuccess: tsPtr(p.LastSuccess),
			LastRun: tsPtr(p.LastRun), LastStatus: p.LastStatus, LastError: p.LastError, Stale: p.Stale, Reason: p.Reason})
		if p.Stale {
			out.StaleProviders = append(out.StaleProviders, p.Provider)
		}
	}
	for _, r := range d.Rates {
		jr := jsonRate{From: r.From, To: r.To, Missing: r.Missing, Error: r.Error, Offers: r.Offers}
		if !r.Missing {
			n := num(r.Quote.Rate)
			jr.Rate, jr.Source, jr.Stale = &n, r.Quote.Source, r.Quote.Stale
			if !r.Quote.Date.IsZero() {
				jr.Date = r.Quote.Date.Format(time.DateOnly)
			}
		}
		out.Rates = append(out.Rates, jr)
	}
	out.Chart = jsonChart{Title: d.Chart.Title, Currency: d.Chart.Currency, From: ts(d.Chart.From), To: ts(d.Chart.To), Series: []jsonChartSeries{}}
	for _, s := range d.Chart.Series {
		js := jsonChartSeries{Label: s.Label, GPU: s.GPU, PriceType: string(s.PriceType), Seller: string(s.Seller), Points: []jsonChartPoint{}, Unconverted: orEmpty(s.Unconverted)}
		for _, p := range s.Points {
			js.Points = append(js.Points, jsonChartPoint{At: ts(p.At), PerGPUHour: num(p.PerGPUHour), Provider: p.Key.Provider, Region: pricewatch.Place(p.Key.Region, p.Key.Zone),
				InstanceType: p.Key.InstanceType, PriceType: string(p.Key.PriceType), GPUModel: p.GPUModel, NativeCurrency: p.NativeCurrency,
				NativePerGPUHour: num(p.NativePerGPUHour), FXStale: p.FXStale})
		}
		out.Chart.Series = append(out.Chart.Series, js)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

func runRateJSON(d digest.Digest, s digest.SavingsRow) *json.Number {
	rr, ok := d.MonthlyRunRate(s.EffectivePerGPU)
	return numNull(decimal.NullDecimal{Decimal: rr, Valid: ok})
}
