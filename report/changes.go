package report

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/storage"
)

// ChangeStore is the read `changes` adds to Store: the facts each run
// recorded in the transaction that stored it.
type ChangeStore interface {
	Changes(ctx context.Context, f storage.ChangeFilter) ([]pricewatch.Change, error)
}

// ChangesQuery is `changes` and GET /api/v1/changes.
type ChangesQuery struct {
	Since        time.Time
	Kinds        []pricewatch.ChangeKind // none: every kind
	GPU          string                  // a model or family, matched as compare does
	Providers    []string
	Regions      []string
	InstanceType string
	// Limit bounds the answer to the newest Limit changes (0: all).
	Limit int
}

// The kinds a change can be, in two groups a caller can name at once.
var (
	PriceChangeKinds        = []pricewatch.ChangeKind{pricewatch.PriceNew, pricewatch.PriceChanged, pricewatch.PriceGone}
	AvailabilityChangeKinds = []pricewatch.ChangeKind{pricewatch.AvailabilityNew, pricewatch.AvailabilityGone, pricewatch.BackInStock, pricewatch.SoldOutNow}
)

// ParseChangeKinds reads kind values: a kind (price_changed, sold_out, …)
// or a group (price, availability); none is every kind.
func ParseChangeKinds(name string, vals []string) ([]pricewatch.ChangeKind, error) {
	var out []pricewatch.ChangeKind
	seen := map[pricewatch.ChangeKind]bool{}
	add := func(ks ...pricewatch.ChangeKind) {
		for _, k := range ks {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	for _, v := range vals {
		switch k := pricewatch.ChangeKind(strings.TrimSpace(v)); {
		case k == "price":
			add(PriceChangeKinds...)
		case k == "availability":
			add(AvailabilityChangeKinds...)
		case isChangeKind(k):
			add(k)
		default:
			var names []string
			for _, k := range append(append([]pricewatch.ChangeKind{}, PriceChangeKinds...), AvailabilityChangeKinds...) {
				names = append(names, string(k))
			}
			return nil, paramErr("%s %q: want price, availability or one of %s", name, v, strings.Join(names, ", "))
		}
	}
	return out, nil
}

func isChangeKind(k pricewatch.ChangeKind) bool {
	for _, g := range [][]pricewatch.ChangeKind{PriceChangeKinds, AvailabilityChangeKinds} {
		for _, known := range g {
			if k == known {
				return true
			}
		}
	}
	return false
}

// Changes lists the stored changes the query selects, newest first. A GPU
// family is expanded to the stored models it covers; a GPU nothing stored
// matches selects nothing.
func Changes(ctx context.Context, st interface {
	Store
	ChangeStore
}, q ChangesQuery) ([]pricewatch.Change, error) {
	f := storage.ChangeFilter{Since: q.Since, Kinds: q.Kinds, Providers: q.Providers, Regions: q.Regions, Limit: q.Limit}
	if q.InstanceType != "" {
		f.InstanceTypes = []string{q.InstanceType}
	}
	if q.GPU != "" {
		models, err := StoredGPUModels(ctx, st, q.GPU)
		if err != nil {
			return nil, err
		}
		if len(models) == 0 {
			return []pricewatch.Change{}, nil
		}
		f.GPUModels = models
	}
	out, err := st.Changes(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("listing changes: %w", err)
	}
	return out, nil
}

// ChangeRow is the JSON shape of a change; keep the names. Price figures
// are effective hourly rates in currency (null for a price seen first or
// gone); states are null on price changes.
type ChangeRow struct {
	Kind string `json:"kind"`
	At   any    `json:"at"`
	pricewatch.OfferKeyJSON
	GPUModel            string      `json:"gpu_model"`
	GPUCount            float64     `json:"gpu_count"`
	Currency            string      `json:"currency"`
	FromEffectiveHourly NullDecimal `json:"from_effective_hourly"`
	ToEffectiveHourly   NullDecimal `json:"to_effective_hourly"`
	Change              NullDecimal `json:"change"`
	ChangePct           NullDecimal `json:"change_pct"`
	FromState           *string     `json:"from_state"`
	ToState             *string     `json:"to_state"`
}

// ChangeRows turns changes into rows; none is an empty list.
func ChangeRows(cs []pricewatch.Change) []ChangeRow {
	out := make([]ChangeRow, 0, len(cs))
	for _, c := range cs {
		at := c.At
		r := ChangeRow{Kind: string(c.Kind), At: Time(&at), OfferKeyJSON: c.Offer.JSON(), GPUModel: c.GPUModel, GPUCount: c.GPUCount,
			Currency: c.Currency, FromEffectiveHourly: NewNullDecimal(c.Old.Decimal, c.Old.Valid), ToEffectiveHourly: NewNullDecimal(c.New.Decimal, c.New.Valid),
			FromState: optString(string(c.OldState)), ToState: optString(string(c.NewState))}
		if c.Old.Valid && c.New.Valid {
			d := c.New.Decimal.Sub(c.Old.Decimal)
			r.Change = NewNullDecimal(d, true)
			if !c.Old.Decimal.IsZero() {
				r.ChangePct = NewNullDecimal(d.Mul(decimal.NewFromInt(100)).DivRound(c.Old.Decimal, analysis.PercentDecimals), true)
			}
		}
		out = append(out, r)
	}
	return out
}
