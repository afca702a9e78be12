// Package coreweave reads CoreWeave: its list prices from price sheets
// (CoreWeave states them only on https://www.coreweave.com/pricing, see
// package sheet) and, when an API access token is configured, its
// Capacity Finder (beta, POST /v1beta1/capacity/availability:get) as a
// private availability signal.
//
// Capacity Finder's answers are CoreWeave's confidential information,
// not to be shared outside the customer's company (its documentation's
// banner). They are stored as availability history, which may alert the
// company's own channels and show on its dashboard marked confidential
// (clouds.ConfidentialAvailability), and which `pricewatch export` (prices
// only) never carries.
package coreweave

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/sheet"
	"github.com/pricewatch/pricewatch/section"
)

const (
	// DefaultEndpoint is CoreWeave's API host.
	DefaultEndpoint = "https://api.coreweave.com"
	// Path is Capacity Finder's method.
	Path = "/v1beta1/capacity/availability:get"
	// EnvAPIToken names the environment variable holding the API access
	// token.
	EnvAPIToken = "COREWEAVE_API_TOKEN"
	// Region is where a type's "ranked anywhere" record lives.
	Region = "global"

	stateVersion  = 1
	maxBodyBytes  = 4 << 20
	nodesPerQuery = 1
)

// Section is providers.coreweave.
type Section struct {
	// Keys hold price_sheets, the sheets with CoreWeave's prices.
	sheet.Keys `yaml:",inline"`
	// APIKeyFile holds the API access token when COREWEAVE_API_TOKEN is
	// not set; without either, Capacity Finder is not asked.
	APIKeyFile string `yaml:"api_key_file"`
}

// Validate checks api_key_file and price_sheets when the provider is on.
func (s *Section) Validate(k section.Checker) error { return s.Check(k, "api_key_file", s.APIKeyFile) }

// Provider registers CoreWeave (see package providers).
var Provider = fetchers.Provider{
	Name:  pricewatch.CoreWeave,
	Facts: section.Facts{RegionsUnused: "CoreWeave's regions are the price sheets' and the zones Capacity Finder ranks"},
	Section: func() section.Section {
		// Capacity Finder's samples are refreshed on a fixed cadence;
		// hourly reads follow them without asking more often.
		return &Section{Keys: sheet.Keys{Enabled: true, Endpoint: DefaultEndpoint, Schedule: "17 * * * *", Timeout: 5 * time.Minute}}
	},
	Build: fetchers.Builder(func(s *Section, env fetchers.Env) (fetchers.Fetcher, error) {
		tok, err := fetchers.ReadKey("coreweave API access token", EnvAPIToken, s.APIKeyFile)
		if err != nil {
			return nil, err
		}
		env.Secrets(tok)
		return New(Config{Endpoint: s.Endpoint, Token: tok, PriceSheets: s.PriceSheets}, env.Client, env.Log)
	}),
}

// Config is what New needs.
type Config struct {
	Endpoint    string
	Token       section.Secret
	PriceSheets []string
}

// Fetcher reads the sheets and, with a token, Capacity Finder.
type Fetcher struct {
	sheets []string
	api    *fetchers.KeyedAPI // nil without a token
	client *fetchers.Client
	log    *zap.Logger
}

var errNothing = fmt.Errorf("%w: set providers.coreweave.price_sheets (CoreWeave's API states no prices)", fetchers.ErrNoCredentials)

