// Package oci reads Oracle Cloud Infrastructure's public price list
// (GET /pls/apex/cetools/api/v1/products/?currencyCode=USD, no key) and
// turns its per-GPU-hour rows into GPU shape prices.
//
// GPU compute is billed per GPU: the "Compute - GPU" rows metered
// "GPU Per Hour". A shape's price is that value × its GPU count (table in
// shapes.go). The list price is the same in every commercial region and OCI
// publishes no per-region availability without an account, so every price
// is stored once, under the region "global", as on-demand. Rows that carry
// the same GPU names but are not compute prices are left out: the NVIDIA AI
// Enterprise licence, Cloud@Customer and VMware rows, Roving Edge devices
// and per-day possession fees.
package oci

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

// DefaultEndpoint is the host of Oracle's price list API; ProductsPath is
// appended.
const DefaultEndpoint = "https://apexapps.oracle.com"

// ProductsPath is the price list's product listing.
const ProductsPath = "/pls/apex/cetools/api/v1/products/"

// Region is where every OCI price is stored: one list price for all
// regions, not a claim that a shape is offered in any particular one.
const Region = "global"

const (
	currency       = "USD"
	serviceGPU     = "Compute - GPU"
	metricGPUHour  = "GPU Per Hour"
	payAsYouGo     = "PAY_AS_YOU_GO"
	maxPages       = 20 // the whole list is one page today; APEX pages by 'links'
	maxPageBytes   = 64 << 20
	pageTimeout    = 2 * time.Minute
	licenceMarker  = "nvidia ai enterprise"
	customerMarker = "cloud@customer"
)

// Config is the fetcher's part of the configuration (providers.oci.*).
type Config struct {
	// Endpoint is the base URL (scheme and host); empty means DefaultEndpoint.
	Endpoint string
}

// Section is providers.oci: Oracle's public price list (no key).
type Section struct {
	section.Common `yaml:",inline"`
}

// Validate: the shared checks cover every key.
func (*Section) Validate(section.Checker) error { return nil }

// Provider registers Oracle Cloud (see package providers).
var Provider = fetchers.Provider{
	Name: pricewatch.OCI,
	Facts: section.Facts{NeedsEndpoint: true,
		RegionsUnused: "OCI's list price is the same in every region and is stored once, under region global"},
	Section: func() section.Section {
		return &Section{Common: section.Common{Enabled: true, Endpoint: DefaultEndpoint, Schedule: "35 */6 * * *", Timeout: 10 * time.Minute}}
	},
	Build: fetchers.Builder(func(s *Section, env fetchers.Env) (fetchers.Fetcher, error) {
		return New(Config{Endpoint: s.Endpoint}, env.Client, env.Log)
	}),
}

// Fetcher implements fetchers.Fetcher for OCI.
type Fetcher struct {
	base   *url.URL
	client *fetchers.Client
	log    *zap.Logger
}

var _ fetchers.Fetcher = (*Fetcher)(nil)

// New checks cfg and returns a Fetcher sending through client.
func New(cfg Config, client *fetchers.Client, log *zap.Logger) (*Fetcher, error) {
	u, log, err := fetchers.Endpoint(pricewatch.OCI, client, log, cfg.Endpoint, DefaultEndpoint, ProductsPath)
	if err != nil {
		return nil, err
	}
	u.RawQuery = "currencyCode=" + currency
	return &Fetcher{base: u, client: client, log: log}, nil
}

// Provider returns pricewatch.OCI.
func (f *Fetcher) Provider() string { return pricewatch.OCI }

type listPage struct {
	LastUpdated string  `json:"lastUpdated"`
	Items       *[]item `json:"items"`
	HasMore     *bool   `json:"hasMore"`
	Links       []struct {
		Rel  string `json:"rel"`
		Href string `json:"href"`
	} `json:"links"`
}

type item struct {
	PartNumber      string `json:"partNumber"`
	DisplayName     string `json:"displayName"`
	MetricName      string `json:"metricName"`
	ServiceCategory string `json:"serviceCategory"`
	Localizations   []struct {
		CurrencyCode string `json:"currencyCode"`
		Prices       []struct {
			Model string           `json:"model"`
			Value *decimal.Decimal `json:"value"`
		} `json:"prices"`
	} `json:"currencyCodeLocalizations"`
}

