// Package shadeform fetches the GPU instance types the aggregator Shadeform
// resells, with their prices and per-region availability, from its API
// (GET /v1/instances/types, key in the X-API-KEY header).
//
// Shadeform sells other clouds' machines (Lambda's, Hyperstack's, Crusoe's,
// …) at its own prices. Each offer is stored under the provider shadeform,
// never under the underlying cloud, so that a cheapest-per-cloud answer
// counts the machine once, as Shadeform's resale: the offering class names
// the underlying cloud as Shadeform spells it ("hyperstack", "lambdalabs"),
// the instance type is "<cloud>:<shade_instance_type>" (two clouds can
// sell a type of the same Shadeform name, and availability has no
// offering class to tell them apart), and package clouds marks every
// Shadeform offer as a marketplace offer.
package shadeform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
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
	// DefaultEndpoint is the API's host.
	DefaultEndpoint = "https://api.shadeform.ai"
	// Path lists the instance types, every cloud and region in one body.
	Path = "/v1/instances/types"
	// EnvAPIKey names the environment variable holding the API key.
	EnvAPIKey = "SHADEFORM_API_KEY"
	// KeyHeader is the header the API reads the key from.
	KeyHeader = "X-API-KEY"
)

// Config is the fetcher's part of the configuration (providers.shadeform.*).
type Config = fetchers.KeyedConfig

// Section is providers.shadeform: the keys of one global API read with an
// API key.
type Section = section.Keyed

// Provider registers Shadeform (see package providers).
var Provider = fetchers.KeyedProvider(
	fetchers.Provider{Name: pricewatch.Shadeform},
	// Availability moves within minutes; one request a run.
	Section{Enabled: true, Endpoint: DefaultEndpoint, Schedule: "*/10 * * * *", Timeout: 2 * time.Minute},
	key, fetchers.WithClient(New))

// Fetcher reads the instance-types API. It implements fetchers.Fetcher.
type Fetcher struct {
	api fetchers.KeyedAPI
}

// key is the API key: SHADEFORM_API_KEY first, then the file named by
// providers.shadeform.api_key_file; without either the provider is skipped.
var key = fetchers.Key{Provider: pricewatch.Shadeform, What: "shadeform API key", Env: EnvAPIKey, Required: true}

var api = fetchers.KeyedSpec{Provider: pricewatch.Shadeform, DefaultEndpoint: DefaultEndpoint, Path: Path,
	Answer: "the instance-type list", KeyHeader: KeyHeader}

// New checks cfg and returns a Fetcher sending its request through client.
// A missing key gives an error wrapping fetchers.ErrNoCredentials.
func New(cfg Config, client *fetchers.Client, log *zap.Logger) (*Fetcher, error) {
	a, err := key.API(api, cfg, client, log)
	if err != nil {
		return nil, err
	}
	return &Fetcher{api: a}, nil
}

// Provider returns pricewatch.Shadeform.
func (f *Fetcher) Provider() string { return pricewatch.Shadeform }

// Fetch makes the one request and returns the complete snapshot, or an
// error if the answer was not a complete instance-type list.
func (f *Fetcher) Fetch(ctx context.Context, _ fetchers.Previous) (*pricewatch.Snapshot, error) {
	body, err := f.api.Do(ctx, http.MethodGet, nil)
	if err != nil {
		return nil, err
	}
	types, malformed, err := decode(body)
	if err != nil {
		return nil, fmt.Errorf("shadeform %s: %w", Path, err)
	}
	snap, skipped := build(types)
	return fetchers.Listed{Provider: pricewatch.Shadeform, Where: Path, Entries: "instance types", Key: "types", Read: len(types),
		Malformed: malformed, Skipped: skipped, SkipWhy: "without GPUs, price or region",
		Want: "one GPU type with a price and a region"}.Finish(f.api.Log, snap)
}

// response is the API's envelope; a body without instance_types is not
// the list. Entries are decoded one by one so one bad entry is left out.
type response struct {
	InstanceTypes *[]json.RawMessage `json:"instance_types"`
}

