package report

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/fx"
	"github.com/pricewatch/pricewatch/gpu"
	"github.com/pricewatch/pricewatch/storage"
)

// OfferTableQuery is the offers table (the dashboard's /offers and GET
// /api/v1/offer-table): every current offer, filtered and sorted. Every
// filter left empty keeps everything; the dashboard's script applies the
// same rules in the browser, so a rule changed here changes there too
// (web/static/offers.js).
type OfferTableQuery struct {
	// Scope: Providers are exact names; Regions are globs ("us-*",
	// "*east*"; * any run of characters, ? one), matched against the
	// region code without regard to case. OS and Currency as everywhere.
	Scope
	// GPUs are models or families (gpu.Matches): an offer matches any.
	GPUs []string
	// MinGPUs and MaxGPUs bound the GPUs per instance (0: no bound). With
	// either bound an offer whose GPU count is unknown is left out.
	MinGPUs, MaxGPUs float64
	PriceTypes       []pricewatch.PriceType
	// NativeCurrencies keep offers priced in these currencies.
	NativeCurrencies []string
	// AvailableOnly keeps offers known to be offered or in stock.
	AvailableOnly bool
	// Marketplace: "" every seller, "only" marketplace hosts only,
	// "exclude" the clouds' own capacity only.
	Marketplace string
	// Hardware bounds the machine and its converted price (issue 31
	// item 2): the server applies it, not the page's script.
	Hardware analysis.HardwareFilter
	// MaxBand, when set, keeps spot offers whose AWS Spot Advisor
	// interruption band is known and no higher than it (one of
	// pricewatch.InterruptionBands): an offer without a band is left out,
	// as an unknown availability is by AvailableOnly.
	MaxBand string
	// Search: every word must occur, without regard to case, in the
	// provider, region, zone, instance type or GPU model.
	Search string
	// Sort is a column ID (OfferColumns); "" keeps the default order (per
	// GPU-hour, cheapest first). Desc reverses it; unknown values always
	// sort last.
	Sort string
	Desc bool
	// By is ByPrice (one row per price, Rows) or ByMachine (one row per
	// machine, Machines, in MachineRows' order: Sort does not apply).
	// Per is the machine rows' unit of time.
	By  string
	Per Per
	// Limit, when positive, keeps only the first Limit rows of the order
	// (OfferTable.Matching still counts every matching row): the page
	// shows no more, and the rest need neither ordering nor a move.
	// Ignored By machine and when ordering by the move.
	Limit int
}

// Marketplace filter values.
const (
	MarketplaceOnly    = "only"
	MarketplaceExclude = "exclude"
)

// MarketplaceOf is the Marketplace filter value of a seller choice.
func MarketplaceOf(s analysis.Seller) string {
	switch s {
	case analysis.SellerCloud:
		return MarketplaceExclude
	case analysis.SellerMarketplace:
		return MarketplaceOnly
	}
	return ""
}

// OfferTableRow is one row of the offers table as JSON and CSV carry it.
// Hardware the cloud did not report is null ("unknown" on the page), never
// a guess: interconnect and local storage are the cloud's own words where
// its answer states them (see docs/fields.md for which clouds do).
type OfferTableRow struct {
	pricewatch.OfferKeyJSON
	GPUModel string  `json:"gpu_model"`
	GPUCount float64 `json:"gpu_count"`
	KnownHardware
	// The cloud's own price: hourly, upfront and their effective hourly.
	NativeCurrency        string  `json:"native_currency"`
	Hourly                Decimal `json:"hourly_price"`
	Upfront               Decimal `json:"upfront"`
	NativeEffectiveHourly Decimal `json:"native_effective_hourly"`
	// Converted into Currency; null without an exchange rate (FXError).
	Currency        string      `json:"currency"`
	EffectiveHourly NullDecimal `json:"effective_hourly"`
	PricePerGPUHour NullDecimal `json:"price_per_gpu_hour"`
	PricePerTFLOPS  NullDecimal `json:"price_per_gpu_hour_per_tflops"`
	PricePerGB      NullDecimal `json:"price_per_gpu_hour_per_gb"`
	FXJSON
	FXError *string `json:"fx_error"`
	// Available: true offered or in stock, false sold out, null unknown.
	Available    *bool  `json:"available"`
	Availability string `json:"availability"`
	Marketplace  bool   `json:"marketplace"`
	// InterruptionBand is a spot offer's AWS Spot Advisor interruption
	// band (Linux); null where none is stored: no information, never "low
	// risk".
	InterruptionBand *string `json:"interruption_band"`
	// Since is when the current price began: the offer's last change.
	Since string `json:"last_change"`
	// Move30d is the percent change of the native effective hourly price
	// from 30 days before (null when the offer had no price then).
	Move30d NullDecimal `json:"move_30d_pct"`

	// order is the row's place in the default order (per GPU-hour): the
	// browser sorts ties by it, as SortOfferRows keeps them.
	order int
}

