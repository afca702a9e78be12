// Package azure fetches GPU virtual machine prices from the public Azure
// Retail Prices API (https://prices.azure.com/api/retail/prices): on-demand,
// spot, one- and three-year reservations and savings plans, Linux and
// (optionally) Windows, for the NC, ND and NV families.
//
// The API needs no credentials. It says nothing about hardware, so GPU
// model, count and memory come from the table in gpus.go, and it says
// nothing about stock, so availability is "offered" wherever a size has a
// price.
package azure

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/section"
)

// DefaultEndpoint is the public Retail Prices API.
const DefaultEndpoint = "https://prices.azure.com/api/retail/prices"

// APIVersion is sent with every request: savings-plan prices come back only
// with it. It also makes filter values case-sensitive.
const APIVersion = "2023-01-01-preview"

const (
	// maxPages bounds one request chain. A region holds a few hundred GPU
	// rows and every region together a few tens of thousands, at 1,000 per
	// page; the whole unfiltered catalogue (every service) is about 10^6
	// rows, 1,000 pages. A chain far longer than that is a paging bug, not
	// data (a NextPageLink that repeats is caught at once).
	maxPages = 5000
	// maxPageBytes bounds one page (a 1,000-row page is about 1 MB).
	maxPageBytes = 64 << 20
	// defaultPageTimeout bounds reading one page's body. The client's own
	// timeout covers only connecting and the response headers.
	defaultPageTimeout = 2 * time.Minute
)

// Config is the fetcher's part of the pricewatch configuration
// (providers.azure.*).
type Config struct {
	// Endpoint is the full API URL; empty means DefaultEndpoint. Tests and
	// local mirrors point it elsewhere.
	Endpoint string
	// Regions are armRegionName codes ("eastus"); empty means all regions.
	Regions []string
	// Windows also keeps Windows prices (stored apart from Linux ones).
	Windows bool
	// Concurrency is how many regions' request chains are read at once
	// when Regions are configured (0: DefaultConcurrency). The pages of one
	// chain follow each other: each names the next.
	Concurrency int
	// Now is the clock that decides which rows are in effect
	// (effectiveStartDate/effectiveEndDate); nil means time.Now. Tests
	// replaying a dated capture set it to the capture's time.
	Now func() time.Time
	// Signals are the optional capacity signals (spot placement scores,
	// spot eviction rates), read with Entra ID credentials after the
	// prices (signals.go).
	Signals Signals
}

// DefaultConcurrency is providers.azure.concurrency's default. The API
// documents no rate limit but answers 429 under parallel load (retried
// with back-off by the client), so few chains run at once.
const DefaultConcurrency = 2

// Section is providers.azure: the Retail Prices API.
type Section struct {
	section.Common `yaml:",inline"`
	// Windows also stores Windows prices (kept apart from Linux).
	Windows bool `yaml:"windows"`
	// Concurrency is Config.Concurrency.
	Concurrency int `yaml:"concurrency"`
	// The capacity signals' keys (signals.go): the subscription and the
	// Entra ID service principal (each falls back to its AZURE_*
	// environment variable), ARM and Entra ID endpoints, and what to ask.
	SubscriptionID   string           `yaml:"subscription_id"`
	TenantID         string           `yaml:"tenant_id"`
	ClientID         string           `yaml:"client_id"`
	ClientSecretFile string           `yaml:"client_secret_file"`
	ARMEndpoint      string           `yaml:"arm_endpoint"`
	AuthorityHost    string           `yaml:"authority_host"`
	Placement        PlacementSection `yaml:"placement_scores"`
	Eviction         EvictionSection  `yaml:"eviction_rates"`
}

// Validate checks concurrency and the signal keys; the shared checks
// cover the other keys.
func (s *Section) Validate(k section.Checker) error {
	if err := k.Between("concurrency", s.Concurrency, 1, section.MaxConcurrency); err != nil {
		return err
	}
	return s.checkSignals(k)
}

