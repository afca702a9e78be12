// Package hyperstack fetches Hyperstack's (NexGen Cloud Infrahub) GPU
// flavors, their prices and their stock, with an API key sent in the
// api_key header.
//
// One run reads three documents: GET /v1/core/flavors (every flavor per
// GPU and region, with stock_available), GET /v1/pricebook (a price per
// GPU-hour for each GPU name) and GET /v1/core/stocks (per region and GPU
// model: a bucketed count of GPUs available now and planned, and how many
// machines of each size can be made). A flavor's price is the pricebook
// value of its GPU times its gpu_count (SkyPilot's reading: the flavor's
// VM costs what its GPUs cost); its state is its stock_available, and the
// stock figures of its region and GPU go into the detail. A flavor whose
// GPU has no price is stored as availability only (the API lists such
// GPUs: SkyPilot meets an unpriced H200). Any of the three documents cut
// or unreadable fails the run, so nothing is closed.
package hyperstack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"regexp"
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
	// Name is the provider's key.
	Name = pricewatch.Hyperstack
	// DefaultEndpoint is the Infrahub API host.
	DefaultEndpoint = "https://infrahub-api.nexgencloud.com"
	// PathFlavors, PathPricebook and PathStocks are the three documents a
	// run reads.
	PathFlavors   = "/v1/core/flavors"
	PathPricebook = "/v1/pricebook"
	PathStocks    = "/v1/core/stocks"
	// EnvAPIKey names the environment variable holding the API key.
	EnvAPIKey = "HYPERSTACK_API_KEY"
	// KeyHeader is the header the API reads the key from (no bearer).
	KeyHeader = "api_key"
	// Currency: the pricebook is in US dollars.
	Currency = "USD"
)

// Config is the fetcher's part of the configuration.
type Config = fetchers.KeyedConfig

// Section is providers.hyperstack.
type Section = section.Keyed

// Provider registers Hyperstack (see package providers).
var Provider = fetchers.KeyedProvider(
	fetchers.Provider{Name: Name},
	// Stock moves within minutes; three small requests a run.
	Section{Enabled: true, Endpoint: DefaultEndpoint, Schedule: "*/15 * * * *", Timeout: 3 * time.Minute},
	key, fetchers.WithClient(New))

// key is the API key: HYPERSTACK_API_KEY first, then the file named by
// providers.hyperstack.api_key_file; without either the provider is
// skipped.
var key = fetchers.Key{Provider: Name, What: "hyperstack API key", Env: EnvAPIKey, Required: true}

// Fetcher implements fetchers.Fetcher for Hyperstack.
type Fetcher struct {
	flavors, pricebook, stocks fetchers.KeyedAPI
	log                        *zap.Logger
}

// New checks cfg and returns a Fetcher sending through client. A missing
// key gives an error wrapping fetchers.ErrNoCredentials.
func New(cfg Config, client *fetchers.Client, log *zap.Logger) (*Fetcher, error) {
	f := &Fetcher{}
	for _, x := range []struct {
		api          *fetchers.KeyedAPI
		path, answer string
	}{{&f.flavors, PathFlavors, "the flavor list"}, {&f.pricebook, PathPricebook, "the pricebook"}, {&f.stocks, PathStocks, "the stock list"}} {
		a, err := key.API(fetchers.KeyedSpec{Provider: Name, DefaultEndpoint: DefaultEndpoint, Path: x.path, Answer: x.answer, KeyHeader: KeyHeader},
			cfg, client, log)
		if err != nil {
			return nil, err
		}
		*x.api = a
	}
	f.log = f.flavors.Log
	return f, nil
}

// Provider returns Name.
func (f *Fetcher) Provider() string { return Name }