type entry struct {
	Cloud             string         `json:"cloud"`
	ShadeInstanceType string         `json:"shade_instance_type"`
	CloudInstanceType string         `json:"cloud_instance_type"`
	Configuration     *configuration `json:"configuration"`
	// HourlyPrice is whole US cents per instance-hour.
	HourlyPrice    json.Number `json:"hourly_price"`
	DeploymentType string      `json:"deployment_type"`
	// Availability is required: a type listed with every region false
	// is still listed (sold out), one without the field is not the API's.
	Availability *[]regionAvailability `json:"availability"`
}

// configuration is read only here: the home page repeats its fields at
// the entry's top level, the API does not.
type configuration struct {
	MemoryInGB      float64 `json:"memory_in_gb"`
	StorageInGB     float64 `json:"storage_in_gb"`
	VCPUs           int     `json:"vcpus"`
	NumGPUs         *int    `json:"num_gpus"`
	GPUType         string  `json:"gpu_type"`
	Interconnect    string  `json:"interconnect"`
	NVLink          bool    `json:"nvlink"`
	VRAMPerGPUInGB  float64 `json:"vram_per_gpu_in_gb"`
	GPUManufacturer string  `json:"gpu_manufacturer"`
}

type regionAvailability struct {
	Region      string `json:"region"`
	DisplayName string `json:"display_name"`
	Available   *bool  `json:"available"`
}

// shadeType is one decoded, checked entry.
type shadeType struct {
	name    string // <cloud>:<shade_instance_type>
	cloud   string
	shade   string
	cents   decimal.Decimal
	hw      pricewatch.Hardware
	regions []regionAvailability // sorted by region
}

// decode refuses anything that is not one complete instance-type list;
// an entry that cannot be read is returned in malformed (its name, or
// its position, and why).
func decode(body []byte) (types []shadeType, malformed map[string]string, err error) {
	var r response
	if err := fetchers.DecodeWhole(body, "an instance-type list", &r); err != nil {
		return nil, nil, err
	}
	if r.InstanceTypes == nil {
		return nil, nil, fmt.Errorf("%w: no instance_types list", fetchers.ErrIncomplete)
	}
	// Shadeform lists its types, available or not; an empty list is a
	// fault upstream (or a filter), never "every type withdrawn".
	if len(*r.InstanceTypes) == 0 {
		return nil, nil, fmt.Errorf("%w: the instance-type list is empty", fetchers.ErrIncomplete)
	}
	bad := func(name, why string) {
		if malformed == nil {
			malformed = map[string]string{}
		}
		malformed[name] = why
	}
	seen := map[string]int{}
	for i, raw := range *r.InstanceTypes {
		var e entry
		if err := fetchers.DecodeWhole(raw, "an instance-type entry", &e); err != nil {
			bad("#"+strconv.Itoa(i), err.Error())
			continue
		}
		t, err := check(e)
		if err != nil {
			name := e.Cloud + ":" + e.ShadeInstanceType
			if e.Cloud == "" || e.ShadeInstanceType == "" {
				name = "#" + strconv.Itoa(i)
			}
			bad(name, err.Error())
			continue
		}
		if j, dup := seen[t.name]; dup {
			// Two prices for one thing: neither is believed.
			bad(t.name, "listed twice")
			if j >= 0 {
				types[j].name = ""
			}
			seen[t.name] = -1
			continue
		}
		seen[t.name] = len(types)
		types = append(types, t)
	}
	types = slices.DeleteFunc(types, func(t shadeType) bool { return t.name == "" })
	sort.Slice(types, func(i, j int) bool { return types[i].name < types[j].name })
	return types, malformed, nil
}

// name checks one name that goes into a key.
func name(field, v string) error {
	if v == "" || strings.ContainsAny(v, " /:,") || strings.TrimSpace(v) != v {
		return fmt.Errorf("%s %q", field, v)
	}
	return nil
}

