// Package runpod fetches RunPod's GPU prices and stock from its GraphQL API
// (POST https://api.runpod.io/graphql): one query returns every GPU type
// with its Secure Cloud and Community Cloud prices per GPU-hour, on-demand
// and spot, its stock level, and every data centre's stock per GPU type.
//
// What an offer means here: RunPod rents GPUs, not machine shapes. The
// instance type is RunPod's GPU type id ("NVIDIA H100 80GB HBM3"), the GPU
// count is 1 and the price is per GPU-hour, so compare's per-GPU-hour
// figure is the price RunPod quotes. Secure Cloud (RunPod's data centres)
// and Community Cloud (vetted hosts, a marketplace) are distinct offers,
// told apart by OfferingClass "secure" and "community". RunPod quotes one
// price per GPU type whatever the data centre, so prices are stored once,
// in the pseudo-region "global"; stock is stored per data centre and, beside
// the price, as a "global" record from the type's lowest-price stock.
package runpod

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/section"
)

const (
	// DefaultEndpoint is the GraphQL API's host.
	DefaultEndpoint = "https://api.runpod.io"
	// Path is the GraphQL endpoint.
	Path = "/graphql"
	// EnvAPIKey names the environment variable holding the optional key.
	EnvAPIKey = "RUNPOD_API_KEY"
	// Region is where the data-centre-independent prices are stored.
	Region = "global"

	// Offering classes: which RunPod cloud sells the GPU. "community" is a
	// marketplace (hosts' machines, RunPod's terms); analysis marks it so.
	Secure    = "secure"
	Community = pricewatch.Community

	maxBodyBytes = 8 << 20
	// maxErrorText bounds how much of a GraphQL error message is quoted.
	maxErrorText = 300
)

// Query asks for every GPU type's prices and stock (1 GPU any cloud,
// 8 GPUs, 1 GPU Secure Cloud) and every data centre's stock per GPU type.
// It is the query getcomputable/gpu-index sends (the capture in
// runpodtest/testdata was answered to exactly this string).
const Query = "{gpuTypes{id displayName memoryInGb securePrice communityPrice secureSpotPrice communitySpotPrice secureCloud communityCloud maxGpuCount lowestPrice(input:{gpuCount:1}){stockStatus minimumBidPrice uninterruptablePrice} lp8: lowestPrice(input:{gpuCount:8}){stockStatus} lp1s: lowestPrice(input:{gpuCount:1,secureCloud:true}){stockStatus}} dataCenters{id name listed gpuAvailability{gpuTypeId available stockStatus}}}"

// Config is the fetcher's part of the configuration (providers.runpod.*).
type Config = fetchers.KeyedConfig

// Section is providers.runpod: the keys of one global API read with an
// API key, and which of RunPod's two catalogues to read.
type Section struct {
	section.Keyed `yaml:",inline"`
	// API is APIGraphQL (the default: no key needed) or APIREST (the
	// keyed REST catalogue, RESTPath).
	API string `yaml:"api"`
}

// The catalogues providers.runpod.api names.
const (
	APIGraphQL = "graphql"
	APIREST    = "rest"
)

// Validate checks api_key_file and api.
func (s *Section) Validate(k section.Checker) error {
	err := s.Keyed.Validate(k)
	if s.API != APIGraphQL && s.API != APIREST {
		err = errors.Join(err, k.Errorf("api", "%q: want %s or %s", s.API, APIGraphQL, APIREST))
	}
	return err
}

// Provider registers RunPod (see package providers).
var Provider = fetchers.Provider{
	Name:  pricewatch.RunPod,
	Facts: section.Facts{NeedsEndpoint: true},
	Section: func() section.Section {
		// Capacity comes and goes within minutes: polled often, each run
		// is one small request.
		return &Section{Keyed: section.Keyed{Enabled: true, Endpoint: DefaultEndpoint, Schedule: "*/5 * * * *", Timeout: 2 * time.Minute}, API: APIGraphQL}
	},
	Build: fetchers.Builder(func(s *Section, env fetchers.Env) (fetchers.Fetcher, error) {
		k, err := APIKeyFrom(s.APIKeyFile)
		if err != nil {
			return nil, err
		}
		env.Secrets(k)
		cfg := Config{Endpoint: s.Endpoint, APIKey: k}
		if s.API == APIREST {
			return NewREST(cfg, env.Client, env.Log)
		}
		return New(cfg, env.Client, env.Log)
	}),
}