// Fetch reads the flavors, the pricebook and the stocks and returns the
// complete snapshot, or an error if any of them was not complete.
func (f *Fetcher) Fetch(ctx context.Context, _ fetchers.Previous) (*pricewatch.Snapshot, error) {
	rawFlavors, err := f.flavors.Do(ctx, http.MethodGet, nil)
	if err != nil {
		return nil, err
	}
	flavors, badFlavors, skipped, err := decodeFlavors(rawFlavors)
	if err != nil {
		return nil, fmt.Errorf("hyperstack %s: %w", PathFlavors, err)
	}
	rawPrices, err := f.pricebook.Do(ctx, http.MethodGet, nil)
	if err != nil {
		return nil, err
	}
	prices, badPrices, err := decodePricebook(rawPrices)
	if err != nil {
		return nil, fmt.Errorf("hyperstack %s: %w", PathPricebook, err)
	}
	rawStocks, err := f.stocks.Do(ctx, http.MethodGet, nil)
	if err != nil {
		return nil, err
	}
	stocks, err := decodeStocks(rawStocks)
	if err != nil {
		return nil, fmt.Errorf("hyperstack %s: %w", PathStocks, err)
	}
	for what, bad := range map[string]map[string]string{"flavors": badFlavors, "pricebook entries": badPrices} {
		if len(bad) > 0 {
			// One odd row never fails the run: the others are stored.
			names := slices.Sorted(maps.Keys(bad))
			f.log.Warn("hyperstack "+what+" malformed; left out, the others are stored", zap.Strings("rows", names),
				zap.String("first_error", bad[names[0]]))
		}
	}
	snap, unpriced := build(flavors, prices, stocks)
	deferRegions(snap, flavors, badFlavors, badPrices)
	if len(unpriced) > 0 {
		f.log.Info("hyperstack flavors whose GPU the pricebook does not price: availability only", zap.Strings("flavors", unpriced))
	}
	if len(snap.Offers) == 0 && len(snap.Availability) == 0 {
		return nil, fmt.Errorf("%w: hyperstack %s: %d flavors but not one GPU flavor: not believed", fetchers.ErrIncomplete, PathFlavors, len(flavors)+skipped)
	}
	return fetchers.Done(f.log, "hyperstack", snap, "hyperstack flavors fetched", zap.Int("gpu_flavors", len(flavors)), zap.Int("other_flavors", skipped),
		zap.Int("offers", len(snap.Offers)), zap.Int("availability", len(snap.Availability)))
}

// flavorsDoc is /core/flavors: flavors grouped by GPU and region. Groups
// and flavors are decoded one by one so one bad row is left out.
type flavorsDoc struct {
	Status *bool              `json:"status"`
	Data   *[]json.RawMessage `json:"data"`
}

type flavorGroup struct {
	GPU        string            `json:"gpu"`
	RegionName string            `json:"region_name"`
	Flavors    []json.RawMessage `json:"flavors"`
}

type flavorRow struct {
	Name       string   `json:"name"`
	RegionName string   `json:"region_name"`
	CPU        int      `json:"cpu"`
	RAM        float64  `json:"ram"`
	Disk       float64  `json:"disk"`
	Ephemeral  float64  `json:"ephemeral"`
	GPU        string   `json:"gpu"`
	GPUCount   *float64 `json:"gpu_count"`
	Stock      *bool    `json:"stock_available"`
}

// flavor is one checked GPU flavor.
type flavor struct {
	name, region, gpu string
	count             int
	stock             bool
	hw                pricewatch.Hardware
}

func (f flavor) key() string { return f.region + "/" + f.name }

