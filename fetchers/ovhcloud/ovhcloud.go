// Package ovhcloud reads OVHcloud's public Public Cloud order catalogue
// (GET /v1/order/catalog/public/cloud?ovhSubsidiary=FR, no account) and
// turns its GPU instance flavors into prices.
//
// Every instance flavor is an entry of the catalogue's addons (product
// "publiccloud-instance") twice: "<flavor>.consumption", billed per hour
// used, and "<flavor>.monthly.postpaid", OVHcloud's monthly billing: the
// instance is committed to for the month and the month is billed at its
// end. The hourly one is stored as on_demand, the monthly one as reserved
// with term 1m and no upfront payment (its per-hour price is the month
// spread over 730 hours, as every 1m term here is). The GPU model, count
// and memory come from the addon's blobs.technical.gpu; a flavor without
// them, or without one price for its interval, is skipped and counted, not
// fatal. Prices are integers in 10⁻⁸ of the currency named by the answer's
// locale.currencyCode. The catalogue prices a flavor once for every region
// of the subsidiary (its region variants — Local Zones, 3-AZ — are other
// plan codes, left out), so each price is stored once, under region
// "global", as Lambda's and OCI's are. A flavor sold with a Windows
// licence (plan code "win-…", blobs.technical.os.family "windows") is
// stored with os windows, apart from the Linux prices.
package ovhcloud

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
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
	// Name is the provider's key (providers.ovhcloud, the provider column).
	Name = pricewatch.OVHcloud
	// DefaultEndpoint is the EU API host; CatalogPath is appended.
	DefaultEndpoint = "https://eu.api.ovh.com"
	// CatalogPath is the public Public Cloud catalogue.
	CatalogPath = "/v1/order/catalog/public/cloud"
	// DefaultSubsidiary is the ovhSubsidiary asked for (prices in EUR).
	DefaultSubsidiary = "FR"
	// Region is where every price is stored (one catalogue price for all
	// of the subsidiary's regions).
	Region = "global"

	productInstance = "publiccloud-instance"
	suffixHourly    = ".consumption"
	suffixMonthly   = ".monthly.postpaid"

	// maxBodyBytes bounds the answer: the whole FR catalogue is a few MB.
	maxBodyBytes = 64 << 20
	bodyTimeout  = 2 * time.Minute
)

// priceExp: catalogue prices are integers in 10⁻⁸ of the currency.
const priceExp = -8

// Section is providers.ovhcloud.
type Section struct {
	section.Common `yaml:",inline"`
	// Subsidiary is the ovhSubsidiary the catalogue is read for; it
	// decides the currency (FR: EUR, GB: GBP, CA: CAD, ...).
	Subsidiary string `yaml:"subsidiary"`
}

// Subsidiaries are the ovhSubsidiary codes OVHcloud's APIs take (the
// OvhSubsidiaryEnum of the EU, CA and US APIs): any other code is
// answered with an error or someone else's catalogue, never with prices.
var Subsidiaries = []string{"ASIA", "AU", "CA", "CZ", "DE", "ES", "EU", "FI", "FR", "GB", "IE", "IN", "IT",
	"LT", "MA", "NL", "PL", "PT", "QC", "SG", "SN", "TN", "US", "WE", "WS"}

// Validate checks subsidiary.
func (s *Section) Validate(k section.Checker) error {
	if !slices.Contains(Subsidiaries, s.Subsidiary) {
		return k.Errorf("subsidiary", "%q is not an OVHcloud subsidiary (%s)", s.Subsidiary, strings.Join(Subsidiaries, ", "))
	}
	return nil
}

// Provider registers OVHcloud (see package providers).
var Provider = fetchers.Provider{
	Name: Name,
	Facts: section.Facts{NeedsEndpoint: true,
		RegionsUnused: "OVHcloud's catalogue prices a flavor once for every region; it is stored under region global"},
	Section: func() section.Section {
		return &Section{Common: section.Common{Enabled: true, Endpoint: DefaultEndpoint, Schedule: "40 */6 * * *", Timeout: 10 * time.Minute},
			Subsidiary: DefaultSubsidiary}
	},
	Build: fetchers.Builder(func(s *Section, env fetchers.Env) (fetchers.Fetcher, error) {
		return New(Config{Endpoint: s.Endpoint, Subsidiary: s.Subsidiary}, env.Client, env.Log)
	}),
}

