// Package gcp reads Google Cloud's Compute Engine prices from the Cloud
// Billing Catalog API (GET /v1/services/6F81-5844-456A/skus, every page
// of it, with an API key) and prices its GPU machine types.
//
// The catalogue has no SKU per machine type: it prices a machine's parts,
// a family's vCPU-hour ("A3 Instance Core running in Americas"), GiB-hour
// of RAM and GPU-hour, each per consumption model (OnDemand, Preemptible
// = spot, Commit1Yr/Commit3Yr committed use, the Dynamic Workload
// Scheduler's flex-start and calendar mode) and listed for the regions in
// its serviceRegions. A machine type's price is its vCPUs × core + its
// memory × RAM + its GPUs × GPU, of one region and model, from the table
// of shapes in machines.go; a type whose parts are not all listed there,
// or that Google does not sell in that model (A3 High under 8 GPUs is
// spot and flex-start only), is not priced (never invented). On-demand and spot are stored as such,
// committed use as reserved 1y/3y with no upfront payment (committed use
// is billed monthly), flex-start and calendar mode as on_demand with
// offering class flex_start / calendar_mode. Units come from each SKU's
// pricingExpression (never assumed hourly); the list price is the tier
// starting at 0. A SKU that cannot be read is counted and left out.
package gcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
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
	// Name is the provider's key (providers.gcp, the provider column).
	Name = pricewatch.GCP
	// DefaultEndpoint is the Cloud Billing API; SKUPath is appended.
	DefaultEndpoint = "https://cloudbilling.googleapis.com"
	// ServiceID is Compute Engine's id in the catalogue.
	ServiceID = "6F81-5844-456A"
	// SKUPath lists Compute Engine's SKUs.
	SKUPath = "/v1/services/" + ServiceID + "/skus"
	// EnvAPIKey names the environment variable holding the API key.
	EnvAPIKey = "GOOGLE_API_KEY"
	// KeyHeader is where the key is sent. Google's APIs take it as the
	// key= query parameter or this header ("Use API keys to access APIs",
	// https://cloud.google.com/docs/authentication/api-keys-use): the
	// header keeps it out of every URL an error or log line prints.
	KeyHeader = "X-goog-api-key"

	// PageSize is the largest page the API serves (its default too).
	PageSize = 5000
	// maxPages bounds a run: Compute Engine lists a few tens of thousands
	// of SKUs, under twenty pages of 5,000.
	maxPages = 200
	// maxBodyBytes bounds one page: 5,000 SKUs take about 10 MB.
	maxBodyBytes = 64 << 20
	bodyTimeout  = 2 * time.Minute
)

// Config is what New needs.
type Config = fetchers.KeyedConfig

// Provider registers GCP (see package providers): the keys of a keyed
// API (section.Keyed), built with the program's clock, which decides
// which of a SKU's prices is in effect.
var Provider = fetchers.KeyedProvider(fetchers.Provider{Name: Name},
	// List prices move rarely; a run reads every page of the catalogue.
	section.Keyed{Enabled: true, Endpoint: DefaultEndpoint, Schedule: "20 */6 * * *", Timeout: 15 * time.Minute},
	apiKey, func(cfg Config, env fetchers.Env) (*Fetcher, error) { return New(cfg, env.Client, env.Log, env.Now) })

// apiKey is the key: GOOGLE_API_KEY first, then the file named by
// providers.gcp.api_key_file. With neither the error wraps
// fetchers.ErrNoCredentials, so the provider is skipped, not failed.
var apiKey = fetchers.Key{Provider: Name, What: "gcp API key", Env: EnvAPIKey, Required: true,
	Note: "a Google Cloud API key; the Catalog API needs no other permission"}

// keyHelp is what a refused key's error says to check.
var keyHelp = apiKey.Help()

// Fetcher implements fetchers.Fetcher for GCP.
type Fetcher struct {
	base   *url.URL
	key    section.Secret
	client *fetchers.Client
	log    *zap.Logger
	now    func() time.Time
}

var _ fetchers.Fetcher = (*Fetcher)(nil)

