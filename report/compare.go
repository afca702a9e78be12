package report

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/fx"
	"github.com/pricewatch/pricewatch/gpu"
	"github.com/pricewatch/pricewatch/storage"
)

// Scope is what every analysis report shares: which offers, in which
// currency, as of when.
type Scope struct {
	Providers []string
	Regions   []string
	OS        string // "" (Linux), windows or any
	Currency  string // resolved: see Currency
	At        time.Time
}

// CurrentOffers are the current prices in scope. The GPU is matched in Go
// with gpu.Matches (a family name matches several stored models), so
// SQL filters only by place and OS.
func CurrentOffers(ctx context.Context, st Store, s Scope) ([]pricewatch.Offer, error) {
	rows, err := st.Prices(ctx, storage.PriceFilter{Providers: s.Providers, Regions: s.Regions, OS: StorageOS(s.OS), CurrentOnly: true})
	if err != nil {
		return nil, err
	}
	out := make([]pricewatch.Offer, len(rows))
	for i, r := range rows {
		out[i] = r.Offer
	}
	return out, nil
}

// CurrentAvailability is the current availability in scope.
func CurrentAvailability(ctx context.Context, st Store, s Scope) ([]pricewatch.Availability, error) {
	rows, err := st.Availability(ctx, storage.AvailabilityFilter{Providers: s.Providers, Regions: s.Regions})
	if err != nil {
		return nil, err
	}
	out := make([]pricewatch.Availability, len(rows))
	for i, r := range rows {
		out[i] = pricewatch.Availability{Provider: r.Provider, Region: r.Region, Zone: r.Zone, InstanceType: r.InstanceType,
			State: r.State, StockDetail: r.StockDetail, Hardware: pricewatch.Hardware{GPUModel: r.GPUModel, GPUCount: r.GPUCount}}
	}
	return out, nil
}

// CompareQuery is `compare` and GET /api/v1/offers.
type CompareQuery struct {
	Scope
	GPU           string
	Count         float64 // GPUs per instance; 0 any
	PriceTypes    []pricewatch.PriceType
	AvailableOnly bool
	// Seller and Hardware: see analysis.CompareOptions.
	Seller   analysis.Seller
	Hardware analysis.HardwareFilter
	// By is ByPrice or ByMachine (issue 31 item 3): which rows
	// CompareAnswer gives; Per is the machine rows' unit.
	By  string
	Per Per
}

// CompareAnswer is a compare result as the query's view gives it: one
// CompareRow per price, or one MachineRow per machine.
func CompareAnswer(res analysis.CompareResult, q CompareQuery) any {
	if q.By == ByMachine {
		return MachinesOf(res, q.Per)
	}
	return CompareRows(res)
}

// StoredGPUModels resolves a GPU model or family ("A100" covers A100-40GB
// and A100-80GB, with gpu.Matches's spellings) to the models stored on
// offers, so that SQL can filter by them: nil when model is empty (every
// model), empty when nothing matches.
func StoredGPUModels(ctx context.Context, st Store, model string) ([]string, error) {
	if strings.TrimSpace(model) == "" {
		return nil, nil
	}
	all, err := st.GPUModels(ctx)
	if err != nil {
		return nil, err
	}
	out := []string{}
	for _, m := range all {
		if gpu.Matches(model, m) {
			out = append(out, m)
		}
	}
	return out, nil
}

// currentOffers are the current prices matching f, streamed from the
// store (offers only, not whole intervals, are kept).
func currentOffers(ctx context.Context, st Store, f storage.PriceFilter) ([]pricewatch.Offer, error) {
	f.CurrentOnly = true
	var out []pricewatch.Offer
	err := st.EachPrice(ctx, f, func(p *storage.PriceInterval) error {
		out = append(out, p.Offer)
		return nil
	})
	return out, err
}

