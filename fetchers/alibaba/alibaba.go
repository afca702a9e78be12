// Package alibaba fetches Alibaba Cloud ECS GPU prices and per-zone stock
// through the signed ECS API (version 2014-05-26).
//
// One run, per configured region:
//
//   - DescribeInstanceTypes (once per run; the list is global) pages through
//     every type with GPUAmount > 0 using NextToken;
//   - DescribeAvailableResource says, per zone, which of those types are
//     sold there and whether they are in stock (Status Available/SoldOut,
//     StatusCategory WithStock/ClosedWithStock/WithoutStock/ClosedWithoutStock);
//   - DescribePrice quotes each type pay-as-you-go per hour and as a 1-month,
//     1-year and 3-year subscription (four calls per type);
//   - DescribeSpotPriceHistory gives the latest spot price per zone.
//
// Pay-as-you-go and subscription prices are regional: DescribePrice is asked
// without ZoneId and the offers carry no zone. Alibaba documents that only
// spot prices vary by zone, so spot offers carry their zone, and stock is
// recorded per zone as availability. A subscription is paid in full up
// front, so it becomes a reserved all-upfront offer whose Upfront is the
// TradePrice for the whole term; the root package spreads it over 730 or
// 8,760 hours for the effective hourly rate.
//
// Prices are read from the raw JSON as exact decimals in the currency the
// response names (CNY for China-site accounts, USD for international ones).
//
// Without an AccessKey the provider reads Alibaba's public price file
// instead (PublicFetcher, pricefile.go): list prices, no stock.
package alibaba

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"
	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/gpu"
	"github.com/pricewatch/pricewatch/section"
)

// Environment variables the Alibaba Cloud CLI and SDKs read.
const (
	EnvAccessKeyID     = "ALIBABA_CLOUD_ACCESS_KEY_ID"
	EnvAccessKeySecret = "ALIBABA_CLOUD_ACCESS_KEY_SECRET"
)

// Defaults for the per-run bounds.
const (
	DefaultMaxPriceCalls = 2000
	DefaultConcurrency   = 4
)

// state is what the fetcher keeps between runs (Snapshot.State), at shape
// version stateVersion.
type state struct {
	// NextRegion is where the next run starts when max_price_calls did not
	// stretch to every region ("" when the last run reached them all).
	NextRegion string `json:"next_region"`
}

const stateVersion = 1

// Config is what the fetcher needs from providers.alibaba.
type Config struct {
	// Endpoint, a URL such as http://127.0.0.1:8080, replaces the ECS API
	// host for every region. Empty means the real regional endpoints.
	Endpoint string
	// Regions to fetch; empty means every region DescribeRegions lists.
	Regions []string
	// AccessKeyID and AccessKeySecret sign every call (see CredentialsFrom).
	AccessKeyID, AccessKeySecret section.Secret
	// MaxPriceCalls bounds DescribePrice calls per run (0: DefaultMaxPriceCalls).
	// A region whose calls do not fit is left for the next run, which starts
	// with it; the snapshot's coverage lists only the regions fetched.
	MaxPriceCalls int
	// Concurrency bounds the DescribePrice and DescribeSpotPriceHistory
	// calls in flight (0: DefaultConcurrency).
	Concurrency int
	// Retry is the back-off for throttled, failed or unreachable calls;
	// the zero value means fetchers.DefaultRetryPolicy.
	Retry fetchers.RetryPolicy
}

// Section is providers.alibaba: ECS called with signed requests.
type Section struct {
	section.Common      `yaml:",inline"`
	AccessKeyIDFile     string `yaml:"access_key_id_file"`
	AccessKeySecretFile string `yaml:"access_key_secret_file"`
	MaxPriceCalls       int    `yaml:"max_price_calls"`
	Concurrency         int    `yaml:"concurrency"`
	// PriceFiles are the public price files read when no AccessKey is
	// set (see PublicConfig.Files); empty: the current ones.
	PriceFiles []string `yaml:"price_files"`
}

// Validate checks the keys beyond the shared ones.
func (s *Section) Validate(k section.Checker) error {
	return errors.Join(k.Between("concurrency", s.Concurrency, 1, section.MaxConcurrency),
		k.Between("max_price_calls", s.MaxPriceCalls, 1, section.MaxPriceCalls),
		s.SecretFiles(k, "access_key_id_file", s.AccessKeyIDFile, "access_key_secret_file", s.AccessKeySecretFile),
		checkURLs(k, "price_files", s.PriceFiles))
}

