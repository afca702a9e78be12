// Package digitalocean reads DigitalOcean's Droplet sizes with a personal
// access token (scope sizes:read), GET /v2/sizes?per_page=200, following
// links.pages.next to the end, and keeps the GPU Droplets: the sizes with
// gpu_info.
//
// A size is priced per Droplet (price_hourly, USD, a JSON number read
// exactly) and sold in the regions its regions[] lists while available is
// true: each such region gets an on_demand offer and an in_stock record. A
// size with available false is not for sale: no offer, and its listed
// regions are sold_out. A region the list stops naming is withdrawn there
// (the list is complete); DigitalOcean states no stock level beyond this.
package digitalocean

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	Name = pricewatch.DigitalOcean
	// DefaultEndpoint is the API host; SizesPath is appended.
	DefaultEndpoint = "https://api.digitalocean.com"
	// SizesPath lists the Droplet sizes.
	SizesPath = "/v2/sizes"
	// EnvAPIKey names the environment variable holding the token.
	EnvAPIKey = "DIGITALOCEAN_TOKEN"
	// PerPage is the most the API answers per page.
	PerPage = 200
	// Currency: DigitalOcean prices in US dollars.
	Currency = "USD"

	maxPages = 50
)

// Config is the fetcher's part of the configuration.
type Config = fetchers.KeyedConfig

// Section is providers.digitalocean.
type Section = section.Keyed

// Provider registers DigitalOcean (see package providers).
var Provider = fetchers.KeyedProvider(
	fetchers.Provider{Name: Name},
	Section{Enabled: true, Endpoint: DefaultEndpoint, Schedule: "*/15 * * * *", Timeout: 5 * time.Minute},
	key, fetchers.WithClient(New))

// key is the token: DIGITALOCEAN_TOKEN first, then the file named by
// providers.digitalocean.api_key_file; without either the provider is
// skipped.
var key = fetchers.Key{Provider: Name, What: "digitalocean token", Env: EnvAPIKey, Required: true}

// Fetcher implements fetchers.Fetcher for DigitalOcean.
type Fetcher struct {
	url    *url.URL
	key    section.Secret
	client *fetchers.Client
	log    *zap.Logger
}

// New checks cfg and returns a Fetcher sending through client. A missing
// token gives an error wrapping fetchers.ErrNoCredentials.
func New(cfg Config, client *fetchers.Client, log *zap.Logger) (*Fetcher, error) {
	if err := key.Check(cfg.APIKey); err != nil {
		return nil, err
	}
	u, log, err := fetchers.Endpoint(Name, client, log, cfg.Endpoint, DefaultEndpoint, SizesPath)
	if err != nil {
		return nil, err
	}
	return &Fetcher{url: u, key: cfg.APIKey, client: client, log: log}, nil
}

// Provider returns Name.
func (f *Fetcher) Provider() string { return Name }

// page is one page of the size list.
type page struct {
	Sizes *[]json.RawMessage `json:"sizes"`
	Links *struct {
		Pages *struct {
			Next string `json:"next"`
		} `json:"pages"`
	} `json:"links"`
	Meta *struct {
		Total *int `json:"total"`
	} `json:"meta"`
}