// decodeFlavors refuses anything that is not one complete flavor list
// (status true, data an array with at least one group); a row that
// cannot be read is returned in malformed under "<region>/<name>" where
// those could be read, else its position. CPU-only flavors and
// Kubernetes node flavors (named …-k8s) are counted in skipped.
func decodeFlavors(body []byte) (out []flavor, malformed map[string]string, skipped int, err error) {
	var doc flavorsDoc
	if err := fetchers.DecodeWhole(body, "a flavor list", &doc); err != nil {
		return nil, nil, 0, err
	}
	switch {
	case doc.Status == nil || doc.Data == nil:
		return nil, nil, 0, fmt.Errorf("%w: no status or data", fetchers.ErrIncomplete)
	case !*doc.Status:
		return nil, nil, 0, fmt.Errorf("%w: status false", fetchers.ErrIncomplete)
	case len(*doc.Data) == 0:
		// Hyperstack always sells flavors: an empty list is a fault.
		return nil, nil, 0, fmt.Errorf("%w: the flavor list is empty", fetchers.ErrIncomplete)
	}
	malformed = map[string]string{}
	seen := map[string]int{}
	for i, raw := range *doc.Data {
		var g flavorGroup
		if err := fetchers.DecodeWhole(raw, "a flavor group", &g); err != nil {
			malformed["group "+strconv.Itoa(i)] = err.Error()
			continue
		}
		for j, raw := range g.Flavors {
			var r flavorRow
			if err := fetchers.DecodeWhole(raw, "a flavor", &r); err != nil {
				// The group names the region even when the row is unreadable.
				malformed[g.RegionName+"/#"+strconv.Itoa(j)] = err.Error()
				continue
			}
			fl, ok, err := checkFlavor(r)
			switch {
			case err != nil:
				malformed[r.RegionName+"/"+r.Name] = err.Error()
			case !ok:
				skipped++
			case seen[fl.key()] > 0:
				// Two rows for one flavor in one region: neither is believed.
				malformed[fl.key()] = "listed twice"
				out[seen[fl.key()]-1].name = ""
			default:
				seen[fl.key()] = len(out) + 1
				out = append(out, fl)
			}
		}
	}
	out = slices.DeleteFunc(out, func(f flavor) bool { return f.name == "" })
	sort.Slice(out, func(i, j int) bool { return out[i].key() < out[j].key() })
	return out, malformed, skipped, nil
}

// memToken is the "80G" of "H100-80G-PCIe": the memory of one GPU.
var memToken = regexp.MustCompile(`(?i)^(\d+)G$`)

// checkFlavor checks one row; ok false is a flavor that is not a GPU VM
// (CPU only, or a Kubernetes node flavor, which Hyperstack sells only
// inside its managed Kubernetes and whose stock the stock list does not
// tell apart from the VM's).
func checkFlavor(r flavorRow) (flavor, bool, error) {
	name, region := strings.TrimSpace(r.Name), strings.TrimSpace(r.RegionName)
	switch {
	case name == "" || strings.ContainsAny(name, " /?#%"):
		return flavor{}, false, fmt.Errorf("name %q", r.Name)
	case !pricewatch.IsRegionCode(region):
		return flavor{}, false, fmt.Errorf("region_name %q", r.RegionName)
	case r.GPUCount == nil || r.Stock == nil:
		return flavor{}, false, errors.New("no gpu_count or stock_available")
	case *r.GPUCount < 0 || *r.GPUCount != float64(int(*r.GPUCount)):
		return flavor{}, false, fmt.Errorf("gpu_count %v: want a whole number", *r.GPUCount)
	}
	if *r.GPUCount == 0 || strings.TrimSpace(r.GPU) == "" || strings.HasSuffix(strings.ToLower(name), "k8s") {
		return flavor{}, false, nil
	}
	model, mem := modelName(r.GPU)
	fl := flavor{name: name, region: region, gpu: strings.TrimSpace(r.GPU), count: int(*r.GPUCount), stock: *r.Stock}
	fl.hw = pricewatch.Hardware{GPUModel: gpu.Resolve(model, gpu.Hint{MemoryGB: mem}).Name(), GPUCount: *r.GPUCount,
		GPUMemoryGB: mem, VCPUs: r.CPU, MemoryGB: r.RAM}
	var disks []string
	if r.Disk > 0 {
		disks = append(disks, strconv.FormatFloat(r.Disk, 'f', -1, 64)+" GB disk")
	}
	if r.Ephemeral > 0 {
		disks = append(disks, strconv.FormatFloat(r.Ephemeral, 'f', -1, 64)+" GB ephemeral")
	}
	fl.hw.LocalStorage = strings.Join(disks, ", ")
	return fl, true, nil
}

// modelName reads a Hyperstack GPU name ("H100-80G-SXM5",
// "H100-80G-PCIe-NVLink", "RTX-A6000", "RTX-PRO6000-SE", "B200-SXM") as
// words for the catalogue's resolver, and the memory per GPU it writes
// (0 where it writes none). NVLink names the bridge between PCIe cards,
// not another card; SE (Server Edition) is the RTX PRO 6000's server
// part.
func modelName(name string) (string, float64) {
	var words []string
	var mem float64
	for _, w := range strings.Split(strings.TrimSpace(name), "-") {
		if m := memToken.FindStringSubmatch(w); m != nil {
			mem, _ = strconv.ParseFloat(m[1], 64)
			continue
		}
		switch u := strings.ToUpper(w); {
		case u == "NVLINK" || u == "SE":
			continue
		case strings.HasPrefix(u, "PRO") && len(u) > 3:
			words = append(words, w[:3], w[3:])
			continue
		}
		words = append(words, w)
	}
	return strings.Join(words, " "), mem
}

