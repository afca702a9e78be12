// Package tencent fetches Tencent Cloud CVM GPU prices and stock per zone.
//
// One DescribeZoneInstanceConfigInfos call per region and charge type
// (POSTPAID_BY_HOUR, PREPAID, SPOTPAID) returns every instance type sold in
// each zone with its price and sale status, so a region costs three calls.
// Prepaid one- and three-year totals missing from those rows are asked of
// InquiryPriceRunInstances, within a per-run budget. Requests are signed
// with TC3-HMAC-SHA256 (signer.go).
package tencent

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"
	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/gpu"
	"github.com/pricewatch/pricewatch/retry"
	"github.com/pricewatch/pricewatch/section"
)

// Environment variables the Tencent Cloud CLI and SDKs read.
const (
	EnvSecretID  = "TENCENTCLOUD_SECRET_ID"
	EnvSecretKey = "TENCENTCLOUD_SECRET_KEY"
)

// DefaultCurrency is what the China site bills in. International-site
// accounts are billed in USD; CVM's responses carry no currency field, so
// the account's currency must be configured.
const DefaultCurrency = "CNY"

// Config is the provider's configuration.
type Config struct {
	// Endpoint replaces the CVM API host for every region (tests, proxies,
	// the international host https://cvm.intl.tencentcloudapi.com).
	Endpoint string
	// Regions to fetch; empty means every region DescribeRegions lists.
	Regions []string
	// SecretID and SecretKey sign every request; see CredentialsFrom.
	SecretID, SecretKey section.Secret
	// Currency of the account's prices (ISO 4217): CNY on the China site,
	// USD on the international one. Default CNY.
	Currency string
	// MaxPriceCalls caps InquiryPriceRunInstances calls per run (0: none),
	// spent on regions in the order they are configured.
	MaxPriceCalls int
	// Concurrency bounds the API calls in flight.
	Concurrency int
	// ImageID is the image quoted in InquiryPriceRunInstances, which
	// requires one. Empty: the first public Linux image DescribeImages lists
	// in each region. Public Linux images are free, so the choice does not
	// change the instance price.
	ImageID string
	// Client is the shared retrying HTTP client (fetchers.Env's, with the
	// program's fetch settings); nil: one of the fetcher's own with the
	// default policy.
	Client *fetchers.Client
}

// Section is providers.tencent: CVM called with TC3-signed requests.
type Section struct {
	section.Common `yaml:",inline"`
	SecretIDFile   string `yaml:"secret_id_file"`
	SecretKeyFile  string `yaml:"secret_key_file"`
	// Currency of the account's prices: CNY on the China site, USD on the
	// international one (the API does not say).
	Currency string `yaml:"currency"`
	// ImageID is the image quoted when asking prepaid prices; empty picks a
	// public Linux image per region.
	ImageID       string `yaml:"image_id"`
	MaxPriceCalls int    `yaml:"max_price_calls"`
	Concurrency   int    `yaml:"concurrency"`
}

// Validate checks the keys beyond the shared ones.
func (s *Section) Validate(k section.Checker) error {
	var currency error
	if !pricewatch.IsCurrencyCode(s.Currency) {
		currency = k.Errorf("currency", "%q is not a three-letter currency code (CNY on the China site, USD on the international one)", s.Currency)
	}
	return errors.Join(currency, k.Between("concurrency", s.Concurrency, 1, section.MaxConcurrency),
		k.Between("max_price_calls", s.MaxPriceCalls, 0, section.MaxPriceCalls), // 0: no prepaid inquiries
		s.SecretFiles(k, "secret_id_file", s.SecretIDFile, "secret_key_file", s.SecretKeyFile))
}

