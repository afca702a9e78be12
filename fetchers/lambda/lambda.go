// Package lambda fetches Lambda Cloud's on-demand GPU instance prices and
// live capacity from its public API (GET /api/v1/instance-types).
//
// One call answers everything: every instance type with its price per
// instance-hour (the same in every region) and the regions that have
// capacity for it right now. A type's price is stored once, in the
// pseudo-region "global"; its capacity is stored per region: in_stock where
// Lambda lists capacity, sold_out where the type had capacity before and is
// no longer listed, and a "global" record (in stock anywhere or not) beside
// the price so that compare's available column answers for it.
package lambda

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/section"
)

const (
	// DefaultEndpoint is the API's current host (cloud.lambdalabs.com is
	// the older name for it).
	DefaultEndpoint = "https://cloud.lambda.ai"
	// Path lists the instance types.
	Path = "/api/v1/instance-types"
	// EnvAPIKey names the environment variable holding the API key.
	EnvAPIKey = "LAMBDA_API_KEY"
	// Region is where a type's region-uniform price is stored, and where
	// its "in stock anywhere" availability record lives beside it.
	Region = "global"
	// stateVersion is the shape version of the fetcher's state
	// (Snapshot.State): the regions each type has had capacity in.
	stateVersion = 1

	// maxBodyBytes bounds the response: sixteen types take about 10 KB.
	maxBodyBytes = 8 << 20
)

// Config is the fetcher's part of the configuration (providers.lambda.*).
type Config = fetchers.KeyedConfig

// Section is providers.lambda: the keys of one global API read with an API
// key.
type Section = section.Keyed

// Provider registers Lambda (see package providers).
var Provider = fetchers.KeyedProvider(
	fetchers.Provider{Name: pricewatch.Lambda},
	// Capacity comes and goes within minutes: polled often, each run is
	// one small request.
	Section{Enabled: true, Endpoint: DefaultEndpoint, Schedule: "*/5 * * * *", Timeout: 2 * time.Minute},
	key, fetchers.WithClient(New))

// Fetcher reads the instance-types API. It implements fetchers.Fetcher
// (KeyedProvider checks so at compile time).
type Fetcher struct {
	api fetchers.KeyedAPI
}

// key is the API key: LAMBDA_API_KEY first, then the file named by
// providers.lambda.api_key_file; without either the provider is skipped.
var key = fetchers.Key{Provider: pricewatch.Lambda, What: "lambda API key", Env: EnvAPIKey, Required: true}

// api is the one endpoint the fetcher reads, with bearerAuth, one of the
// two schemes the API's OpenAPI spec lists.
var api = fetchers.KeyedSpec{Provider: pricewatch.Lambda, DefaultEndpoint: DefaultEndpoint, Path: Path,
	Answer: "the instance-type list", MaxBody: maxBodyBytes}

// New checks cfg and returns a Fetcher sending its request through client.
// A missing key gives an error wrapping fetchers.ErrNoCredentials.
func New(cfg Config, client *fetchers.Client, log *zap.Logger) (*Fetcher, error) {
	a, err := key.API(api, cfg, client, log)
	if err != nil {
		return nil, err
	}
	return &Fetcher{api: a}, nil
}

// Provider returns pricewatch.Lambda.
func (f *Fetcher) Provider() string { return pricewatch.Lambda }

// Fetch makes the one request and returns the complete snapshot, or an
// error if the response was not a complete instance-type list.
func (f *Fetcher) Fetch(ctx context.Context, prev fetchers.Previous) (*pricewatch.Snapshot, error) {
	body, err := f.api.Do(ctx, http.MethodGet, nil)
	if err != nil {
		return nil, err
	}
	types, malformed, err := decode(body)
	if err != nil {
		return nil, fmt.Errorf("lambda %s: %w", Path, err)
	}
	state, err := loadState(prev.State)
	if err != nil {
		// A state that cannot be read only costs the sold-out records of
		// regions seen before (storage then withdraws them after
		// alerts.withdraw_after_runs runs); failing every run would be worse.
		f.api.Log.Warn("lambda capacity state unreadable; starting afresh", zap.Error(err))
		state = capacityState{}
	}
	snap, skipped := build(types, state)
	return fetchers.Listed{Provider: pricewatch.Lambda, Where: Path, Entries: "instance types", Key: "types", Read: len(types),
		Malformed: malformed, Skipped: skipped, SkipWhy: "without GPUs or price", Want: "one GPU type with a price"}.Finish(f.api.Log, snap)
}