// Reasons a row is left out, counted in the log.
const (
	skipNotGPUCompute = "not Compute - GPU"
	skipNotPerGPUHour = "not billed per GPU-hour"
	skipLicence       = "NVIDIA AI Enterprise licence"
	skipCustomer      = "Cloud@Customer"
	skipUnknownPart   = "GPU part without a known shape"
	skipMalformed     = "price unreadable"
	skipNoPrice       = "no USD pay-as-you-go price"
)

// classify says why a row is not a GPU compute price, or "" if it is one.
func classify(it item) string {
	name := strings.ToLower(strings.Join(strings.Fields(it.DisplayName), " "))
	switch {
	case strings.TrimSpace(it.ServiceCategory) != serviceGPU:
		// VMware, Cloud@Customer, Roving Edge and "Compute - GPU - Other".
		return skipNotGPUCompute
	case strings.TrimSpace(it.MetricName) != metricGPUHour:
		// Node Per Hour (VMware), Resource Possession Per Day.
		return skipNotPerGPUHour
	case strings.Contains(name, licenceMarker):
		// Same category and metric as the rental, but it is the software
		// licence charged on top.
		return skipLicence
	case strings.Contains(name, customerMarker):
		return skipCustomer
	}
	if _, ok := parts[strings.TrimSpace(it.PartNumber)]; !ok {
		return skipUnknownPart
	}
	return ""
}

// Fetch reads the price list to its last page and returns the GPU shape
// prices, or an error if any page was not read in full.
func (f *Fetcher) Fetch(ctx context.Context, _ fetchers.Previous) (*pricewatch.Snapshot, error) {
	var items []item
	next := f.base
	seen := map[string]bool{}
	lastUpdated := ""
	for pageNo := 1; next != nil; pageNo++ {
		if pageNo > maxPages {
			return nil, fmt.Errorf("%w: oci: more than %d pages; refusing to follow further", fetchers.ErrIncomplete, maxPages)
		}
		if seen[next.String()] {
			return nil, fmt.Errorf("%w: oci page %d: the next link repeats an earlier page", fetchers.ErrIncomplete, pageNo)
		}
		seen[next.String()] = true
		p, err := f.getPage(ctx, next, pageNo)
		if err != nil {
			return nil, err
		}
		if lastUpdated == "" {
			lastUpdated = p.LastUpdated
		}
		items = append(items, *p.Items...)
		if next, err = nextPage(next, p); err != nil {
			return nil, fmt.Errorf("%w: oci page %d: %w", fetchers.ErrIncomplete, pageNo, err)
		}
	}

	best := map[pricewatch.OfferKey]pricewatch.Offer{}
	skipped := map[string]int{}
	for _, it := range items {
		if why := classify(it); why != "" {
			skipped[why]++
			if why == skipUnknownPart {
				f.log.Info("oci GPU part not in the shape table; left out (add it to fetchers/oci/shapes.go)",
					zap.String("partNumber", it.PartNumber), zap.String("displayName", it.DisplayName))
			}
			continue
		}
		value, why, err := usdPrice(it)
		if err != nil {
			// One odd row never fails the run: the other parts are stored.
			skipped[skipMalformed]++
			f.log.Warn("oci price row malformed; left out, the other parts are stored",
				zap.String("partNumber", it.PartNumber), zap.String("error", err.Error()))
			continue
		}
		if why != "" {
			skipped[why]++
			continue
		}
		p := parts[strings.TrimSpace(it.PartNumber)]
		model, mem := resolveGPU(p.gpu, p.memGB)
		for _, s := range p.shapes {
			o := pricewatch.Offer{Provider: pricewatch.OCI, Region: Region, InstanceType: s.name, PriceType: pricewatch.OnDemand,
				OS: pricewatch.Linux, Currency: currency, Hourly: value.Mul(decimal.NewFromInt(int64(s.gpus))),
				Hardware: pricewatch.Hardware{GPUModel: model, GPUCount: float64(s.gpus), GPUMemoryGB: mem},
				// OCI bills by part number: it is what an invoice line names.
				CloudIDs: pricewatch.CloudIDs{SkuID: strings.TrimSpace(it.PartNumber)}}
			if old, dup := best[o.Key()]; dup && !old.Hourly.Equal(o.Hourly) {
				return nil, fmt.Errorf("%w: oci shape %s priced twice (%s and %s)", fetchers.ErrIncomplete, s.name, old.Hourly, o.Hourly)
			}
			best[o.Key()] = o
		}
	}

	if len(best) == 0 {
		// Oracle lists its GPU shapes whatever their stock: a list
		// without one is a fault upstream, never "every shape withdrawn".
		return nil, fmt.Errorf("%w: oci: %d rows but not one GPU shape priced: not believed", fetchers.ErrIncomplete, len(items))
	}
	snap := &pricewatch.Snapshot{
		Provider:      pricewatch.OCI,
		Coverage:      []pricewatch.Scope{{Region: Region, Availability: true}},
		SourceVersion: "lastUpdated " + lastUpdated,
	}
	for _, o := range best {
		snap.Offers = append(snap.Offers, o)
	}
	sort.Slice(snap.Offers, func(i, j int) bool { return snap.Offers[i].InstanceType < snap.Offers[j].InstanceType })
	for _, o := range snap.Offers {
		snap.Availability = append(snap.Availability, pricewatch.Availability{Provider: pricewatch.OCI, Region: Region,
			InstanceType: o.InstanceType, State: pricewatch.Offered, Hardware: o.Hardware})
	}
	return fetchers.Done(f.log, "oci", snap, "oci prices fetched", zap.Int("rows", len(items)), zap.Int("offers", len(snap.Offers)), zap.Any("skipped", skipped))
}