// Provider registers Tencent Cloud (see package providers).
var Provider = fetchers.Provider{
	Name: pricewatch.Tencent,
	Section: func() section.Section {
		return &Section{
			Common: section.Common{Enabled: true, Regions: []string{"ap-guangzhou", "ap-shanghai", "ap-beijing", "ap-singapore"},
				Schedule: "45 * * * *", Timeout: 30 * time.Minute},
			Currency: DefaultCurrency, MaxPriceCalls: 500, Concurrency: 4,
		}
	},
	Build: fetchers.Builder(func(s *Section, env fetchers.Env) (fetchers.Fetcher, error) {
		id, key, err := CredentialsFrom(s.SecretIDFile, s.SecretKeyFile)
		if err != nil {
			return nil, err
		}
		env.Secrets(id, key)
		return New(Config{Endpoint: s.Endpoint, Regions: s.Regions, SecretID: id, SecretKey: key, Currency: s.Currency,
			ImageID: s.ImageID, MaxPriceCalls: s.MaxPriceCalls, Concurrency: s.Concurrency, Client: env.Client}, env.Log)
	}),
}

// Fetcher implements fetchers.Fetcher for Tencent Cloud CVM.
type Fetcher struct {
	cfg Config
	api *api
	log *zap.Logger
	// unknownFamilies keeps the warning about a GPU family missing from
	// gpus.go to one line per family.
	unknownFamilies sync.Map
}

var _ fetchers.Fetcher = (*Fetcher)(nil)

var currencyCode = regexp.MustCompile(`^[A-Z]{3}$`)

// New checks the configuration and returns a Fetcher. Without credentials
// it returns an error wrapping fetchers.ErrNoCredentials.
func New(cfg Config, log *zap.Logger) (*Fetcher, error) {
	if log == nil {
		log = zap.NewNop()
	}
	if cfg.SecretID.Empty() || cfg.SecretKey.Empty() {
		return nil, noCredentials(cfg.SecretID.Empty(), cfg.SecretKey.Empty())
	}
	ep, err := parseEndpoint(cfg.Endpoint)
	if err != nil {
		return nil, fmt.Errorf("tencent: %w", err)
	}
	if cfg.Currency == "" {
		cfg.Currency = DefaultCurrency
	}
	if !currencyCode.MatchString(cfg.Currency) {
		return nil, fmt.Errorf("tencent: currency %q: want an ISO 4217 code such as CNY or USD", cfg.Currency)
	}
	if cfg.Concurrency < 1 {
		cfg.Concurrency = 1
	}
	if cfg.MaxPriceCalls < 0 {
		cfg.MaxPriceCalls = 0
	}
	policy := fetchers.DefaultRetryPolicy()
	client := cfg.Client
	if client == nil {
		client = fetchers.NewClient(policy)
	}
	a := &api{
		endpoint:  ep,
		http:      client,
		secretID:  cfg.SecretID,
		secretKey: cfg.SecretKey,
		attempts:  policy.MaxAttempts,
		baseDelay: time.Second,
		maxDelay:  policy.MaxDelay,
		now:       time.Now,
		sleep:     retry.Sleep,
		minInterval: map[string]time.Duration{
			// Documented limits: 10/s for InquiryPriceRunInstances,
			// 20/s for the Describe actions; stay under them.
			"InquiryPriceRunInstances":        150 * time.Millisecond,
			"DescribeZoneInstanceConfigInfos": 60 * time.Millisecond,
		},
	}
	return &Fetcher{cfg: cfg, api: a, log: log.With(zap.String("provider", pricewatch.Tencent))}, nil
}

func noCredentials(idMissing, keyMissing bool) error {
	// With neither set, the sentinel's own words say it all.
	what := ""
	switch {
	case idMissing && !keyMissing:
		what = " (the secret ID is missing)"
	case keyMissing && !idMissing:
		what = " (the secret key is missing)"
	}
	// No "tencent:" prefix: the skip line names the provider already.
	return fmt.Errorf("%w%s: set %s and %s, or providers.tencent.secret_id_file and secret_key_file",
		fetchers.ErrNoCredentials, what, EnvSecretID, EnvSecretKey)
}