// Provider registers Azure (see package providers).
var Provider = fetchers.Provider{
	Name:  pricewatch.Azure,
	Facts: section.Facts{NeedsEndpoint: true},
	Section: func() section.Section {
		return &Section{
			Common:        section.Common{Enabled: true, Endpoint: DefaultEndpoint, Schedule: "5 * * * *", Timeout: 30 * time.Minute},
			Windows:       true,
			Concurrency:   DefaultConcurrency,
			ARMEndpoint:   DefaultARMEndpoint,
			AuthorityHost: DefaultAuthorityHost,
			Placement:     PlacementSection{Sizes: slices.Clone(DefaultPlacementSizes), DesiredCount: 1},
		}
	},
	Build: fetchers.Builder(func(s *Section, env fetchers.Env) (fetchers.Fetcher, error) {
		sig, err := s.signalsConfig(env)
		if err != nil {
			return nil, err
		}
		return New(Config{Endpoint: s.Endpoint, Regions: s.Regions, Windows: s.Windows, Concurrency: s.Concurrency, Now: env.Now, Signals: sig}, env.Client, env.Log)
	}),
}

// Fetcher reads the Retail Prices API. It implements fetchers.Fetcher.
type Fetcher struct {
	cfg      Config
	endpoint *url.URL
	client   *fetchers.Client
	log      *zap.Logger
	// pageTimeout bounds reading one page's body; tests shorten it.
	pageTimeout time.Duration
	// sig asks ARM for the capacity signals; nil when none is enabled or
	// the credentials are incomplete.
	sig *signalClient
}

var _ fetchers.Fetcher = (*Fetcher)(nil)

// regionCode is what an armRegionName looks like; anything else would be
// pasted into an OData string literal.
var regionCode = regexp.MustCompile(`^[a-z0-9]+$`)

