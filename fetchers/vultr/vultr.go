// Package vultr reads Vultr's plan lists, which answer without a key:
//
//	GET /v2/plans?type=all&per_page=500      Cloud GPU (vcg) plans among the rest
//	GET /v2/plans-metal?per_page=500         bare-metal plans, GPU ones named …-<n>-<gpu>-gpu
//
// both paged by cursor (meta.links.next, sent back as cursor=). Prices are
// USD per instance (JSON numbers, read exactly): hourly_cost is stored as
// on_demand and hourly_cost_preemptible, where a plan has one, as spot,
// per location the plan lists (location_cost[<location>] overrides the
// plan's price there). Each (plan, location) is availability: "offered"
// from the plan list alone; with a key (VULTR_API_KEY or
// providers.vultr.api_key_file), GET /v2/regions/{id}/availability is read
// for every location and a plan it lists is in_stock there, one it does not
// list sold_out.
//
// A Cloud GPU plan states the card (gpu_type) and the VRAM of the plan
// (gpu_vram_gb), not a GPU count: the count is the VRAM over the card's
// memory (cardMemory), so "vcg-a100-1c-6g-4vram" is 4/80 = 0.05 of an A100
// 80 GB, stored as a fractional GPU with 4 GB per slice, never as a whole
// one. A card not in the table is stored with its count and memory unknown
// (0), and named in the log. Bare-metal plans carry no GPU fields: count and
// model come from the plan id.
package vultr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/gpu"
	"github.com/pricewatch/pricewatch/section"
)

const (
	// Name is the provider's key.
	Name = pricewatch.Vultr
	// DefaultEndpoint is the API host.
	DefaultEndpoint = "https://api.vultr.com"
	// PlansPath, MetalPath and RegionsPath are the paths read.
	PlansPath   = "/v2/plans"
	MetalPath   = "/v2/plans-metal"
	RegionsPath = "/v2/regions/"
	// EnvAPIKey names the environment variable of the optional key.
	EnvAPIKey = "VULTR_API_KEY"
	// PerPage is the most the API answers per page.
	PerPage = 500
	// Currency: Vultr prices in US dollars.
	Currency = "USD"

	maxPages     = 40
	maxBodyBytes = 32 << 20
)

// Config is the fetcher's part of the configuration.
type Config = fetchers.KeyedConfig

// Section is providers.vultr.
type Section = section.Keyed

// Provider registers Vultr (see package providers).
var Provider = fetchers.KeyedProvider(
	fetchers.Provider{Name: Name},
	Section{Enabled: true, Endpoint: DefaultEndpoint, Schedule: "*/30 * * * *", Timeout: 10 * time.Minute},
	key, fetchers.WithClient(New))

// key is the optional API key: VULTR_API_KEY first, then the file named
// by providers.vultr.api_key_file. No key is not an error: the plans are
// read without one, region availability is not.
var key = fetchers.Key{Provider: Name, What: "vultr API key", Env: EnvAPIKey}

// Fetcher implements fetchers.Fetcher for Vultr.
type Fetcher struct {
	base   *url.URL
	key    section.Secret
	client *fetchers.Client
	log    *zap.Logger
}