// CredentialsFrom resolves the secret ID and key: the environment variables
// first, then the files (a relative name is looked up in
// $CREDENTIALS_DIRECTORY, as systemd's LoadCredential provides). With
// neither it returns an error wrapping fetchers.ErrNoCredentials. Errors
// never contain the secrets.
func CredentialsFrom(idFile, keyFile string) (id, key section.Secret, err error) {
	id, err = fetchers.ReadKey("tencent secret ID", EnvSecretID, idFile)
	if err != nil {
		return section.Secret{}, section.Secret{}, err
	}
	key, err = fetchers.ReadKey("tencent secret key", EnvSecretKey, keyFile)
	if err != nil {
		return section.Secret{}, section.Secret{}, err
	}
	if id.Empty() || key.Empty() {
		return section.Secret{}, section.Secret{}, noCredentials(id.Empty(), key.Empty())
	}
	return id, key, nil
}

// Provider names the cloud.
func (f *Fetcher) Provider() string { return pricewatch.Tencent }

// placeKey identifies one instance type in one zone.
type placeKey struct{ Region, Zone, Type string }

// observed is what the three charge-type listings say about one type in one
// zone.
type observed struct {
	key      placeKey
	hw       pricewatch.Hardware
	status   map[string]quotaItem // by charge type
	onDemand decimal.NullDecimal
	spot     decimal.NullDecimal
	// terms holds prepaid totals by term ("1m", "1y", "3y").
	terms map[string]decimal.Decimal
}

// regionData is one region's listings.
type regionData struct {
	region string
	mu     sync.Mutex
	types  map[placeKey]*observed
	// reservedComplete is false when some prepaid total could not be asked
	// within the run's budget, or its inquiry (or the region's image
	// look-up) failed: the region's reserved prices are then not declared
	// complete.
	reservedComplete bool
	// rows counts the rows of every listing, GPU or not.
	rows int
}

// termMonths are the prepaid terms pricewatch tracks beyond one month.
var termMonths = map[string]int{"1y": 12, "3y": 36}

// Fetch returns every GPU type's prices and stock in the configured regions.
func (f *Fetcher) Fetch(ctx context.Context, _ fetchers.Previous) (*pricewatch.Snapshot, error) {
	started := time.Now()
	// Each region is listed once per run, however often it is configured;
	// the configured order is kept because the price-call budget is spent
	// in that order.
	var regions []string
	for _, r := range f.cfg.Regions {
		if !slices.Contains(regions, r) {
			regions = append(regions, r)
		}
	}
	if len(regions) == 0 {
		var err error
		if regions, err = f.describeRegions(ctx); err != nil {
			return nil, fmt.Errorf("tencent: listing regions: %w", err)
		}
	}
	data := make([]*regionData, len(regions))
	var jobs []func(context.Context) error
	for i, r := range regions {
		rd := &regionData{region: r, types: map[placeKey]*observed{}, reservedComplete: true}
		data[i] = rd
		for _, ct := range chargeTypes {
			jobs = append(jobs, func(ctx context.Context) error { return f.fetchZoneConfigs(ctx, rd, ct) })
		}
	}
	if err := fetchers.Bounded(ctx, f.cfg.Concurrency, jobs); err != nil {
		return nil, fmt.Errorf("tencent: %w", err)
	}
	if !slices.ContainsFunc(data, func(rd *regionData) bool { return rd.rows > 0 }) {
		// CVM lists every instance type it sells, CPU ones too: listings
		// with no row in any region are a broken answer, never "every
		// type withdrawn" (one region without GPUs is normal).
		return nil, fmt.Errorf("tencent: %w: DescribeZoneInstanceConfigInfos listed no instance type in any region", fetchers.ErrIncomplete)
	}
	inquiries, err := f.inquireTerms(ctx, data)
	if err != nil {
		return nil, fmt.Errorf("tencent: %w", err)
	}
	snap := f.assemble(data)
	if err := snap.Validate(); err != nil {
		return nil, fmt.Errorf("tencent: %w: %v", fetchers.ErrIncomplete, err)
	}
	f.log.Info("fetched",
		zap.Int("regions", len(regions)), zap.Int("offers", len(snap.Offers)),
		zap.Int("availability", len(snap.Availability)), zap.Int("price_inquiries", inquiries),
		zap.Duration("took", time.Since(started)))
	return snap, nil
}