// New checks cfg and returns a Fetcher that sends its requests through
// client (which does the retrying). A nil log discards logging.
func New(cfg Config, client *fetchers.Client, log *zap.Logger) (*Fetcher, error) {
	u, log, err := fetchers.Endpoint(pricewatch.Azure, client, log, cfg.Endpoint, DefaultEndpoint, "")
	if err != nil {
		return nil, err
	}
	// Region codes are case-folded, as rows' are (see regionOf).
	regions, err := regionCodes(cfg.Regions, "regions")
	if err != nil {
		return nil, err
	}
	cfg.Regions = regions
	if cfg.Concurrency == 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	if cfg.Concurrency < 1 || cfg.Concurrency > section.MaxConcurrency {
		return nil, fmt.Errorf("azure: concurrency %d: want 1 to %d", cfg.Concurrency, section.MaxConcurrency)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	sig, err := newSignalClient(&cfg.Signals, log)
	if err != nil {
		return nil, err
	}
	return &Fetcher{cfg: cfg, endpoint: u, client: client, log: log, pageTimeout: defaultPageTimeout, sig: sig}, nil
}

// Provider returns pricewatch.Azure.
func (f *Fetcher) Provider() string { return pricewatch.Azure }

// Fetch reads every page for the configured regions (one request chain per
// region, or one chain for all regions) and returns the complete snapshot,
// or an error if any page could not be read in full.
func (f *Fetcher) Fetch(ctx context.Context, prev fetchers.Previous) (*pricewatch.Snapshot, error) {
	acc := newAccumulator(pricewatch.Azure, f.log, f.cfg.Windows, f.cfg.Now().UTC())
	chains := f.cfg.Regions
	if len(chains) == 0 {
		chains = []string{""}
	}
	// Chains run Concurrency at a time; the first failure stops the rest
	// and fails the fetch, as when they ran one after another. The
	// accumulator's choice between rows does not depend on their order.
	jobs := make([]func(context.Context) error, len(chains))
	for i, region := range chains {
		jobs[i] = func(ctx context.Context) error { return f.fetchChain(ctx, region, acc) }
	}
	if err := fetchers.Bounded(ctx, f.cfg.Concurrency, jobs); err != nil {
		return nil, err
	}

	snap, err := acc.snapshot(f.cfg.Regions, "api-version="+APIVersion)
	if err != nil {
		return nil, err
	}
	// The signals ride on a complete price run and can only add to it:
	// each failure is a warning and leaves its part uncovered.
	f.signals(ctx, snap)
	f.log.Info("azure prices fetched", zap.Int("offers", len(snap.Offers)), zap.Int("availability", len(snap.Availability)),
		zap.Int("signals", len(snap.Signals)))
	return snap, nil
}

// snapshot is what the rows added describe, for the configured regions
// (none: all regions); an error when no region could be read in full.
func (a *accumulator) snapshot(configured []string, sourceVersion string) (*pricewatch.Snapshot, error) {
	snap := &pricewatch.Snapshot{
		Provider:      a.provider,
		Offers:        a.offers(),
		Versions:      map[string]string{},
		SourceVersion: sourceVersion,
	}
	snap.Availability = availability(snap.Offers, a.listed)
	snap.Coverage = a.coverage(configured)
	if len(snap.Coverage) == 0 {
		// Every price of every configured region is in doubt: nothing
		// can be said to be complete, and nothing is stored.
		return nil, fmt.Errorf("%w: %s: no region could be read in full (rows skipped as unreadable or in a unit that is not per hour; see the warnings)", fetchers.ErrIncomplete, a.provider)
	}
	// A region that answers with no offers where many are stored is
	// refused by storage (storage.ErrSuspiciousDrop), which every cloud
	// shares.
	if err := snap.Validate(); err != nil {
		return nil, fmt.Errorf("%s: built an invalid snapshot: %w", a.provider, err)
	}
	return snap, nil
}

// fetchChain follows one request chain from its first page to the page
// whose NextPageLink is null.
func (f *Fetcher) fetchChain(ctx context.Context, region string, acc *accumulator) error {
	where := "region " + region
	if region == "" {
		where = "all regions"
	}
	next := f.firstURL(region)
	seen := map[string]bool{}
	stats := map[string]int{}
	rows, pageNo := 0, 0
	for next != nil {
		pageNo++
		if pageNo > maxPages {
			return fmt.Errorf("%w: azure %s: more than %d pages; refusing to follow NextPageLink further", fetchers.ErrIncomplete, where, maxPages)
		}
		link := next.String()
		if seen[link] {
			return fmt.Errorf("%w: azure %s page %d: NextPageLink repeats an earlier page", fetchers.ErrIncomplete, where, pageNo)
		}
		seen[link] = true

		p, notGPU, err := f.getPage(ctx, next, where, pageNo)
		if err != nil {
			return err
		}
		stats[skipNotGPU] += notGPU
		rows += notGPU
		if err := acc.addPage(*p.Items, region, stats, where, pageNo); err != nil {
			return err
		}
		rows += len(*p.Items)
		next, err = f.nextURL(next, p.NextPageLink)
		if err != nil {
			return fmt.Errorf("%w: azure %s page %d: %w", fetchers.ErrIncomplete, where, pageNo, err)
		}
	}
	f.log.Info("azure request chain complete", zap.String("scope", where), zap.Int("pages", pageNo), zap.Int("rows", rows), zap.Any("skipped", stats))
	return nil
}

// filter is the OData $filter for one chain. The API is not trusted to
// apply it: every row is checked again in accumulator.add.
func filter(region string) string {
	parts := make([]string, len(gpuFamilyPrefixes))
	for i, p := range gpuFamilyPrefixes {
		parts[i] = "startswith(armSkuName,'" + p + "')"
	}
	f := "serviceName eq 'Virtual Machines' and (" + strings.Join(parts, " or ") + ")"
	if region != "" {
		f += " and armRegionName eq '" + strings.ReplaceAll(region, "'", "''") + "'"
	}
	return f
}

func (f *Fetcher) firstURL(region string) *url.URL {
	u := *f.endpoint
	q := u.RawQuery
	if q != "" {
		q += "&"
	}
	// The API documents the literal "$filter" name and %20 for spaces; the
	// default Go encoding (%24filter, '+') works too, but the documented form
	// is what every captured request used.
	q += "api-version=" + APIVersion + "&$filter=" + strings.ReplaceAll(url.QueryEscape(filter(region)), "+", "%20")
	u.RawQuery = q
	return &u
}

// nextURL resolves a NextPageLink against the page it came from. A missing
// or null link ends the chain. The link is followed as given (a mirror
// rewrites it to itself), but the api-version is kept on it: without it
// later pages would silently lose their savings-plan prices.
func (f *Fetcher) nextURL(cur *url.URL, link *string) (*url.URL, error) {
	if link == nil || strings.TrimSpace(*link) == "" {
		return nil, nil
	}
	ref, err := url.Parse(strings.TrimSpace(*link))
	if err != nil {
		return nil, fmt.Errorf("NextPageLink is not a URL: %v", err)
	}
	u := cur.ResolveReference(ref)
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("NextPageLink has scheme %q", u.Scheme)
	}
	// Pages come from the configured endpoint only: a NextPageLink to
	// another host (or from https down to http) is not followed.
	if err := fetchers.CheckOrigin(f.endpoint, u, "NextPageLink"); err != nil {
		return nil, err
	}
	if u.Query().Get("api-version") == "" {
		if u.RawQuery != "" {
			u.RawQuery += "&"
		}
		u.RawQuery += "api-version=" + APIVersion
	}
	return u, nil
}