// Config is what New needs.
type Config struct {
	// Endpoint is the base URL; empty means DefaultEndpoint.
	Endpoint string
	// Subsidiary is the ovhSubsidiary; empty means DefaultSubsidiary.
	Subsidiary string
}

// Fetcher implements fetchers.Fetcher for OVHcloud.
type Fetcher struct {
	url        string
	subsidiary string
	client     *fetchers.Client
	log        *zap.Logger
}

var _ fetchers.Fetcher = (*Fetcher)(nil)

// New checks cfg and returns a Fetcher sending through client.
func New(cfg Config, client *fetchers.Client, log *zap.Logger) (*Fetcher, error) {
	u, log, err := fetchers.Endpoint(Name, client, log, cfg.Endpoint, DefaultEndpoint, CatalogPath)
	if err != nil {
		return nil, err
	}
	sub := cfg.Subsidiary
	if sub == "" {
		sub = DefaultSubsidiary
	}
	if !slices.Contains(Subsidiaries, sub) {
		return nil, fmt.Errorf("%s: subsidiary %q: want one of %s", Name, sub, strings.Join(Subsidiaries, ", "))
	}
	u.RawQuery = url.Values{"ovhSubsidiary": {sub}}.Encode()
	return &Fetcher{url: u.String(), subsidiary: sub, client: client, log: log}, nil
}

// Provider returns Name.
func (f *Fetcher) Provider() string { return Name }

// catalog is the part of the answer read. Pointers tell a missing field
// from an empty one: an answer without them is not the catalogue.
type catalog struct {
	CatalogID *json.Number `json:"catalogId"`
	Locale    *struct {
		CurrencyCode string `json:"currencyCode"`
		Subsidiary   string `json:"subsidiary"`
	} `json:"locale"`
	Addons *[]addon `json:"addons"`
}

type addon struct {
	PlanCode    string    `json:"planCode"`
	InvoiceName string    `json:"invoiceName"`
	Product     string    `json:"product"`
	Pricings    []pricing `json:"pricings"`
	Blobs       *struct {
		Technical *technical `json:"technical"`
	} `json:"blobs"`
}

type pricing struct {
	Interval     int          `json:"interval"`
	IntervalUnit string       `json:"intervalUnit"`
	Price        *json.Number `json:"price"`
}

type technical struct {
	CPU *struct {
		Cores int `json:"cores"`
	} `json:"cpu"`
	Memory *struct {
		Size float64 `json:"size"`
	} `json:"memory"`
	OS *struct {
		Family string `json:"family"`
	} `json:"os"`
	GPU *struct {
		Model  string `json:"model"`
		Number int    `json:"number"`
		Memory *struct {
			Size float64 `json:"size"`
		} `json:"memory"`
	} `json:"gpu"`
}

// Reasons an instance addon is left out, counted in the log.
const (
	skipNoGPU       = "no GPU"
	skipVariant     = "region variant or other billing"
	skipBadGPU      = "GPU without model or count"
	skipNoPrice     = "no single price for its interval"
	skipZeroPrice   = "zero price"
	skipNotInstance = "not an instance"
	skipOS          = "operating system unclear (os.family and plan code disagree, or neither Linux nor Windows)"
	skipMalformed   = "price not an integer"
)

// Fetch reads the catalogue and returns the GPU flavors' prices, or an
// error if the answer is not a whole catalogue.
func (f *Fetcher) Fetch(ctx context.Context, _ fetchers.Previous) (*pricewatch.Snapshot, error) {
	var c catalog
	if err := f.client.ReadJSON(ctx, fetchers.Request{Method: http.MethodGet, URL: f.url,
		Where: "ovhcloud " + CatalogPath, Answer: "the public cloud catalogue", Limit: maxBodyBytes, Timeout: bodyTimeout}, &c); err != nil {
		return nil, err
	}
	currency, err := f.check(c)
	if err != nil {
		return nil, fmt.Errorf("%w: ovhcloud %s: %v", fetchers.ErrIncomplete, CatalogPath, err)
	}
	snap, skipped, err := build(*c.Addons, currency)
	if err != nil {
		return nil, fmt.Errorf("%w: ovhcloud %s: %v", fetchers.ErrIncomplete, CatalogPath, err)
	}
	if len(snap.Offers) == 0 {
		return nil, fmt.Errorf("%w: ovhcloud %s: %d addons but not one priced GPU flavor: not believed", fetchers.ErrIncomplete, CatalogPath, len(*c.Addons))
	}
	snap.SourceVersion = "catalogId " + c.CatalogID.String()
	return fetchers.Done(f.log, "ovhcloud", snap, "ovhcloud catalogue fetched", zap.String("subsidiary", f.subsidiary), zap.String("currency", currency),
		zap.Int("addons", len(*c.Addons)), zap.Int("offers", len(snap.Offers)), zap.Any("skipped", skipped))
}