// response is the API's envelope. Pointers tell a missing field from an
// empty one: a body without them is not the list.
type response struct {
	// Data's entries are decoded one by one (see decode), so that one
	// malformed entry is left out instead of failing the list.
	Data  *map[string]json.RawMessage `json:"data"`
	Error *apiError                   `json:"error"`
}

type apiError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type entry struct {
	InstanceType *instanceType `json:"instance_type"`
	// RegionsWithCapacity is required by the API: empty means "sold out
	// everywhere right now", missing means the entry is not the API's.
	RegionsWithCapacity *[]region `json:"regions_with_capacity_available"`
}

type instanceType struct {
	Name           string      `json:"name"`
	Description    string      `json:"description"`
	GPUDescription string      `json:"gpu_description"`
	PriceCents     json.Number `json:"price_cents_per_hour"`
	Specs          *specs      `json:"specs"`
}

type specs struct {
	VCPUs      int     `json:"vcpus"`
	MemoryGiB  float64 `json:"memory_gib"`
	StorageGiB float64 `json:"storage_gib"`
	GPUs       int     `json:"gpus"`
}

type region struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// lambdaType is one decoded, checked instance type.
type lambdaType struct {
	name    string
	cents   decimal.Decimal
	hw      pricewatch.Hardware
	regions []string // with capacity now, sorted
}

