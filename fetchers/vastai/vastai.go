// Package vastai reads the Vast.ai marketplace through its public offer
// search (GET /api/v0/bundles/?q=<JSON>, no key needed) and normalises it
// to what a buyer compares. By default one search without a GPU filter,
// paged, reads every GPU model on the marketplace; configured gpu_models
// search those models only, one search each.
//
// Vast.ai is a marketplace: each offer is one host's machine (or part of
// one), and offers come and go by the minute, so a history per offer id
// would mean nothing. pricewatch keeps one price point per GPU model, GPU
// count and country instead:
//
//   - region is the ISO country code at the end of the offer's
//     geolocation ("Utah, US" and ", US" → "US"; "unknown" when it has none);
//   - instance type is "<N>x <gpu_name>" ("8x H100 SXM"), GPU count N;
//   - on_demand is the cheapest rentable offer's dph_total, spot the
//     cheapest min_bid (the interruptible floor), both per instance (all N
//     GPUs and the offer's storage), so a GPU-hour is the price ÷ N;
//   - availability is in_stock with the number of rentable offers as the
//     stock detail; a (country, type) seen in stock within the last
//     SoldOutMemory that has no rentable offer now is sold_out.
//
// An offer with rentable false (or already rented) never counts; an offer
// that cannot be read (a field missing or malformed, no GPUs, a negative
// price, another GPU than the one searched for) is skipped and counted,
// never the run's failure.
package vastai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"go.uber.org/zap"
	"golang.org/x/time/rate"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/section"
)

// DefaultEndpoint is Vast.ai's console API host; SearchPath is appended.
const DefaultEndpoint = "https://console.vast.ai"

// SearchPath is the offer search ("bundles") endpoint.
const SearchPath = "/api/v0/bundles/"

const (
	// PageSize is what the server returns at most per request: it clamps
	// larger limits to 64 (a limit of 400 came back with 64 offers).
	PageSize = 64
	// DefaultMaxPages bounds the pages read per search (25,600 offers):
	// the one search of the whole marketplace by default, or one per
	// configured GPU model. More than that fails the run rather than
	// storing a partial book. At DefaultRequestInterval 400 pages take
	// five minutes, inside the default ten-minute timeout.
	DefaultMaxPages = 400
	// DefaultRequestInterval spaces requests: unauthenticated bursts were
	// answered with HTTP 429.
	DefaultRequestInterval = 750 * time.Millisecond
	// SoldOutMemory is how long a (country, type) that had rentable offers
	// is reported sold_out once it has none. After that it is no longer
	// listed and storage withdraws it (availability_gone): a configuration
	// nobody has offered in a week is not "sold out" but not sold there.
	SoldOutMemory = 7 * 24 * time.Hour
	// vanishThreshold: a GPU model that had at least this many rentable
	// offers in the last run and has none now fails the run. Empty books
	// are normal for rare GPUs, not for a popular one overnight.
	vanishThreshold = 5
	// maxPageBytes bounds one page (64 offers are about 190 kB).
	maxPageBytes = 16 << 20
	pageTimeout  = 2 * time.Minute

	unknownCountry = "unknown"
	// stateVersion is the shape version of state.
	stateVersion = 1
)

// state is what the fetcher keeps between runs (Snapshot.State).
type state struct {
	// StockSeen remembers each (country, type) seen in stock, for the
	// sold_out records of SoldOutMemory.
	StockSeen map[string]seenPair `json:"stock_seen"`
	// Rentable counts the rentable offers per GPU model (Vast.ai's
	// gpu_name) in the last run, for the vanish check.
	Rentable map[string]int `json:"rentable"`
}

// Config is the fetcher's part of the configuration (providers.vastai.*).
type Config struct {
	// Endpoint is the base URL (scheme and host); empty means DefaultEndpoint.
	Endpoint string
	// GPUModels are Vast.ai gpu_name values to query, one search each;
	// empty means one search of every GPU model on the marketplace.
	GPUModels []string
	// MaxPages per search; 0 means DefaultMaxPages.
	MaxPages int
	// RequestInterval is the least time between two requests; negative
	// means none (tests), 0 means DefaultRequestInterval.
	RequestInterval time.Duration
}