// New checks cfg and returns a Fetcher sending through client; now is
// the clock deciding which prices are in effect (nil: time.Now). A
// missing key gives an error wrapping fetchers.ErrNoCredentials.
func New(cfg Config, client *fetchers.Client, log *zap.Logger, now func() time.Time) (*Fetcher, error) {
	if client != nil {
		if err := apiKey.Check(cfg.APIKey); err != nil {
			return nil, err
		}
	}
	u, log, err := fetchers.Endpoint(Name, client, log, cfg.Endpoint, DefaultEndpoint, SKUPath)
	if err != nil {
		return nil, err
	}
	if u.RawQuery != "" || u.User != nil {
		return nil, fmt.Errorf("%s: providers.%s.endpoint: want a base URL without query or user info", Name, Name)
	}
	if now == nil {
		now = time.Now
	}
	return &Fetcher{base: u, key: cfg.APIKey, client: client, log: log, now: now}, nil
}

// Provider returns Name.
func (f *Fetcher) Provider() string { return Name }

// page is one answer of services.skus.list. SKUs are decoded one by one
// (see Fetch) so that one odd SKU does not fail the page.
type page struct {
	SKUs          *[]json.RawMessage `json:"skus"`
	NextPageToken string             `json:"nextPageToken"`
}

// apiError is Google's error envelope.
type apiError struct {
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status"`
		Details []struct {
			Reason string `json:"reason"`
		} `json:"details"`
	} `json:"error"`
}

// Fetch reads every page of the catalogue and returns the GPU machine
// types' prices, or an error if any page was not read whole.
func (f *Fetcher) Fetch(ctx context.Context, _ fetchers.Previous) (*pricewatch.Snapshot, error) {
	idx := newIndex()
	pages, total := 0, 0
	err := fetchers.TokenPages("gcp "+SKUPath, maxPages, func(token string) (string, error) {
		pages++
		p, err := f.page(ctx, token, pages)
		if err != nil {
			return "", err
		}
		total += len(*p.SKUs)
		for _, raw := range *p.SKUs {
			idx.add(raw, f.now())
		}
		return p.NextPageToken, nil
	})
	if err != nil {
		return nil, err
	}
	snap := idx.build()
	if len(snap.Offers) == 0 {
		return nil, fmt.Errorf("%w: gcp %s: %d SKUs on %d pages but not one GPU machine type priced: not believed", fetchers.ErrIncomplete, SKUPath, total, pages)
	}
	snap.SourceVersion = fmt.Sprintf("services/%s/skus (%d SKUs, %d pages)", ServiceID, total, pages)
	return fetchers.Done(f.log, "gcp", snap, "gcp catalogue fetched", zap.Int("pages", pages), zap.Int("skus", total), zap.Int("parts", idx.parts()),
		zap.Int("offers", len(snap.Offers)), zap.Int("regions", len(snap.Coverage)), zap.Any("skipped", idx.skipped))
}

// page reads one page. The next page is the same URL with pageToken set:
// every request goes to the configured origin, whatever an answer says.
func (f *Fetcher) page(ctx context.Context, token string, n int) (page, error) {
	u := *f.base
	q := url.Values{"pageSize": {fmt.Sprint(PageSize)}}
	if token != "" {
		q.Set("pageToken", token)
	}
	u.RawQuery = q.Encode()
	where := fmt.Sprintf("gcp %s page %d", SKUPath, n)
	var p page
	// keyRefused passes any error but a refusal through as it is.
	if err := f.client.ReadJSON(ctx, fetchers.Request{Method: http.MethodGet, URL: u.String(), KeyHeader: KeyHeader, Key: f.key,
		Where: where, Answer: "a SKU page", Refused: "the API key was refused (" + keyHelp + ")",
		Limit: maxBodyBytes, Timeout: bodyTimeout}, &p); err != nil {
		return page{}, keyRefused(where, err, f.key)
	}
	if p.SKUs == nil {
		// An empty service answers {} (proto3 JSON leaves an empty list
		// out); Compute Engine never is: a page without skus is not one.
		return page{}, fmt.Errorf("%w: %s: no skus list", fetchers.ErrIncomplete, where)
	}
	return p, nil
}