// getPage downloads and decodes one page. Retries (429, 5xx, network) are
// the client's; a body that stops, is cut off or is not a price page is an
// error wrapping fetchers.ErrIncomplete.
func (f *Fetcher) getPage(ctx context.Context, u *url.URL, where string, pageNo int) (p *page, notGPU int, err error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, fmt.Errorf("azure %s page %d: %w", where, pageNo, err)
	}
	body, err := f.client.Read(ctx, fetchers.Request{Method: http.MethodGet, URL: u.String(),
		Where: fmt.Sprintf("azure %s page %d", where, pageNo), Answer: "a price page", Limit: maxPageBytes, Timeout: f.pageTimeout})
	if err != nil {
		return nil, 0, err
	}
	p, notGPU, err = decodePage(body, true)
	if err != nil {
		return nil, 0, fmt.Errorf("azure %s page %d: %w", where, pageNo, err)
	}
	return p, notGPU, nil
}

// accumulator collects the offers of every chain, one per offer key.
// Chains running at once add their pages in turn (mu).
type accumulator struct {
	mu sync.Mutex
	// provider is the cloud the offers are stored under: azure, or
	// azure-cn reading the China price sheet through the same mapping.
	provider string
	log      *zap.Logger
	// windows also keeps Windows prices.
	windows   bool
	now       time.Time // fetch time: which rows are in effect
	best      map[pricewatch.OfferKey]candidate
	untracked map[string]bool
	// regions are the region codes the run's rows named.
	regions map[string]bool
	// unpriced are the price types, per region (AllRegions when a row's
	// region is unreadable), of rows that sell something but could not be
	// priced this run: the coverage leaves them out, so that storage keeps
	// their stored prices current instead of closing them.
	unpriced map[string]map[pricewatch.PriceType]bool
	// unlisted are the regions (or AllRegions) where such a row's size
	// could not be read, so their availability is not complete either.
	unlisted map[string]bool
	// listed is the availability of unpriced rows whose size is known:
	// the row still says the size is for sale there.
	listed     []pricewatch.Availability
	listedKeys map[pricewatch.AvailabilityKey]bool
	// doubted are the offers an unreadable row may price, with its
	// effectiveStartDate (when that reads cleanly and is in effect): a
	// row for them that it supersedes (an older price) must not stand in
	// for it this run, or a stale price would read as the current one.
	doubted map[doubtKey]string
}

// doubtKey names what an unreadable row may price: its region (or
// AllRegions), size, price type and OS ("" when unreadable: either).
type doubtKey struct {
	region, name string
	pt           pricewatch.PriceType
	os           string
}