// priceRow is one pricebook entry read.
type priceRow struct {
	Name  string          `json:"name"`
	Value json.RawMessage `json:"value"`
}

// decodePricebook reads the bare array of prices into GPU name → price
// per GPU-hour. value is a string in CoCalc's types and a number in the
// SDK's: both are read exactly. An entry without a readable positive
// value is malformed (under its name); a name listed twice is believed
// for neither.
func decodePricebook(body []byte) (map[string]decimal.Decimal, map[string]string, error) {
	var rows *[]json.RawMessage
	if err := fetchers.DecodeWhole(body, "a pricebook", &rows); err != nil {
		return nil, nil, err
	}
	if rows == nil || len(*rows) == 0 {
		return nil, nil, fmt.Errorf("%w: the pricebook is empty", fetchers.ErrIncomplete)
	}
	prices, malformed, twice := map[string]decimal.Decimal{}, map[string]string{}, map[string]bool{}
	for i, raw := range *rows {
		var p priceRow
		if err := fetchers.DecodeWhole(raw, "a price", &p); err != nil {
			malformed["#"+strconv.Itoa(i)] = err.Error()
			continue
		}
		name := strings.TrimSpace(p.Name)
		if name == "" {
			malformed["#"+strconv.Itoa(i)] = "no name"
			continue
		}
		v, err := readValue(p.Value)
		if err != nil {
			malformed[name] = err.Error()
			continue
		}
		if _, dup := prices[name]; dup || twice[name] {
			twice[name] = true
			malformed[name] = "listed twice"
			delete(prices, name)
			continue
		}
		prices[name] = v
	}
	return prices, malformed, nil
}

func readValue(raw json.RawMessage) (decimal.Decimal, error) {
	s := strings.TrimSpace(string(raw))
	if strings.HasPrefix(s, `"`) {
		if err := json.Unmarshal(raw, &s); err != nil {
			return decimal.Decimal{}, fmt.Errorf("value %s", raw)
		}
	}
	v, err := decimal.NewFromString(strings.TrimSpace(s))
	if err != nil || !v.IsPositive() {
		return decimal.Decimal{}, fmt.Errorf("value %s: want a positive number of dollars", raw)
	}
	return v, nil
}

// stocksDoc is /core/stocks. The key naming the stock type is
// "stock-type" in CoCalc's types and stock_type in the SDK's; neither is
// read.
type stocksDoc struct {
	Stocks *[]struct {
		Region string `json:"region"`
		Models []struct {
			Model          string          `json:"model"`
			Available      *string         `json:"available"`
			Planned7Days   *string         `json:"planned_7_days"`
			Planned30Days  *string         `json:"planned_30_days"`
			Planned100Days *string         `json:"planned_100_days"`
			Configurations map[string]*int `json:"configurations"`
		} `json:"models"`
	} `json:"stocks"`
}

// stock is what the stock list says of one GPU model in one region.
type stock struct {
	available, planned7, planned30, planned100 string
	// machines is how many machines of each size ("8x") can be made.
	machines map[string]*int
}

// decodeStocks reads region/model → stock. The list must be whole (a
// stocks array); its figures only add detail, so an entry without them
// is kept with what it has.
func decodeStocks(body []byte) (map[string]stock, error) {
	var doc stocksDoc
	if err := fetchers.DecodeWhole(body, "a stock list", &doc); err != nil {
		return nil, err
	}
	if doc.Stocks == nil {
		return nil, fmt.Errorf("%w: no stocks array", fetchers.ErrIncomplete)
	}
	out := map[string]stock{}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return strings.TrimSpace(*p)
	}
	for _, r := range *doc.Stocks {
		for _, m := range r.Models {
			out[strings.TrimSpace(r.Region)+"/"+strings.TrimSpace(m.Model)] = stock{available: str(m.Available),
				planned7: str(m.Planned7Days), planned30: str(m.Planned30Days), planned100: str(m.Planned100Days), machines: m.Configurations}
		}
	}
	return out, nil
}