// Order is the row's place in the default order (0 first).
func (r OfferTableRow) Order() int { return r.order }

// OfferTable is the table's rows and what its filters can choose from.
type OfferTable struct {
	// Rows match every filter, in the order asked: the first
	// OfferTableQuery.Limit of them when it is set.
	Rows []OfferTableRow
	// Matching is how many rows match every filter (len(Rows) without a
	// Limit).
	Matching int
	// Total is the number of current offers in scope before the filters.
	Total int
	// Providers, NativeCurrencies and PriceTypes occur among the current
	// offers; GPUs are their models and the families covering several.
	Providers        []string
	NativeCurrencies []string
	PriceTypes       []pricewatch.PriceType
	GPUs             []GPUChoice
	Currency         string
	// Machines are the matching offers grouped per machine (MachineRows),
	// when the query asks By machine.
	Machines []MachineRow
}

// GPUChoice is a model or family the GPU filter offers, with the stored
// models it matches (so a browser can filter without gpu.Matches).
type GPUChoice struct {
	Name   string
	Models []string
}

// OfferColumn is one column of the table: its ID (the sort and col
// parameters), its heading, and whether it is shown by default.
type OfferColumn struct {
	ID, Label string
	Default   bool
	// Numeric columns sort as numbers, the others as text.
	Numeric bool
}

// OfferColumns are the table's columns in display order.
var OfferColumns = []OfferColumn{
	{ID: "provider", Label: "provider", Default: true},
	{ID: "region", Label: "region", Default: true},
	{ID: "zone", Label: "zone"},
	{ID: "instance", Label: "instance type", Default: true},
	{ID: "gpu", Label: "GPU", Default: true},
	{ID: "gpus", Label: "GPUs", Default: true, Numeric: true},
	// The prices come before the hardware: at 1,400 px a table with the
	// hardware first put every price off-screen.
	{ID: "buy", Label: "buy", Default: true},
	{ID: "hourly", Label: "per hour", Default: true, Numeric: true},
	{ID: "price", Label: "per GPU-hour", Default: true, Numeric: true},
	{ID: "native", Label: "native per hour", Numeric: true},
	{ID: "tflops", Label: "per TFLOPS", Numeric: true},
	{ID: "gb", Label: "per GPU GB", Numeric: true},
	{ID: "move", Label: "30d", Default: true, Numeric: true},
	{ID: "avail", Label: "availability", Default: true},
	// Sorted by the band's rank (<5% first), not its text.
	{ID: "band", Label: "interruption band", Default: true, Numeric: true},
	{ID: "gpu_mem", Label: "GPU GB", Default: true, Numeric: true},
	{ID: "vcpus", Label: "vCPUs", Default: true, Numeric: true},
	{ID: "memory", Label: "memory GB", Default: true, Numeric: true},
	{ID: "interconnect", Label: "interconnect"},
	{ID: "storage", Label: "local storage"},
	{ID: "since", Label: "last change"},
}

// OfferColumnByID finds a column.
func OfferColumnByID(id string) (OfferColumn, bool) {
	for _, c := range OfferColumns {
		if c.ID == id {
			return c, true
		}
	}
	return OfferColumn{}, false
}