// Section is providers.vastai: the Vast.ai marketplace search (no key).
type Section struct {
	section.Common `yaml:",inline"`
	// GPUModels are Vast.ai gpu_name values, one search each ("H100 SXM");
	// empty (the default) tracks every GPU model on the marketplace.
	GPUModels []string `yaml:"gpu_models"`
	// MaxPages bounds the 64-offer pages read per search.
	MaxPages int `yaml:"max_pages"`
	// RequestInterval spaces requests (unauthenticated bursts get 429).
	RequestInterval time.Duration `yaml:"request_interval"`
}

// Validate checks the keys beyond the shared ones.
func (s *Section) Validate(k section.Checker) error {
	var errs []error
	for i, m := range s.GPUModels {
		if strings.TrimSpace(m) == "" {
			errs = append(errs, k.Errorf(fmt.Sprintf("gpu_models[%d]", i), "must not be empty"))
		}
	}
	return errors.Join(append(errs, k.AtLeast("max_pages", s.MaxPages, 1), k.NotNegative("request_interval", s.RequestInterval))...)
}

// Provider registers Vast.ai (see package providers).
var Provider = fetchers.Provider{
	Name: pricewatch.VastAI,
	Facts: section.Facts{NeedsEndpoint: true,
		RegionsUnused: "offers are stored per country, every country the marketplace lists"},
	Section: func() section.Section {
		return &Section{
			// Marketplace offers change by the minute: every 15 minutes
			// catches capacity as it appears.
			Common:   section.Common{Enabled: true, Endpoint: DefaultEndpoint, Schedule: "*/15 * * * *", Timeout: 10 * time.Minute},
			MaxPages: DefaultMaxPages, RequestInterval: DefaultRequestInterval,
		}
	},
	Build: fetchers.Builder(func(s *Section, env fetchers.Env) (fetchers.Fetcher, error) {
		// request_interval 0 means no spacing; the fetcher's own 0 means
		// its default and a negative value none.
		interval := s.RequestInterval
		if interval == 0 {
			interval = -1
		}
		return New(Config{Endpoint: s.Endpoint, GPUModels: s.GPUModels, MaxPages: s.MaxPages, RequestInterval: interval}, env.Client, env.Log)
	}),
}

// Fetcher implements fetchers.Fetcher for Vast.ai.
type Fetcher struct {
	cfg     Config
	base    *url.URL
	client  *fetchers.Client
	limiter *rate.Limiter
	log     *zap.Logger
	now     func() time.Time
}

var _ fetchers.Fetcher = (*Fetcher)(nil)