func (f *Fetcher) describeRegions(ctx context.Context) ([]string, error) {
	var out describeRegionsResponse
	if err := f.api.call(ctx, "", "DescribeRegions", struct{}{}, &out); err != nil {
		return nil, err
	}
	if out.RegionSet == nil {
		return nil, fmt.Errorf("DescribeRegions: %w: no RegionSet", fetchers.ErrIncomplete)
	}
	var regions []string
	for _, r := range *out.RegionSet {
		if r.Region != "" && r.RegionState == "AVAILABLE" {
			regions = append(regions, r.Region)
		}
	}
	if len(regions) == 0 {
		return nil, fmt.Errorf("DescribeRegions: %w: no available region listed", fetchers.ErrIncomplete)
	}
	sort.Strings(regions)
	return regions, nil
}

// fetchZoneConfigs reads one region's listing for one charge type and
// records its GPU rows.
func (f *Fetcher) fetchZoneConfigs(ctx context.Context, rd *regionData, chargeType string) error {
	req := zoneConfigsRequest{Filters: []filter{{Name: "instance-charge-type", Values: []string{chargeType}}}}
	var out zoneConfigsResponse
	if err := f.api.call(ctx, rd.region, "DescribeZoneInstanceConfigInfos", req, &out); err != nil {
		return fmt.Errorf("%s prices: %w", chargeType, err)
	}
	if out.InstanceTypeQuotaSet == nil {
		return fmt.Errorf("DescribeZoneInstanceConfigInfos %s in %s: %w: no InstanceTypeQuotaSet", chargeType, rd.region, fetchers.ErrIncomplete)
	}
	rd.mu.Lock()
	rd.rows += len(*out.InstanceTypeQuotaSet)
	rd.mu.Unlock()
	gpuRows := 0
	var odd []string
	for _, it := range *out.InstanceTypeQuotaSet {
		ok, err := f.record(rd, chargeType, it)
		var o oddRow
		switch {
		case errors.As(err, &o):
			odd = append(odd, o.Error())
			continue
		case err != nil:
			return fmt.Errorf("DescribeZoneInstanceConfigInfos %s in %s: %w", chargeType, rd.region, err)
		}
		if ok {
			gpuRows++
		}
	}
	if len(odd) > 0 {
		// One odd row never fails the run: the others are stored.
		f.log.Warn("tencent rows unreadable; left out, the others are stored", zap.String("region", rd.region),
			zap.String("charge_type", chargeType), zap.Int("rows", len(odd)), zap.Strings("why", odd))
	}
	f.log.Debug("zone configs", zap.String("region", rd.region), zap.String("charge_type", chargeType),
		zap.Int("rows", len(*out.InstanceTypeQuotaSet)), zap.Int("gpu_rows", gpuRows))
	return nil
}

// oddRow is a row record leaves out: one odd row, not a broken answer.
type oddRow string

func (o oddRow) Error() string { return string(o) }

