package runpod

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
)

// RESTPath is RunPod's REST catalogue of GPU types (API v2), asked with
// each type's stock for pods: include=AVAILABILITY needs product, and a
// GPU can be scarce for pods and plentiful for serverless
// (api-samples/runpod-rest, RunPod's OpenAPI document).
const RESTPath = "/v2/catalog/gpus"

var restSpec = fetchers.KeyedSpec{Provider: pricewatch.RunPod, DefaultEndpoint: DefaultEndpoint, Path: RESTPath + "?include=AVAILABILITY&product=POD",
	KeyHelp: "check " + EnvAPIKey + " or providers.runpod.api_key_file", Answer: "the GPU catalogue",
	MaxBody: maxBodyBytes}

// RESTFetcher reads the REST catalogue, which needs the API key. RunPod's
// documentation steers users from GraphQL to it; it has no spot price, so
// a run covers on-demand prices and stock only, and spot prices stored by
// GraphQL runs stay as they were.
type RESTFetcher struct {
	api fetchers.KeyedAPI
}

// NewREST checks cfg; without a key the provider is skipped
// (fetchers.ErrNoCredentials).
func NewREST(cfg Config, client *fetchers.Client, log *zap.Logger) (*RESTFetcher, error) {
	if cfg.APIKey.Empty() {
		return nil, fmt.Errorf("%w: providers.runpod.api: rest needs a key: set %s or providers.runpod.api_key_file", fetchers.ErrNoCredentials, EnvAPIKey)
	}
	a, err := fetchers.NewKeyedAPI(restSpec, cfg, client, log)
	if err != nil {
		return nil, err
	}
	return &RESTFetcher{api: a}, nil
}

// Provider returns pricewatch.RunPod.
func (f *RESTFetcher) Provider() string { return pricewatch.RunPod }

// restAnswer is GET /v2/catalog/gpus (ListGpuTypesResponse). Prices are
// USD per hour for one GPU; availability is NONE, LOW, MEDIUM or HIGH.
type restAnswer struct {
	GPUs *[]restGPU `json:"gpus"`
}

type restGPU struct {
	ID        string  `json:"id"`
	Name      string  `json:"name"`
	Memory    float64 `json:"memory"`
	Secure    bool    `json:"secure"`
	Community bool    `json:"community"`
	Price     *struct {
		Secure    *json.Number `json:"secure"`
		Community *json.Number `json:"community"`
	} `json:"price"`
	Availability *string `json:"availability"`
	DataCenters  []struct {
		ID           string `json:"id"`
		Availability string `json:"availability"`
	} `json:"dataCenters"`
}

// level maps an AvailabilityLevel: NONE is sold out, the others in stock
// (the level kept as detail); anything else does not read.
func level(v string) (pricewatch.AvailabilityState, bool) {
	switch v {
	case "NONE":
		return pricewatch.SoldOut, true
	case "LOW", "MEDIUM", "HIGH":
		return pricewatch.InStock, true
	}
	return "", false
}