// checkURLs checks a list of http(s) URLs, naming the entry refused.
func checkURLs(k section.Checker, key string, list []string) error {
	var errs []error
	for i, v := range list {
		errs = append(errs, k.URL(fmt.Sprintf("%s[%d]", key, i), v))
	}
	return errors.Join(errs...)
}

// Provider registers Alibaba Cloud (see package providers).
var Provider = fetchers.Provider{
	Name: pricewatch.Alibaba,
	Section: func() section.Section {
		return &Section{
			Common: section.Common{Enabled: true, Regions: []string{"cn-hangzhou", "cn-shanghai", "cn-beijing", "ap-southeast-1"},
				Schedule: "25 * * * *", Timeout: 30 * time.Minute},
			MaxPriceCalls: DefaultMaxPriceCalls, Concurrency: DefaultConcurrency,
		}
	},
	Build: fetchers.Builder(func(s *Section, env fetchers.Env) (fetchers.Fetcher, error) {
		id, secret, err := CredentialsFrom(s.AccessKeyIDFile, s.AccessKeySecretFile)
		if errors.Is(err, fetchers.ErrNoCredentials) && id.Empty() && secret.Empty() {
			// No key at all (half a pair is a mistake, reported as one):
			// the public price file, which needs none.
			return NewPublic(PublicConfig{Files: s.PriceFiles, Regions: s.Regions}, env.Client, env.Log)
		}
		if err != nil {
			return nil, err
		}
		env.Secrets(id, secret)
		return New(Config{Endpoint: s.Endpoint, Regions: s.Regions, AccessKeyID: id, AccessKeySecret: secret,
			MaxPriceCalls: s.MaxPriceCalls, Concurrency: s.Concurrency}, env.Log)
	}),
}

// Fetcher implements fetchers.Fetcher for Alibaba Cloud.
type Fetcher struct {
	cfg Config
	rpc *rpcClient
	log *zap.Logger
	now func() time.Time
}

var _ fetchers.Fetcher = (*Fetcher)(nil)

// CredentialsFrom resolves the AccessKey pair: the environment variables
// ALIBABA_CLOUD_ACCESS_KEY_ID and ALIBABA_CLOUD_ACCESS_KEY_SECRET first,
// then the files named by providers.alibaba.access_key_id_file and
// access_key_secret_file (relative names are looked up in
// $CREDENTIALS_DIRECTORY, so systemd's LoadCredential works). With neither,
// or only half a pair, the error wraps fetchers.ErrNoCredentials. Errors
// never include a secret.
func CredentialsFrom(idFile, secretFile string) (id, secret section.Secret, err error) {
	id, err = fetchers.ReadKey("alibaba access key ID", EnvAccessKeyID, idFile)
	if err != nil {
		return section.Secret{}, section.Secret{}, err
	}
	secret, err = fetchers.ReadKey("alibaba access key secret", EnvAccessKeySecret, secretFile)
	if err != nil {
		return section.Secret{}, section.Secret{}, err
	}
	switch {
	case id.Empty() && secret.Empty():
		return id, secret, fmt.Errorf("%w: set %s and %s, or providers.alibaba.access_key_id_file and access_key_secret_file", fetchers.ErrNoCredentials, EnvAccessKeyID, EnvAccessKeySecret)
	case id.Empty():
		return id, secret, fmt.Errorf("%w: an AccessKey secret is set but no ID: set %s or providers.alibaba.access_key_id_file", fetchers.ErrNoCredentials, EnvAccessKeyID)
	case secret.Empty():
		return id, secret, fmt.Errorf("%w: an AccessKey ID is set but no secret: set %s or providers.alibaba.access_key_secret_file", fetchers.ErrNoCredentials, EnvAccessKeySecret)
	}
	return id, secret, nil
}