// doubt records what the unreadable row it may price (see doubted).
func (a *accumulator) doubt(it item, region, name string, types []pricewatch.PriceType, clean func(...string) bool) {
	start := strings.TrimSpace(it.EffectiveStartDate)
	if start == "" || !clean(start) || start > a.now.Format(time.RFC3339) {
		return
	}
	os := ""
	if product := strings.TrimSpace(it.ProductName); clean(product) {
		os = pricewatch.Linux
		if strings.HasSuffix(product, " Windows") {
			os = pricewatch.Windows
		}
	}
	for _, pt := range types {
		k := doubtKey{region, name, pt, os}
		a.doubted[k] = max(a.doubted[k], start)
	}
}

// superseded reports whether an unreadable row may be a newer price of
// the offer of c (see doubted).
func (a *accumulator) superseded(k pricewatch.OfferKey, c candidate) bool {
	for _, region := range []string{k.Region, pricewatch.AllRegions} {
		for _, os := range []string{k.OS, ""} {
			if start, ok := a.doubted[doubtKey{region, k.InstanceType, k.PriceType, os}]; ok && start > c.start {
				return true
			}
		}
	}
	return false
}

func newAccumulator(provider string, log *zap.Logger, windows bool, now time.Time) *accumulator {
	return &accumulator{provider: provider, log: log, windows: windows, now: now, best: map[pricewatch.OfferKey]candidate{}, untracked: map[string]bool{},
		regions: map[string]bool{}, unpriced: map[string]map[pricewatch.PriceType]bool{}, unlisted: map[string]bool{},
		listedKeys: map[pricewatch.AvailabilityKey]bool{}, doubted: map[doubtKey]string{}}
}

// addPage adds one page's rows.
func (a *accumulator) addPage(items []item, region string, stats map[string]int, where string, pageNo int) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, it := range items {
		if err := a.add(it, region, stats); err != nil {
			return malformed(where, pageNo, i, it, err)
		}
	}
	return nil
}

// add keeps what a row sells if it is a price our users can buy, for a
// tracked size, in a configured region. The server filter is not trusted:
// every condition is checked here again.
func (a *accumulator) add(it item, chainRegion string, stats map[string]int) error {
	if it.badUTF8 {
		stats[skipUnreadable]++
		a.unreadable(it, chainRegion)
		return nil
	}
	pt, os, skip := classify(it)
	if skip != "" {
		stats[skip]++
		return nil
	}
	s, ok := lookupSKU(it.ArmSkuName)
	if !ok {
		name := strings.TrimSpace(it.ArmSkuName)
		if !isGPUFamily(name) {
			stats[skipNotGPU]++
			return nil
		}
		// A GPU size the table does not know yet (a new series) is still a
		// price users can buy: keep it, with the GPU model its name gives
		// and the count and memory unknown (0), and say once what to add.
		s = sku{name: name, hw: pricewatch.Hardware{GPUModel: modelFromName(name)}}
		if !a.untracked[strings.ToLower(name)] {
			a.untracked[strings.ToLower(name)] = true
			a.log.Info("azure GPU size not in the hardware table; stored without GPU count and memory (add it to fetchers/azure/gpus.go)",
				zap.String("armSkuName", name), zap.String("gpu_model", s.hw.GPUModel))
		}
	}
	region := regionOf(it)
	if region == "" || (chainRegion != "" && region != chainRegion) {
		stats[skipRegion]++
		return nil
	}
	if pricewatch.IsRegionCode(region) {
		a.regions[region] = true
	}
	if os == pricewatch.Windows && !a.windows {
		stats[skipWindows]++
		return nil
	}
	if skip, err := inEffect(it, a.now); err != nil {
		return err
	} else if skip != "" {
		stats[skip]++
		a.log.Debug("azure row not in effect; skipped", zap.String("reason", skip), zap.String("armSkuName", s.name),
			zap.String("region", it.ArmRegionName), zap.String("type", it.Type), zap.String("retailPrice", it.RetailPrice.String()),
			zap.String("effectiveStartDate", it.EffectiveStartDate), zap.String("effectiveEndDate", it.EffectiveEndDate))
		return nil
	}
	cands, skip, err := offersFor(a.provider, it, pt, os, s)
	if err != nil {
		return err
	}
	if skip == skipUnit {
		// The row still sells the size: its stored prices stay current
		// and the size stays listed, but no price is made up for it.
		stats[skip]++
		a.log.Warn("azure price in a unit that cannot be converted to per hour; row skipped, the stored price stays current",
			zap.String("meterName", strings.TrimSpace(it.MeterName)), zap.String("meterId", strings.TrimSpace(it.MeterID)),
			zap.String("unitOfMeasure", strings.TrimSpace(it.UnitOfMeasure)), zap.String("armSkuName", s.name),
			zap.String("region", region), zap.String("type", it.Type))
		a.keepOpen(region, rowPriceTypes(pt)...)
		a.list(pricewatch.Availability{Provider: a.provider, Region: region, InstanceType: s.name,
			State: pricewatch.Offered, Hardware: s.hw})
		return nil
	}
	if skip != "" {
		stats[skip]++
		a.log.Debug("azure row without a price; skipped", zap.String("armSkuName", s.name),
			zap.String("region", it.ArmRegionName), zap.String("type", it.Type), zap.String("skuId", it.SkuID))
		return nil
	}
	for _, c := range cands {
		k := c.offer.Key()
		old, dup := a.best[k]
		switch {
		case !dup || outranks(c, old):
			a.best[k] = c
		case outranks(old, c):
		case samePrice(c, old):
			// The same price listed twice: keep one, by row id so that page
			// order does not matter.
			if c.id < old.id {
				c.rival = old.rival
				a.best[k] = c
			}
		default:
			// Two rows in effect, of equal rank, with different prices: the
			// API gives nothing to choose by, and taking the lower (or the
			// higher) would be a guess stored as fact.
			if old.rival == nil || c.id < old.rival.id {
				rival := c
				old.rival = &rival
			}
			a.best[k] = old
		}
		if dup {
			a.log.Debug("azure offer listed twice", zap.Stringer("offer", k),
				zap.String("skuId", c.id), zap.String("otherSkuId", old.id))
		}
	}
	return nil
}