// Fetch reads the catalogue whole: on-demand prices per cloud (secure,
// community) in the pseudo-region "global", as the GraphQL path stores
// them, the overall stock beside them and the stock per data centre.
func (f *RESTFetcher) Fetch(ctx context.Context, _ fetchers.Previous) (*pricewatch.Snapshot, error) {
	body, err := f.api.Do(ctx, http.MethodGet, nil)
	if err != nil {
		return nil, err
	}
	var a restAnswer
	if err := fetchers.DecodeWhole(body, "the GPU catalogue", &a); err != nil {
		return nil, fmt.Errorf("runpod %s: %w", RESTPath, err)
	}
	if a.GPUs == nil || len(*a.GPUs) == 0 {
		// RunPod always lists its GPU types: none is a fault upstream.
		return nil, fmt.Errorf("runpod %s: %w: no gpus", RESTPath, fetchers.ErrIncomplete)
	}
	snap := &pricewatch.Snapshot{Provider: pricewatch.RunPod, SourceVersion: "rest v2 catalog/gpus"}
	var odd []string
	availabilityComplete := true
	seen := map[string]bool{}
	for _, g := range *a.GPUs {
		id := strings.TrimSpace(g.ID)
		if id == "" || seen[id] || g.Price == nil {
			odd = append(odd, fmt.Sprintf("GPU %q: no id, listed twice, or no price", g.ID))
			availabilityComplete = false
			continue
		}
		seen[id] = true
		h := pricewatch.Hardware{GPUModel: gpuModel(id, g.Name, g.Memory), GPUCount: 1, GPUMemoryGB: g.Memory}
		var offers []pricewatch.Offer
		bad := false
		for _, p := range []struct {
			offered bool
			class   string
			price   *json.Number
		}{{g.Secure, Secure, g.Price.Secure}, {g.Community, Community, g.Price.Community}} {
			price, ok, err := priceOf(p.price)
			if err != nil {
				odd = append(odd, fmt.Sprintf("GPU %q price.%s: %v", id, p.class, err))
				bad = true
				break
			}
			if ok && p.offered {
				offers = append(offers, pricewatch.Offer{Provider: pricewatch.RunPod, Region: Region, InstanceType: id, PriceType: pricewatch.OnDemand,
					OfferingClass: p.class, OS: pricewatch.Linux, Currency: "USD", Hourly: price, Hardware: h})
			}
		}
		if bad || len(offers) == 0 {
			availabilityComplete = availabilityComplete && !bad
			continue
		}
		snap.Offers = append(snap.Offers, offers...)
		if g.Availability == nil {
			odd = append(odd, fmt.Sprintf("GPU %q: no availability", id))
			availabilityComplete = false
			continue
		}
		state, ok := level(*g.Availability)
		if !ok {
			odd = append(odd, fmt.Sprintf("GPU %q: availability %q", id, *g.Availability))
			availabilityComplete = false
			continue
		}
		snap.Availability = append(snap.Availability, pricewatch.Availability{Provider: pricewatch.RunPod, Region: Region, InstanceType: id,
			State: state, StockDetail: *g.Availability, Hardware: h})
		for _, dc := range g.DataCenters {
			st, ok := level(dc.Availability)
			if !ok || !pricewatch.IsRegionCode(dc.ID) || dc.ID == Region {
				odd = append(odd, fmt.Sprintf("GPU %q data centre %q: availability %q", id, dc.ID, dc.Availability))
				availabilityComplete = false
				continue
			}
			snap.Availability = append(snap.Availability, pricewatch.Availability{Provider: pricewatch.RunPod, Region: dc.ID, InstanceType: id,
				State: st, StockDetail: dc.Availability, Hardware: h})
		}
	}
	if len(snap.Offers) == 0 {
		return nil, fmt.Errorf("runpod %s: %w: %d GPU types but not one price: not believed", RESTPath, fetchers.ErrIncomplete, len(*a.GPUs))
	}
	if len(odd) > 0 {
		// One odd GPU type never fails the run: the others are stored.
		f.api.Log.Warn("runpod GPU types malformed; left out, the others are stored", zap.Int("malformed", len(odd)), zap.Strings("why", odd))
	}
	// No spot price in the catalogue: spot stays outside the scope. A
	// data centre the catalogue leaves out of a type's list no longer
	// offers it (the spec: listed are those that offer it).
	snap.Coverage = []pricewatch.Scope{{Region: pricewatch.AllRegions, PriceTypes: []pricewatch.PriceType{pricewatch.OnDemand}, Availability: availabilityComplete}}
	sort.SliceStable(snap.Offers, func(i, j int) bool { return snap.Offers[i].Key().String() < snap.Offers[j].Key().String() })
	if err := snap.Validate(); err != nil {
		return nil, fmt.Errorf("runpod: built an invalid snapshot: %w", err)
	}
	return snap, nil
}