// Fetch reads every page of sizes and returns the GPU Droplets.
func (f *Fetcher) Fetch(ctx context.Context, _ fetchers.Previous) (*pricewatch.Snapshot, error) {
	rows, err := f.sizes(ctx)
	if err != nil {
		return nil, err
	}
	snap := &pricewatch.Snapshot{Provider: Name, SourceVersion: "v2/sizes",
		// One list names every size in every region it is sold in.
		Coverage: []pricewatch.Scope{{Region: pricewatch.AllRegions, Availability: true}}}
	malformed, skipped := map[string]string{}, 0
	seen := map[string]bool{}
	for i, raw := range rows {
		s, err := check(raw)
		if err == nil && s.slug != "" && seen[s.slug] {
			err = errors.New("listed twice")
		}
		switch {
		case err != nil:
			name := s.slug
			if name == "" {
				name = "row " + strconv.Itoa(i)
			}
			malformed[name] = err.Error()
		case s.hw.GPUCount == 0:
			skipped++
		default:
			seen[s.slug] = true
			s.add(snap)
		}
	}
	// A size sold out everywhere has no offer but is believed.
	return fetchers.Listed{Provider: Name, Where: SizesPath, Entries: "sizes", Key: "sizes", Read: len(rows), Malformed: malformed,
		Want: "one GPU Droplet", AvailabilityOnly: true, Fields: []zap.Field{zap.Int("cpu_sizes", skipped)}}.Finish(f.log, snap)
}