// moveWindow is how far back the 30-day move looks.
const moveWindow = 30 * 24 * time.Hour

// OfferChoiceStore counts the current offers' providers, price types,
// GPU models and currencies in SQL (storage.DB does). With it the table
// reads only the offers the price-type and GPU filters keep; without it
// every offer in scope is read and the choices come from them.
type OfferChoiceStore interface {
	CurrentOfferChoices(ctx context.Context, os string) ([]storage.OfferChoice, error)
}

// BuildOfferTable reads the current offers in q's scope, rates them in
// q.Currency, and keeps and orders the rows q asks for.
func BuildOfferTable(ctx context.Context, st Store, book *fx.Book, q OfferTableQuery) (OfferTable, error) {
	return buildOfferTable(ctx, st, book, q, nil)
}

// buildOfferTable is BuildOfferTable; with visit, each row (By price) is
// handed to it as it is made, and neither kept, ordered nor given its
// move (Move30d null: the 30-day move is a read of the history).
func buildOfferTable(ctx context.Context, st Store, book *fx.Book, q OfferTableQuery, visit func(*OfferTableRow)) (OfferTable, error) {
	if q.Sort != "" {
		if _, ok := OfferColumnByID(q.Sort); !ok {
			return OfferTable{}, paramErr("sort %q: want one of the columns (%s)", q.Sort, offerColumnIDs())
		}
	}
	if _, ok := pricewatch.InterruptionBandRank(q.MaxBand); q.MaxBand != "" && !ok {
		return OfferTable{}, paramErr("max_band %q: want one of %s", q.MaxBand, strings.Join(pricewatch.InterruptionBands, ", "))
	}
	filter := storage.PriceFilter{Providers: q.Providers, OS: StorageOS(q.OS), CurrentOnly: true}
	t := OfferTable{Currency: strings.ToUpper(q.Currency)}
	// The choices are counted in SQL only when the read can be narrowed:
	// reading every offer anyway, they come from the offers themselves.
	cs, counted := st.(OfferChoiceStore)
	counted = counted && (len(q.PriceTypes) > 0 || len(q.GPUs) > 0)
	if counted {
		choices, err := cs.CurrentOfferChoices(ctx, StorageOS(q.OS))
		if err != nil {
			return OfferTable{}, err
		}
		t.choose(choices)
		// What SQL can filter, it does: the price types and the stored
		// models the GPU filter matches.
		filter.PriceTypes = q.PriceTypes
		if len(q.GPUs) > 0 {
			filter.GPUModels = matchedModels(q.GPUs, t.GPUs)
		}
	}
	avail, err := CurrentAvailability(ctx, st, Scope{Providers: q.Providers})
	if err != nil {
		return OfferTable{}, err
	}
	bands, err := CurrentSpotBands(ctx, st)
	if err != nil {
		return OfferTable{}, err
	}
	rater, err := analysis.NewRater(analysis.IndexAvailability(avail), analysis.CompareOptions{
		Providers: q.Providers, OS: q.OS, Currency: q.Currency, FX: book, At: q.At})
	if err != nil {
		return OfferTable{}, err
	}
	// Each offer is rated, filtered and made a row as it is read: only the
	// rows kept are held, not every offer and a rated row of each as well
	// (together 1.2 kB an offer, 52 MB of the scale history's 45,050).
	f := newOfferFilter(q)
	// A table of every offer (the default /offers) has room made for them
	// all at once: growing 45k rows of 536 bytes step by step held up to
	// twice as many at each step.
	var first *firstRows
	scratch := new(rankedRow)
	// Ordered by the move, every row's move is read before the order is
	// known: no row can be left out before then.
	if q.Limit > 0 && q.By != ByMachine && q.Sort != "move" {
		first = &firstRows{o: newRowOrder(q.Sort, q.Desc), n: q.Limit}
	}
	if c, ok := st.(currentCounter); ok && first == nil && q.By != ByMachine && len(q.Providers) == 0 && len(filter.PriceTypes) == 0 && filter.GPUModels == nil && f.keepsAll() {
		t.Rows = make([]OfferTableRow, 0, c.CurrentPrices())
	}
	choices := map[storage.OfferChoice]int{}
	then := q.At.Add(-moveWindow)
	var changed []movedRow
	var machines []analysis.RatedOffer
	err = st.EachPrice(ctx, filter, func(p *storage.PriceInterval) error {
		r, ok := rater.Rate(&p.Offer)
		if !ok {
			return nil
		}
		if !counted {
			choices[storage.OfferChoice{Provider: r.Provider, PriceType: r.PriceType, GPUModel: r.GPUModel, Currency: r.Offer.Currency}]++
		}
		band, _ := bands.Of(r.Offer)
		if !f.keep(&r, band) {
			return nil
		}
		if q.By == ByMachine {
			machines = append(machines, r)
			return nil
		}
		if visit == nil && first != nil {
			if key := r.Offer.Key().JSON(); first.leavesOut(r.PerGPU, r.PricePerGPUHour, &key) {
				return nil
			}
		}
		row := tableRow(&r, t.Currency, p.ValidFrom, then)
		row.InterruptionBand = optString(band)
		if visit != nil {
			row.Move30d = NullDecimal{}
			visit(&row)
			return nil
		}
		moved := p.ValidFrom.After(then)
		if first != nil {
			scratch.row, scratch.offerID, scratch.moved = row, p.OfferID, moved
			first.o.value(scratch)
			scratch = first.offer(scratch)
			return nil
		}
		if moved {
			changed = append(changed, movedRow{len(t.Rows), p.OfferID})
		}
		t.Rows = append(t.Rows, row)
		return nil
	})
	if err != nil {
		return OfferTable{}, fmt.Errorf("reading the current offers: %w", err)
	}
	if !counted {
		list := make([]storage.OfferChoice, 0, len(choices))
		for c, n := range choices {
			c.Offers = n
			list = append(list, c)
		}
		t.choose(list)
	}
	if q.By == ByMachine {
		analysis.SortRated(machines)
		var conv, unconv []analysis.CompareRow
		for _, r := range machines {
			if r.Converted {
				conv = append(conv, r.CompareRow)
			} else {
				unconv = append(unconv, r.CompareRow)
			}
		}
		t.Machines = MachineRows(t.Currency, cmp.Or(q.Per, PerHour), conv, unconv)
		return t, nil
	}
	t.Matching = len(t.Rows)
	if visit != nil {
		return t, nil
	}
	if first != nil {
		t.Rows, changed = first.table()
		t.Matching = first.seen
	}
	// The price 30 days before is the current one for a row whose price
	// began before then; only the others are read.
	if len(changed) > 0 {
		ids := make([]int64, len(changed))
		for i, m := range changed {
			ids[i] = m.id
		}
		old := make(map[int64]decimal.Decimal, len(changed))
		err = st.EachPrice(ctx, storage.PriceFilter{OfferIDs: ids, At: []time.Time{then}, Unordered: true, EffectiveOnly: true, PricesOnly: true},
			func(p *storage.PriceInterval) error {
				old[p.OfferID] = p.EffectiveHourly
				return nil
			})
		if err != nil {
			return OfferTable{}, fmt.Errorf("reading the prices of 30 days before: %w", err)
		}
		for _, m := range changed {
			row := &t.Rows[m.row]
			if prev, ok := old[m.id]; ok && prev.IsPositive() {
				pct := decimal.Decimal(row.NativeEffectiveHourly).Sub(prev).Mul(decimal.NewFromInt(100)).DivRound(prev, 1)
				row.Move30d = NewNullDecimal(pct, true)
			}
		}
	}
	if first != nil {
		return t, nil // in order already
	}
	analysis.SortByPrice(t.Rows, func(r *OfferTableRow) (bool, decimal.Decimal, *pricewatch.OfferKeyJSON) {
		return r.PricePerGPUHour.Valid, r.PricePerGPUHour.D, &r.OfferKeyJSON
	})
	for i := range t.Rows {
		t.Rows[i].order = i
	}
	SortOfferRows(t.Rows, q.Sort, q.Desc)
	return t, nil
}