// currencyCode is an ISO 4217 code.
var currencyCode = regexp.MustCompile(`^[A-Z]{3}$`)

// check refuses an answer that is not the catalogue asked for.
func (f *Fetcher) check(c catalog) (string, error) {
	switch {
	case c.Addons == nil:
		return "", errors.New("no addons list")
	case c.CatalogID == nil:
		return "", errors.New("no catalogId")
	case c.Locale == nil:
		return "", errors.New("no locale")
	case !currencyCode.MatchString(c.Locale.CurrencyCode):
		return "", fmt.Errorf("locale.currencyCode %q is not a currency code", c.Locale.CurrencyCode)
	case c.Locale.Subsidiary != "" && c.Locale.Subsidiary != f.subsidiary:
		// Prices of another subsidiary are in another currency and tax
		// regime: never stored as this one's.
		return "", fmt.Errorf("locale.subsidiary %q, asked for %q", c.Locale.Subsidiary, f.subsidiary)
	}
	return c.Locale.CurrencyCode, nil
}

// build turns the instance addons into offers. An addon that is not a GPU
// flavor's hourly or monthly plan, that cannot be priced or whose price
// cannot be read, is counted in skipped; a flavor priced twice
// differently is an error.
func build(addons []addon, currency string) (*pricewatch.Snapshot, map[string]int, error) {
	snap := &pricewatch.Snapshot{
		Provider: Name,
		Coverage: []pricewatch.Scope{{Region: Region}},
	}
	skipped := map[string]int{}
	seen := map[pricewatch.OfferKey]pricewatch.Offer{}
	for _, a := range addons {
		o, why, err := offer(a, currency)
		if err != nil {
			// One odd addon never fails the run: the others are stored.
			why = skipMalformed
		}
		if why != "" {
			skipped[why]++
			continue
		}
		if old, dup := seen[o.Key()]; dup {
			if !old.Hourly.Equal(o.Hourly) {
				return nil, nil, fmt.Errorf("flavor %s priced twice (%s and %s)", o.InstanceType, old.Hourly, o.Hourly)
			}
			continue
		}
		seen[o.Key()] = o
		snap.Offers = append(snap.Offers, o)
	}
	sort.Slice(snap.Offers, func(i, j int) bool {
		a, b := snap.Offers[i], snap.Offers[j]
		if a.InstanceType != b.InstanceType {
			return a.InstanceType < b.InstanceType
		}
		return a.PriceType < b.PriceType
	})
	return snap, skipped, nil
}