// Fetcher reads the GraphQL API. It implements fetchers.Fetcher
// (KeyedProvider checks so at compile time).
type Fetcher struct {
	api fetchers.KeyedAPI
}

// api is the one endpoint the fetcher reads. The GraphQL spec
// (graphql-spec.runpod.io) names bearer auth; the docs' other form,
// ?api_key= in the URL, would put the key where URLs get logged.
var api = fetchers.KeyedSpec{Provider: pricewatch.RunPod, DefaultEndpoint: DefaultEndpoint, Path: Path,
	KeyHelp: "check " + EnvAPIKey + " or providers.runpod.api_key_file; the query also works without a key", Answer: "a GraphQL answer",
	MaxBody: maxBodyBytes}

// APIKeyFrom resolves the optional key: RUNPOD_API_KEY first, then the
// file named by providers.runpod.api_key_file. No key is not an error.
func APIKeyFrom(file string) (section.Secret, error) {
	return fetchers.ReadKey("runpod API key", EnvAPIKey, file)
}

// New checks cfg and returns a Fetcher sending its request through client.
func New(cfg Config, client *fetchers.Client, log *zap.Logger) (*Fetcher, error) {
	a, err := fetchers.NewKeyedAPI(api, cfg, client, log)
	if err != nil {
		return nil, err
	}
	return &Fetcher{api: a}, nil
}

// Provider returns pricewatch.RunPod.
func (f *Fetcher) Provider() string { return pricewatch.RunPod }

// Fetch sends the one query and returns the complete snapshot, or an error
// if the answer was not complete.
func (f *Fetcher) Fetch(ctx context.Context, _ fetchers.Previous) (*pricewatch.Snapshot, error) {
	body, err := f.post(ctx)
	if err != nil {
		return nil, err
	}
	d, err := decode(body)
	if err != nil {
		return nil, fmt.Errorf("runpod %s: %w", Path, err)
	}
	snap, notes, malformed, err := build(d)
	if err != nil {
		return nil, fmt.Errorf("runpod %s: %w", Path, err)
	}
	for _, n := range notes {
		f.api.Log.Debug("runpod: " + n)
	}
	if len(malformed) > 0 {
		// One odd GPU type never fails the run: the others are stored.
		f.api.Log.Warn("runpod GPU types malformed; left out, the others are stored", zap.Int("malformed", len(malformed)), zap.Strings("why", malformed))
	}
	return fetchers.Done(f.api.Log, "runpod", snap, "runpod GPU types fetched", zap.Int("gpu_types", len(d.GPUTypes)), zap.Int("data_centers", len(d.DataCenters)),
		zap.Int("offers", len(snap.Offers)), zap.Int("availability", len(snap.Availability)))
}

// post sends the one query.
func (f *Fetcher) post(ctx context.Context) ([]byte, error) {
	payload, err := json.Marshal(map[string]string{"query": Query})
	if err != nil {
		return nil, fmt.Errorf("runpod: encoding the query: %w", err)
	}
	return f.api.Do(ctx, http.MethodPost, payload)
}

// response is a GraphQL answer. Pointers tell missing from empty.
type response struct {
	Data   *data          `json:"data"`
	Errors []graphQLError `json:"errors"`
}

type graphQLError struct {
	Message string `json:"message"`
}

type data struct {
	GPUTypes    []gpuType    `json:"gpuTypes"`
	DataCenters []dataCenter `json:"dataCenters"`
	// present records which lists the answer carried at all.
	hasGPUTypes, hasDataCenters bool
}