// matchedModels are the stored models any of the GPU filters matches
// (non-nil: nothing matched keeps nothing).
func matchedModels(filters []string, choices []GPUChoice) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, c := range choices {
		for _, m := range c.Models {
			for _, g := range filters {
				if !seen[m] && gpu.Matches(g, m) {
					seen[m] = true
					out = append(out, m)
				}
			}
		}
	}
	return out
}

// currentCounter is a store that knows how many current prices it holds
// without reading them (a CurrentState's).
type currentCounter interface{ CurrentPrices() int }

func offerColumnIDs() string {
	ids := make([]string, len(OfferColumns))
	for i, c := range OfferColumns {
		ids[i] = c.ID
	}
	return strings.Join(ids, ", ")
}

// tableRow is r as the table shows it. Its 30-day move is 0 when its
// price was in force from moveFrom on; otherwise it is left null, for the
// caller that reads the price of then to set.
func tableRow(r *analysis.RatedOffer, currency string, since, moveFrom time.Time) OfferTableRow {
	o := r.Offer
	row := OfferTableRow{
		OfferKeyJSON: o.Key().JSON(), GPUModel: o.GPUModel, GPUCount: o.GPUCount,
		NativeCurrency: o.Currency, Hourly: Decimal(o.Hourly), Upfront: Decimal(o.Upfront), NativeEffectiveHourly: Decimal(r.NativeEffectiveHourly),
		Currency: currency, FXError: optString(r.FXError), Available: r.Available, Availability: AvailabilityName(r.Availability),
		Marketplace: r.Marketplace, Since: since.UTC().Format(time.RFC3339),
	}
	row.KnownHardware = Known(o.Hardware)
	if r.Converted {
		row.EffectiveHourly = NewNullDecimal(r.EffectiveHourly, true)
		row.FXJSON = FXJSONOf(r.FXUsed)
	}
	if r.PerGPU {
		row.PricePerGPUHour = NewNullDecimal(r.PricePerGPUHour, true)
		row.PricePerTFLOPS = NewNullDecimal(r.PricePerTFLOPS.Decimal, r.PricePerTFLOPS.Valid)
		row.PricePerGB = NewNullDecimal(r.PricePerGB.Decimal, r.PricePerGB.Valid)
	}
	if !since.After(moveFrom) {
		// The current price was already in force 30 days before.
		row.Move30d = NewNullDecimal(decimal.Zero, true)
	}
	return row
}