// record keeps one row if it is a GPU type; it reports whether it was
// kept. An oddRow error leaves the row out; any other fails the listing
// (an answer that is not the one asked for).
func (f *Fetcher) record(rd *regionData, chargeType string, it quotaItem) (bool, error) {
	if it.Zone == "" || it.InstanceType == "" {
		return false, oddRow("a row without Zone or InstanceType")
	}
	if !strings.HasPrefix(it.Zone, rd.region+"-") {
		return false, fmt.Errorf("%w: zone %s is not in region %s", fetchers.ErrIncomplete, it.Zone, rd.region)
	}
	if it.InstanceChargeType != "" && it.InstanceChargeType != chargeType {
		return false, fmt.Errorf("%w: %s in %s is listed as %s in the %s listing", fetchers.ErrIncomplete, it.InstanceType, it.Zone, it.InstanceChargeType, chargeType)
	}
	if it.Status != "SELL" && it.Status != "SOLD_OUT" {
		return false, oddRow(fmt.Sprintf("%s in %s has Status %q (want SELL or SOLD_OUT)", it.InstanceType, it.Zone, it.Status))
	}
	if p := it.Price; (chargeType == postpaidByHour || chargeType == spotPaid) && p.ChargeUnit != "" && p.ChargeUnit != "HOUR" {
		return false, oddRow(fmt.Sprintf("%s in %s is priced per %q, not per HOUR", it.InstanceType, it.Zone, p.ChargeUnit))
	}
	hw, ok := f.hardware(it)
	if !ok {
		return false, nil
	}
	key := placeKey{rd.region, it.Zone, it.InstanceType}
	rd.mu.Lock()
	defer rd.mu.Unlock()
	o := rd.types[key]
	if o == nil {
		o = &observed{key: key, hw: hw, status: map[string]quotaItem{}, terms: map[string]decimal.Decimal{}}
		rd.types[key] = o
	}
	if _, dup := o.status[chargeType]; dup {
		return false, fmt.Errorf("%w: %s in %s is listed twice", fetchers.ErrIncomplete, it.InstanceType, it.Zone)
	}
	o.status[chargeType] = it
	p := it.Price
	switch chargeType {
	case postpaidByHour, spotPaid:
		if chargeType == postpaidByHour {
			if d, ok := onDemandPrice(p); ok {
				o.onDemand = decimal.NewNullDecimal(d)
			}
		} else if d, ok := p.UnitPriceDiscount.positive(); ok {
			o.spot = decimal.NewNullDecimal(d)
		}
	case prepaid:
		if d, ok := p.DiscountPrice.positive(); ok {
			o.terms["1m"] = d
		}
		if d, ok := p.DiscountPriceOneYear.positive(); ok {
			o.terms["1y"] = d
		}
		if d, ok := p.DiscountPriceThreeYear.positive(); ok {
			o.terms["3y"] = d
		}
	}
	return true, nil
}

// onDemandPrice is what a POSTPAID_BY_HOUR row charges: the discounted
// price, or the list price UnitPrice when the row carries no discounted
// one (absent or null, a shape reported by users of Tencent's Python SDK):
// with no discount the list price is what is billed. A discounted price of
// 0 beside a positive list price reads the same way, since CVM writes 0
// for "does not apply". Spot rows never fall back: their UnitPrice is the
// on-demand list price.
func onDemandPrice(p itemPrice) (decimal.Decimal, bool) {
	if d, ok := p.UnitPriceDiscount.positive(); ok {
		return d, true
	}
	return p.UnitPrice.positive()
}

// hardware reads a row's GPU figures, preferring the API's own counts. It
// reports false for types without a GPU.
func (f *Fetcher) hardware(it quotaItem) (pricewatch.Hardware, bool) {
	family := familyOf(it.InstanceFamily, it.InstanceType)
	g, known := lookupGPU(family)
	var count float64
	switch {
	case it.GpuCount.Set && it.GpuCount.Dec.IsPositive():
		count = it.GpuCount.float()
	case it.Gpu.Set && it.Gpu.Dec.IsPositive():
		count = it.Gpu.float()
	case !it.GpuCount.Set && !it.Gpu.Set && known:
		// Neither field in the response (an older API shape): the table.
		count = g.Counts[it.InstanceType]
	}
	if count <= 0 {
		return pricewatch.Hardware{}, false
	}
	hw := pricewatch.Hardware{GPUCount: count, VCPUs: int(it.Cpu.Dec.IntPart()), MemoryGB: it.Memory.float()}
	if !known {
		f.warnUnknownFamily(family, it.InstanceType)
		return hw, true
	}
	// Through the one resolver, so the table cannot drift from the
	// catalogue's names; M40/S7150 stay as written (not catalogued).
	hw.GPUModel = gpu.Resolve(g.Model, gpu.Hint{MemoryGB: g.MemoryGB}).Name()
	hw.GPUMemoryGB = g.MemoryGB
	if count < 1 {
		// A vGPU slice gets the same share of the card's memory.
		hw.GPUMemoryGB = g.MemoryGB * count
	}
	return hw, true
}