func (d *data) UnmarshalJSON(b []byte) error {
	var raw struct {
		GPUTypes    *[]gpuType    `json:"gpuTypes"`
		DataCenters *[]dataCenter `json:"dataCenters"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if raw.GPUTypes != nil {
		d.GPUTypes, d.hasGPUTypes = *raw.GPUTypes, true
	}
	if raw.DataCenters != nil {
		d.DataCenters, d.hasDataCenters = *raw.DataCenters, true
	}
	return nil
}

// gpuType is one GPU type. Prices are per GPU-hour in USD; null and 0 both
// mean "not sold that way".
type gpuType struct {
	ID                 string       `json:"id"`
	DisplayName        string       `json:"displayName"`
	MemoryInGB         float64      `json:"memoryInGb"`
	SecurePrice        *json.Number `json:"securePrice"`
	CommunityPrice     *json.Number `json:"communityPrice"`
	SecureSpotPrice    *json.Number `json:"secureSpotPrice"`
	CommunitySpotPrice *json.Number `json:"communitySpotPrice"`
	SecureCloud        bool         `json:"secureCloud"`
	CommunityCloud     bool         `json:"communityCloud"`
	MaxGPUCount        int          `json:"maxGpuCount"`
	LowestPrice        *stock       `json:"lowestPrice"`
	LowestPrice8       *stock       `json:"lp8"`
	LowestPriceSecure  *stock       `json:"lp1s"`
}

type stock struct {
	StockStatus *string `json:"stockStatus"`
}

type dataCenter struct {
	ID              string            `json:"id"`
	Name            string            `json:"name"`
	Listed          bool              `json:"listed"`
	GPUAvailability []gpuAvailability `json:"gpuAvailability"`
}

type gpuAvailability struct {
	GPUTypeID   string  `json:"gpuTypeId"`
	Available   *bool   `json:"available"`
	StockStatus *string `json:"stockStatus"`
}

// decode reads the whole body and refuses anything but one complete
// GraphQL answer without errors that holds both lists.
func decode(body []byte) (*data, error) {
	var r response
	if err := fetchers.DecodeWhole(body, "a GraphQL answer", &r); err != nil {
		return nil, err
	}
	// GraphQL reports failures with HTTP 200 and an errors array, with data
	// null or partial; a partial answer is not one to store.
	if len(r.Errors) > 0 {
		msgs := make([]string, 0, len(r.Errors))
		for _, e := range r.Errors {
			m := e.Message
			if len(m) > maxErrorText {
				m = m[:maxErrorText] + "…"
			}
			msgs = append(msgs, fmt.Sprintf("%q", m))
		}
		return nil, fmt.Errorf("%w: GraphQL errors: %s", fetchers.ErrIncomplete, strings.Join(msgs, "; "))
	}
	switch {
	case r.Data == nil:
		return nil, fmt.Errorf("%w: no data", fetchers.ErrIncomplete)
	case !r.Data.hasGPUTypes || !r.Data.hasDataCenters:
		return nil, fmt.Errorf("%w: data lacks gpuTypes or dataCenters", fetchers.ErrIncomplete)
	// RunPod always lists its GPU types and data centres; an empty list
	// is a fault upstream, never "everything withdrawn".
	case len(r.Data.GPUTypes) == 0:
		return nil, fmt.Errorf("%w: the gpuTypes list is empty", fetchers.ErrIncomplete)
	case len(r.Data.DataCenters) == 0:
		return nil, fmt.Errorf("%w: the dataCenters list is empty", fetchers.ErrIncomplete)
	}
	return r.Data, nil
}

// build turns the answer into the snapshot; notes say what was left out
// as the answer meant, malformed which GPU types were left out because a
// price could not be read.
func build(d *data) (snap *pricewatch.Snapshot, notes, malformed []string, err error) {
	snap = &pricewatch.Snapshot{
		Provider: pricewatch.RunPod,
		// One answer describes every GPU type in every data centre.
		Coverage:      []pricewatch.Scope{{Region: pricewatch.AllRegions, Availability: true}},
		SourceVersion: "graphql gpuTypes+dataCenters",
	}
	hw := map[string]pricewatch.Hardware{}
	seen := map[string]bool{}
gpuTypes:
	for _, g := range d.GPUTypes {
		id := strings.TrimSpace(g.ID)
		if id == "" {
			return nil, nil, nil, fmt.Errorf("%w: a GPU type without id", fetchers.ErrIncomplete)
		}
		if seen[id] {
			return nil, nil, nil, fmt.Errorf("%w: GPU type %q listed twice", fetchers.ErrIncomplete, id)
		}
		seen[id] = true
		h := pricewatch.Hardware{GPUModel: gpuModel(id, g.DisplayName, g.MemoryInGB), GPUCount: 1, GPUMemoryGB: g.MemoryInGB}
		var offers []pricewatch.Offer
		for _, p := range []struct {
			offered bool
			class   string
			pt      pricewatch.PriceType
			price   *json.Number
			field   string
		}{
			{g.SecureCloud, Secure, pricewatch.OnDemand, g.SecurePrice, "securePrice"},
			{g.SecureCloud, Secure, pricewatch.Spot, g.SecureSpotPrice, "secureSpotPrice"},
			{g.CommunityCloud, Community, pricewatch.OnDemand, g.CommunityPrice, "communityPrice"},
			{g.CommunityCloud, Community, pricewatch.Spot, g.CommunitySpotPrice, "communitySpotPrice"},
		} {
			price, ok, err := priceOf(p.price)
			if err != nil {
				malformed = append(malformed, fmt.Sprintf("GPU type %q %s: %v", id, p.field, err))
				continue gpuTypes
			}
			switch {
			case !ok:
				continue
			case !p.offered:
				// The capture has MI300X with communityPrice 0.5 while
				// communityCloud is false: not something anyone can rent.
				notes = append(notes, fmt.Sprintf("%s %s %s ignored: not offered in that cloud", id, p.field, price))
				continue
			}
			offers = append(offers, pricewatch.Offer{
				Provider: pricewatch.RunPod, Region: Region, InstanceType: id, PriceType: p.pt, OfferingClass: p.class,
				OS: pricewatch.Linux, Currency: "USD", Hourly: price, Hardware: h,
			})
		}
		snap.Offers = append(snap.Offers, offers...)
		if len(offers) == 0 {
			notes = append(notes, id+" has no price in either cloud; left out")
			continue
		}
		hw[id] = h
		// Stock of one GPU in either cloud, beside the price.
		a := pricewatch.Availability{Provider: pricewatch.RunPod, Region: Region, InstanceType: id, State: pricewatch.SoldOut, Hardware: h}
		if g.LowestPrice != nil && g.LowestPrice.StockStatus != nil && *g.LowestPrice.StockStatus != "" {
			a.State, a.StockDetail = pricewatch.InStock, *g.LowestPrice.StockStatus
		}
		snap.Availability = append(snap.Availability, a)
	}
	if len(snap.Offers) == 0 {
		return nil, nil, nil, fmt.Errorf("%w: %d GPU types but not one price: not believed", fetchers.ErrIncomplete, len(d.GPUTypes))
	}

	dcs := map[string]bool{}
	for _, dc := range d.DataCenters {
		id := strings.TrimSpace(dc.ID)
		switch {
		case id == "" || id == Region || strings.ContainsAny(id, " /"):
			return nil, nil, nil, fmt.Errorf("%w: data centre id %q", fetchers.ErrIncomplete, dc.ID)
		case dcs[id]:
			return nil, nil, nil, fmt.Errorf("%w: data centre %q listed twice", fetchers.ErrIncomplete, id)
		}
		dcs[id] = true
		if !dc.Listed {
			// Unlisted data centres are not offered to users.
			notes = append(notes, "data centre "+id+" is not listed; its stock is left out")
			continue
		}
		byType := map[string]pricewatch.Availability{}
		for _, e := range dc.GPUAvailability {
			h, ok := hw[e.GPUTypeID]
			if !ok {
				notes = append(notes, fmt.Sprintf("data centre %s: stock of %q, which has no price", id, e.GPUTypeID))
				continue
			}
			if e.Available == nil {
				return nil, nil, nil, fmt.Errorf("%w: data centre %s GPU type %q: no available flag", fetchers.ErrIncomplete, id, e.GPUTypeID)
			}
			a := pricewatch.Availability{Provider: pricewatch.RunPod, Region: id, InstanceType: e.GPUTypeID, State: pricewatch.SoldOut, Hardware: h}
			if e.StockStatus != nil {
				a.StockDetail = *e.StockStatus
			}
			if *e.Available {
				a.State = pricewatch.InStock
			}
			// A type listed twice counts as in stock if either entry says so.
			if prev, dup := byType[e.GPUTypeID]; !dup || prev.State != pricewatch.InStock {
				byType[e.GPUTypeID] = a
			}
		}
		ids := slices.Sorted(maps.Keys(byType))
		for _, k := range ids {
			snap.Availability = append(snap.Availability, byType[k])
		}
	}
	sort.SliceStable(snap.Offers, func(i, j int) bool { return snap.Offers[i].Key().String() < snap.Offers[j].Key().String() })
	return snap, notes, malformed, nil
}

// priceOf reads a price: null and 0 are "no price" (ok false), a negative
// or non-number one is an error.
func priceOf(n *json.Number) (decimal.Decimal, bool, error) {
	if n == nil || *n == "" {
		return decimal.Decimal{}, false, nil
	}
	// The one amount parser: it also refuses magnitudes no price has
	// (1e400 reached the snapshot and failed it as invalid; issue 21 item
	// 8, FuzzDecode).
	d, err := pricewatch.ParseAmount(n.String())
	if err != nil {
		return decimal.Decimal{}, false, err
	}
	if d.IsNegative() {
		return decimal.Decimal{}, false, fmt.Errorf("negative price %s", d)
	}
	return d, d.IsPositive(), nil
}