// list notes a size still for sale whose row could not be priced, once
// per region and size: a list of any length repeating such a row holds
// one entry.
func (a *accumulator) list(av pricewatch.Availability) {
	if a.listedKeys[av.Key()] {
		return
	}
	a.listedKeys[av.Key()] = true
	a.listed = append(a.listed, av)
}

// rowPriceTypes are the price types a row of type pt prices: an
// on-demand row carries the savings plans too.
func rowPriceTypes(pt pricewatch.PriceType) []pricewatch.PriceType {
	if pt == pricewatch.OnDemand {
		return []pricewatch.PriceType{pricewatch.OnDemand, pricewatch.SavingsPlan}
	}
	return []pricewatch.PriceType{pt}
}

// keepOpen leaves price types of region out of this run's coverage.
func (a *accumulator) keepOpen(region string, types ...pricewatch.PriceType) {
	if a.unpriced[region] == nil {
		a.unpriced[region] = map[pricewatch.PriceType]bool{}
	}
	for _, pt := range types {
		a.unpriced[region][pt] = true
	}
}

// unreadable skips a row that cannot be read (badUTF8) and keeps open every
// stored price it could be: those of its region and price type when both
// read cleanly, else of every region or price type it might name.
func (a *accumulator) unreadable(it item, chainRegion string) {
	clean := func(fields ...string) bool {
		for _, f := range fields {
			if strings.ContainsRune(f, utf8.RuneError) {
				return false
			}
		}
		return true
	}
	region := regionOf(it)
	switch {
	case !clean(region) || !pricewatch.IsRegionCode(region):
		// The chain asked for one region; otherwise it could be any.
		region = pricewatch.AllRegions
		if chainRegion != "" {
			region = chainRegion
		}
	case chainRegion != "" && region != chainRegion:
		region = "" // another region's row: nothing of this chain
	}
	name := strings.TrimSpace(it.ArmSkuName)
	// Decoding has already put U+FFFD where each bad byte was.
	a.log.Warn("azure row unreadable (not valid UTF-8, or a field not of the API's type); skipped, the stored prices it could be stay current",
		zap.String("meterName", strings.TrimSpace(it.MeterName)), zap.String("meterId", strings.TrimSpace(it.MeterID)),
		zap.String("armSkuName", name), zap.String("region", strings.TrimSpace(it.ArmRegionName)), zap.String("skuId", strings.TrimSpace(it.SkuID)))
	a.keepOpenFor(it, region, clean)
}

