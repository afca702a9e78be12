// Package scaleway reads Scaleway's Instance product catalogue and its
// stock state per zone, both public (no key):
//
//	GET /instance/v1/zones/{zone}/products/servers?per_page=100&page=N
//	GET /instance/v1/zones/{zone}/products/servers/availability?per_page=100&page=N
//
// The catalogue is a map keyed by commercial type ("H100-SXM-8-80G") with
// hourly_price in EUR per instance (a JSON number, read exactly), the GPU
// count per instance in gpu and the card in gpu_info (gpu_memory in bytes
// per GPU). Each GPU type is stored as an on_demand price in its zone: the
// API prices per zone, so the zone is the offer's region. monthly_price is
// the month's cap on hourly billing (hourly × 730 on every captured row),
// not a commitment, and is not stored.
//
// The availability map says available, scarce or shortage per type: the
// first two are stored as in_stock, shortage as sold_out, each with the
// cloud's word as its detail. A type the map omits (Scaleway's fr-par-1
// map left some out) is unknown, never sold out: the zone's availability
// is then not claimed complete, so nothing stored there is closed.
//
// Both endpoints page by number; a type appears on one page only. Pages
// are read until one is empty (the live fr-par-2 listing had 100, 36 and
// then none), so a short page of a trimmed or changed listing is never
// taken for the end; a type listed on two pages (a server ignoring page)
// fails the run.
package scaleway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/url"
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
	// Name is the provider's key (providers.scaleway, the provider column).
	Name = pricewatch.Scaleway
	// DefaultEndpoint is the API host; the zone's paths are appended.
	DefaultEndpoint = "https://api.scaleway.com"
	// ZonePath is the prefix of a zone's Instance API paths.
	ZonePath = "/instance/v1/zones/"
	// Currency: Scaleway prices Instances in euros.
	Currency = "EUR"

	// PerPage is the most the API answers per page.
	PerPage = 100
	// maxPages bounds one listing (fr-par-2 needs two pages of 100).
	maxPages = 50
)

// DefaultZones are the Instance API's zones (its reference lists fr-par-1
// to 3, nl-ams-1 to 3 and pl-waw-1 to 3); providers.scaleway.regions
// narrows them.
var DefaultZones = []string{"fr-par-1", "fr-par-2", "fr-par-3", "nl-ams-1", "nl-ams-2", "nl-ams-3", "pl-waw-1", "pl-waw-2", "pl-waw-3"}

// Section is providers.scaleway: regions are the zones read.
type Section struct {
	section.Common `yaml:",inline"`
}

// Validate has nothing beyond the shared keys to check.
func (s *Section) Validate(section.Checker) error { return nil }

// Provider registers Scaleway (see package providers).
var Provider = fetchers.Provider{
	Name:  Name,
	Facts: section.Facts{NeedsEndpoint: true},
	Section: func() section.Section {
		return &Section{Common: section.Common{Enabled: true, Endpoint: DefaultEndpoint, Schedule: "*/20 * * * *", Timeout: 10 * time.Minute}}
	},
	Build: fetchers.Builder(func(s *Section, env fetchers.Env) (fetchers.Fetcher, error) {
		return New(Config{Endpoint: s.Endpoint, Zones: s.Regions}, env.Client, env.Log)
	}),
}

// Config is what New needs.
type Config struct {
	// Endpoint is the base URL; empty means DefaultEndpoint.
	Endpoint string
	// Zones are read in this order; empty means DefaultZones.
	Zones []string
}

// Fetcher implements fetchers.Fetcher for Scaleway.
type Fetcher struct {
	base   *url.URL
	zones  []string
	client *fetchers.Client
	log    *zap.Logger
}

var _ fetchers.Fetcher = (*Fetcher)(nil)