// currentOfGPU is what Compare and Recommend start from: the current
// offers in scope of the GPU's stored models (filtered in SQL, see
// StoredGPUModels) and the current availability in scope.
func currentOfGPU(ctx context.Context, st Store, s Scope, model string) ([]pricewatch.Offer, []pricewatch.Availability, error) {
	models, err := StoredGPUModels(ctx, st, model)
	if err != nil {
		return nil, nil, err
	}
	offers, err := currentOffers(ctx, st, storage.PriceFilter{Providers: s.Providers, Regions: s.Regions, OS: StorageOS(s.OS), GPUModels: models})
	if err != nil {
		return nil, nil, err
	}
	avail, err := CurrentAvailability(ctx, st, s)
	if err != nil {
		return nil, nil, err
	}
	return offers, avail, nil
}

// Compare ranks the current offers of a GPU by price per GPU-hour. Only
// the offers of the GPU's stored models are read (filtered in SQL);
// analysis.Compare still matches them, so the result is the same.
func Compare(ctx context.Context, st Store, book *fx.Book, q CompareQuery) (analysis.CompareResult, error) {
	offers, avail, err := currentOfGPU(ctx, st, q.Scope, q.GPU)
	if err != nil {
		return analysis.CompareResult{}, err
	}
	res, err := analysis.Compare(offers, avail, analysis.CompareOptions{
		GPU: q.GPU, Count: q.Count, PriceTypes: q.PriceTypes, Providers: q.Providers, Regions: q.Regions,
		OS: q.OS, AvailableOnly: q.AvailableOnly, Currency: q.Currency, FX: book, At: q.At,
		Seller: q.Seller, Hardware: q.Hardware,
	})
	if err != nil {
		return res, err
	}
	if err := addBands(ctx, st, &res); err != nil {
		return res, err
	}
	return res, addWindows(ctx, st, &res)
}

// addWindows puts each capacity_block row's window beside its price: the
// current capacity_block signal of the same provider, region, zone,
// instance type and duration, of one instance, with the soonest start;
// the same rule that chose the offering the price is of (fetchers/aws
// blockPrices). A block whose signal is not stored shows no window.
func addWindows(ctx context.Context, st Store, res *analysis.CompareResult) error {
	isBlock := func(r analysis.CompareRow) bool { return r.Offer.PriceType == pricewatch.CapacityBlockPrice }
	if !slices.ContainsFunc(res.Rows, isBlock) && !slices.ContainsFunc(res.Unconverted, isBlock) {
		return nil
	}
	sigs, err := st.Signals(ctx, storage.SignalFilter{Kinds: []pricewatch.SignalKind{pricewatch.CapacityBlock}, CurrentOnly: true})
	if err != nil {
		return err
	}
	type place struct {
		provider, region, zone, instanceType, hours string
	}
	soonest := map[place]pricewatch.Signal{}
	for _, sg := range sigs {
		if pricewatch.ShapeValue(sg.Shape, "instance_count") != "1" {
			continue
		}
		p := place{sg.Provider, sg.Region, sg.Zone, sg.InstanceType, pricewatch.ShapeValue(sg.Shape, "duration_hours")}
		if cur, ok := soonest[p]; !ok || sg.Start.Before(cur.Start) {
			soonest[p] = sg.Signal
		}
	}
	for _, rows := range [][]analysis.CompareRow{res.Rows, res.Unconverted} {
		for i := range rows {
			o := rows[i].Offer
			if o.PriceType != pricewatch.CapacityBlockPrice {
				continue
			}
			hours, err := pricewatch.TermHours(o.Term)
			if err != nil {
				continue
			}
			if sg, ok := soonest[place{o.Provider, o.Region, o.Zone, o.InstanceType, strconv.FormatInt(hours, 10)}]; ok {
				rows[i].WindowStart, rows[i].WindowEnd = sg.Start.UTC(), sg.End.UTC()
			}
		}
	}
	return nil
}

// addBands puts the current interruption band (AWS Spot Advisor) and
// eviction band (Azure) of each spot row's type and region beside its
// price. A row without a stored band keeps none: no band is no
// information, never "low risk".
func addBands(ctx context.Context, st Store, res *analysis.CompareResult) error {
	if !slices.ContainsFunc(res.Rows, isSpotRow) && !slices.ContainsFunc(res.Unconverted, isSpotRow) {
		return nil
	}
	bands, err := CurrentSpotBands(ctx, st)
	if err != nil {
		return err
	}
	for _, rows := range [][]analysis.CompareRow{res.Rows, res.Unconverted} {
		for i := range rows {
			rows[i].InterruptionBand, rows[i].EvictionBand = bands.Of(rows[i].Offer)
		}
	}
	return nil
}