// decode reads the whole body and refuses anything that is not one
// complete, well-formed instance-type list. An entry that cannot be read
// is left out and returned in malformed (its key and why), not failing
// the list.
func decode(body []byte) (types []lambdaType, malformed map[string]string, err error) {
	var r response
	if err := fetchers.DecodeWhole(body, "an instance-type list", &r); err != nil {
		return nil, nil, err
	}
	if r.Error != nil {
		return nil, nil, fmt.Errorf("%w: the API answered with error %s: %s", fetchers.ErrIncomplete, r.Error.Code, r.Error.Message)
	}
	if r.Data == nil {
		return nil, nil, fmt.Errorf("%w: no data object", fetchers.ErrIncomplete)
	}
	// Lambda always lists its instance types, sold out or not; an empty
	// list is a fault upstream, never "every type withdrawn".
	if len(*r.Data) == 0 {
		return nil, nil, fmt.Errorf("%w: the instance-type list is empty", fetchers.ErrIncomplete)
	}
	out := make([]lambdaType, 0, len(*r.Data))
	for key, raw := range *r.Data {
		var e entry
		err := fetchers.DecodeWhole(raw, "an instance-type entry", &e)
		if err == nil {
			var t lambdaType
			if t, err = check(key, e); err == nil {
				out = append(out, t)
				continue
			}
		}
		if malformed == nil {
			malformed = map[string]string{}
		}
		malformed[key] = err.Error()
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, malformed, nil
}

func check(key string, e entry) (lambdaType, error) {
	it := e.InstanceType
	switch {
	case it == nil:
		return lambdaType{}, errors.New("no instance_type")
	case it.Name != key:
		return lambdaType{}, fmt.Errorf("listed under a different name %q", it.Name)
	case it.Specs == nil:
		return lambdaType{}, errors.New("no specs")
	case e.RegionsWithCapacity == nil:
		return lambdaType{}, errors.New("no regions_with_capacity_available")
	case it.PriceCents == "":
		return lambdaType{}, errors.New("no price_cents_per_hour")
	}
	cents, err := decimal.NewFromString(it.PriceCents.String())
	if err != nil {
		return lambdaType{}, fmt.Errorf("price_cents_per_hour %q: %v", it.PriceCents, err)
	}
	if cents.IsNegative() || it.Specs.GPUs < 0 {
		return lambdaType{}, errors.New("negative price or GPU count")
	}
	t := lambdaType{name: key, cents: cents}
	desc := it.GPUDescription
	if desc == "" {
		// Entries without gpu_description (the published gh200 one) still
		// carry "1x GH200 (96 GB)".
		desc = countPrefix.ReplaceAllString(it.Description, "")
	}
	t.hw = pricewatch.Hardware{
		GPUModel:    gpuModel(desc),
		GPUCount:    float64(it.Specs.GPUs),
		GPUMemoryGB: gpuMemory(desc),
		VCPUs:       it.Specs.VCPUs,
		MemoryGB:    it.Specs.MemoryGiB,
		// specs.storage_gib is the instance's own disk; the answer says
		// nothing of its network, so the interconnect stays unknown.
		LocalStorage: storageText(it.Specs.StorageGiB),
	}
	names := make([]string, len(*e.RegionsWithCapacity))
	for i, r := range *e.RegionsWithCapacity {
		names[i] = r.Name
	}
	t.regions, err = fetchers.Distinct(names, strings.TrimSpace, func(i int, name string) error {
		if name == "" || name == Region || strings.ContainsAny(name, " /,") {
			return fmt.Errorf("region name %q", names[i])
		}
		return nil
	})
	if err != nil {
		return lambdaType{}, err
	}
	sort.Strings(t.regions)
	return t, nil
}

// countPrefix is the "8x " before a description's GPU.
var countPrefix = regexp.MustCompile(`^\s*\d+x\s+`)

// memoryGB finds "80 GB" in "H100 (80 GB SXM5)".
var memoryGB = regexp.MustCompile(`\((\d+(?:\.\d+)?)\s*GB`)

func gpuMemory(desc string) float64 {
	m := memoryGB.FindStringSubmatch(desc)
	if m == nil {
		return 0
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// capacityState remembers, per instance type, every region Lambda has
// listed capacity in. Lambda lists only the regions with capacity now, so
// without it a region that sells out would simply vanish from the answer
// and read as "withdrawn" instead of "sold out". It travels in
// Snapshot.Versions (saved with the run in the same transaction, handed
// back as fetchers.Previous), so it advances only with runs that were
// stored.
type capacityState map[string][]string

// state is what the fetcher keeps between runs (Snapshot.State).
type state struct {
	CapacityRegions capacityState `json:"capacity_regions"`
}

func loadState(raw []byte) (capacityState, error) {
	var s state
	if _, err := fetchers.DecodeState(raw, stateVersion, &s); err != nil {
		return nil, err
	}
	if s.CapacityRegions == nil {
		s.CapacityRegions = capacityState{}
	}
	return s.CapacityRegions, nil
}

func (s capacityState) encode() []byte {
	b, _ := fetchers.EncodeState(stateVersion, state{CapacityRegions: s}) // map of string slices: cannot fail; keys sorted
	return b
}

// build turns the checked types into the snapshot. Types without GPUs or
// without a price are left out (and named).
func build(types []lambdaType, state capacityState) (*pricewatch.Snapshot, []string) {
	snap := &pricewatch.Snapshot{
		Provider: pricewatch.Lambda,
		// One answer describes every type in every region.
		Coverage:      []pricewatch.Scope{{Region: pricewatch.AllRegions, Availability: true}},
		SourceVersion: "api/v1/instance-types",
	}
	next := capacityState{}
	// Types not listed this run keep their remembered regions: if one
	// comes back, the regions it had are sold out until Lambda lists them.
	for name, regions := range state {
		next[name] = regions
	}
	var skipped []string
	hundred := decimal.NewFromInt(100)
	for _, t := range types {
		if t.hw.GPUCount <= 0 || !t.cents.IsPositive() {
			skipped = append(skipped, t.name)
			continue
		}
		snap.Offers = append(snap.Offers, pricewatch.Offer{
			Provider: pricewatch.Lambda, Region: Region, InstanceType: t.name, PriceType: pricewatch.OnDemand,
			OS: pricewatch.Linux, Currency: "USD", Hourly: t.cents.Div(hundred), Hardware: t.hw,
		})
		now := map[string]bool{}
		for _, r := range t.regions {
			now[r] = true
		}
		known := append([]string(nil), t.regions...)
		for _, r := range state[t.name] {
			if !now[r] {
				known = append(known, r)
			}
		}
		sort.Strings(known)
		next[t.name] = known
		for _, r := range known {
			a := pricewatch.Availability{Provider: pricewatch.Lambda, Region: r, InstanceType: t.name, State: pricewatch.SoldOut, Hardware: t.hw}
			if now[r] {
				a.State, a.StockDetail = pricewatch.InStock, "capacity available"
			}
			snap.Availability = append(snap.Availability, a)
		}
		global := pricewatch.Availability{Provider: pricewatch.Lambda, Region: Region, InstanceType: t.name, State: pricewatch.SoldOut, Hardware: t.hw,
			StockDetail: "no region with capacity"}
		if len(t.regions) > 0 {
			global.State, global.StockDetail = pricewatch.InStock, fmt.Sprintf("capacity in %d region(s)", len(t.regions))
		}
		snap.Availability = append(snap.Availability, global)
	}
	snap.State = next.encode()
	return snap, skipped
}

// storageText is specs.storage_gib in the answer's unit; 0 or missing is
// unknown.
func storageText(gib float64) string {
	if gib <= 0 || math.IsInf(gib, 0) || math.IsNaN(gib) {
		return ""
	}
	return strconv.FormatFloat(gib, 'f', -1, 64) + " GiB"
}
