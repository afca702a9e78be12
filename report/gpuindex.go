package report

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fx"
	"github.com/pricewatch/pricewatch/storage"
)

// GPUIndexRow is one GPU model of the dashboard's GPU index: its cheapest
// current offer per GPU-hour for each way of buying, the clouds that
// offer it, and how its cheapest on-demand price moved in 30 days.
type GPUIndexRow struct {
	Model string
	// Cheapest holds, per price type, the cheapest row (nil: none).
	Cheapest map[pricewatch.PriceType]*OfferTableRow
	Clouds   []string
	Offers   int
	// OnDemandThen is the cheapest on-demand price per GPU-hour 30 days
	// before, in the same currency; Move30d the percent change to now.
	OnDemandThen NullDecimal
	Move30d      NullDecimal
}

// GPUIndex groups the offers table q asks for (every price type, any
// filters) by stored GPU model, with the cheapest on-demand price of 30
// days before read from the history and converted at that day's rates;
// and the table, without its rows.
func GPUIndex(ctx context.Context, st Store, book *fx.Book, q OfferTableQuery) ([]GPUIndexRow, OfferTable, error) {
	part, err := GPUIndexOf(ctx, st, book, q)
	if err != nil {
		return nil, OfferTable{}, err
	}
	return MergeGPUIndex([]GPUIndexPart{part}), part.table, nil
}

// GPUIndexPart is the GPU index of the offers q.Providers selects (one
// provider's, say), kept so that MergeGPUIndex makes the index of several
// parts exactly as GPUIndex makes it of all their offers at once: the
// cheapest rows are ordered totally (priceCompare), counts add up, and
// the prices of 30 days before are kept for every model, not only those
// with a current row here (another part's row may show the model).
type GPUIndexPart struct {
	rows    map[string]*GPUIndexRow
	clouds  map[string]map[string]bool
	lowThen map[string]decimal.Decimal
	table   OfferTable
}

// GPUIndexOf is the GPU index's part of the offers q selects. The rows
// are grouped as they are made, never held or ordered all at once (issue
// 30: the index's table of every current offer was a round's second
// largest allocation).
func GPUIndexOf(ctx context.Context, st Store, book *fx.Book, q OfferTableQuery) (GPUIndexPart, error) {
	part := GPUIndexPart{rows: map[string]*GPUIndexRow{}, clouds: map[string]map[string]bool{}, lowThen: map[string]decimal.Decimal{}}
	// The rows come without their moves: each model's is read below.
	t, err := buildOfferTable(ctx, st, book, q, func(r *OfferTableRow) {
		if r.GPUModel == "" {
			return
		}
		g := part.rows[r.GPUModel]
		if g == nil {
			g = &GPUIndexRow{Model: r.GPUModel, Cheapest: map[pricewatch.PriceType]*OfferTableRow{}}
			part.rows[r.GPUModel] = g
			part.clouds[r.GPUModel] = map[string]bool{}
		}
		g.Offers++
		part.clouds[r.GPUModel][r.Provider] = true
		if !r.PricePerGPUHour.Valid {
			return
		}
		if c := g.Cheapest[r.PriceType]; c == nil || priceCompare(r, c) < 0 {
			row := *r
			g.Cheapest[r.PriceType] = &row
		}
	})
	if err != nil {
		return GPUIndexPart{}, err
	}
	part.table = t
	sc := q.Scope
	then := sc.At.Add(-moveWindow)
	err = st.EachPrice(ctx, storage.PriceFilter{Providers: sc.Providers, OS: StorageOS(sc.OS), PriceTypes: []pricewatch.PriceType{pricewatch.OnDemand},
		At: []time.Time{then}, Unordered: true, EffectiveOnly: true}, func(p *storage.PriceInterval) error {
		if p.GPUModel == "" || !regionIn(sc.Regions, p.Region) {
			return nil
		}
		q, err := book.Quote(p.Currency, t.Currency, then)
		if err != nil {
			return nil // without a rate then, the offer cannot be compared
		}
		per, ok := pricewatch.PerGPUHour(q.Convert(p.EffectiveHourly), p.GPUCount)
		if !ok {
			return nil
		}
		if low, seen := part.lowThen[p.GPUModel]; !seen || per.LessThan(low) {
			part.lowThen[p.GPUModel] = per
		}
		return nil
	})
	if err != nil {
		return GPUIndexPart{}, fmt.Errorf("reading the on-demand prices of 30 days before: %w", err)
	}
	return part, nil
}

// MergeGPUIndex is the GPU index of parts, by model. The parts are read,
// never changed: a kept part is merged again with others' newer ones.
func MergeGPUIndex(parts []GPUIndexPart) []GPUIndexRow {
	byModel := map[string]*GPUIndexRow{}
	clouds := map[string]map[string]bool{}
	for _, part := range parts {
		for m, r := range part.rows {
			g := byModel[m]
			if g == nil {
				g = &GPUIndexRow{Model: m, Cheapest: map[pricewatch.PriceType]*OfferTableRow{}}
				byModel[m] = g
				clouds[m] = map[string]bool{}
			}
			g.Offers += r.Offers
			for c := range part.clouds[m] {
				clouds[m][c] = true
			}
			for pt, row := range r.Cheapest {
				if c := g.Cheapest[pt]; c == nil || priceCompare(row, c) < 0 {
					g.Cheapest[pt] = row
				}
			}
		}
	}
	lowThen := map[string]decimal.Decimal{}
	for _, part := range parts {
		for m, low := range part.lowThen {
			if l, seen := lowThen[m]; !seen || low.LessThan(l) {
				lowThen[m] = low
			}
		}
	}
	out := make([]GPUIndexRow, 0, len(byModel))
	for m, g := range byModel {
		g.Clouds = slices.Sorted(maps.Keys(clouds[m])) // never empty: the model has a row
		if low, ok := lowThen[m]; ok && low.IsPositive() {
			g.OnDemandThen = NewNullDecimal(low, true)
			if now := g.Cheapest[pricewatch.OnDemand]; now != nil {
				g.Move30d = NewNullDecimal(now.PricePerGPUHour.D.Sub(low).Mul(decimal.NewFromInt(100)).DivRound(low, 1), true)
			}
		}
		out = append(out, *g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Model < out[j].Model })
	return out
}

// regionIn applies the table's region globs (none: every region).
func regionIn(globs []string, region string) bool {
	if len(globs) == 0 {
		return true
	}
	for _, g := range globs {
		if Glob(strings.ToLower(g), strings.ToLower(region)) {
			return true
		}
	}
	return false
}

// Table is the offers table the part was grouped from, without its rows.
func (p GPUIndexPart) Table() OfferTable { return p.table }