func isSpotRow(r analysis.CompareRow) bool { return r.Offer.PriceType == pricewatch.Spot }

// CompareRow is the JSON shape scripts rely on; keep the names. Unranked
// rows (no exchange rate) have a null rank, price and fx_rate.
type CompareRow struct {
	Rank *int `json:"rank"`
	pricewatch.OfferKeyJSON
	GPUModel string  `json:"gpu_model"`
	GPUCount float64 `json:"gpu_count"`
	// The machine beside the price: null where the cloud does not say.
	KnownHardware
	Currency              string      `json:"currency"`
	PricePerGPUHour       NullDecimal `json:"price_per_gpu_hour"`
	PricePerTFLOPS        NullDecimal `json:"price_per_gpu_hour_per_tflops"`
	PricePerGB            NullDecimal `json:"price_per_gpu_hour_per_gb"`
	EffectiveHourly       NullDecimal `json:"effective_hourly"`
	NativeCurrency        string      `json:"native_currency"`
	NativeEffectiveHourly Decimal     `json:"native_effective_hourly"`
	FXJSON
	FXError      *string `json:"fx_error"`
	Available    bool    `json:"available"`
	Availability string  `json:"availability"`
	// InterruptionBand is a spot row's interruption band (AWS Spot
	// Advisor: "<5%" … ">20%"); null where none is stored (no band is no
	// information, never "low risk").
	InterruptionBand *string `json:"interruption_band"`
	// EvictionBand is an Azure spot row's eviction-rate band as Azure
	// words it; null where none is stored.
	EvictionBand *string `json:"eviction_band"`
	// WindowStart and WindowEnd are a capacity_block row's window (issue
	// 23 item 3); null for every other row.
	WindowStart *time.Time `json:"window_start"`
	WindowEnd   *time.Time `json:"window_end"`
	// Marketplace marks third-party hosts' machines (Vast.ai, RunPod
	// Community Cloud), not the cloud's own capacity.
	Marketplace bool `json:"marketplace"`
}

// CompareRows are the ranked rows, then the unconverted ones.
func CompareRows(res analysis.CompareResult) []CompareRow {
	out := make([]CompareRow, 0, len(res.Rows)+len(res.Unconverted))
	conv := func(r analysis.CompareRow, ranked bool) CompareRow {
		row := CompareRow{
			OfferKeyJSON: r.OfferKeyJSON, GPUModel: r.GPUModel, GPUCount: r.GPUCount,
			Currency: res.Currency, NativeCurrency: r.NativeCurrency, NativeEffectiveHourly: Decimal(r.NativeEffectiveHourly),
			FXError: optString(r.FXError), Available: r.Available != nil && *r.Available, Availability: AvailabilityName(r.Availability),
			Marketplace: r.Marketplace, InterruptionBand: optString(r.InterruptionBand),
			EvictionBand: optString(r.EvictionBand),
		}
		row.KnownHardware = Known(r.Offer.Hardware)
		if !r.WindowStart.IsZero() {
			start, end := r.WindowStart, r.WindowEnd
			row.WindowStart, row.WindowEnd = &start, &end
		}
		if ranked {
			rank := r.Rank
			row.Rank = &rank
			row.PricePerGPUHour = NewNullDecimal(r.PricePerGPUHour, true)
			row.PricePerTFLOPS = NewNullDecimal(r.PricePerTFLOPS.Decimal, r.PricePerTFLOPS.Valid)
			row.PricePerGB = NewNullDecimal(r.PricePerGB.Decimal, r.PricePerGB.Valid)
			row.EffectiveHourly = NewNullDecimal(r.EffectiveHourly, true)
			row.FXJSON = FXJSONOf(r.FXUsed)
		}
		return row
	}
	for _, r := range res.Rows {
		out = append(out, conv(r, true))
	}
	for _, r := range res.Unconverted {
		out = append(out, conv(r, false))
	}
	return out
}

// AvailabilityName is a compare row's availability state, "unknown" when
// nothing is known.
func AvailabilityName(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