// detail says the flavor's stock in the API's words: "stock_available;
// H100-80G-SXM5 in CANADA-1: 25+ GPUs available, 3 machines of 8x,
// planned 7/30/100 days: 100+/100+/200+".
func (f flavor) detail(stocks map[string]stock) string {
	d := "stock_available: " + strconv.FormatBool(f.stock)
	s, ok := stocks[f.region+"/"+f.gpu]
	if !ok {
		return d
	}
	var parts []string
	if s.available != "" {
		parts = append(parts, s.available+" GPUs available")
	}
	if n := s.machines[strconv.Itoa(f.count)+"x"]; n != nil {
		parts = append(parts, fmt.Sprintf("%d machines of %dx", *n, f.count))
	}
	if s.planned7 != "" || s.planned30 != "" || s.planned100 != "" {
		parts = append(parts, fmt.Sprintf("planned 7/30/100 days: %s/%s/%s", dash(s.planned7), dash(s.planned30), dash(s.planned100)))
	}
	if len(parts) == 0 {
		return d
	}
	return d + "; " + f.gpu + " in " + f.region + ": " + strings.Join(parts, ", ")
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// build turns the checked flavors into the snapshot: one on-demand offer
// per priced flavor and region, one availability record per flavor and
// region. It names the unpriced flavors.
func build(flavors []flavor, prices map[string]decimal.Decimal, stocks map[string]stock) (*pricewatch.Snapshot, []string) {
	snap := &pricewatch.Snapshot{Provider: Name, SourceVersion: "v1/core/flavors+pricebook+stocks",
		// One flavor list names every flavor in every region.
		Coverage: []pricewatch.Scope{{Region: pricewatch.AllRegions, Availability: true}}}
	var unpriced []string
	for _, f := range flavors {
		a := pricewatch.Availability{Provider: Name, Region: f.region, InstanceType: f.name, State: pricewatch.SoldOut,
			StockDetail: f.detail(stocks), Hardware: f.hw}
		if f.stock {
			a.State = pricewatch.InStock
		}
		snap.Availability = append(snap.Availability, a)
		perGPU, ok := prices[f.gpu]
		if !ok {
			unpriced = append(unpriced, f.key())
			continue
		}
		snap.Offers = append(snap.Offers, pricewatch.Offer{Provider: Name, Region: f.region, InstanceType: f.name,
			PriceType: pricewatch.OnDemand, OS: pricewatch.Linux, Currency: Currency,
			Hourly: perGPU.Mul(decimal.NewFromInt(int64(f.count))), Hardware: f.hw})
	}
	return snap, unpriced
}

// deferRegions narrows the coverage when rows were malformed: a region
// holding a malformed flavor row, or a flavor whose GPU's price row was
// malformed, is left out of the coverage, so that what is stored there
// stays as it was (neither closed nor withdrawn) until a run reads it
// whole. Where no region can be told (a group unreadable), the whole list
// stays covered and the row is only left out, as other clouds do.
func deferRegions(snap *pricewatch.Snapshot, flavors []flavor, badFlavors, badPrices map[string]string) {
	deferred := map[string]bool{}
	for k := range badFlavors {
		if r, _, ok := strings.Cut(k, "/"); ok && r != "" {
			deferred[r] = true
		}
	}
	regions := map[string]bool{}
	for _, f := range flavors {
		regions[f.region] = true
		if _, bad := badPrices[f.gpu]; bad {
			deferred[f.region] = true
		}
	}
	if len(deferred) == 0 {
		return
	}
	var cov []pricewatch.Scope
	for _, r := range slices.Sorted(maps.Keys(regions)) {
		if !deferred[r] {
			cov = append(cov, pricewatch.Scope{Region: r, Availability: true})
		}
	}
	if len(cov) == 0 {
		// Every region deferred: a snapshot must cover something, so the
		// malformed rows are only left out, as other clouds do.
		return
	}
	snap.Coverage = cov
}