// New checks cfg and returns a Fetcher sending through client.
func New(cfg Config, client *fetchers.Client, log *zap.Logger) (*Fetcher, error) {
	u, log, err := fetchers.Endpoint(Name, client, log, cfg.Endpoint, DefaultEndpoint, "")
	if err != nil {
		return nil, err
	}
	zones := cfg.Zones
	if len(zones) == 0 {
		zones = DefaultZones
	}
	zones, err = fetchers.Distinct(zones, strings.TrimSpace, func(i int, z string) error {
		if z == "" || strings.ContainsAny(z, "/?#% ") {
			return fmt.Errorf("%s: providers.scaleway.regions[%d] %q: want a zone such as fr-par-2", Name, i, zones[i])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return &Fetcher{base: u, zones: zones, client: client, log: log}, nil
}

// Provider returns Name.
func (f *Fetcher) Provider() string { return Name }

// Fetch reads every zone's catalogue and availability; any zone whose
// answer is not whole fails the run, so nothing is closed on a part. A
// zone the API answers 404 for is left out (and logged).
func (f *Fetcher) Fetch(ctx context.Context, _ fetchers.Previous) (*pricewatch.Snapshot, error) {
	snap := &pricewatch.Snapshot{Provider: Name, SourceVersion: "instance/v1 products/servers"}
	for _, zone := range f.zones {
		if err := f.zone(ctx, zone, snap); err != nil {
			return nil, err
		}
	}
	if len(snap.Offers) == 0 {
		return nil, fmt.Errorf("%w: scaleway: %d zone(s) but not one priced GPU type: not believed", fetchers.ErrIncomplete, len(f.zones))
	}
	return fetchers.Done(f.log, "scaleway", snap, "scaleway catalogue fetched", zap.Int("zones", len(f.zones)), zap.Int("offers", len(snap.Offers)),
		zap.Int("availability", len(snap.Availability)))
}

// zone reads one zone into snap.
func (f *Fetcher) zone(ctx context.Context, zone string, snap *pricewatch.Snapshot) error {
	servers, err := f.list(ctx, zone, "/products/servers", "the server type catalogue")
	var status *fetchers.StatusError
	if errors.As(err, &status) && status.Status == http.StatusNotFound {
		// A zone the API does not serve (a default one not opened yet, or
		// closed) says nothing of the others: left out of the coverage, so
		// nothing stored there is closed, and the run goes on.
		f.log.Warn("scaleway zone not found; left out this run", zap.String("zone", zone))
		return nil
	}
	if err != nil {
		return err
	}
	if len(servers) == 0 {
		// Every zone sells some server type: an empty catalogue is a fault
		// upstream, never "everything withdrawn".
		return fmt.Errorf("%w: scaleway %s: the server type catalogue is empty", fetchers.ErrIncomplete, zone)
	}
	stock, err := f.list(ctx, zone, "/products/servers/availability", "the server availability map")
	if err != nil {
		return err
	}
	z := build(zone, servers, stock)
	if len(z.malformed) > 0 {
		// One odd row never fails the run: the others are stored.
		names := slices.Sorted(maps.Keys(z.malformed))
		f.log.Warn("scaleway server types malformed; left out, the others are stored", zap.String("zone", zone),
			zap.Strings("types", names), zap.String("first_error", z.malformed[names[0]]))
	}
	if len(z.unknown) > 0 {
		f.log.Info("scaleway availability unknown for some GPU types; the zone's stock is not claimed complete",
			zap.String("zone", zone), zap.Strings("types", z.unknown))
	}
	snap.Offers = append(snap.Offers, z.offers...)
	snap.Availability = append(snap.Availability, z.stock...)
	snap.Coverage = append(snap.Coverage, pricewatch.Scope{Region: zone, PriceTypes: []pricewatch.PriceType{pricewatch.OnDemand},
		Availability: len(z.unknown) == 0 && len(z.malformed) == 0})
	f.log.Debug("scaleway zone read", zap.String("zone", zone), zap.Int("types", len(servers)), zap.Int("gpu_offers", len(z.offers)),
		zap.Any("skipped", z.skipped))
	return nil
}

// page is either listing's answer: servers keyed by commercial type.
type page struct {
	Servers *map[string]json.RawMessage `json:"servers"`
}

// list reads every page of one listing of zone, until an empty one.
func (f *Fetcher) list(ctx context.Context, zone, path, answer string) (map[string]json.RawMessage, error) {
	u := *f.base
	u.Path += ZonePath + url.PathEscape(zone) + path
	out := map[string]json.RawMessage{}
	for n := 1; ; n++ {
		if n > maxPages {
			return nil, fmt.Errorf("%w: scaleway %s %s: more than %d pages", fetchers.ErrIncomplete, zone, path, maxPages)
		}
		u.RawQuery = url.Values{"per_page": {strconv.Itoa(PerPage)}, "page": {strconv.Itoa(n)}}.Encode()
		where := fmt.Sprintf("scaleway %s %s page %d", zone, path, n)
		var p page
		if err := f.client.ReadJSON(ctx, fetchers.Request{Method: http.MethodGet, URL: u.String(), Where: where, Answer: answer}, &p); err != nil {
			return nil, err
		}
		if p.Servers == nil {
			return nil, fmt.Errorf("%w: %s: no servers object", fetchers.ErrIncomplete, where)
		}
		if len(*p.Servers) == 0 {
			return out, nil
		}
		for name, raw := range *p.Servers {
			if _, dup := out[name]; dup {
				// A type is listed on one page only: a repeat is a server
				// handing the same page out again, and reading on would loop.
				return nil, fmt.Errorf("%w: %s: type %s listed on an earlier page too", fetchers.ErrIncomplete, where, name)
			}
			out[name] = raw
		}
	}
}

// server is the part of a catalogue entry read.
type server struct {
	HourlyPrice *json.Number `json:"hourly_price"`
	NCPUs       int          `json:"ncpus"`
	RAM         float64      `json:"ram"`
	GPU         *int         `json:"gpu"`
	GPUInfo     *struct {
		Manufacturer string  `json:"gpu_manufacturer"`
		Name         string  `json:"gpu_name"`
		Memory       float64 `json:"gpu_memory"`
	} `json:"gpu_info"`
	MIGProfile   json.RawMessage `json:"mig_profile"`
	EndOfService bool            `json:"end_of_service"`
}

type availability struct {
	Availability *string `json:"availability"`
}

// Reasons a catalogue entry is left out, counted in the debug log.
const (
	skipNoGPU = "no GPU"
	skipEOS   = "end of service"
	skipMIG   = "MIG slice"
	skipZero  = "zero price"
)

// zoneResult is one zone's records.
type zoneResult struct {
	offers    []pricewatch.Offer
	stock     []pricewatch.Availability
	skipped   map[string]int
	malformed map[string]string
	unknown   []string // GPU types without a readable availability
}

// gib is a binary gigabyte: the API's byte counts are whole GiB (80 GiB
// per H100), which is what every other cloud calls 80 GB.
const gib = 1 << 30

// build turns one zone's two listings into records, in type order.
func build(zone string, servers, stock map[string]json.RawMessage) zoneResult {
	z := zoneResult{skipped: map[string]int{}, malformed: map[string]string{}}
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		o, why, err := offer(zone, name, servers[name])
		if err != nil {
			z.malformed[name] = err.Error()
			continue
		}
		if why != "" {
			z.skipped[why]++
			continue
		}
		z.offers = append(z.offers, o)
		a, err := state(stock[name])
		if err != nil {
			z.unknown = append(z.unknown, name)
			continue
		}
		a.Provider, a.Region, a.InstanceType, a.Hardware = Name, zone, name, o.Hardware
		z.stock = append(z.stock, a)
	}
	return z
}

// offer prices one catalogue entry, or says why it is left out; an entry
// that cannot be read is an error.
func offer(zone, name string, raw json.RawMessage) (pricewatch.Offer, string, error) {
	var s server
	if err := fetchers.DecodeWhole(raw, "a server type", &s); err != nil {
		return pricewatch.Offer{}, "", err
	}
	switch {
	case s.GPU == nil:
		return pricewatch.Offer{}, "", errors.New("no gpu count")
	case *s.GPU < 0:
		return pricewatch.Offer{}, "", fmt.Errorf("gpu %d", *s.GPU)
	case *s.GPU == 0:
		return pricewatch.Offer{}, skipNoGPU, nil
	case s.GPUInfo == nil || strings.TrimSpace(s.GPUInfo.Name) == "":
		return pricewatch.Offer{}, "", errors.New("GPUs without gpu_info.gpu_name")
	case s.HourlyPrice == nil:
		return pricewatch.Offer{}, "", errors.New("no hourly_price")
	case s.EndOfService:
		return pricewatch.Offer{}, skipEOS, nil
	case len(s.MIGProfile) > 0 && string(s.MIGProfile) != "null":
		// A MIG profile sells a share of a card whose size the entry does
		// not state: never stored as whole GPUs.
		return pricewatch.Offer{}, skipMIG, nil
	}
	price, err := decimal.NewFromString(s.HourlyPrice.String())
	if err != nil || price.IsNegative() {
		return pricewatch.Offer{}, "", fmt.Errorf("hourly_price %q: want a non-negative number of euros", s.HourlyPrice.String())
	}
	if price.IsZero() {
		return pricewatch.Offer{}, skipZero, nil
	}
	if s.GPUInfo.Memory < 0 || s.RAM < 0 || s.NCPUs < 0 || math.IsInf(s.RAM, 0) {
		return pricewatch.Offer{}, "", errors.New("negative memory or CPU count")
	}
	mem := s.GPUInfo.Memory / gib
	id := gpu.Resolve(s.GPUInfo.Name, gpu.Hint{MemoryGB: mem})
	return pricewatch.Offer{Provider: Name, Region: zone, InstanceType: name, PriceType: pricewatch.OnDemand, OS: pricewatch.Linux,
		Currency: Currency, Hourly: price,
		Hardware: pricewatch.Hardware{GPUModel: id.Name(), GPUCount: float64(*s.GPU), GPUMemoryGB: mem, VCPUs: s.NCPUs, MemoryGB: s.RAM / gib},
	}, "", nil
}

// state reads one availability entry: available and scarce are in stock
// (scarce is fewer, not none), shortage is sold out; anything else,
// or no entry, is unknown (an error).
func state(raw json.RawMessage) (pricewatch.Availability, error) {
	if raw == nil {
		return pricewatch.Availability{}, errors.New("not in the availability map")
	}
	var a availability
	if err := fetchers.DecodeWhole(raw, "an availability entry", &a); err != nil {
		return pricewatch.Availability{}, err
	}
	if a.Availability == nil {
		return pricewatch.Availability{}, errors.New("no availability")
	}
	switch v := *a.Availability; v {
	case "available", "scarce":
		return pricewatch.Availability{State: pricewatch.InStock, StockDetail: v}, nil
	case "shortage":
		return pricewatch.Availability{State: pricewatch.SoldOut, StockDetail: v}, nil
	default:
		return pricewatch.Availability{}, fmt.Errorf("availability %q", v)
	}
}