// usdPrice is the row's one USD pay-as-you-go value. No USD entry, or a
// zero value, is no price; tiered or duplicate values are not one price
// per GPU-hour and leave the row out too.
func usdPrice(it item) (decimal.Decimal, string, error) {
	var values []decimal.Decimal
	for _, l := range it.Localizations {
		if l.CurrencyCode != currency {
			continue
		}
		for _, p := range l.Prices {
			if p.Model != payAsYouGo {
				continue
			}
			if p.Value == nil {
				return decimal.Decimal{}, "", errors.New("pay-as-you-go price without a value")
			}
			if p.Value.IsNegative() {
				return decimal.Decimal{}, "", fmt.Errorf("negative price %s", p.Value)
			}
			values = append(values, *p.Value)
		}
	}
	if len(values) != 1 || !values[0].IsPositive() {
		return decimal.Decimal{}, skipNoPrice, nil
	}
	return values[0], "", nil
}

// nextPage follows APEX paging: with hasMore true there must be a "next"
// link; without hasMore a "next" link is still followed.
func nextPage(cur *url.URL, p *listPage) (*url.URL, error) {
	var href string
	for _, l := range p.Links {
		if l.Rel == "next" {
			href = strings.TrimSpace(l.Href)
		}
	}
	if href == "" {
		if p.HasMore != nil && *p.HasMore {
			return nil, errors.New("hasMore is true but there is no next link")
		}
		return nil, nil
	}
	ref, err := url.Parse(href)
	if err != nil {
		return nil, fmt.Errorf("next link is not a URL: %v", err)
	}
	u := cur.ResolveReference(ref)
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("next link has scheme %q", u.Scheme)
	}
	// Pages come from the configured origin only (the first page is the
	// endpoint, each next one is checked against the one before).
	if err := fetchers.CheckOrigin(cur, u, "next link"); err != nil {
		return nil, err
	}
	if u.Query().Get("currencyCode") == "" {
		q := u.Query()
		q.Set("currencyCode", currency)
		u.RawQuery = q.Encode()
	}
	return u, nil
}

func (f *Fetcher) getPage(ctx context.Context, u *url.URL, pageNo int) (*listPage, error) {
	where := fmt.Sprintf("oci price list page %d", pageNo)
	body, err := f.client.Read(ctx, fetchers.Request{Method: http.MethodGet, URL: u.String(),
		Where: where, Answer: "a price list", Limit: maxPageBytes, Timeout: pageTimeout})
	if err != nil {
		return nil, err
	}
	var p listPage
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", fetchers.ErrIncomplete, where, err)
	}
	if p.Items == nil {
		return nil, fmt.Errorf("%w: %s: no \"items\" list in the answer", fetchers.ErrIncomplete, where)
	}
	return &p, nil
}