// offer prices one addon, or says why it is left out. Only a price that
// is not an integer is an error: that addon is then not the catalogue's.
func offer(a addon, currency string) (pricewatch.Offer, string, error) {
	if a.Product != productInstance {
		return pricewatch.Offer{}, skipNotInstance, nil
	}
	var tech *technical
	if a.Blobs != nil {
		tech = a.Blobs.Technical
	}
	if tech == nil || tech.GPU == nil {
		return pricewatch.Offer{}, skipNoGPU, nil
	}
	flavor, pt, unit, ok := planKind(a.PlanCode)
	if !ok {
		return pricewatch.Offer{}, skipVariant, nil
	}
	g := tech.GPU
	if strings.TrimSpace(g.Model) == "" || g.Number <= 0 {
		return pricewatch.Offer{}, skipBadGPU, nil
	}
	hint := gpu.Hint{}
	if g.Memory != nil {
		hint.MemoryGB = g.Memory.Size
	}
	// A model the catalogue does not know is stored as OVHcloud names it;
	// `pricewatch hardware unknown` lists it.
	id := gpu.Resolve(g.Model, hint)
	price, found, err := onePrice(a.Pricings, unit)
	if err != nil {
		return pricewatch.Offer{}, "", err
	}
	if !found {
		return pricewatch.Offer{}, skipNoPrice, nil
	}
	if !price.IsPositive() {
		return pricewatch.Offer{}, skipZeroPrice, nil
	}
	opsys, ok := osOf(flavor, tech)
	if !ok {
		return pricewatch.Offer{}, skipOS, nil
	}
	o := pricewatch.Offer{Provider: Name, Region: Region, InstanceType: flavor, PriceType: pt, OS: opsys,
		Currency: currency, Hourly: price,
		Hardware: pricewatch.Hardware{GPUModel: id.Name(), GPUCount: float64(g.Number), GPUMemoryGB: hint.MemoryGB},
		// The plan code is what an order and an invoice line name.
		CloudIDs: pricewatch.CloudIDs{SkuID: a.PlanCode}}
	if tech.CPU != nil {
		o.VCPUs = tech.CPU.Cores
	}
	if tech.Memory != nil {
		o.MemoryGB = tech.Memory.Size
	}
	if pt == pricewatch.Reserved {
		// The month is billed at its end: no upfront payment, its price
		// spread over the 730 hours of a 1m term (exact when the quotient
		// ends, else at the precision of every derived rate).
		o.Term, o.Payment = "1m", pricewatch.NoUpfront
		o.Hourly = price.DivRound(decimal.NewFromInt(pricewatch.HoursPerMonth), pricewatch.RateDecimals)
	}
	return o, "", nil
}

// windowsPrefix starts the plan code of a flavor sold with a Windows
// licence ("win-l40s-90.consumption"): its price includes the licence.
const windowsPrefix = "win-"

// osOf is the operating system a flavor's price is for: the one the
// catalogue states (blobs.technical.os.family), else the plan code's
// (a "win-" flavor is Windows, any other Linux). A Windows price stored
// as Linux would rank a licensed instance among the Linux ones, so a
// family other than linux or windows, or one the plan code contradicts,
// is not guessed: the addon is skipped and counted.
func osOf(flavor string, tech *technical) (string, bool) {
	byCode := pricewatch.Linux
	if strings.HasPrefix(flavor, windowsPrefix) {
		byCode = pricewatch.Windows
	}
	if tech.OS == nil || strings.TrimSpace(tech.OS.Family) == "" {
		return byCode, true
	}
	switch strings.ToLower(strings.TrimSpace(tech.OS.Family)) {
	case pricewatch.Linux:
		return pricewatch.Linux, byCode == pricewatch.Linux
	case pricewatch.Windows:
		return pricewatch.Windows, true
	}
	return "", false
}

// planKind splits a plan code into its flavor and billing: hourly
// consumption or the monthly postpaid plan. Region variants
// ("h100-380.consumption.3AZ", ".LZ.EU") and anything else are not one
// of the two.
func planKind(code string) (flavor string, pt pricewatch.PriceType, unit string, ok bool) {
	if f, cut := strings.CutSuffix(code, suffixHourly); cut && f != "" && !strings.Contains(f, ".") {
		return f, pricewatch.OnDemand, "hour", true
	}
	if f, cut := strings.CutSuffix(code, suffixMonthly); cut && f != "" && !strings.Contains(f, ".") {
		return f, pricewatch.Reserved, "month", true
	}
	return "", "", "", false
}

// onePrice is the price of the addon's pricings for one unit interval:
// found only when they agree on one value.
func onePrice(ps []pricing, unit string) (decimal.Decimal, bool, error) {
	var out decimal.Decimal
	found := false
	for _, p := range ps {
		if p.IntervalUnit != unit || p.Interval != 1 || p.Price == nil {
			continue
		}
		v, err := decimal.NewFromString(p.Price.String())
		if err != nil || !v.IsInteger() || v.IsNegative() {
			return decimal.Decimal{}, false, fmt.Errorf("price %q: want a non-negative integer in 10^-8 of the currency", p.Price.String())
		}
		v = v.Shift(priceExp)
		if found && !v.Equal(out) {
			return decimal.Decimal{}, false, nil
		}
		out, found = v, true
	}
	return out, found, nil
}