// choose sets the table's filter choices and total from what the current
// offers are made of.
func (t *OfferTable) choose(choices []storage.OfferChoice) {
	prov, cur, pt, models := map[string]bool{}, map[string]bool{}, map[pricewatch.PriceType]bool{}, map[string]bool{}
	for _, c := range choices {
		t.Total += c.Offers
		prov[c.Provider], cur[c.Currency], pt[c.PriceType] = true, true, true
		if c.GPUModel != "" {
			models[c.GPUModel] = true
		}
	}
	t.Providers, t.NativeCurrencies = analysis.SortedKeys(prov), analysis.SortedKeys(cur)
	for _, p := range pricewatch.PriceTypes {
		if pt[p] {
			t.PriceTypes = append(t.PriceTypes, p)
		}
	}
	// A family is a model's name up to a hyphen ("A100" of "A100-80GB")
	// that gpu.Matches takes to cover more than one stored model.
	names := analysis.SortedKeys(models)
	families := map[string]bool{}
	for _, m := range names {
		for i := strings.IndexByte(m, '-'); i > 0; i = nextHyphen(m, i) {
			families[m[:i]] = true
		}
	}
	choice := func(name string) GPUChoice {
		c := GPUChoice{Name: name}
		for _, m := range names {
			if gpu.Matches(name, m) {
				c.Models = append(c.Models, m)
			}
		}
		return c
	}
	seen := map[string]bool{}
	for _, fam := range analysis.SortedKeys(families) {
		if c := choice(fam); len(c.Models) > 1 && !models[fam] {
			t.GPUs = append(t.GPUs, c)
			seen[fam] = true
		}
	}
	for _, m := range names {
		if !seen[m] {
			t.GPUs = append(t.GPUs, choice(m))
		}
	}
	sort.SliceStable(t.GPUs, func(i, j int) bool { return t.GPUs[i].Name < t.GPUs[j].Name })
}