func (f *Fetcher) warnUnknownFamily(family, instanceType string) {
	if _, seen := f.unknownFamilies.LoadOrStore(family, true); !seen {
		f.log.Warn("GPU family not in the table; its GPU model is unknown (add it to fetchers/tencent/gpus.go)",
			zap.String("family", family), zap.String("instance_type", instanceType))
	}
}

// inquiry is one prepaid total to ask for.
type inquiry struct {
	rd   *regionData
	obs  *observed
	term string
}

// inquireTerms asks InquiryPriceRunInstances for the one- and three-year
// totals the listings left out, for types on sale, within the run's budget.
// It returns the number of inquiries made.
func (f *Fetcher) inquireTerms(ctx context.Context, data []*regionData) (int, error) {
	var todo []inquiry
	for _, rd := range data {
		for _, o := range sortedObserved(rd) {
			row, ok := o.status[prepaid]
			if !ok || row.Status != "SELL" {
				// Not sold prepaid here now: there is no price to ask for.
				continue
			}
			for _, term := range []string{"1y", "3y"} {
				if _, have := o.terms[term]; !have {
					todo = append(todo, inquiry{rd: rd, obs: o, term: term})
				}
			}
		}
	}
	if len(todo) > f.cfg.MaxPriceCalls {
		left := todo[f.cfg.MaxPriceCalls:]
		todo = todo[:f.cfg.MaxPriceCalls]
		short := map[string]bool{}
		for _, q := range left {
			q.rd.reservedComplete = false
			short[q.rd.region] = true
		}
		f.log.Warn("max_price_calls reached: some one- and three-year prepaid prices were not asked this run; reserved prices in these regions are not marked complete",
			zap.Int("needed", len(todo)+len(left)), zap.Int("max_price_calls", f.cfg.MaxPriceCalls),
			zap.Strings("regions", slices.Sorted(maps.Keys(short))))
	}
	if len(todo) == 0 {
		return 0, nil
	}
	// The one- and three-year totals are optional: a region whose image
	// look-up or inquiry fails keeps the prices its listings gave, and only
	// its reserved prices are not declared complete (so nothing stored is
	// closed for lack of them). Only a cancelled run fails here.
	var failed optionalFailures
	images, err := f.images(ctx, todo, &failed)
	if err != nil {
		return 0, err
	}
	var jobs []func(context.Context) error
	for _, q := range todo {
		image, ok := images[q.rd.region]
		if !ok {
			continue
		}
		jobs = append(jobs, func(ctx context.Context) error {
			err := f.inquire(ctx, q, image)
			if err == nil || ctx.Err() != nil {
				return err
			}
			failed.add(q.rd, "InquiryPriceRunInstances", err)
			return nil
		})
	}
	if err := fetchers.Bounded(ctx, f.cfg.Concurrency, jobs); err != nil {
		return 0, err
	}
	failed.warn(f.log)
	return len(jobs), nil
}

// optionalFailures counts the optional calls (image look-ups, prepaid
// inquiries) that failed in a run, per region, for one warning at its end.
type optionalFailures struct {
	mu      sync.Mutex
	regions map[string]int
	first   map[string]string // action → its first error
	n       int
}

// add records a failure and takes the region's reserved prices out of its
// coverage.
func (o *optionalFailures) add(rd *regionData, action string, err error) {
	rd.mu.Lock()
	rd.reservedComplete = false
	rd.mu.Unlock()
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.regions == nil {
		o.regions, o.first = map[string]int{}, map[string]string{}
	}
	o.regions[rd.region]++
	o.n++
	if _, ok := o.first[action]; !ok {
		o.first[action] = err.Error()
	}
}

func (o *optionalFailures) warn(log *zap.Logger) {
	if o.n == 0 {
		return
	}
	fields := []zap.Field{zap.Int("failed_calls", o.n), zap.Strings("regions", slices.Sorted(maps.Keys(o.regions)))}
	for _, action := range slices.Sorted(maps.Keys(o.first)) {
		fields = append(fields, zap.String("first_"+action+"_error", o.first[action]))
	}
	log.Warn("some one- and three-year prepaid prices could not be asked; the other prices are stored and reserved prices in these regions are not marked complete", fields...)
}

