package report

import (
	"context"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/gpu"
	"github.com/pricewatch/pricewatch/storage"
)

// HistoryQuery is `history` and GET /api/v1/history/{instance_type}.
type HistoryQuery struct {
	InstanceType string
	Providers    []string
	Regions      []string
	Since        time.Time // zero: all of it
	// PriceTypes and OS narrow it (nil, "": every one), e.g. to thin a plot.
	PriceTypes []pricewatch.PriceType
	OS         string
	// Limit, when positive, keeps the newest Limit intervals (by start),
	// still returned by offer and time.
	Limit int
	// CurrentOnly keeps the current prices only.
	CurrentOnly bool
	// Seller keeps the clouds' own offers, marketplace hosts' or both
	// (applied after Limit: a type sold both ways is rare, RunPod's).
	Seller analysis.Seller
}

func (q HistoryQuery) filter() storage.PriceFilter {
	return storage.PriceFilter{InstanceType: q.InstanceType, Providers: q.Providers, Regions: q.Regions, Since: q.Since, Limit: q.Limit,
		PriceTypes: q.PriceTypes, OS: q.OS, CurrentOnly: q.CurrentOnly}
}

// History is every price interval of an instance type, by offer and time.
func History(ctx context.Context, st Store, q HistoryQuery) ([]storage.PriceInterval, error) {
	rows, err := st.Prices(ctx, q.filter())
	if err != nil || q.Seller == "" {
		return rows, err
	}
	kept := rows[:0]
	for _, r := range rows {
		if q.Seller.KeepsOffer(r.Provider, r.OfferingClass) {
			kept = append(kept, r)
		}
	}
	return kept, nil
}

// EachChartHistory hands fn History's intervals as a chart ending at "to"
// draws them (Store.EachChartPrice): from the daily summary before the
// last days, a changed day at its low then its close, and every stored
// change in them; only the identity, currency, effective rate and
// validity are set, offers in no particular order. fn must not keep r: a
// year of a busy type is tens of thousands of intervals, and a chart
// keeps of each only what it draws.
func EachChartHistory(ctx context.Context, st Store, q HistoryQuery, to time.Time, fn func(r *storage.PriceInterval) error) error {
	return st.EachChartPrice(ctx, q.filter(), to, fn)
}

// EachHistory hands History's intervals to fn one at a time, in the same
// order, without holding them all (a busy type has tens of thousands). fn
// must not keep r.
func EachHistory(ctx context.Context, st Store, q HistoryQuery, fn func(r *storage.PriceInterval) error) error {
	return st.EachPrice(ctx, q.filter(), func(r *storage.PriceInterval) error {
		if !q.Seller.KeepsOffer(r.Provider, r.OfferingClass) {
			return nil
		}
		return fn(r)
	})
}

// HistoryRow is the JSON shape scripts rely on; keep the names.
type HistoryRow struct {
	pricewatch.OfferKeyJSON
	Currency        string  `json:"currency"`
	HourlyPrice     Decimal `json:"hourly_price"`
	Upfront         Decimal `json:"upfront"`
	EffectiveHourly Decimal `json:"effective_hourly"`
	// PricePerGPUHour is null where the GPU count is unknown.
	PricePerGPUHour NullDecimal `json:"price_per_gpu_hour"`
	GPUModel        string      `json:"gpu_model"`
	GPUCount        float64     `json:"gpu_count"`
	GPUMemoryGB     float64     `json:"gpu_memory_gb"`
	ValidFrom       any         `json:"valid_from"`
	ValidTo         any         `json:"valid_to"`
	LastSeen        any         `json:"last_seen"`
}

// HistoryRows turns intervals into rows; none is an empty list.
func HistoryRows(rows []storage.PriceInterval) []HistoryRow {
	out := make([]HistoryRow, 0, len(rows))
	for i := range rows {
		out = append(out, NewHistoryRow(&rows[i]))
	}
	return out
}