func nextHyphen(s string, i int) int {
	j := strings.IndexByte(s[i+1:], '-')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

// offerFilter is a query's filters, prepared once for many offers.
type offerFilter struct {
	q       OfferTableQuery
	regions []string
	models  map[string]bool // nil: every model; else each model's answer, worked out when first met
	types   map[pricewatch.PriceType]bool
	curs    map[string]bool
	words   []string
}

func newOfferFilter(q OfferTableQuery) offerFilter {
	f := offerFilter{q: q}
	for _, r := range q.Regions {
		f.regions = append(f.regions, strings.ToLower(r))
	}
	if len(q.GPUs) > 0 {
		f.models = map[string]bool{}
	}
	if len(q.PriceTypes) > 0 {
		f.types = map[pricewatch.PriceType]bool{}
		for _, p := range q.PriceTypes {
			f.types[p] = true
		}
	}
	if len(q.NativeCurrencies) > 0 {
		f.curs = map[string]bool{}
		for _, c := range q.NativeCurrencies {
			f.curs[strings.ToUpper(c)] = true
		}
	}
	f.words = strings.Fields(strings.ToLower(q.Search))
	return f
}

// keepsAll reports whether f keeps every offer.
func (f offerFilter) keepsAll() bool {
	q := f.q
	return q.MaxBand == "" && len(f.regions) == 0 && f.models == nil && q.MinGPUs <= 0 && q.MaxGPUs <= 0 && f.types == nil && f.curs == nil &&
		!q.AvailableOnly && q.Hardware.Zero() && q.Marketplace == "" && len(f.words) == 0
}

func (f offerFilter) keep(r *analysis.RatedOffer, band string) bool {
	o := &r.Offer
	if f.q.MaxBand != "" {
		max, _ := pricewatch.InterruptionBandRank(f.q.MaxBand)
		if rank, ok := pricewatch.InterruptionBandRank(band); !ok || rank > max {
			return false
		}
	}
	if len(f.regions) > 0 {
		ok := false
		for _, g := range f.regions {
			if Glob(g, strings.ToLower(o.Region)) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if f.models != nil {
		keep, ok := f.models[o.GPUModel]
		if !ok {
			keep = slices.ContainsFunc(f.q.GPUs, func(g string) bool { return gpu.Matches(g, o.GPUModel) })
			f.models[o.GPUModel] = keep
		}
		if !keep {
			return false
		}
	}
	if (f.q.MinGPUs > 0 || f.q.MaxGPUs > 0) && (o.GPUCount <= 0 || o.GPUCount < f.q.MinGPUs || (f.q.MaxGPUs > 0 && o.GPUCount > f.q.MaxGPUs)) {
		return false
	}
	if f.types != nil && !f.types[o.PriceType] {
		return false
	}
	if f.curs != nil && !f.curs[o.Currency] {
		return false
	}
	if f.q.AvailableOnly && (r.Available == nil || !*r.Available) {
		return false
	}
	if !f.q.Hardware.KeepsMachine(o.Hardware) {
		return false
	}
	if f.q.Hardware.MaxPrice.Valid && (!r.Converted || !r.PerGPU || !f.q.Hardware.KeepsPrice(r.EffectiveHourly, r.PricePerGPUHour)) {
		return false
	}
	switch f.q.Marketplace {
	case MarketplaceOnly:
		if !r.Marketplace {
			return false
		}
	case MarketplaceExclude:
		if r.Marketplace {
			return false
		}
	}
	if len(f.words) > 0 {
		text := SearchText(*o)
		for _, w := range f.words {
			if !strings.Contains(text, w) {
				return false
			}
		}
	}
	return true
}

// SearchText is what the table's text search looks in: provider, region,
// zone, instance type and GPU model, lower case, separated by spaces.
func SearchText(o pricewatch.Offer) string {
	return strings.ToLower(strings.Join([]string{o.Provider, o.Region, o.Zone, o.InstanceType, o.GPUModel}, " "))
}

// Glob matches s against pattern: * is any run of characters, ? any one,
// everything else itself (no classes, so that the browser's copy of this
// rule stays a few lines).
func Glob(pattern, s string) bool {
	p, t := []rune(pattern), []rune(s)
	pi, ti, star, mark := 0, 0, -1, 0
	for ti < len(t) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == t[ti]):
			pi++
			ti++
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, ti
			pi++
		case star >= 0:
			pi, mark = star+1, mark+1
			ti = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// SortOfferRows orders rows by the column (stable: ties keep the default
// order they come in); an unknown value sorts last either way.
func SortOfferRows(rows []OfferTableRow, column string, desc bool) {
	if column == "" {
		if desc {
			for i, j := 0, len(rows)-1; i < j; i, j = i+1, j-1 {
				rows[i], rows[j] = rows[j], rows[i]
			}
		}
		return
	}
	col, _ := OfferColumnByID(column)
	// Each value once, then an index sorted: rows are large to swap.
	type key struct {
		i int
		v SortValue
		f float64
	}
	keys := make([]key, len(rows))
	for i := range rows {
		v := OfferSortValue(&rows[i], column)
		keys[i] = key{i: i, v: v, f: v.Num.InexactFloat64()}
	}
	slices.SortStableFunc(keys, func(a, b key) int {
		return compareCells(col.Numeric, desc, &a.v, a.f, &b.v, b.f)
	})
	sorted := make([]OfferTableRow, len(rows))
	for i, k := range keys {
		sorted[i] = rows[k.i]
	}
	copy(rows, sorted)
}

// SortValue is a cell's value for sorting: a number or a text, or
// unknown.
type SortValue struct {
	Num  decimal.Decimal
	Text string
	Null bool
}

// OfferSortValue is row's value in column, as the page writes it for the
// browser to sort by (data-v).
func OfferSortValue(r *OfferTableRow, column string) SortValue {
	num := func(d decimal.Decimal) SortValue { return SortValue{Num: d, Text: d.String()} }
	null := func(d NullDecimal) SortValue {
		if !d.Valid {
			return SortValue{Null: true}
		}
		return num(d.D)
	}
	text := func(s string) SortValue { return SortValue{Text: s, Null: s == ""} }
	switch column {
	case "provider":
		return text(r.Provider)
	case "region":
		return text(r.Region)
	case "zone":
		return text(r.Zone)
	case "instance":
		return text(r.InstanceType)
	case "gpu":
		return text(r.GPUModel)
	case "gpus":
		if r.GPUCount <= 0 {
			return SortValue{Null: true}
		}
		return num(decimal.NewFromFloat(r.GPUCount))
	case "gpu_mem":
		if r.GPUMemoryGB == nil {
			return SortValue{Null: true}
		}
		return num(decimal.NewFromFloat(*r.GPUMemoryGB))
	case "vcpus":
		if r.VCPUs == nil {
			return SortValue{Null: true}
		}
		return num(decimal.NewFromInt(int64(*r.VCPUs)))
	case "memory":
		if r.MemoryGB == nil {
			return SortValue{Null: true}
		}
		return num(decimal.NewFromFloat(*r.MemoryGB))
	case "interconnect":
		return SortValue{Null: r.Interconnect == nil, Text: deref(r.Interconnect)}
	case "storage":
		return SortValue{Null: r.LocalStorage == nil, Text: deref(r.LocalStorage)}
	case "buy":
		return text(r.HowBought())
	case "hourly":
		return null(r.EffectiveHourly)
	case "native":
		return num(decimal.Decimal(r.NativeEffectiveHourly))
	case "price":
		return null(r.PricePerGPUHour)
	case "tflops":
		return null(r.PricePerTFLOPS)
	case "gb":
		return null(r.PricePerGB)
	case "avail":
		return text(r.Availability)
	case "band":
		rank, ok := pricewatch.InterruptionBandRank(deref(r.InterruptionBand))
		if !ok {
			return SortValue{Null: true}
		}
		return num(decimal.NewFromInt(int64(rank)))
	case "since":
		return text(r.Since)
	case "move":
		return null(r.Move30d)
	}
	return SortValue{Null: true}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// OfferTableCSV is the table as CSV: every JSON field, in the JSON's order.
func OfferTableCSV(rows []OfferTableRow) (header []string, out [][]string) {
	header = append([]string{"provider", "region", "zone", "instance_type", "price_type", "term", "payment", "offering_class", "os"}, "gpu_model", "gpu_count", "gpu_memory_gb", "vcpus", "memory_gb", "interconnect", "local_storage",
		"native_currency", "hourly_price", "upfront", "native_effective_hourly", "currency", "effective_hourly", "price_per_gpu_hour",
		"price_per_gpu_hour_per_tflops", "price_per_gpu_hour_per_gb", "fx_rate", "fx_date", "fx_source", "fx_stale", "fx_error", "available", "availability", "marketplace",
		"interruption_band", "last_change", "move_30d_pct")
	f := func(v *float64) string {
		if v == nil {
			return ""
		}
		return strconv.FormatFloat(*v, 'f', -1, 64)
	}
	for _, r := range rows {
		vcpus := ""
		if r.VCPUs != nil {
			vcpus = strconv.Itoa(*r.VCPUs)
		}
		avail := ""
		if r.Available != nil {
			avail = strconv.FormatBool(*r.Available)
		}
		out = append(out, []string{r.Provider, r.Region, r.Zone, r.InstanceType, string(r.PriceType), r.Term, r.Payment, r.OfferingClass, r.OS,
			r.GPUModel, strconv.FormatFloat(r.GPUCount, 'f', -1, 64), f(r.GPUMemoryGB), vcpus, f(r.MemoryGB), deref(r.Interconnect), deref(r.LocalStorage),
			r.NativeCurrency, r.Hourly.String(), r.Upfront.String(), r.NativeEffectiveHourly.String(), r.Currency, r.EffectiveHourly.Text(),
			r.PricePerGPUHour.Text(), r.PricePerTFLOPS.Text(), r.PricePerGB.Text(), r.FXRate.Text(), deref(r.FXDate), r.FXSource, strconv.FormatBool(r.FXStale),
			deref(r.FXError), avail, r.Availability, strconv.FormatBool(r.Marketplace), deref(r.InterruptionBand), r.Since, r.Move30d.Text()})
	}
	return header, out
}

// KnownHardware is the machine beside a row's GPU as the JSON rows carry
// it (issue 25 item 2): null where the cloud did not report it (stored
// as 0 or ""), never a guess; interconnect and local storage are the
// cloud's own words. Embedded in a row, its keys stand where it does.
type KnownHardware struct {
	GPUMemoryGB  *float64 `json:"gpu_memory_gb"`
	VCPUs        *int     `json:"vcpus"`
	MemoryGB     *float64 `json:"memory_gb"`
	Interconnect *string  `json:"interconnect"`
	LocalStorage *string  `json:"local_storage"`
}

// Known is what h reports of the machine beside its GPU.
func Known(h pricewatch.Hardware) KnownHardware {
	k := KnownHardware{Interconnect: knownText(h.Interconnect), LocalStorage: knownText(h.LocalStorage)}
	if h.GPUMemoryGB > 0 {
		v := h.GPUMemoryGB
		k.GPUMemoryGB = &v
	}
	if h.VCPUs > 0 {
		v := h.VCPUs
		k.VCPUs = &v
	}
	if h.MemoryGB > 0 {
		v := h.MemoryGB
		k.MemoryGB = &v
	}
	return k
}

// knownText is a stated hardware text (interconnect, local storage) as
// JSON carries it: null where the cloud did not state it (stored as "").
func knownText(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