// New checks cfg. Without price sheets there is nothing to read (the
// sheets also name the types Capacity Finder is asked about): the error
// wraps fetchers.ErrNoCredentials, so the provider is skipped.
func New(cfg Config, client *fetchers.Client, log *zap.Logger) (*Fetcher, error) {
	if len(cfg.PriceSheets) == 0 {
		return nil, errNothing
	}
	log, err := fetchers.Logger(pricewatch.CoreWeave, client, log)
	if err != nil {
		return nil, err
	}
	f := &Fetcher{sheets: cfg.PriceSheets, client: client, log: log}
	if !cfg.Token.Empty() {
		a, err := fetchers.NewKeyedAPI(fetchers.KeyedSpec{Provider: pricewatch.CoreWeave, DefaultEndpoint: DefaultEndpoint, Path: Path,
			KeyHelp: "check " + EnvAPIToken + " or providers.coreweave.api_key_file", Answer: "Capacity Finder's ranked zones",
			MaxBody: maxBodyBytes}, fetchers.KeyedConfig{Endpoint: cfg.Endpoint, APIKey: cfg.Token}, client, log)
		if err != nil {
			return nil, err
		}
		f.api = &a
	}
	return f, nil
}

// Provider returns pricewatch.CoreWeave.
func (f *Fetcher) Provider() string { return pricewatch.CoreWeave }

// Fetch reads every sheet, then (with a token) asks Capacity Finder about
// the sheets' instance types. Either failing fails the run.
func (f *Fetcher) Fetch(ctx context.Context, prev fetchers.Previous) (*pricewatch.Snapshot, error) {
	offers, err := sheet.ReadAll(ctx, f.client, f.log, pricewatch.CoreWeave, f.sheets)
	if err != nil {
		return nil, err
	}
	snap := &pricewatch.Snapshot{Provider: pricewatch.CoreWeave, Offers: offers, SourceVersion: "price sheets",
		Coverage: []pricewatch.Scope{{Region: pricewatch.AllRegions}}}
	if f.api != nil {
		complete, err := f.capacity(ctx, prev, snap)
		if err != nil {
			return nil, err
		}
		snap.SourceVersion = "price sheets; " + strings.TrimPrefix(Path, "/")
		snap.Coverage[0].Availability = complete
	}
	return fetchers.Done(f.log, "coreweave", snap, "coreweave fetched", zap.Int("offers", len(snap.Offers)), zap.Int("availability", len(snap.Availability)))
}

// Superchip types are not considered by Capacity Finder (its
// documentation's limits): not asked about.
var superchips = []string{"GH200", "GB200", "GB300"}

// The request and answer as this package reads them. CoreWeave documents
// the method (instance types and node counts in, ranked Availability
// Zones out) but the field names below were not retrieved from its
// reference (see testdata/README.md): they are this package's reading of
// the documented shape, kept here in one place to change when a real
// answer is seen. Unknown fields fail the answer, so a different shape is
// refused rather than misread.
type request struct {
	Requests []requestedType `json:"requests"`
}

type requestedType struct {
	InstanceType string `json:"instanceType"`
	NodeCount    int    `json:"nodeCount"`
}

type answer struct {
	Results *[]result `json:"results"`
}

type result struct {
	InstanceType string `json:"instanceType"`
	Zones        *[]struct {
		Zone string `json:"zone"`
		Rank int    `json:"rank"`
	} `json:"zones"`
}

