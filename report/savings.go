package report

import (
	"context"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/fx"
	"github.com/pricewatch/pricewatch/storage"
)

// SavingsQuery is `savings` and GET /api/v1/savings/{instance_type}.
type SavingsQuery struct {
	Scope
	InstanceType string
	Utilization  decimal.Decimal // 0–1, see analysis.ParseUtilization
}

// Savings is every commitment of an instance type beside on-demand.
type Savings struct {
	// Offers are the current prices of the type in scope, priced or not.
	Offers []pricewatch.Offer
	analysis.SavingsReport
}

// ComputeSavings compares each commitment of the type with on-demand.
func ComputeSavings(ctx context.Context, st Store, book *fx.Book, q SavingsQuery) (Savings, error) {
	// Only the type's offers are read (filtered in SQL), not every current
	// price in scope.
	offers, err := currentOffers(ctx, st, storage.PriceFilter{Providers: q.Providers, Regions: q.Regions, OS: StorageOS(q.OS),
		InstanceType: q.InstanceType})
	if err != nil {
		return Savings{}, err
	}
	rep, err := analysis.ComputeSavings(offers, analysis.SavingsOptions{Utilization: q.Utilization, Currency: q.Currency, FX: book, At: q.At})
	if err != nil {
		return Savings{}, err
	}
	return Savings{Offers: offers, SavingsReport: rep}, nil
}

// SavingsRow is the JSON shape scripts rely on; keep the names. Costs are at
// the given utilisation, percentages 0–100, utilisations 0–1.
type SavingsRow struct {
	pricewatch.OfferKeyJSON
	GPUModel             string      `json:"gpu_model"`
	GPUCount             float64     `json:"gpu_count"`
	Currency             string      `json:"currency"`
	TermHours            int64       `json:"term_hours"`
	Upfront              Decimal     `json:"upfront"`
	Hourly               Decimal     `json:"hourly_price"`
	OnDemandHourly       Decimal     `json:"on_demand_hourly"`
	EffectiveHourly      Decimal     `json:"effective_hourly"`
	Utilization          Decimal     `json:"utilization"`
	SavingsPct           Decimal     `json:"savings_pct"`
	FullUseSavingsPct    Decimal     `json:"full_use_savings_pct"`
	DiscountPct          Decimal     `json:"discount_pct"`
	BreakEvenUtilization Decimal     `json:"break_even_utilization"`
	BreaksEven           bool        `json:"breaks_even"`
	TermCost             Decimal     `json:"term_cost"`
	OnDemandTermCost     Decimal     `json:"on_demand_term_cost"`
	PaybackHours         NullDecimal `json:"payback_hours"`
	Best                 bool        `json:"best"`
	NativeCurrency       string      `json:"native_currency"`
	FXJSON
}

// SavingsRows are the report's options, group by group.
func SavingsRows(rep analysis.SavingsReport) []SavingsRow {
	rows := rep.Rows()
	out := make([]SavingsRow, 0, len(rows))
	for _, s := range rows {
		out = append(out, SavingsRow{
			OfferKeyJSON: s.OfferKeyJSON,
			GPUModel:     s.GPUModel, GPUCount: s.GPUCount, Currency: s.Currency, TermHours: s.TermHours,
			Upfront: Decimal(s.Upfront), Hourly: Decimal(s.Hourly), OnDemandHourly: Decimal(s.OnDemandHourly),
			EffectiveHourly: Decimal(s.EffectiveHourly), Utilization: Decimal(s.Utilization),
			SavingsPct: Decimal(s.SavingsPct), FullUseSavingsPct: Decimal(s.FullUseSavingsPct), DiscountPct: Decimal(s.DiscountPct),
			BreakEvenUtilization: Decimal(s.BreakEvenUtilization), BreaksEven: s.BreaksEven,
			TermCost: Decimal(s.TermCost), OnDemandTermCost: Decimal(s.OnDemandTermCost),
			PaybackHours: NewNullDecimal(s.PaybackHours.Decimal, s.PaybackHours.Valid), Best: s.Best,
			NativeCurrency: s.NativeCurrency, FXJSON: FXJSONOf(s.FXUsed),
		})
	}
	return out
}