// New checks cfg and returns a Fetcher sending through client.
func New(cfg Config, client *fetchers.Client, log *zap.Logger) (*Fetcher, error) {
	u, log, err := fetchers.Endpoint(Name, client, log, cfg.Endpoint, DefaultEndpoint, "")
	if err != nil {
		return nil, err
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return &Fetcher{base: u, key: cfg.APIKey, client: client, log: log}, nil
}

// Provider returns Name.
func (f *Fetcher) Provider() string { return Name }

// list is either plan list's page.
type list struct {
	Plans      *[]json.RawMessage `json:"plans"`
	PlansMetal *[]json.RawMessage `json:"plans_metal"`
	Meta       *struct {
		Total *int `json:"total"`
		Links *struct {
			Next string `json:"next"`
		} `json:"links"`
	} `json:"meta"`
}

// Fetch reads both plan lists and, with a key, each location's
// availability.
func (f *Fetcher) Fetch(ctx context.Context, _ fetchers.Previous) (*pricewatch.Snapshot, error) {
	vm, err := f.plans(ctx, PlansPath, url.Values{"type": {"all"}}, "plans")
	if err != nil {
		return nil, err
	}
	metal, err := f.plans(ctx, MetalPath, nil, "plans_metal")
	if err != nil {
		return nil, err
	}
	plans, malformed, skipped, unknownCards := readPlans(vm, metal)
	if len(unknownCards) > 0 {
		f.log.Info("vultr GPU cards not in the memory table: stored with GPU count and memory unknown", zap.Strings("gpu_types", unknownCards))
	}
	snap := &pricewatch.Snapshot{Provider: Name, SourceVersion: "v2/plans, v2/plans-metal"}
	stock, complete, err := f.regionStock(ctx, plans)
	if err != nil {
		return nil, err
	}
	build(snap, plans, stock)
	// One answer lists every plan in every location. With a key, a
	// location whose availability did not answer is left unknown, and
	// then no location's stock is claimed complete.
	snap.Coverage = []pricewatch.Scope{{Region: pricewatch.AllRegions, Availability: complete}}
	return fetchers.Listed{Provider: Name, Entries: "plans", Key: "plans", Read: len(vm) + len(metal), Malformed: malformed,
		Want: "one priced GPU plan", Fields: []zap.Field{zap.Int("gpu_plans", len(plans)), zap.Any("skipped", skipped)}}.Finish(f.log, snap)
}

// plans reads every page of one plan list.
func (f *Fetcher) plans(ctx context.Context, path string, q url.Values, field string) ([]json.RawMessage, error) {
	var out []json.RawMessage
	var total *int
	what := "vultr " + path
	err := fetchers.TokenPages(what, maxPages, func(cursor string) (string, error) {
		u := *f.base
		u.Path += path
		v := url.Values{"per_page": {strconv.Itoa(PerPage)}}
		for k, vs := range q {
			v[k] = vs
		}
		if cursor != "" {
			v.Set("cursor", cursor)
		}
		u.RawQuery = v.Encode()
		var l list
		if err := f.client.ReadJSON(ctx, fetchers.Request{Method: http.MethodGet, URL: u.String(), Where: what, Answer: "the " + field + " list",
			Limit: maxBodyBytes}, &l); err != nil {
			return "", err
		}
		rows := l.Plans
		if field == "plans_metal" {
			rows = l.PlansMetal
		}
		if rows == nil {
			return "", fmt.Errorf("%w: %s: no %s array", fetchers.ErrIncomplete, what, field)
		}
		out = append(out, *rows...)
		if l.Meta == nil {
			return "", nil
		}
		total = l.Meta.Total
		if l.Meta.Links == nil {
			return "", nil
		}
		return l.Meta.Links.Next, nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		// Vultr always sells plans: an empty list is a fault upstream.
		return nil, fmt.Errorf("%w: %s: the %s list is empty", fetchers.ErrIncomplete, what, field)
	}
	if total != nil && *total != len(out) {
		return nil, fmt.Errorf("%w: %s: %d plans read, meta.total says %d", fetchers.ErrIncomplete, what, len(out), *total)
	}
	return out, nil
}

// plan is the part of a plan read (both lists).
type plan struct {
	ID                    string                  `json:"id"`
	Type                  string                  `json:"type"`
	VCPUCount             int                     `json:"vcpu_count"`
	CPUThreads            int                     `json:"cpu_threads"`
	RAM                   float64                 `json:"ram"`
	HourlyCost            *json.Number            `json:"hourly_cost"`
	HourlyCostPreemptible *json.Number            `json:"hourly_cost_preemptible"`
	DeployOnDemand        *bool                   `json:"deploy_ondemand"`
	DeployPreemptible     *bool                   `json:"deploy_preemptible"`
	Locations             *[]string               `json:"locations"`
	LocationCost          map[string]locationCost `json:"location_cost"`
	GPUVRAMGB             *float64                `json:"gpu_vram_gb"`
	GPUType               string                  `json:"gpu_type"`
}

type locationCost struct {
	HourlyCost            *json.Number `json:"hourly_cost"`
	HourlyCostPreemptible *json.Number `json:"hourly_cost_preemptible"`
}

// gpuPlan is one checked GPU plan.
type gpuPlan struct {
	id        string
	hw        pricewatch.Hardware
	locations []string
	// prices per location and price type.
	prices map[string]map[pricewatch.PriceType]decimal.Decimal
}

// cardMemory is the memory of one card of each Cloud GPU gpu_type, in
// GB: what divides a plan's gpu_vram_gb into GPUs. Vultr's A100 is the
// 80 GB card (its largest plan, vcg-a100-12c-120g-80vram, is one whole
// card; gpuhunt's Vultr table likewise); the others are the cards'
// only memory sizes.
var cardMemory = map[string]float64{
	"NVIDIA_A100": 80, "NVIDIA_A100_PCIE": 80, "NVIDIA_H100": 80, "NVIDIA_A40": 48, "NVIDIA_A16": 16,
	"NVIDIA_L40S": 48, "AMD_MI300X": 192, "AMD_MI325X": 256,
}

// metalGPU is the GPU part of a bare-metal plan id: vbm-112c-2048gb-8-h100-gpu.
var metalGPU = regexp.MustCompile(`-(\d+)-([a-z0-9]+)-gpu$`)

// Reasons a plan is left out, counted in the run's log line.
const (
	skipNoGPU   = "no GPU"
	skipNoPrice = "no price or not deployable"
	skipVDM     = "dedicated GPU metal without GPU fields"
)

// readPlans checks every plan and keeps the GPU ones.
func readPlans(vm, metal []json.RawMessage) (out []gpuPlan, malformed map[string]string, skipped map[string]int, unknownCards []string) {
	malformed, skipped = map[string]string{}, map[string]int{}
	unknown := map[string]bool{}
	seen := map[string]bool{}
	for i, raw := range slices.Concat(vm, metal) {
		isMetal := i >= len(vm)
		var p plan
		if err := fetchers.DecodeWhole(raw, "a plan", &p); err != nil {
			malformed[fmt.Sprintf("row %d", i)] = err.Error()
			continue
		}
		g, why, card, err := check(p, isMetal)
		if err == nil && seen[p.ID] {
			err = errors.New("listed twice")
		}
		switch {
		case err != nil:
			malformed[p.ID] = err.Error()
		case why != "":
			skipped[why]++
		default:
			seen[p.ID] = true
			if card != "" {
				unknown[card] = true
			}
			out = append(out, g)
		}
	}
	return out, malformed, skipped, slices.Sorted(maps.Keys(unknown))
}

// check reads one plan: a GPU plan, why it is left out, or an error. card
// names a GPU type whose memory is not known.
func check(p plan, isMetal bool) (g gpuPlan, why, card string, err error) {
	if strings.TrimSpace(p.ID) == "" {
		return g, "", "", errors.New("no id")
	}
	g.id = p.ID
	switch {
	case isMetal:
		m := metalGPU.FindStringSubmatch(p.ID)
		if m == nil {
			return g, skipNoGPU, "", nil
		}
		n, _ := strconv.Atoi(m[1])
		id := gpu.Resolve(m[2], gpu.Hint{})
		if n <= 0 || id.Kind != gpu.KindGPU {
			return g, "", "", fmt.Errorf("GPU part %q of the id", m[0])
		}
		g.hw = pricewatch.Hardware{GPUModel: id.Name(), GPUCount: float64(n), VCPUs: p.CPUThreads, MemoryGB: p.RAM / 1024}
		if s, ok := gpu.Lookup(id.Name()); ok {
			g.hw.GPUMemoryGB = s.MemoryGB
		}
	case p.Type == "vdm":
		return g, skipVDM, "", nil
	case p.Type != "vcg":
		return g, skipNoGPU, "", nil
	default:
		if p.GPUVRAMGB == nil || *p.GPUVRAMGB <= 0 || strings.TrimSpace(p.GPUType) == "" {
			return g, "", "", errors.New("vcg plan without gpu_type or gpu_vram_gb")
		}
		g.hw = pricewatch.Hardware{VCPUs: p.VCPUCount, MemoryGB: p.RAM / 1024}
		vram := *p.GPUVRAMGB
		mem, known := cardMemory[p.GPUType]
		name := strings.ReplaceAll(p.GPUType, "_", " ")
		if !known {
			g.hw.GPUModel = gpu.Resolve(name, gpu.Hint{}).Name()
			card = p.GPUType
			break
		}
		g.hw.GPUModel = gpu.Resolve(name, gpu.Hint{MemoryGB: mem}).Name()
		count, ok := gpus(vram, mem)
		if !ok {
			return g, "", "", fmt.Errorf("gpu_vram_gb %v is neither whole %s cards nor a share of one", vram, p.GPUType)
		}
		g.hw.GPUCount = count
		// Per GPU, or per slice for a share of one.
		g.hw.GPUMemoryGB = min(vram, mem)
	}
	if p.Locations == nil {
		return g, "", "", errors.New("no locations")
	}
	g.locations, err = fetchers.Distinct(*p.Locations, strings.TrimSpace, func(i int, l string) error {
		if l == "" || strings.ContainsAny(l, " /?#%") {
			return fmt.Errorf("location %q", (*p.Locations)[i])
		}
		return nil
	})
	if err != nil {
		return g, "", "", err
	}
	g.prices = map[string]map[pricewatch.PriceType]decimal.Decimal{}
	for _, loc := range g.locations {
		od, spot := p.HourlyCost, p.HourlyCostPreemptible
		if lc, ok := p.LocationCost[loc]; ok {
			if lc.HourlyCost != nil {
				od = lc.HourlyCost
			}
			if lc.HourlyCostPreemptible != nil {
				spot = lc.HourlyCostPreemptible
			}
		}
		ps := map[pricewatch.PriceType]decimal.Decimal{}
		for _, c := range []struct {
			pt     pricewatch.PriceType
			v      *json.Number
			deploy *bool
		}{{pricewatch.OnDemand, od, p.DeployOnDemand}, {pricewatch.Spot, spot, p.DeployPreemptible}} {
			if c.v == nil || (c.deploy != nil && !*c.deploy) {
				continue
			}
			d, err := decimal.NewFromString(c.v.String())
			if err != nil || d.IsNegative() {
				return g, "", "", fmt.Errorf("%s price %q in %s", c.pt, c.v.String(), loc)
			}
			if d.IsPositive() { // the free plan, 0, is not for sale
				ps[c.pt] = d
			}
		}
		if len(ps) > 0 {
			g.prices[loc] = ps
		}
	}
	if len(g.prices) == 0 {
		return g, skipNoPrice, "", nil
	}
	return g, "", card, nil
}

// gpus is vram over a card's memory when that is a whole number of cards
// or one card's 1/n share.
func gpus(vram, card float64) (float64, bool) {
	r := vram / card
	if r >= 1 {
		return r, r == math.Trunc(r)
	}
	n := card / vram
	return r, math.Abs(n-math.Round(n)) < 1e-9
}

// regionStock reads, with a key, the availability of every location the
// GPU plans list: the plans deployable there now. complete is false when
// a location did not answer (its plans are then unknown); a refused key
// fails the run.
func (f *Fetcher) regionStock(ctx context.Context, plans []gpuPlan) (map[string]map[string]bool, bool, error) {
	if f.key.Empty() {
		return nil, true, nil
	}
	locs := map[string]bool{}
	for _, p := range plans {
		for _, l := range p.locations {
			locs[l] = true
		}
	}
	out := map[string]map[string]bool{}
	complete := true
	for _, loc := range slices.Sorted(maps.Keys(locs)) {
		u := *f.base
		u.Path += RegionsPath + url.PathEscape(loc) + "/availability"
		where := "vultr region " + loc + " availability"
		body, err := f.client.Read(ctx, fetchers.Request{Method: http.MethodGet, URL: u.String(), Bearer: f.key, Where: where,
			Answer: "the region's available plans", Refused: "the API key was refused (check " + EnvAPIKey + " or providers.vultr.api_key_file)",
			Limit: maxBodyBytes})
		var a struct {
			AvailablePlans *[]string `json:"available_plans"`
		}
		if err == nil {
			err = fetchers.DecodeWhole(body, "the region's available plans", &a)
			if err == nil && a.AvailablePlans == nil {
				err = fmt.Errorf("%w: no available_plans", fetchers.ErrIncomplete)
			}
		}
		switch {
		case err == nil:
			out[loc] = map[string]bool{}
			for _, id := range *a.AvailablePlans {
				out[loc][id] = true
			}
		case errors.Is(err, fetchers.ErrAuth) || ctx.Err() != nil:
			return nil, false, err
		default:
			// That location's stock is unknown this run; prices and the
			// other locations' stock are still stored.
			complete = false
			f.log.Warn("vultr region availability unreadable; its plans' stock left unknown", zap.String("region", loc), zap.Error(err))
		}
	}
	return out, complete, nil
}

// build adds the plans' offers and availability to snap, in plan order.
func build(snap *pricewatch.Snapshot, plans []gpuPlan, stock map[string]map[string]bool) {
	slices.SortFunc(plans, func(a, b gpuPlan) int { return strings.Compare(a.id, b.id) })
	for _, p := range plans {
		for _, loc := range p.locations {
			for _, pt := range []pricewatch.PriceType{pricewatch.OnDemand, pricewatch.Spot} {
				if d, ok := p.prices[loc][pt]; ok {
					snap.Offers = append(snap.Offers, pricewatch.Offer{Provider: Name, Region: loc, InstanceType: p.id, PriceType: pt,
						OS: pricewatch.Linux, Currency: Currency, Hourly: d, Hardware: p.hw})
				}
			}
			a := pricewatch.Availability{Provider: Name, Region: loc, InstanceType: p.id, State: pricewatch.Offered,
				StockDetail: "listed in the plan's locations", Hardware: p.hw}
			if stock != nil {
				avail, answered := stock[loc]
				switch {
				case !answered:
					continue
				case avail[p.id]:
					a.State, a.StockDetail = pricewatch.InStock, "in the region's available_plans"
				default:
					a.State, a.StockDetail = pricewatch.SoldOut, "not in the region's available_plans"
				}
			}
			snap.Availability = append(snap.Availability, a)
		}
	}
}