// capacity asks Capacity Finder and adds its availability to snap.
// It reports whether the answer covered every type asked about.
func (f *Fetcher) capacity(ctx context.Context, prev fetchers.Previous, snap *pricewatch.Snapshot) (bool, error) {
	hw := map[string]pricewatch.Hardware{}
	var req request
	for _, o := range snap.Offers {
		if _, seen := hw[o.InstanceType]; seen || slices.Contains(superchips, o.GPUModel) {
			continue
		}
		hw[o.InstanceType] = o.Hardware
		req.Requests = append(req.Requests, requestedType{InstanceType: o.InstanceType, NodeCount: nodesPerQuery})
	}
	if len(req.Requests) == 0 {
		return true, nil
	}
	sort.Slice(req.Requests, func(i, j int) bool { return req.Requests[i].InstanceType < req.Requests[j].InstanceType })
	body, _ := json.Marshal(req) // strings and ints: cannot fail
	resp, err := f.api.Do(ctx, http.MethodPost, body)
	if err != nil {
		return false, err
	}
	var a answer
	if err := fetchers.DecodeWhole(resp, "Capacity Finder's answer", &a); err != nil {
		return false, fmt.Errorf("coreweave %s: %w", Path, err)
	}
	if a.Results == nil {
		return false, fmt.Errorf("%w: coreweave %s: no results", fetchers.ErrIncomplete, Path)
	}
	ranked := map[string]map[string]int{}
	var odd []string
	for _, r := range *a.Results {
		if _, asked := hw[r.InstanceType]; !asked || r.Zones == nil {
			odd = append(odd, r.InstanceType)
			continue
		}
		zones := map[string]int{}
		for _, z := range *r.Zones {
			if z.Zone == "" || z.Zone == Region || strings.ContainsAny(z.Zone, " /,") || z.Rank < 1 {
				zones = nil
				break
			}
			zones[z.Zone] = z.Rank
		}
		if zones == nil {
			odd = append(odd, r.InstanceType)
			continue
		}
		ranked[r.InstanceType] = zones
	}
	complete := len(odd) == 0 && len(ranked) == len(req.Requests)
	if !complete {
		// A type left out or answered oddly is not "withdrawn": this run
		// states what it read and closes nothing.
		f.log.Warn("coreweave Capacity Finder answered only part of the types asked; its availability closes nothing this run",
			zap.Strings("odd", odd), zap.Int("asked", len(req.Requests)), zap.Int("answered", len(ranked)))
	}
	// An answer ranking none of the types asked about is a fault, not
	// "nothing fits anywhere": believed only per type it names.
	if len(ranked) == 0 {
		return false, fmt.Errorf("%w: coreweave %s: not one of %d instance types answered", fetchers.ErrIncomplete, Path, len(req.Requests))
	}
	known, err := loadState(prev.State)
	if err != nil {
		f.log.Warn("coreweave capacity state unreadable; starting afresh", zap.Error(err))
		known = map[string][]string{}
	}
	next := map[string][]string{}
	for t, zs := range known {
		next[t] = zs
	}
	for _, rq := range req.Requests {
		t := rq.InstanceType
		zones, ok := ranked[t]
		if !ok {
			continue // its records stay open: this run covers no availability (see below)
		}
		all := slices.Clone(known[t])
		for z := range zones {
			if !slices.Contains(all, z) {
				all = append(all, z)
			}
		}
		sort.Strings(all)
		next[t] = all
		for _, z := range all {
			a := pricewatch.Availability{Provider: pricewatch.CoreWeave, Region: z, InstanceType: t, State: pricewatch.SoldOut, Hardware: hw[t],
				StockDetail: "not ranked by Capacity Finder (spot; confidential)"}
			if r, ok := zones[z]; ok {
				a.State, a.StockDetail = pricewatch.InStock, "Capacity Finder rank "+strconv.Itoa(r)+" (spot; confidential)"
			}
			snap.Availability = append(snap.Availability, a)
		}
		g := pricewatch.Availability{Provider: pricewatch.CoreWeave, Region: Region, InstanceType: t, State: pricewatch.SoldOut, Hardware: hw[t],
			StockDetail: "no zone ranked (spot; confidential)"}
		if len(zones) > 0 {
			g.State, g.StockDetail = pricewatch.InStock, fmt.Sprintf("%d zone(s) ranked (spot; confidential)", len(zones))
		}
		snap.Availability = append(snap.Availability, g)
	}
	snap.State, _ = fetchers.EncodeState(stateVersion, state{Zones: next}) // map of string slices: cannot fail
	return complete, nil
}

// state remembers every zone Capacity Finder ranked per type, so that a
// zone no longer ranked reads as sold out rather than withdrawn.
type state struct {
	Zones map[string][]string `json:"zones"`
}

func loadState(raw []byte) (map[string][]string, error) {
	var s state
	if _, err := fetchers.DecodeState(raw, stateVersion, &s); err != nil {
		return nil, err
	}
	if s.Zones == nil {
		s.Zones = map[string][]string{}
	}
	return s.Zones, nil
}