// keyRefused turns Google's answer to a bad key (HTTP 400 with reason
// API_KEY_INVALID, or 403 when the key may not call the API) into one
// clear error wrapping fetchers.ErrAuth. The key is never in it: it
// travelled in a header, URLs are printed without their query, and an
// answer that echoes it has it cut out here too (the program's redactor
// does so again).
func keyRefused(where string, err error, key section.Secret) error {
	var se *fetchers.StatusError
	if !errors.As(err, &se) {
		return err
	}
	var e apiError
	_ = json.Unmarshal([]byte(se.Body), &e) // a cut-off body leaves e empty
	reason := ""
	if e.Error != nil {
		for _, d := range e.Error.Details {
			if d.Reason != "" {
				reason = d.Reason
			}
		}
	}
	switch {
	case reason == "API_KEY_INVALID" || (reason == "" && strings.Contains(se.Body, "API_KEY_INVALID")):
		return fmt.Errorf("%s: %w: Google says the API key is not valid (API_KEY_INVALID); %s", where, fetchers.ErrAuth, keyHelp)
	case se.Status == http.StatusForbidden || se.Status == http.StatusUnauthorized:
		msg := "HTTP " + fmt.Sprint(se.Status)
		if e.Error != nil && e.Error.Message != "" {
			msg = e.Error.Status + ": " + e.Error.Message
			if reason != "" {
				msg += " (" + reason + ")"
			}
		}
		if !key.Empty() {
			msg = strings.ReplaceAll(msg, key.Value(), "[redacted]")
		}
		return fmt.Errorf("%s: %w: the API key may not read the Cloud Billing API (%s); enable the API for the key's project or %s", where, fetchers.ErrAuth, msg, keyHelp)
	}
	return err
}

// priced is one part's price in one region and model, per vCPU-, GPU- or
// slice-hour or per GiB-hour.
type priced struct {
	hourly   decimal.Decimal
	currency string
	sku      string
}

type slot struct {
	p      part
	m      mode
	region string
}

// index keeps, while the pages stream by, only the SKUs some machine is
// priced from.
type index struct {
	want    map[part]bool
	prices  map[slot]priced
	bad     map[slot]bool // priced twice differently: prices nothing
	regions map[string]bool
	skipped map[string]int
}

func newIndex() *index {
	return &index{want: wanted(), prices: map[slot]priced{}, bad: map[slot]bool{}, regions: map[string]bool{}, skipped: map[string]int{}}
}

func (x *index) parts() int { return len(x.prices) }

// add reads one SKU; what cannot be read or prices no machine is counted.
func (x *index) add(raw json.RawMessage, now time.Time) {
	var s sku
	if err := json.Unmarshal(raw, &s); err != nil || s.Category == nil {
		x.skipped[skipUndecodable]++
		return
	}
	if s.Category.ResourceFamily != "Compute" {
		x.skipped[skipNotCompute]++
		return
	}
	m, body, why := classify(s.Category.UsageType, s.Description)
	if why != "" {
		x.skipped[why]++
		return
	}
	p, ok := partOf(s.Category.ResourceGroup, body)
	if !ok {
		x.skipped[skipNotPart]++
		return
	}
	if !x.want[p] {
		x.skipped[skipUnknownPart]++
		return
	}
	e, price, v, err := listPrice(s.PricingInfo, now)
	if err != nil || !pricewatch.IsCurrencyCode(price.CurrencyCode) {
		x.skipped[skipBadPrice]++
		return
	}
	h, err := perHour(e, v, p.kind == partRAM)
	if err != nil {
		x.skipped[skipBadPrice]++
		return
	}
	if !h.IsPositive() {
		x.skipped[skipZero]++
		return
	}
	if len(s.ServiceRegions) == 0 {
		x.skipped[skipNoRegion]++
		return
	}
	for _, r := range s.ServiceRegions {
		if !pricewatch.IsRegionCode(r) {
			continue
		}
		k := slot{p: p, m: m, region: r}
		if old, dup := x.prices[k]; dup && (!old.hourly.Equal(h) || old.currency != price.CurrencyCode) {
			x.bad[k] = true
			x.skipped[skipDuplicate]++
			continue
		}
		x.prices[k] = priced{hourly: h, currency: price.CurrencyCode, sku: s.SkuID}
	}
}

