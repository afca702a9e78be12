package report

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/internal/table"
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

// ChangesParams are a changes question as the CLI's flags and the API's
// parameters put it (the same names), before it is read.
type ChangesParams struct {
	Since, GPU, InstanceType  string
	Kinds, Providers, Regions []string
	Limit                     int
}

// DefaultChangesSince and DefaultChangesLimit are what an unset since or
// limit means: a busy marketplace records thousands of changes a day.
const (
	DefaultChangesSince = "7d"
	DefaultChangesLimit = 500
)

// Values are the API's parameters of the question (the CLI's --server).
func (p ChangesParams) Values() url.Values {
	q := url.Values{"since": {p.Since}, "limit": {strconv.Itoa(p.Limit)}}
	for name, vs := range map[string][]string{"kind": p.Kinds, "provider": p.Providers, "region": p.Regions, "gpu": {p.GPU}, "instance_type": {p.InstanceType}} {
		for _, v := range vs {
			if v != "" {
				q.Add(name, v)
			}
		}
	}
	return q
}

// Query reads the question at now, then looks its names up in st: an
// unknown GPU or instance type is not stored (with the nearest names).
func (p ChangesParams) Query(ctx context.Context, st NameStore, now time.Time) (ChangesQuery, error) {
	if p.Limit < 0 {
		return ChangesQuery{}, paramErr("limit %d: want 0 (all) or more", p.Limit)
	}
	since, err := ParseSince("since", p.Since, now)
	if err != nil {
		return ChangesQuery{}, err
	}
	kinds, err := ParseChangeKinds("kind", p.Kinds)
	if err != nil {
		return ChangesQuery{}, err
	}
	q := ChangesQuery{Since: since, Kinds: kinds, GPU: strings.TrimSpace(p.GPU), Providers: p.Providers, Regions: p.Regions, Limit: p.Limit}
	if p.InstanceType != "" {
		if q.InstanceType, err = ResolveInstanceType(ctx, st, p.InstanceType); err != nil {
			return ChangesQuery{}, err
		}
	}
	return q, CheckGPUModel(ctx, st, q.GPU)
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

// ChangesTable is the changes as `changes` prints them: each side of a
// change its effective hourly price, else its availability state.
func ChangesTable(rows []ChangeRow, timeOf func(any) string) *table.Table {
	t := table.New("AT", "KIND", "PROVIDER", "PLACE", "INSTANCE TYPE", "PRICE TYPE", "TERM", "FROM", "TO", "CHANGE %")
	side := func(price NullDecimal, state *string) string {
		switch {
		case price.Valid:
			return price.D.String()
		case state != nil:
			return *state
		}
		return "-"
	}
	p := pricewatch.Printable
	for _, r := range rows {
		pct := "-"
		if r.ChangePct.Valid {
			pct = r.ChangePct.D.String()
		}
		t.Add(timeOf(r.At), r.Kind, p(r.Provider), p(pricewatch.Place(r.Region, r.Zone)), p(r.InstanceType), dashIfEmpty(string(r.PriceType)),
			dashIfEmpty(p(r.Term)), side(r.FromEffectiveHourly, r.FromState), side(r.ToEffectiveHourly, r.ToState), pct)
	}
	return t
}