// New checks cfg and returns a Fetcher sending through client.
func New(cfg Config, client *fetchers.Client, log *zap.Logger) (*Fetcher, error) {
	u, log, err := fetchers.Endpoint(pricewatch.VastAI, client, log, cfg.Endpoint, DefaultEndpoint, SearchPath)
	if err != nil {
		return nil, err
	}
	models, err := fetchers.Distinct(cfg.GPUModels, func(m string) string { return strings.Join(strings.Fields(m), " ") }, func(i int, m string) error {
		if m == "" {
			return fmt.Errorf("vastai: providers.vastai.gpu_models[%d] is empty", i)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	cfg.GPUModels = models
	if cfg.MaxPages <= 0 {
		cfg.MaxPages = DefaultMaxPages
	}
	if cfg.RequestInterval == 0 {
		cfg.RequestInterval = DefaultRequestInterval
	}
	lim := rate.NewLimiter(rate.Inf, 1)
	if cfg.RequestInterval > 0 {
		lim = rate.NewLimiter(rate.Every(cfg.RequestInterval), 1)
	}
	return &Fetcher{cfg: cfg, base: u, client: client, limiter: lim, log: log, now: time.Now}, nil
}

// Provider returns pricewatch.VastAI.
func (f *Fetcher) Provider() string { return pricewatch.VastAI }

// offer is one search result, with only the fields pricewatch reads. The
// prices decode from the JSON text, never through a float.
type offer struct {
	ID          *int64           `json:"id"`
	GPUName     *string          `json:"gpu_name"`
	NumGPUs     *int             `json:"num_gpus"`
	GPURAM      float64          `json:"gpu_ram"` // MiB per GPU
	DPHTotal    *decimal.Decimal `json:"dph_total"`
	MinBid      *decimal.Decimal `json:"min_bid"`
	Geolocation *string          `json:"geolocation"`
	Rentable    *bool            `json:"rentable"`
	Rented      *bool            `json:"rented"`
}

type page struct {
	Offers *[]json.RawMessage `json:"offers"`
}

// seenPair is what the fetcher remembers of a (country, type) it saw in
// stock, to report it sold_out while it is missing.
type seenPair struct {
	LastInStock time.Time `json:"last_in_stock"`
	GPUName     string    `json:"gpu_name"`
	GPUModel    string    `json:"gpu_model"`
	GPUCount    int       `json:"gpu_count"`
	GPUMemoryGB float64   `json:"gpu_memory_gb"`
}

// group collects the rentable offers of one (country, type).
type group struct {
	country, gpuName string
	count            int
	hw               pricewatch.Hardware
	onDemand, spot   decimal.NullDecimal
	rentable         int
}

// Fetch queries every configured GPU model, page by page, and returns the
// per-(country, type) snapshot, or an error if any page was not read in full.
func (f *Fetcher) Fetch(ctx context.Context, prev fetchers.Previous) (*pricewatch.Snapshot, error) {
	now := f.now().UTC()
	var before state
	if _, err := fetchers.DecodeState(prev.State, stateVersion, &before); err != nil {
		// Only the sold_out memory (and one run's vanish check) is lost;
		// the run itself is sound.
		f.log.Warn("vastai: remembered stock unreadable; starting afresh", zap.Error(err))
		before = state{}
	}
	seen := before.StockSeen
	if seen == nil {
		seen = map[string]seenPair{}
	}

	groups := map[string]*group{}
	rentableNow := map[string]int{}
	total, requests := 0, 0
	skipped := skips{}
	// Every GPU model ("" searches without a GPU filter), or the
	// configured ones.
	searches := f.cfg.GPUModels
	if len(searches) == 0 {
		searches = []string{""}
	}
	for _, name := range searches {
		offers, n, err := f.search(ctx, name, skipped)
		requests += n
		if err != nil {
			return nil, err
		}
		rentable := 0
		for _, o := range offers {
			if !countable(o) {
				continue
			}
			rentable++
			rentableNow[*o.GPUName]++
			add(groups, o)
		}
		if name != "" {
			if last := before.Rentable[name]; rentable == 0 && last >= vanishThreshold {
				return nil, fmt.Errorf("%w: vastai %q: no rentable offers now, %d in the last run; refusing an empty book (nothing was stored)", fetchers.ErrIncomplete, name, last)
			}
			rentableNow[name] = rentable
		} else if last := sum(before.Rentable); rentable == 0 && last >= vanishThreshold {
			// Across the whole marketplace one model may sell out; all of
			// them at once is a broken answer.
			return nil, fmt.Errorf("%w: vastai: no rentable offers of any GPU now, %d in the last run; refusing an empty book (nothing was stored)", fetchers.ErrIncomplete, last)
		}
		total += rentable
	}
	skipped.warn(f.log)

	snap := &pricewatch.Snapshot{
		Provider: pricewatch.VastAI,
		Coverage: []pricewatch.Scope{{Region: pricewatch.AllRegions, Availability: true}},
	}
	queried := map[string]bool{}
	for _, m := range f.cfg.GPUModels {
		queried[m] = true
	}
	everyModel := len(f.cfg.GPUModels) == 0
	keys := slices.Sorted(maps.Keys(groups))
	for _, k := range keys {
		g := groups[k]
		typ := instanceType(g.count, g.gpuName)
		base := pricewatch.Offer{Provider: pricewatch.VastAI, Region: g.country, InstanceType: typ, OS: pricewatch.Linux, Currency: "USD", Hardware: g.hw}
		if g.onDemand.Valid {
			o := base
			o.PriceType, o.Hourly = pricewatch.OnDemand, g.onDemand.Decimal
			snap.Offers = append(snap.Offers, o)
		}
		if g.spot.Valid {
			o := base
			o.PriceType, o.Hourly = pricewatch.Spot, g.spot.Decimal
			snap.Offers = append(snap.Offers, o)
		}
		snap.Availability = append(snap.Availability, pricewatch.Availability{Provider: pricewatch.VastAI, Region: g.country, InstanceType: typ,
			State: pricewatch.InStock, StockDetail: stockDetail(g.rentable), Hardware: g.hw})
		seen[k] = seenPair{LastInStock: now, GPUName: g.gpuName, GPUModel: g.hw.GPUModel, GPUCount: g.count, GPUMemoryGB: g.hw.GPUMemoryGB}
	}
	// Pairs seen in stock recently but without a rentable offer now are
	// sold out; older ones, and GPUs no longer queried, are forgotten.
	seenKeys := slices.Sorted(maps.Keys(seen))
	for _, k := range seenKeys {
		p := seen[k]
		if _, inStock := groups[k]; inStock {
			continue
		}
		if (!everyModel && !queried[p.GPUName]) || now.Sub(p.LastInStock) > SoldOutMemory {
			delete(seen, k)
			continue
		}
		country, _, _ := strings.Cut(k, "|")
		snap.Availability = append(snap.Availability, pricewatch.Availability{Provider: pricewatch.VastAI, Region: country,
			InstanceType: instanceType(p.GPUCount, p.GPUName), State: pricewatch.SoldOut, StockDetail: "no rentable offer",
			Hardware: pricewatch.Hardware{GPUModel: p.GPUModel, GPUCount: float64(p.GPUCount), GPUMemoryGB: p.GPUMemoryGB}})
	}
	var err error
	if snap.State, err = fetchers.EncodeState(stateVersion, state{StockSeen: seen, Rentable: rentableNow}); err != nil {
		return nil, fmt.Errorf("vastai: remembering stock: %w", err)
	}
	models := fmt.Sprintf("%d GPU models", len(f.cfg.GPUModels))
	if everyModel {
		models = fmt.Sprintf("every GPU model (%d seen)", len(rentableNow))
	}
	snap.SourceVersion = fmt.Sprintf("bundles: %s, %d rentable offers, %d requests", models, total, requests)
	return fetchers.Done(f.log, "vastai", snap, "vastai offers fetched", zap.Int("rentable_offers", total), zap.Int("price_points", len(snap.Offers)), zap.Int("requests", requests),
		zap.Int("skipped_offers", skipped.total()))
}

// countable: only an offer a buyer can rent now says anything about price
// or stock. The query asks for rentable, unrented offers; the answer is
// checked again here.
func countable(o offer) bool {
	return *o.Rentable && (o.Rented == nil || !*o.Rented)
}

func add(groups map[string]*group, o offer) {
	country := countryOf(o.Geolocation)
	name := strings.Join(strings.Fields(*o.GPUName), " ")
	k := country + "|" + instanceType(*o.NumGPUs, name)
	g := groups[k]
	if g == nil {
		model, mem := resolveGPU(name, o.GPURAM)
		g = &group{country: country, gpuName: name, count: *o.NumGPUs,
			hw: pricewatch.Hardware{GPUModel: model, GPUCount: float64(*o.NumGPUs), GPUMemoryGB: mem}}
		groups[k] = g
	}
	g.rentable++
	if p := price(o.DPHTotal); p.Valid && (!g.onDemand.Valid || p.Decimal.LessThan(g.onDemand.Decimal)) {
		g.onDemand = p
	}
	if p := price(o.MinBid); p.Valid && (!g.spot.Valid || p.Decimal.LessThan(g.spot.Decimal)) {
		g.spot = p
	}
}

// magnitudeErr refuses a dph_total or min_bid no price can be, as
// pricewatch.ParseAmount does for every other cloud's amounts.
func magnitudeErr(o offer) error {
	if err := pricewatch.CheckMagnitude(*o.DPHTotal); err != nil {
		return fmt.Errorf("dph_total: %w", err)
	}
	if o.MinBid != nil {
		if err := pricewatch.CheckMagnitude(*o.MinBid); err != nil {
			return fmt.Errorf("min_bid: %w", err)
		}
	}
	return nil
}

// price rounds to a millionth of a dollar: Vast.ai computes its prices in
// doubles (a 0.40 bid arrives as 0.39999999999999997), and the digits past
// the sixth are float artefacts, not the host's price. Zero or missing is
// no price.
func price(d *decimal.Decimal) decimal.NullDecimal {
	if d == nil {
		return decimal.NullDecimal{}
	}
	r := d.Round(6)
	if !r.IsPositive() {
		return decimal.NullDecimal{}
	}
	return decimal.NewNullDecimal(r)
}

func instanceType(n int, gpuName string) string { return fmt.Sprintf("%dx %s", n, gpuName) }

func stockDetail(n int) string {
	if n == 1 {
		return "1 rentable offer"
	}
	return fmt.Sprintf("%d rentable offers", n)
}

var countryCode = regexp.MustCompile(`^[A-Z]{2}$`)

// countryOf takes the ISO code after the last comma of a geolocation
// ("Japan, JP", ", US", "US").
func countryOf(geo *string) string {
	if geo == nil {
		return unknownCountry
	}
	s := strings.TrimSpace(*geo)
	if i := strings.LastIndex(s, ","); i >= 0 {
		s = strings.TrimSpace(s[i+1:])
	}
	if !countryCode.MatchString(s) {
		return unknownCountry
	}
	return s
}

// search reads every page of rentable offers of one GPU model ("" for
// every model), cheapest first, and returns them deduplicated by id. The
// API has no page token: each next page asks for offers at or above the
// last price seen (so ties at the boundary are not skipped) and the
// overlap is dropped by id. Offers that cannot be used go to skipped.
func (f *Fetcher) search(ctx context.Context, gpuName string, skipped skips) ([]offer, int, error) {
	byID := map[int64]int{}
	var out []offer
	var floor string
	floorOp := "gte"
	what := fmt.Sprintf("vastai %q", gpuName)
	if gpuName == "" {
		what = "vastai (every GPU model)"
	}
	for pageNo := 1; ; pageNo++ {
		if pageNo > f.cfg.MaxPages {
			return nil, pageNo - 1, fmt.Errorf("%w: %s: more than %d pages of offers; raise providers.vastai.max_pages (nothing was stored)", fetchers.ErrIncomplete, what, f.cfg.MaxPages)
		}
		offers, raw, rows, err := f.getPage(ctx, gpuName, floorOp, floor, pageNo, skipped)
		if err != nil {
			return nil, pageNo, err
		}
		fresh := 0
		for _, o := range offers {
			if i, dup := byID[*o.ID]; dup {
				out[i] = o // the newer copy wins
				continue
			}
			byID[*o.ID] = len(out)
			out = append(out, o)
			fresh++
		}
		if rows < PageSize {
			return out, pageNo, nil
		}
		if len(raw) == 0 {
			return nil, pageNo, fmt.Errorf("%w: %s page %d: a full page without one readable offer, cannot page on", fetchers.ErrIncomplete, what, pageNo)
		}
		last := raw[len(raw)-1]
		switch {
		case fresh == 0 && floorOp == "gte":
			// A whole page at one price: step past it. The cheapest price
			// is known; only the count of offers at it may be short.
			f.log.Warn("vastai: more than a page of offers at one price; counting past them", zap.String("gpu_name", gpuName), zap.String("dph_total", last))
			floorOp = "gt"
		case fresh == 0:
			return nil, pageNo, fmt.Errorf("%w: %s page %d: paging made no progress", fetchers.ErrIncomplete, what, pageNo)
		default:
			floorOp = "gte"
		}
		floor = last
	}
}

// query is the search's JSON: rentable, unrented on-demand offers of one
// GPU model (of every model when gpuName is ""), cheapest first.
func query(gpuName, floorOp, floor string) (string, error) {
	q := map[string]any{
		"rentable": map[string]any{"eq": true},
		"rented":   map[string]any{"eq": false},
		"type":     "on-demand",
		"order":    [][]string{{"dph_total", "asc"}},
		"limit":    PageSize,
	}
	if gpuName != "" {
		q["gpu_name"] = map[string]any{"eq": gpuName}
	}
	if floor != "" {
		q["dph_total"] = map[string]any{floorOp: json.Number(floor)}
	}
	b, err := json.Marshal(q)
	return string(b), err
}

// getPage fetches and checks one page. It returns the usable offers, each
// one's dph_total as sent (for the next page's floor) and the number of
// rows the page held.
func (f *Fetcher) getPage(ctx context.Context, gpuName, floorOp, floor string, pageNo int, skipped skips) ([]offer, []string, int, error) {
	where := fmt.Sprintf("vastai %q page %d", gpuName, pageNo)
	if gpuName == "" {
		where = fmt.Sprintf("vastai page %d", pageNo)
	}
	q, err := query(gpuName, floorOp, floor)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("%s: building query: %w", where, err)
	}
	u := *f.base
	u.RawQuery = url.Values{"q": {q}}.Encode()
	if err := f.limiter.Wait(ctx); err != nil {
		return nil, nil, 0, fmt.Errorf("%s: %w", where, err)
	}
	body, err := f.client.Read(ctx, fetchers.Request{Method: http.MethodGet, URL: u.String(),
		Where: where, Answer: "offers", Limit: maxPageBytes, Timeout: pageTimeout})
	if err != nil {
		return nil, nil, 0, err
	}
	return decodePage(body, gpuName, where, skipped)
}

// skips counts the offers left out of a run, by reason, each offer once
// (by id; pages overlap at their boundary price).
type skips map[string]map[string]bool

func (s skips) add(reason, offer string) {
	if s[reason] == nil {
		s[reason] = map[string]bool{}
	}
	s[reason][offer] = true
}

func (s skips) total() int {
	n := 0
	for _, ids := range s {
		n += len(ids)
	}
	return n
}

// warn says once per run how many offers were skipped and why.
func (s skips) warn(log *zap.Logger) {
	if len(s) == 0 {
		return
	}
	fields := []zap.Field{zap.Int("skipped_offers", s.total())}
	for _, reason := range slices.Sorted(maps.Keys(s)) {
		fields = append(fields, zap.Int(reason, len(s[reason])))
	}
	log.Warn("vastai: offers skipped (the rest are stored)", fields...)
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// decodePage checks the envelope and every offer. A body cut off or a
// page out of price order fails the run: paging by price is only safe on
// an ordered answer. One offer that cannot be used (a field pricewatch
// relies on missing or malformed, no GPUs, a negative price, another GPU
// than the one searched for) is skipped and counted: it says nothing
// about the others.
func decodePage(body []byte, gpuName, where string, skipped skips) ([]offer, []string, int, error) {
	var p page
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, nil, 0, fmt.Errorf("%w: %s: %v", fetchers.ErrIncomplete, where, err)
	}
	if p.Offers == nil {
		return nil, nil, 0, fmt.Errorf("%w: %s: no \"offers\" list in the answer", fetchers.ErrIncomplete, where)
	}
	offers := make([]offer, 0, len(*p.Offers))
	raw := make([]string, 0, len(*p.Offers))
	var prevPrice *decimal.Decimal
	for i, r := range *p.Offers {
		// The id alone, to count a skipped offer once across pages.
		var idOnly struct {
			ID *int64 `json:"id"`
		}
		_ = json.Unmarshal(r, &idOnly)
		ref := fmt.Sprintf("%s offer %d", where, i)
		if idOnly.ID != nil {
			ref = fmt.Sprintf("id %d", *idOnly.ID)
		}
		var o offer
		if err := json.Unmarshal(r, &o); err != nil {
			skipped.add("unreadable", ref)
			continue
		}
		var name string
		if o.GPUName != nil {
			name = strings.Join(strings.Fields(*o.GPUName), " ")
		}
		switch {
		case o.ID == nil || name == "" || o.NumGPUs == nil || o.DPHTotal == nil || o.Rentable == nil:
			skipped.add("missing_fields", ref)
			continue
		case *o.NumGPUs < 1:
			skipped.add("no_gpus", ref)
			continue
		case gpuName != "" && !strings.EqualFold(name, gpuName):
			skipped.add("other_gpu", ref)
			continue
		case o.DPHTotal.IsNegative() || (o.MinBid != nil && o.MinBid.IsNegative()):
			skipped.add("negative_price", ref)
			continue
		case prevPrice != nil && o.DPHTotal.LessThan(*prevPrice):
			return nil, nil, 0, fmt.Errorf("%w: %s offer %d (id %d): not in dph_total order, cannot page safely", fetchers.ErrIncomplete, where, i, *o.ID)
		}
		// The prices decode straight into decimals, past ParseAmount: its
		// magnitude bounds are checked here (1e400 was accepted; issue 21
		// item 8, FuzzDecodePage).
		if err := magnitudeErr(o); err != nil {
			return nil, nil, 0, fmt.Errorf("%w: %s offer %d (id %d): %v", fetchers.ErrIncomplete, where, i, *o.ID, err)
		}
		prevPrice = o.DPHTotal
		if gpuName != "" {
			name = gpuName // the configured spelling names the type
		}
		*o.GPUName = name
		offers = append(offers, o)
		raw = append(raw, o.DPHTotal.String())
	}
	return offers, raw, len(*p.Offers), nil
}