// get is a part's price, unless it is missing or ambiguous.
func (x *index) get(p part, m mode, region string) (priced, bool) {
	k := slot{p: p, m: m, region: region}
	if x.bad[k] {
		return priced{}, false
	}
	v, ok := x.prices[k]
	return v, ok
}

func lower(s string) string { return strings.ToLower(s) }

// gpuPart is the machine's GPU part in region and m: the first of its
// names listed.
func (x *index) gpuPart(mc machine, m mode, region string) (priced, bool) {
	for _, n := range mc.GPUSKUs {
		k := slot{p: part{kind: partGPU, name: n}, m: m, region: region}
		if x.bad[k] {
			return priced{}, false
		}
		if v, ok := x.prices[k]; ok {
			return v, true
		}
	}
	return priced{}, false
}

// build prices every machine in every region where its GPU is listed.
// Coverage is every region a wanted GPU part is listed in: a machine type
// that loses its price there is withdrawn, one in a region the catalogue
// no longer names is left as it was.
func (x *index) build() *pricewatch.Snapshot {
	snap := &pricewatch.Snapshot{Provider: Name}
	regions := map[string]bool{}
	for k := range x.prices {
		if k.p.kind == partGPU {
			regions[k.region] = true
		}
	}
	names := make([]string, 0, len(regions))
	for r := range regions {
		names = append(names, r)
	}
	sort.Strings(names)
	for _, region := range names {
		snap.Coverage = append(snap.Coverage, pricewatch.Scope{Region: region})
		for _, mc := range machines {
			for _, m := range modes {
				if o, ok := x.offer(mc, m, region); ok {
					snap.Offers = append(snap.Offers, o)
				}
			}
		}
	}
	return snap
}

// offer adds up one machine's parts; ok is false when one is missing,
// ambiguous or in another currency.
func (x *index) offer(mc machine, m mode, region string) (pricewatch.Offer, bool) {
	if !mc.sells(m) {
		return pricewatch.Offer{}, false
	}
	g, ok := x.gpuPart(mc, m, region)
	if !ok {
		return pricewatch.Offer{}, false
	}
	total := g.hourly.Mul(decimal.NewFromInt(int64(mc.GPUs)))
	skus := []string{g.sku}
	if mc.Family != "" {
		fam := lower(mc.Family)
		core, ok1 := x.get(part{kind: partCore, name: fam}, m, region)
		ram, ok2 := x.get(part{kind: partRAM, name: fam}, m, region)
		if !ok1 || !ok2 || core.currency != g.currency || ram.currency != g.currency {
			return pricewatch.Offer{}, false
		}
		total = total.Add(core.hourly.Mul(decimal.NewFromInt(int64(mc.VCPUs)))).Add(ram.hourly.Mul(decimal.NewFromInt(int64(mc.MemoryGiB))))
		skus = append(skus, core.sku, ram.sku)
	}
	id := mc.gpu()
	o := pricewatch.Offer{Provider: Name, Region: region, InstanceType: mc.Name, PriceType: m.pt, Term: m.term, OfferingClass: m.class,
		OS: pricewatch.Linux, Currency: g.currency, Hourly: total,
		Hardware: pricewatch.Hardware{GPUModel: id.Name(), GPUCount: float64(mc.GPUs), GPUMemoryGB: mc.GPUMemoryGB, VCPUs: mc.VCPUs, MemoryGB: float64(mc.MemoryGiB),
			LocalStorage: mc.LocalSSD},
		// The SKUs summed, GPU first: what a bill's lines name.
		CloudIDs: pricewatch.CloudIDs{SkuID: strings.Join(skus, "+")}}
	if m.pt == pricewatch.Reserved {
		// Committed use is billed every month of the term, nothing upfront.
		o.Payment = pricewatch.NoUpfront
	}
	if o.Hourly.Exponent() < -(pricewatch.RateDecimals + 4) {
		o.Hourly = o.Hourly.Round(pricewatch.RateDecimals + 4)
	}
	return o, true
}