// NewHistoryRow is one interval's row (what HistoryRows makes of each, for
// callers that stream them).
func NewHistoryRow(r *storage.PriceInterval) HistoryRow {
	from, seen := r.ValidFrom, r.LastSeen
	return HistoryRow{
		OfferKeyJSON: r.Key().JSON(), Currency: r.Currency, HourlyPrice: Decimal(r.Hourly), Upfront: Decimal(r.Upfront),
		EffectiveHourly: Decimal(r.EffectiveHourly), PricePerGPUHour: NewNullDecimal(pricewatch.PerGPUHour(r.EffectiveHourly, r.GPUCount)),
		GPUModel: r.GPUModel, GPUCount: r.GPUCount, GPUMemoryGB: r.GPUMemoryGB,
		ValidFrom: Time(&from), ValidTo: Time(r.ValidTo), LastSeen: Time(&seen),
	}
}

// AvailabilityQuery is `availability` and GET /api/v1/availability.
type AvailabilityQuery struct {
	InstanceType string
	GPU          string // a model or family, matched as compare does
	All          bool   // closed intervals too
	Providers    []string
	Regions      []string
	// Seller keeps the clouds' own capacity, marketplace hosts' or both:
	// availability has no offering class, so a cloud that sells both
	// ways (RunPod) counts as the cloud's own.
	Seller analysis.Seller
}

// Availability lists where each GPU type is offered or in stock.
func Availability(ctx context.Context, st Store, q AvailabilityQuery) ([]pricewatch.AvailabilityInterval, error) {
	// The GPU is matched as compare does (A100 covers A100-40GB and
	// A100-80GB), not by exact name in SQL.
	rows, err := st.Availability(ctx, storage.AvailabilityFilter{InstanceType: q.InstanceType, All: q.All, Providers: q.Providers, Regions: q.Regions})
	if err != nil {
		return nil, err
	}
	rows = matchingGPU(rows, q.GPU, func(r pricewatch.AvailabilityInterval) string { return r.GPUModel })
	if q.Seller == "" {
		return rows, nil
	}
	kept := rows[:0]
	for _, r := range rows {
		if q.Seller.KeepsOffer(r.Provider, "") {
			kept = append(kept, r)
		}
	}
	return kept, nil
}

// AvailabilityRow is the JSON shape scripts rely on; keep the names.
type AvailabilityRow struct {
	Provider     string  `json:"provider"`
	Region       string  `json:"region"`
	Zone         string  `json:"zone"`
	InstanceType string  `json:"instance_type"`
	GPUModel     string  `json:"gpu_model"`
	GPUCount     float64 `json:"gpu_count"`
	State        string  `json:"state"`
	StockDetail  *string `json:"stock_detail"`
	Since        any     `json:"since"`
	Until        any     `json:"until"`
}

// AvailabilityRows turns intervals into rows; none is an empty list.
func AvailabilityRows(rows []pricewatch.AvailabilityInterval) []AvailabilityRow {
	out := make([]AvailabilityRow, 0, len(rows))
	for _, r := range rows {
		since := r.Since
		out = append(out, AvailabilityRow{Provider: r.Provider, Region: r.Region, Zone: r.Zone, InstanceType: r.InstanceType,
			GPUModel: r.GPUModel, GPUCount: r.GPUCount, State: string(r.State), StockDetail: optString(r.StockDetail),
			Since: Time(&since), Until: Time(r.Until)})
	}
	return out
}

// matchingGPU keeps the rows whose GPU model matches query as compare
// matches it (A100 covers A100-40GB and A100-80GB); "" keeps every row.
func matchingGPU[R any](rows []R, query string, model func(R) string) []R {
	if query == "" {
		return rows
	}
	kept := rows[:0]
	for _, r := range rows {
		if gpu.Matches(query, model(r)) {
			kept = append(kept, r)
		}
	}
	return kept
}