// New checks cfg and returns a Fetcher. Missing credentials give an error
// wrapping fetchers.ErrNoCredentials.
func New(cfg Config, log *zap.Logger) (*Fetcher, error) {
	if cfg.AccessKeyID.Empty() || cfg.AccessKeySecret.Empty() {
		return nil, fmt.Errorf("%w: set %s and %s, or providers.alibaba.access_key_id_file and access_key_secret_file", fetchers.ErrNoCredentials, EnvAccessKeyID, EnvAccessKeySecret)
	}
	var endpoint *url.URL
	if cfg.Endpoint != "" {
		u, err := url.Parse(cfg.Endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
			return nil, fmt.Errorf("providers.alibaba.endpoint %q: want a URL such as https://ecs.aliyuncs.com or http://127.0.0.1:8080, with no path", cfg.Endpoint)
		}
		endpoint = u
	}
	regions, err := fetchers.Distinct(cfg.Regions, strings.TrimSpace, func(_ int, r string) error {
		if r == "" {
			return fmt.Errorf("providers.alibaba.regions: empty region name")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	cfg.Regions = regions
	if cfg.MaxPriceCalls <= 0 {
		cfg.MaxPriceCalls = DefaultMaxPriceCalls
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	if cfg.Retry.MaxAttempts == 0 {
		cfg.Retry = fetchers.DefaultRetryPolicy()
	}
	if log == nil {
		log = zap.NewNop()
	}
	return &Fetcher{
		cfg: cfg,
		rpc: newRPCClient(cfg.AccessKeyID, cfg.AccessKeySecret, endpoint, cfg.Retry),
		log: log.With(zap.String("provider", pricewatch.Alibaba)),
		now: time.Now,
	}, nil
}

// Provider implements fetchers.Fetcher.
func (f *Fetcher) Provider() string { return pricewatch.Alibaba }

// SetSleep replaces the retry back-off sleep (tests record delays instead
// of waiting).
func (f *Fetcher) SetSleep(s func(ctx context.Context, d time.Duration) error) { f.rpc.sleep = s }

// priceOption is one DescribePrice question about a type.
type priceOption struct {
	priceType pricewatch.PriceType
	term      string
	unit      string // PriceUnit
	period    int
}

// priceOptions are the four quotes asked for every type and region.
var priceOptions = []priceOption{
	{pricewatch.OnDemand, "", "Hour", 1},
	{pricewatch.Reserved, "1m", "Month", 1},
	{pricewatch.Reserved, "1y", "Year", 1},
	{pricewatch.Reserved, "3y", "Year", 3},
}

// Codes with which DescribePrice says a price point does not exist (a type
// not sold on subscription, or withdrawn): that quote is left out, as a
// price the cloud does not offer, rather than failing the run.
var noPriceCodes = map[string]bool{
	"PriceNotFound":                         true,
	"InvalidInstanceType.ValueNotSupported": true,
	"InstanceType.Offline":                  true,
}

// gpuType is a GPU instance type from DescribeInstanceTypes.
type gpuType struct {
	id string
	hw pricewatch.Hardware
}

// run holds what one Fetch learns, so nothing is asked twice.
type run struct {
	f     *Fetcher
	types map[string]gpuType

	mu     sync.Mutex
	prices map[priceKey]priceResult
}

type priceKey struct {
	region, instanceType, unit string
	period                     int
}

type priceResult struct {
	price    decimal.Decimal
	currency string
	missing  string // the error code when the price point does not exist
}

// Fetch implements fetchers.Fetcher.
func (f *Fetcher) Fetch(ctx context.Context, prev fetchers.Previous) (*pricewatch.Snapshot, error) {
	start := f.now()
	callsBefore := f.rpc.calls.Load()
	r := &run{f: f, prices: map[priceKey]priceResult{}}

	regions := f.cfg.Regions
	if len(regions) == 0 {
		var err error
		if regions, err = f.describeRegions(ctx); err != nil {
			return nil, err
		}
	}
	types, err := f.describeGPUTypes(ctx, regions[0])
	if err != nil {
		return nil, err
	}
	r.types = types

	snap := &pricewatch.Snapshot{Provider: pricewatch.Alibaba, Versions: map[string]string{}, SourceVersion: "ecs-api " + apiVersion}
	var prevState state
	if _, err := fetchers.DecodeState(prev.State, stateVersion, &prevState); err != nil {
		// Only the rotation is lost: the run starts with the first region.
		f.log.Warn("alibaba: remembered region cursor unreadable; starting with the first region", zap.Error(err))
	}
	budget := f.cfg.MaxPriceCalls
	var deferred []string
	firstNeed := 0
	for _, region := range rotate(regions, prevState.NextRegion) {
		avail, inRegion, err := r.availability(ctx, region)
		if err != nil {
			return nil, err
		}
		need := len(inRegion) * len(priceOptions)
		if need > budget {
			if len(deferred) == 0 {
				firstNeed = need
			}
			deferred = append(deferred, region)
			f.log.Warn("region left for the next run: max_price_calls reached",
				zap.String("region", region), zap.Int("needs", need), zap.Int("left", budget), zap.Int("max_price_calls", f.cfg.MaxPriceCalls))
			continue
		}
		budget -= need
		offers, err := r.regionOffers(ctx, region, inRegion, avail)
		if err != nil {
			return nil, err
		}
		snap.Offers = append(snap.Offers, offers...)
		snap.Availability = append(snap.Availability, avail...)
		snap.Coverage = append(snap.Coverage, pricewatch.Scope{Region: region, Availability: true})
	}
	if len(snap.Coverage) == 0 {
		return nil, fmt.Errorf("alibaba: providers.alibaba.max_price_calls is %d, but region %s alone needs %d DescribePrice calls; raise it", f.cfg.MaxPriceCalls, deferred[0], firstNeed)
	}
	var next state
	if len(deferred) > 0 {
		next.NextRegion = deferred[0]
	}
	if snap.State, err = fetchers.EncodeState(stateVersion, next); err != nil {
		return nil, fmt.Errorf("alibaba: %w", err)
	}
	sortSnapshot(snap)
	if err := snap.Validate(); err != nil {
		return nil, fmt.Errorf("alibaba: %w: %w", fetchers.ErrIncomplete, err)
	}
	f.log.Debug("fetched", zap.Int("regions", len(snap.Coverage)), zap.Int("deferred", len(deferred)),
		zap.Int("offers", len(snap.Offers)), zap.Int("availability", len(snap.Availability)),
		zap.Int64("api_calls", f.rpc.calls.Load()-callsBefore), zap.Duration("took", f.now().Sub(start)))
	return snap, nil
}

// rotate starts the region list at first (when it is in the list), so
// regions left over by a run whose price-call budget ran out go first next
// time.
func rotate(regions []string, first string) []string {
	for i, r := range regions {
		if r == first {
			return append(append([]string{}, regions[i:]...), regions[:i]...)
		}
	}
	return regions
}

func (f *Fetcher) describeRegions(ctx context.Context) ([]string, error) {
	// DescribeRegions answers the same in every region; ask a central one.
	const home = "cn-hangzhou"
	body, err := f.rpc.call(ctx, home, "DescribeRegions", nil)
	if err != nil {
		return nil, fmt.Errorf("alibaba: listing regions: %w", err)
	}
	var resp regionsResponse
	if err := decodeJSON(body, &resp); err != nil {
		return nil, fmt.Errorf("alibaba: DescribeRegions: %w: %v", fetchers.ErrIncomplete, err)
	}
	if resp.Regions == nil || len(resp.Regions.Region) == 0 {
		return nil, fmt.Errorf("alibaba: DescribeRegions: %w: no regions listed", fetchers.ErrIncomplete)
	}
	var out []string
	for _, r := range resp.Regions.Region {
		if r.RegionID == "" {
			return nil, fmt.Errorf("alibaba: DescribeRegions: %w: a region without RegionId", fetchers.ErrIncomplete)
		}
		out = append(out, r.RegionID)
	}
	sort.Strings(out)
	return out, nil
}

// maxTypePages bounds DescribeInstanceTypes paging (100 types a page): far
// above the few hundred types ECS has, low enough to stop a server that
// hands out NextTokens forever.
const maxTypePages = 100

// describeGPUTypes pages through DescribeInstanceTypes for types with at
// least one GPU. The list is global, so it is asked once per run.
func (f *Fetcher) describeGPUTypes(ctx context.Context, region string) (map[string]gpuType, error) {
	out := map[string]gpuType{}
	nonGPU := map[string]int{}
	malformed := map[string]string{}
	page := 0
	err := fetchers.TokenPages("alibaba DescribeInstanceTypes", maxTypePages, func(token string) (string, error) {
		page++
		params := map[string]string{"MinimumGPUAmount": "1", "MaxResults": "100"}
		if token != "" {
			params["NextToken"] = token
		}
		body, err := f.rpc.call(ctx, region, "DescribeInstanceTypes", params)
		if err != nil {
			return "", fmt.Errorf("alibaba: listing GPU instance types (page %d): %w", page, err)
		}
		var resp instanceTypesResponse
		if err := decodeJSON(body, &resp); err != nil {
			return "", fmt.Errorf("alibaba: DescribeInstanceTypes page %d: %w: %v", page, fetchers.ErrIncomplete, err)
		}
		if resp.InstanceTypes == nil {
			return "", fmt.Errorf("alibaba: DescribeInstanceTypes page %d: %w: no InstanceTypes", page, fetchers.ErrIncomplete)
		}
		for _, it := range resp.InstanceTypes.InstanceType {
			hw, kind, err := hardware(it)
			switch {
			case it.InstanceTypeID == "":
				malformed[fmt.Sprintf("page %d: a type without InstanceTypeId", page)] = ""
				continue
			case err != nil:
				// One odd row never fails the run: the other types are read.
				malformed[it.InstanceTypeID] = err.Error()
				continue
			}
			// FPGAs (f1/f3/f5), NPUs (ebman1, gp7, ebmgp7) and transcoders
			// (video-trans) come back with GPUAmount > 0 too; they are no
			// GPU offers.
			if kind != gpu.KindGPU {
				nonGPU[string(kind)]++
				continue
			}
			// MinimumGPUAmount filters on the server, but a type the
			// server lists without a GPU is no GPU offer.
			if hw.GPUCount <= 0 {
				continue
			}
			out[it.InstanceTypeID] = gpuType{id: it.InstanceTypeID, hw: hw}
		}
		return resp.NextToken, nil
	})
	if err != nil {
		return nil, err
	}
	if len(malformed) > 0 {
		f.log.Warn("alibaba: instance types unreadable; left out, the others are read", zap.Int("malformed", len(malformed)), zap.Any("types", malformed))
	}
	if len(out) == 0 {
		// ECS always has GPU types; none means a broken answer, not a
		// cloud that stopped selling GPUs.
		return nil, fmt.Errorf("alibaba: DescribeInstanceTypes: %w: no type with GPUAmount > 0", fetchers.ErrIncomplete)
	}
	if len(nonGPU) > 0 {
		f.log.Debug("alibaba: accelerators that are not GPUs left out", zap.Any("types_by_kind", nonGPU))
	}
	return out, nil
}

// availability reads per-zone stock of the GPU types in a region. It
// returns the records and the GPU types sold in at least one zone.
func (r *run) availability(ctx context.Context, region string) ([]pricewatch.Availability, []string, error) {
	body, err := r.f.rpc.call(ctx, region, "DescribeAvailableResource", map[string]string{
		"RegionId":            region,
		"DestinationResource": "InstanceType",
		"InstanceChargeType":  "PostPaid",
	})
	if err != nil {
		return nil, nil, fmt.Errorf("alibaba: reading stock in %s: %w", region, err)
	}
	var resp availableResourceResponse
	if err := decodeJSON(body, &resp); err != nil {
		return nil, nil, fmt.Errorf("alibaba: DescribeAvailableResource in %s: %w: %v", region, fetchers.ErrIncomplete, err)
	}
	if resp.AvailableZones == nil || len(resp.AvailableZones.AvailableZone) == 0 {
		// Every region has zones selling some type; an empty list is a
		// broken answer, never "everything was withdrawn".
		return nil, nil, fmt.Errorf("alibaba: DescribeAvailableResource in %s: %w: no zones listed", region, fetchers.ErrIncomplete)
	}
	var out []pricewatch.Availability
	seen := map[pricewatch.AvailabilityKey]bool{}
	inRegion := map[string]bool{}
	for _, z := range resp.AvailableZones.AvailableZone {
		if z.ZoneID == "" {
			return nil, nil, fmt.Errorf("alibaba: DescribeAvailableResource in %s: %w: a zone without ZoneId", region, fetchers.ErrIncomplete)
		}
		if z.RegionID != "" && z.RegionID != region {
			return nil, nil, fmt.Errorf("alibaba: DescribeAvailableResource in %s: %w: zone %s belongs to %s", region, fetchers.ErrIncomplete, z.ZoneID, z.RegionID)
		}
		zoneState, err := stockState(z.Status)
		if err != nil {
			return nil, nil, fmt.Errorf("alibaba: DescribeAvailableResource in %s, zone %s: %w: %v", region, z.ZoneID, fetchers.ErrIncomplete, err)
		}
		for _, res := range z.AvailableResources.AvailableResource {
			if res.Type != "InstanceType" {
				continue
			}
			for _, s := range res.SupportedResources.SupportedResource {
				t, ok := r.types[s.Value]
				if !ok {
					continue // not a GPU type
				}
				state, err := stockState(s.Status)
				if err != nil {
					return nil, nil, fmt.Errorf("alibaba: DescribeAvailableResource in %s, zone %s, %s: %w: %v", region, z.ZoneID, s.Value, fetchers.ErrIncomplete, err)
				}
				detail := s.StatusCategory
				if detail == "" {
					detail = z.StatusCategory
				}
				// A zone that is sold out as a whole has nothing to sell,
				// whatever a type's own line says; its category says why.
				if zoneState == pricewatch.SoldOut {
					state = pricewatch.SoldOut
					if z.StatusCategory != "" {
						detail = z.StatusCategory
					}
				}
				a := pricewatch.Availability{
					Provider: pricewatch.Alibaba, Region: region, Zone: z.ZoneID, InstanceType: s.Value,
					State: state, StockDetail: detail, Hardware: t.hw,
				}
				if seen[a.Key()] {
					continue
				}
				seen[a.Key()] = true
				inRegion[s.Value] = true
				out = append(out, a)
			}
		}
	}
	types := slices.Sorted(maps.Keys(inRegion))
	return out, types, nil
}

func stockState(status string) (pricewatch.AvailabilityState, error) {
	if state, ok := fetchers.AvailableResourceStatus(status); ok {
		return state, nil
	}
	return "", fmt.Errorf("unknown Status %q (want Available or SoldOut)", status)
}

// spotQuote is the latest spot price of a type in a zone.
type spotQuote struct {
	instanceType, zone string
	price              decimal.Decimal
	currency           string // empty when the response names none
}

// regionOffers asks DescribePrice for every GPU type sold in the region and
// DescribeSpotPriceHistory for every zone that sells it, with at most
// Concurrency calls in flight. Any failed call fails the region, and so the
// run.
func (r *run) regionOffers(ctx context.Context, region string, types []string, avail []pricewatch.Availability) ([]pricewatch.Offer, error) {
	type priceJob struct {
		instanceType string
		opt          priceOption
	}
	var jobs []func(context.Context) error
	var mu sync.Mutex
	var spots []spotQuote
	var quoted []priceJob
	for _, t := range types {
		for _, opt := range priceOptions {
			t, opt := t, opt
			quoted = append(quoted, priceJob{t, opt})
			jobs = append(jobs, func(ctx context.Context) error {
				_, err := r.price(ctx, region, t, opt)
				return err
			})
		}
	}
	for _, a := range avail {
		a := a
		jobs = append(jobs, func(ctx context.Context) error {
			q, ok, err := r.spot(ctx, region, a.Zone, a.InstanceType)
			if err != nil || !ok {
				return err
			}
			mu.Lock()
			spots = append(spots, q)
			mu.Unlock()
			return nil
		})
	}
	if err := fetchers.Bounded(ctx, r.f.cfg.Concurrency, jobs); err != nil {
		return nil, err
	}

	var offers []pricewatch.Offer
	currencies := map[string]bool{}
	missing := map[string]int{}
	for _, j := range quoted {
		res, _ := r.price(ctx, region, j.instanceType, j.opt) // cached
		if res.missing != "" {
			missing[res.missing]++
			continue
		}
		if res.price.IsZero() {
			missing["zero TradePrice"]++
			continue
		}
		currencies[res.currency] = true
		o := pricewatch.Offer{
			Provider: pricewatch.Alibaba, Region: region, InstanceType: j.instanceType,
			PriceType: j.opt.priceType, Term: j.opt.term, OS: pricewatch.Linux, Currency: res.currency,
			Hardware: r.types[j.instanceType].hw,
		}
		if j.opt.priceType == pricewatch.Reserved {
			o.Payment = pricewatch.AllUpfront
			o.Upfront = res.price
		} else {
			o.Hourly = res.price
		}
		offers = append(offers, o)
	}
	if len(missing) > 0 {
		fields := []zap.Field{zap.String("region", region)}
		for code, n := range missing {
			fields = append(fields, zap.Int(code, n))
		}
		r.f.log.Info("price points not offered, left out", fields...)
	}
	if len(currencies) > 1 {
		return nil, fmt.Errorf("alibaba: DescribePrice in %s: %w: quotes in several currencies (%s)", region, fetchers.ErrIncomplete, strings.Join(slices.Sorted(maps.Keys(currencies)), ", "))
	}
	account := ""
	for c := range currencies {
		account = c
	}
	for _, q := range spots {
		cur := q.currency
		if cur == "" {
			// The spot history response names no currency in older API
			// revisions; the account's site decides it, and DescribePrice
			// just told us which.
			if account == "" {
				return nil, fmt.Errorf("alibaba: DescribeSpotPriceHistory in %s: %w: no Currency in the response and no DescribePrice quote to take it from", region, fetchers.ErrIncomplete)
			}
			cur = account
		}
		if q.price.IsZero() {
			continue
		}
		offers = append(offers, pricewatch.Offer{
			Provider: pricewatch.Alibaba, Region: region, Zone: q.zone, InstanceType: q.instanceType,
			PriceType: pricewatch.Spot, OS: pricewatch.Linux, Currency: cur, Hourly: q.price,
			Hardware: r.types[q.instanceType].hw,
		})
	}
	return offers, nil
}

// price asks DescribePrice for one type and option, once per run.
func (r *run) price(ctx context.Context, region, instanceType string, opt priceOption) (priceResult, error) {
	key := priceKey{region, instanceType, opt.unit, opt.period}
	r.mu.Lock()
	res, ok := r.prices[key]
	r.mu.Unlock()
	if ok {
		return res, nil
	}
	body, err := r.f.rpc.call(ctx, region, "DescribePrice", map[string]string{
		"RegionId":            region,
		"ResourceType":        "instance",
		"InstanceType":        instanceType,
		"InstanceNetworkType": "vpc",
		"IoOptimized":         "optimized",
		"Platform":            "Linux",
		"PriceUnit":           opt.unit,
		"Period":              strconv.Itoa(opt.period),
	})
	var apiErr *APIError
	switch {
	case errors.As(err, &apiErr) && noPriceCodes[apiErr.Code]:
		res = priceResult{missing: apiErr.Code}
	case err != nil:
		return priceResult{}, fmt.Errorf("alibaba: pricing %s in %s (%s %d): %w", instanceType, region, opt.unit, opt.period, err)
	default:
		var resp priceResponse
		if err := decodeJSON(body, &resp); err != nil {
			return priceResult{}, fmt.Errorf("alibaba: DescribePrice %s in %s (%s %d): %w: %v", instanceType, region, opt.unit, opt.period, fetchers.ErrIncomplete, err)
		}
		p, cur, err := resp.tradePrice()
		if err != nil {
			return priceResult{}, fmt.Errorf("alibaba: DescribePrice %s in %s (%s %d): %w: %v", instanceType, region, opt.unit, opt.period, fetchers.ErrIncomplete, err)
		}
		res = priceResult{price: p, currency: cur}
	}
	r.mu.Lock()
	r.prices[key] = res
	r.mu.Unlock()
	return res, nil
}

// maxSpotPages bounds DescribeSpotPriceHistory paging. The default window
// is the last three hours of one type in one zone: one page in practice.
const maxSpotPages = 20

// spot reads the latest spot price of a type in a zone. ok is false when
// the zone has no spot price history for the type.
func (r *run) spot(ctx context.Context, region, zone, instanceType string) (spotQuote, bool, error) {
	var rows []spotPriceJSON
	currency := ""
	offset := 0
	for page := 1; ; page++ {
		if page > maxSpotPages {
			return spotQuote{}, false, fmt.Errorf("alibaba: DescribeSpotPriceHistory %s in %s: %w: still paging after %d pages", instanceType, zone, fetchers.ErrIncomplete, maxSpotPages)
		}
		params := map[string]string{
			"RegionId":     region,
			"InstanceType": instanceType,
			"ZoneId":       zone,
			"NetworkType":  "vpc",
			"IoOptimized":  "optimized",
			"OSType":       "linux",
		}
		if offset > 0 {
			params["Offset"] = strconv.Itoa(offset)
		}
		body, err := r.f.rpc.call(ctx, region, "DescribeSpotPriceHistory", params)
		if err != nil {
			return spotQuote{}, false, fmt.Errorf("alibaba: spot price of %s in %s: %w", instanceType, zone, err)
		}
		var resp spotHistoryResponse
		if err := decodeJSON(body, &resp); err != nil {
			return spotQuote{}, false, fmt.Errorf("alibaba: DescribeSpotPriceHistory %s in %s: %w: %v", instanceType, zone, fetchers.ErrIncomplete, err)
		}
		if resp.SpotPrices == nil {
			return spotQuote{}, false, fmt.Errorf("alibaba: DescribeSpotPriceHistory %s in %s: %w: no SpotPrices", instanceType, zone, fetchers.ErrIncomplete)
		}
		if resp.Currency != "" {
			currency = resp.Currency
		}
		got := resp.SpotPrices.SpotPriceType
		rows = append(rows, got...)
		// NextOffset is where the next page would start. The service
		// returns one even on the last page (the documented example has
		// one row and NextOffset 1000), so a page shorter than the step
		// is the last.
		next, err := resp.NextOffset.int()
		if err != nil {
			return spotQuote{}, false, fmt.Errorf("alibaba: DescribeSpotPriceHistory %s in %s: %w: NextOffset: %v", instanceType, zone, fetchers.ErrIncomplete, err)
		}
		if !resp.NextOffset.set || next <= offset || len(got) == 0 || len(got) < next-offset {
			break
		}
		offset = next
	}
	var latest *spotPriceJSON
	var latestAt time.Time
	for i := range rows {
		row := &rows[i]
		if row.InstanceType != "" && row.InstanceType != instanceType {
			return spotQuote{}, false, fmt.Errorf("alibaba: DescribeSpotPriceHistory %s in %s: %w: row for %s", instanceType, zone, fetchers.ErrIncomplete, row.InstanceType)
		}
		if row.ZoneID != "" && row.ZoneID != zone {
			return spotQuote{}, false, fmt.Errorf("alibaba: DescribeSpotPriceHistory %s in %s: %w: row for zone %s", instanceType, zone, fetchers.ErrIncomplete, row.ZoneID)
		}
		at, err := time.Parse(time.RFC3339, row.Timestamp)
		if err != nil {
			return spotQuote{}, false, fmt.Errorf("alibaba: DescribeSpotPriceHistory %s in %s: %w: Timestamp %q", instanceType, zone, fetchers.ErrIncomplete, row.Timestamp)
		}
		if latest == nil || at.After(latestAt) {
			latest, latestAt = row, at
		}
	}
	if latest == nil {
		return spotQuote{}, false, nil
	}
	p, err := latest.SpotPrice.price("SpotPrice")
	if err != nil {
		return spotQuote{}, false, fmt.Errorf("alibaba: DescribeSpotPriceHistory %s in %s: %w: %v", instanceType, zone, fetchers.ErrIncomplete, err)
	}
	// The newest Timestamp is the price in effect. Two rows at that same
	// moment with different prices leave nothing to choose by (taking the
	// lower would be a guess): neither is kept this run.
	for i := range rows {
		at, _ := time.Parse(time.RFC3339, rows[i].Timestamp)
		if !at.Equal(latestAt) || &rows[i] == latest {
			continue
		}
		other, err := rows[i].SpotPrice.price("SpotPrice")
		if err != nil {
			return spotQuote{}, false, fmt.Errorf("alibaba: DescribeSpotPriceHistory %s in %s: %w: %v", instanceType, zone, fetchers.ErrIncomplete, err)
		}
		if !other.Equal(p) {
			r.f.log.Warn("two spot prices at the same latest Timestamp, nothing to choose between them; keeping neither this run",
				zap.String("instance_type", instanceType), zap.String("zone", zone), zap.String("timestamp", latest.Timestamp),
				zap.String("price", p.String()), zap.String("other_price", other.String()))
			return spotQuote{}, false, nil
		}
	}
	return spotQuote{instanceType: instanceType, zone: zone, price: p, currency: currency}, true, nil
}

// sortSnapshot orders offers and availability so that snapshots compare
// and print the same from run to run.
func sortSnapshot(s *pricewatch.Snapshot) {
	sort.Slice(s.Offers, func(i, j int) bool { return s.Offers[i].Key().String() < s.Offers[j].Key().String() })
	sort.Slice(s.Availability, func(i, j int) bool {
		a, b := s.Availability[i].Key(), s.Availability[j].Key()
		if a.Region != b.Region {
			return a.Region < b.Region
		}
		if a.Zone != b.Zone {
			return a.Zone < b.Zone
		}
		return a.InstanceType < b.InstanceType
	})
}