// images returns the image to quote per region that needs inquiries: the
// configured one, or a public Linux image found once per region. A region
// whose look-up failed is missing from the map (recorded in failed).
func (f *Fetcher) images(ctx context.Context, todo []inquiry, failed *optionalFailures) (map[string]string, error) {
	images := map[string]string{}
	var regions []*regionData
	for _, q := range todo {
		if _, ok := images[q.rd.region]; !ok {
			images[q.rd.region] = f.cfg.ImageID
			regions = append(regions, q.rd)
		}
	}
	if f.cfg.ImageID != "" {
		return images, nil
	}
	var mu sync.Mutex
	jobs := make([]func(context.Context) error, len(regions))
	for i, rd := range regions {
		jobs[i] = func(ctx context.Context) error {
			id, err := f.publicLinuxImage(ctx, rd.region)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				delete(images, rd.region)
				if ctx.Err() != nil {
					return err
				}
				failed.add(rd, "DescribeImages", err)
				return nil
			}
			images[rd.region] = id
			return nil
		}
	}
	return images, fetchers.Bounded(ctx, f.cfg.Concurrency, jobs)
}

func (f *Fetcher) publicLinuxImage(ctx context.Context, region string) (string, error) {
	req := describeImagesRequest{Filters: []filter{{Name: "image-type", Values: []string{"PUBLIC_IMAGE"}}}, Limit: 100}
	var out describeImagesResponse
	if err := f.api.call(ctx, region, "DescribeImages", req, &out); err != nil {
		return "", fmt.Errorf("finding an image to price prepaid terms with: %w", err)
	}
	if out.ImageSet == nil {
		return "", fmt.Errorf("DescribeImages in %s: %w: no ImageSet", region, fetchers.ErrIncomplete)
	}
	for _, im := range *out.ImageSet {
		windows := strings.Contains(strings.ToLower(im.Platform+" "+im.OsName), "windows")
		if im.ImageId != "" && !windows && (im.ImageState == "" || im.ImageState == "NORMAL") &&
			(im.Architecture == "" || im.Architecture == "x86_64") {
			return im.ImageId, nil
		}
	}
	return "", fmt.Errorf("DescribeImages in %s lists no public Linux image to price prepaid terms with; set providers.tencent.image_id", region)
}

// inquire asks for one prepaid total and records it.
func (f *Fetcher) inquire(ctx context.Context, q inquiry, imageID string) error {
	k := q.obs.key
	req := inquiryRequest{
		Placement: placement{Zone: k.Zone}, ImageId: imageID,
		InstanceChargeType:    prepaid,
		InstanceChargePrepaid: &instanceChargePrepaid{Period: termMonths[q.term], RenewFlag: "NOTIFY_AND_MANUAL_RENEW"},
		InstanceType:          k.Type, InstanceCount: 1,
	}
	var out inquiryResponse
	err := f.api.call(ctx, k.Region, "InquiryPriceRunInstances", req, &out)
	if isSoldOut(err) {
		// Sold out since the listing: nothing to price, not a failure.
		f.log.Info("prepaid term not priced: sold out", zap.String("zone", k.Zone), zap.String("instance_type", k.Type), zap.String("term", q.term), zap.Error(err))
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s %s prepaid %s: %w", k.Zone, k.Type, q.term, err)
	}
	if out.Price == nil || out.Price.InstancePrice == nil {
		return fmt.Errorf("InquiryPriceRunInstances %s %s: %w: no Price.InstancePrice", k.Zone, k.Type, fetchers.ErrIncomplete)
	}
	p := out.Price.InstancePrice
	// DiscountPrice is the total for the Period asked; the term fields are
	// read in case a response fills those instead.
	total, ok := p.DiscountPrice.positive()
	if !ok {
		if q.term == "1y" {
			total, ok = p.DiscountPriceOneYear.positive()
		} else {
			total, ok = p.DiscountPriceThreeYear.positive()
		}
	}
	if !ok {
		f.log.Warn("prepaid term has no price", zap.String("zone", k.Zone), zap.String("instance_type", k.Type), zap.String("term", q.term))
		return nil
	}
	q.rd.mu.Lock()
	defer q.rd.mu.Unlock()
	if month, ok := q.obs.terms["1m"]; ok && total.LessThan(month) {
		// A total below one month's price is not a term total (a per-month
		// figure, say): storing it would read as a price collapse.
		return fmt.Errorf("InquiryPriceRunInstances %s %s %s: %w: total %s is below one month's price %s",
			k.Zone, k.Type, q.term, fetchers.ErrIncomplete, total, month)
	}
	q.obs.terms[q.term] = total
	return nil
}