// sizes reads every page, following links.pages.next only on the
// endpoint's origin; meta.total must match what was read.
func (f *Fetcher) sizes(ctx context.Context) ([]json.RawMessage, error) {
	first := *f.url
	first.RawQuery = url.Values{"per_page": {strconv.Itoa(PerPage)}, "page": {"1"}}.Encode()
	var out []json.RawMessage
	var total *int
	n := 0
	err := fetchers.TokenPages("digitalocean "+SizesPath, maxPages, func(next string) (string, error) {
		n++
		u := first.String()
		if next != "" {
			link, err := url.Parse(next)
			if err != nil {
				return "", fmt.Errorf("%w: digitalocean %s: links.pages.next is not a URL", fetchers.ErrIncomplete, SizesPath)
			}
			if err := fetchers.CheckOrigin(f.url, link, "links.pages.next"); err != nil {
				return "", err
			}
			u = link.String()
		}
		where := fmt.Sprintf("digitalocean %s page %d", SizesPath, n)
		var p page
		if err := f.client.ReadJSON(ctx, fetchers.Request{Method: http.MethodGet, URL: u, Bearer: f.key, Where: where,
			Answer: "the size list", Refused: "the token was refused (" + key.Help() + ")"}, &p); err != nil {
			return "", err
		}
		if p.Sizes == nil {
			return "", fmt.Errorf("%w: %s: no sizes array", fetchers.ErrIncomplete, where)
		}
		out = append(out, *p.Sizes...)
		if p.Meta != nil {
			total = p.Meta.Total
		}
		if p.Links == nil || p.Links.Pages == nil {
			return "", nil
		}
		return p.Links.Pages.Next, nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		// DigitalOcean always sells sizes: an empty list is a fault.
		return nil, fmt.Errorf("%w: digitalocean %s: the size list is empty", fetchers.ErrIncomplete, SizesPath)
	}
	if total != nil && *total != len(out) {
		return nil, fmt.Errorf("%w: digitalocean %s: %d sizes read, meta.total says %d", fetchers.ErrIncomplete, SizesPath, len(out), *total)
	}
	return out, nil
}

// size is the part of a size read.
type size struct {
	Slug        string       `json:"slug"`
	Memory      float64      `json:"memory"`
	VCPUs       int          `json:"vcpus"`
	PriceHourly *json.Number `json:"price_hourly"`
	Regions     *[]string    `json:"regions"`
	Available   *bool        `json:"available"`
	GPUInfo     *struct {
		Count int `json:"count"`
		VRAM  *struct {
			Amount float64 `json:"amount"`
			Unit   string  `json:"unit"`
		} `json:"vram"`
		Model string `json:"model"`
	} `json:"gpu_info"`
	DiskInfo []struct {
		Type string `json:"type"`
		Size struct {
			Amount float64 `json:"amount"`
			Unit   string  `json:"unit"`
		} `json:"size"`
	} `json:"disk_info"`
}

// gpuSize is one checked size (GPUCount 0: not a GPU Droplet).
type gpuSize struct {
	slug      string
	price     decimal.Decimal
	available bool
	regions   []string
	hw        pricewatch.Hardware
}

func check(raw json.RawMessage) (gpuSize, error) {
	var s size
	if err := fetchers.DecodeWhole(raw, "a size", &s); err != nil {
		return gpuSize{}, err
	}
	g := gpuSize{slug: strings.TrimSpace(s.Slug)}
	switch {
	case g.slug == "":
		return g, errors.New("no slug")
	case s.GPUInfo == nil:
		return g, nil // a CPU size
	case s.GPUInfo.Count <= 0 || strings.TrimSpace(s.GPUInfo.Model) == "":
		return g, errors.New("gpu_info without count or model")
	case s.PriceHourly == nil || s.Available == nil || s.Regions == nil:
		return g, errors.New("no price_hourly, available or regions")
	}
	price, err := decimal.NewFromString(s.PriceHourly.String())
	if err != nil || !price.IsPositive() {
		return g, fmt.Errorf("price_hourly %q: want a positive number of dollars", s.PriceHourly.String())
	}
	g.price, g.available = price, *s.Available
	g.regions, err = fetchers.Distinct(*s.Regions, strings.TrimSpace, func(i int, r string) error {
		if r == "" || strings.ContainsAny(r, " /?#%") {
			return fmt.Errorf("region %q", (*s.Regions)[i])
		}
		return nil
	})
	if err != nil {
		return g, err
	}
	slices.Sort(g.regions)
	n := s.GPUInfo.Count
	var mem float64
	// vram is the Droplet's total ("640 gib" for 8 × H100).
	if v := s.GPUInfo.VRAM; v != nil && strings.EqualFold(v.Unit, "gib") && v.Amount > 0 {
		mem = v.Amount / float64(n)
	}
	id := gpu.Resolve(modelName(s.GPUInfo.Model), gpu.Hint{MemoryGB: mem})
	g.hw = pricewatch.Hardware{GPUModel: id.Name(), GPUCount: float64(n), GPUMemoryGB: mem, VCPUs: s.VCPUs, MemoryGB: s.Memory / 1024,
		LocalStorage: storage(s)}
	return g, nil
}

// rtxNumber is the "rtx6000" of "nvidia_rtx6000_ada".
var rtxNumber = regexp.MustCompile(`(?i)\brtx(\d)`)

// modelName is gpu_info.model as words: "nvidia_h100", "amd_mi300x",
// "nvidia_rtx6000_ada" (the RTX 6000 Ada, whose number the resolver reads
// apart from "RTX").
func modelName(m string) string {
	return rtxNumber.ReplaceAllString(strings.ReplaceAll(m, "_", " "), "rtx $1")
}

// storage is disk_info in the answer's words ("2046 gib local, 40960 gib
// scratch").
func storage(s size) string {
	var parts []string
	for _, d := range s.DiskInfo {
		if d.Size.Amount > 0 && d.Type != "" {
			parts = append(parts, fmt.Sprintf("%s %s %s", strconv.FormatFloat(d.Size.Amount, 'f', -1, 64), d.Size.Unit, d.Type))
		}
	}
	return strings.Join(parts, ", ")
}

// add puts the size's offers and availability into snap.
func (g gpuSize) add(snap *pricewatch.Snapshot) {
	for _, r := range g.regions {
		a := pricewatch.Availability{Provider: Name, Region: r, InstanceType: g.slug, State: pricewatch.SoldOut,
			StockDetail: "available: false", Hardware: g.hw}
		if g.available {
			a.State, a.StockDetail = pricewatch.InStock, "available for new Droplets"
			snap.Offers = append(snap.Offers, pricewatch.Offer{Provider: Name, Region: r, InstanceType: g.slug, PriceType: pricewatch.OnDemand,
				OS: pricewatch.Linux, Currency: Currency, Hourly: g.price, Hardware: g.hw})
		}
		snap.Availability = append(snap.Availability, a)
	}
}