// keepOpenFor keeps open every stored price a row that could not be read
// may be, in region (AllRegions when the row's own is unreadable; "" for
// none of this run's): the price types its clean fields allow, for its
// size when that reads cleanly.
func (a *accumulator) keepOpenFor(it item, region string, clean func(...string) bool) {
	name := strings.TrimSpace(it.ArmSkuName)
	if region == "" {
		return
	}
	types := possibleTypes(it, clean)
	if len(types) == 0 {
		return // not a price this fetcher keeps, readable or not
	}
	if clean(name) {
		s, known := lookupSKU(name)
		if !known && !isGPUFamily(name) {
			return
		}
		if !known {
			s = sku{name: name, hw: pricewatch.Hardware{GPUModel: modelFromName(name)}}
		}
		a.doubt(it, region, s.name, types, clean)
		if region != pricewatch.AllRegions {
			a.keepOpen(region, types...)
			a.list(pricewatch.Availability{Provider: a.provider, Region: region, InstanceType: s.name,
				State: pricewatch.Offered, Hardware: s.hw})
			return
		}
	}
	a.keepOpen(region, types...)
	a.unlisted[region] = true
}

// possibleTypes are the price types an unreadable row may price, from
// the fields that read cleanly: its type says reservation or consumption,
// its meter and SKU names spot or not; with neither, any.
func possibleTypes(it item, clean func(...string) bool) []pricewatch.PriceType {
	if clean(it.ServiceName, it.Type, it.MeterName, it.SkuName, it.ProductName) {
		pt, _, skip := classify(it)
		if skip != "" {
			return nil
		}
		return rowPriceTypes(pt)
	}
	typ := strings.TrimSpace(it.Type)
	names := clean(it.MeterName, it.SkuName)
	spot := strings.HasSuffix(strings.TrimSpace(it.MeterName), " Spot") || strings.HasSuffix(strings.TrimSpace(it.SkuName), " Spot")
	switch {
	case clean(typ) && typ == "Reservation":
		return []pricewatch.PriceType{pricewatch.Reserved}
	case clean(typ) && typ == "Consumption" && names && spot:
		return []pricewatch.PriceType{pricewatch.Spot}
	case clean(typ) && typ == "Consumption" && names:
		return rowPriceTypes(pricewatch.OnDemand)
	case clean(typ) && typ == "Consumption":
		return []pricewatch.PriceType{pricewatch.OnDemand, pricewatch.Spot, pricewatch.SavingsPlan}
	case clean(typ) && typ == "SavingsPlanConsumption":
		return []pricewatch.PriceType{pricewatch.SavingsPlan}
	case clean(typ):
		return nil // DevTestConsumption or another kind this fetcher skips
	case names && spot:
		return []pricewatch.PriceType{pricewatch.Spot}
	case names:
		return []pricewatch.PriceType{pricewatch.OnDemand, pricewatch.Reserved, pricewatch.SavingsPlan}
	}
	return pricewatch.ListedPriceTypes
}