// assemble turns the observations into the snapshot.
func (f *Fetcher) assemble(data []*regionData) *pricewatch.Snapshot {
	snap := &pricewatch.Snapshot{Provider: pricewatch.Tencent, SourceVersion: "cvm " + cvmVersion}
	for _, rd := range data {
		scope := pricewatch.Scope{Region: rd.region, Availability: true}
		if !rd.reservedComplete {
			scope.PriceTypes = []pricewatch.PriceType{pricewatch.OnDemand, pricewatch.Spot}
		}
		snap.Coverage = append(snap.Coverage, scope)
		for _, o := range sortedObserved(rd) {
			snap.Availability = append(snap.Availability, availability(o))
			snap.Offers = append(snap.Offers, f.offers(o)...)
		}
	}
	return snap
}

func (f *Fetcher) offers(o *observed) []pricewatch.Offer {
	base := pricewatch.Offer{
		Provider: pricewatch.Tencent, Region: o.key.Region, Zone: o.key.Zone, InstanceType: o.key.Type,
		OS: pricewatch.Linux, Currency: f.cfg.Currency, Hardware: o.hw,
	}
	var out []pricewatch.Offer
	if o.onDemand.Valid {
		of := base
		of.PriceType, of.Hourly = pricewatch.OnDemand, o.onDemand.Decimal
		out = append(out, of)
	}
	if o.spot.Valid {
		of := base
		of.PriceType, of.Hourly = pricewatch.Spot, o.spot.Decimal
		out = append(out, of)
	}
	for _, term := range []string{"1m", "1y", "3y"} {
		total, ok := o.terms[term]
		if !ok {
			continue
		}
		of := base
		// Prepaid is paid in full at purchase; the root package spreads it
		// over the term's hours for the effective hourly rate.
		of.PriceType, of.Term, of.Payment, of.Upfront = pricewatch.Reserved, term, pricewatch.AllUpfront, total
		out = append(out, of)
	}
	return out
}

// availability merges the charge types' sale status: the type can be bought
// in the zone if any charge type sells it. The detail is the first stock
// category given, in charge-type preference order, among the rows that
// decided the state (older responses have no StatusCategory).
func availability(o *observed) pricewatch.Availability {
	a := pricewatch.Availability{
		Provider: pricewatch.Tencent, Region: o.key.Region, Zone: o.key.Zone, InstanceType: o.key.Type,
		State: pricewatch.SoldOut, Hardware: o.hw,
	}
	for _, it := range o.status {
		if it.Status == "SELL" {
			a.State = pricewatch.InStock
		}
	}
	for _, ct := range chargeTypes {
		it, ok := o.status[ct]
		if !ok || (it.Status == "SELL") != (a.State == pricewatch.InStock) {
			continue
		}
		if a.StockDetail = it.StatusCategory; a.StockDetail != "" {
			break
		}
	}
	if a.StockDetail == "" && a.State == pricewatch.SoldOut {
		for _, ct := range chargeTypes {
			if it, ok := o.status[ct]; ok && it.SoldOutReason != "" {
				a.StockDetail = it.SoldOutReason
				break
			}
		}
	}
	return a
}

func sortedObserved(rd *regionData) []*observed {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	out := make([]*observed, 0, len(rd.types))
	for _, o := range rd.types {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].key, out[j].key
		if a.Zone != b.Zone {
			return a.Zone < b.Zone
		}
		return a.Type < b.Type
	})
	return out
}