func check(e entry) (shadeType, error) {
	if err := errors.Join(name("cloud", e.Cloud), name("shade_instance_type", e.ShadeInstanceType)); err != nil {
		return shadeType{}, err
	}
	c := e.Configuration
	switch {
	case c == nil:
		return shadeType{}, errors.New("no configuration")
	case c.NumGPUs == nil:
		return shadeType{}, errors.New("no configuration.num_gpus")
	case e.Availability == nil:
		return shadeType{}, errors.New("no availability")
	case e.HourlyPrice == "":
		return shadeType{}, errors.New("no hourly_price")
	}
	cents, err := decimal.NewFromString(e.HourlyPrice.String())
	if err != nil {
		return shadeType{}, fmt.Errorf("hourly_price %q: %v", e.HourlyPrice, err)
	}
	if cents.IsNegative() || *c.NumGPUs < 0 || c.VRAMPerGPUInGB < 0 {
		return shadeType{}, errors.New("negative price, GPU count or memory")
	}
	t := shadeType{name: e.Cloud + ":" + e.ShadeInstanceType, cloud: e.Cloud, shade: e.ShadeInstanceType, cents: cents}
	t.hw = pricewatch.Hardware{
		GPUModel:    gpuModel(c.GPUType, c.VRAMPerGPUInGB),
		GPUCount:    float64(*c.NumGPUs),
		GPUMemoryGB: c.VRAMPerGPUInGB,
		VCPUs:       c.VCPUs,
		MemoryGB:    c.MemoryInGB,
	}
	if c.StorageInGB > 0 {
		t.hw.LocalStorage = strconv.FormatFloat(c.StorageInGB, 'f', -1, 64) + " GB"
	}
	seen := map[string]bool{}
	for _, a := range *e.Availability {
		if err := name("region", a.Region); err != nil {
			return shadeType{}, err
		}
		if a.Available == nil {
			return shadeType{}, fmt.Errorf("region %q without available", a.Region)
		}
		if seen[a.Region] {
			// Two states for one place: neither is believed.
			return shadeType{}, fmt.Errorf("region %q listed twice", a.Region)
		}
		seen[a.Region] = true
	}
	t.regions = slices.Clone(*e.Availability)
	sort.Slice(t.regions, func(i, j int) bool { return t.regions[i].Region < t.regions[j].Region })
	return t, nil
}

// gpuModel maps Shadeform's gpu_type ("H100", "A100_80G", "H100_nvl",
// "RTX6000Ada") to the catalogue's name through the shared resolver;
// underscores separate its parts.
func gpuModel(gpuType string, vram float64) string {
	return gpu.Resolve(strings.ReplaceAll(gpuType, "_", " "), gpu.Hint{MemoryGB: vram}).Name()
}

// build turns the checked types into the snapshot: one offer and one
// availability record per type and listed region (the price is the same
// in each). Types without GPUs, price or region are left out and named.
func build(types []shadeType) (*pricewatch.Snapshot, []string) {
	snap := &pricewatch.Snapshot{
		Provider: pricewatch.Shadeform,
		// One answer describes every type in every region, sold out or not.
		Coverage:      []pricewatch.Scope{{Region: pricewatch.AllRegions, Availability: true}},
		SourceVersion: "v1/instances/types",
	}
	hundred := decimal.NewFromInt(100)
	var skipped []string
	for _, t := range types {
		if t.hw.GPUCount <= 0 || !t.cents.IsPositive() || len(t.regions) == 0 {
			skipped = append(skipped, t.name)
			continue
		}
		for _, r := range t.regions {
			snap.Offers = append(snap.Offers, pricewatch.Offer{
				Provider: pricewatch.Shadeform, Region: r.Region, InstanceType: t.name, PriceType: pricewatch.OnDemand,
				OfferingClass: t.cloud, OS: pricewatch.Linux, Currency: "USD", Hourly: t.cents.Div(hundred), Hardware: t.hw,
				CloudIDs: pricewatch.CloudIDs{SkuID: t.shade, RegionName: r.DisplayName},
			})
			a := pricewatch.Availability{Provider: pricewatch.Shadeform, Region: r.Region, InstanceType: t.name,
				State: pricewatch.SoldOut, StockDetail: "available: false", Hardware: t.hw}
			if *r.Available {
				a.State, a.StockDetail = pricewatch.InStock, "available: true"
			}
			snap.Availability = append(snap.Availability, a)
		}
	}
	return snap, skipped
}