// coverage is what the run describes completely: every configured region
// (or all regions), less the price types of rows that could not be priced,
// whose stored prices storage then leaves current; and availability only
// where every row's size was read. With no such row it is one scope per
// configured region, or AllRegions.
func (a *accumulator) coverage(configured []string) []pricewatch.Scope {
	rest := func(region string) []pricewatch.PriceType {
		var out []pricewatch.PriceType
		for _, pt := range pricewatch.ListedPriceTypes {
			if !a.unpriced[region][pt] && !a.unpriced[pricewatch.AllRegions][pt] {
				out = append(out, pt)
			}
		}
		return out
	}
	listed := func(region string) bool { return !a.unlisted[region] && !a.unlisted[pricewatch.AllRegions] }
	scope := func(region string) (pricewatch.Scope, bool) {
		sc := pricewatch.Scope{Region: region, Availability: listed(region)}
		if len(a.unpriced[region]) == 0 && len(a.unpriced[pricewatch.AllRegions]) == 0 {
			return sc, true // every price type
		}
		sc.PriceTypes = rest(region)
		return sc, len(sc.PriceTypes) > 0
	}
	var out []pricewatch.Scope
	if len(configured) > 0 {
		for _, r := range configured {
			if sc, ok := scope(r); ok {
				out = append(out, sc)
			}
		}
		return out
	}
	if len(a.unpriced) == 0 && len(a.unlisted) == 0 {
		return []pricewatch.Scope{{Region: pricewatch.AllRegions, Availability: true}}
	}
	// The price types no row left in doubt are complete everywhere; every
	// region the run saw is complete in what its own rows did not leave in
	// doubt. A region no row named keeps the doubtful types' prices.
	doubt := map[pricewatch.PriceType]bool{}
	for _, types := range a.unpriced {
		for pt := range types {
			doubt[pt] = true
		}
	}
	all := pricewatch.Scope{Region: pricewatch.AllRegions, Availability: len(a.unlisted) == 0}
	for _, pt := range pricewatch.ListedPriceTypes {
		if !doubt[pt] {
			all.PriceTypes = append(all.PriceTypes, pt)
		}
	}
	if len(all.PriceTypes) > 0 {
		out = append(out, all)
	}
	for _, r := range slices.Sorted(maps.Keys(a.regions)) {
		sc := pricewatch.Scope{Region: r, PriceTypes: rest(r), Availability: listed(r)}
		if len(sc.PriceTypes) > 0 {
			out = append(out, sc)
		}
	}
	return out
}

// offers returns the kept offers in key order, so that output and goldens
// do not depend on page order.
func (a *accumulator) offers() []pricewatch.Offer {
	out := make([]pricewatch.Offer, 0, len(a.best))
	for k, c := range a.best {
		if a.superseded(k, c) {
			continue // an unreadable newer row may price it (see doubted); its stored price stays current
		}
		if c.rival != nil {
			a.log.Warn("azure lists two prices in effect for one offer, with nothing in the rows to choose between them; keeping neither this run",
				zap.Stringer("offer", k), zap.String("skuId", c.id), zap.String("price", priceText(c.offer)),
				zap.String("otherSkuId", c.rival.id), zap.String("otherPrice", priceText(c.rival.offer)), zap.String("effectiveStartDate", c.start))
			continue
		}
		out = append(out, c.offer)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key().String() < out[j].Key().String() })
	return out
}

func priceText(o pricewatch.Offer) string {
	if o.PriceType == pricewatch.Reserved {
		return o.Upfront.String() + " " + o.Currency + " upfront"
	}
	return o.Hourly.String() + " " + o.Currency + "/h"
}

// availability lists each (region, size) that has at least one price, or
// a row that could not be priced, as offered. The API knows nothing of stock or zones.
func availability(offers []pricewatch.Offer, unpriced []pricewatch.Availability) []pricewatch.Availability {
	seen := map[pricewatch.AvailabilityKey]bool{}
	var out []pricewatch.Availability
	for _, o := range offers {
		a := pricewatch.Availability{Provider: o.Provider, Region: o.Region, InstanceType: o.InstanceType, State: pricewatch.Offered, Hardware: o.Hardware}
		if !seen[a.Key()] {
			seen[a.Key()] = true
			out = append(out, a)
		}
	}
	// A size whose only rows could not be priced is still for sale.
	for _, a := range unpriced {
		if !seen[a.Key()] {
			seen[a.Key()] = true
			out = append(out, a)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Region != out[j].Region {
			return out[i].Region < out[j].Region
		}
		return out[i].InstanceType < out[j].InstanceType
	})
	return out
}
