// Package huawei reads Huawei Cloud's GPU ECS flavors (the P, Pi and G
// series: p2s, p2v, p3, pi2, g6, ...) and prices them through its
// documented price inquiry APIs, signed with an AK/SK pair:
//
//   - IAM KeystoneListProjects (GET /v3/projects) gives each region's
//     project ID, which the other calls need;
//   - ECS ListFlavors (GET /v1/{project_id}/cloudservers/flavors) lists a
//     region's flavors, their GPUs (os_extra_specs pci_passthrough:alias
//     or info:gpu:name) and their sell status per availability zone
//     (cond:operation:status, cond:operation:az);
//   - BSS ListOnDemandResourceRatings (POST
//     /v2/bills/ratings/on-demand-resources) prices one hour of each GPU
//     flavor's Linux ECS, stored as on_demand;
//   - BSS ListRateOnPeriodDetail (POST
//     /v2/bills/ratings/period-resources/subscribe-rate) prices one month
//     and one year of it (the yearly/monthly subscription), stored as
//     reserved with term 1m or 1y, paid upfront.
//
// Prices are the official website (list) amounts, not the account's
// discounted ones. Without credentials the provider is skipped, as Lambda
// is without a key. There is no spot price in these APIs.
package huawei

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
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

const (
	// Name is the provider's key.
	Name = pricewatch.Huawei
	// EnvAK and EnvSK hold the access key pair (the official SDKs' names).
	EnvAK = "HUAWEICLOUD_SDK_AK"
	EnvSK = "HUAWEICLOUD_SDK_SK"

	// DefaultEndpoint is the Chinese site's BSS host (prices in CNY); the
	// international site's is https://bss-intl.myhuaweicloud.com (USD).
	DefaultEndpoint = "https://bss.myhuaweicloud.com"
	// DefaultIAMEndpoint is the global IAM host.
	DefaultIAMEndpoint = "https://iam.myhuaweicloud.com"
	// DefaultECSEndpoint is the regional ECS host; {region} is replaced.
	DefaultECSEndpoint = "https://ecs.{region}.myhuaweicloud.com"

	pathProjects = "/v3/projects"
	pathOnDemand = "/v2/bills/ratings/on-demand-resources"
	pathPeriod   = "/v2/bills/ratings/period-resources/subscribe-rate"

	// batchSize is how many flavors one rating request prices (the
	// APIs take up to 100 product_infos).
	batchSize = 100
	// DefaultConcurrency bounds the requests in flight.
	DefaultConcurrency = 2

	// maxProjectPages bounds following IAM's links.next.
	maxProjectPages = 20

	maxBodyBytes = 16 << 20
	bodyTimeout  = 2 * time.Minute

	serviceType  = "hws.service.type.ec2"
	resourceType = "hws.resource.type.vm"
	// usageHour is usage_measure_id 4: the usage_value is in hours.
	usageHour = 4
	// periodMonth and periodYear are period_type 2 and 3.
	periodMonth = 2
	periodYear  = 3
)

// Section is providers.huawei.
type Section struct {
	section.Common `yaml:",inline"`
	AKFile         string `yaml:"ak_file"`
	SKFile         string `yaml:"sk_file"`
	IAMEndpoint    string `yaml:"iam_endpoint"`
	ECSEndpoint    string `yaml:"ecs_endpoint"`
	Concurrency    int    `yaml:"concurrency"`
}

// Validate checks concurrency and the two further endpoints.
func (s *Section) Validate(k section.Checker) error {
	var errs []error
	for key, v := range map[string]string{"iam_endpoint": s.IAMEndpoint, "ecs_endpoint": strings.ReplaceAll(s.ECSEndpoint, "{region}", "region")} {
		if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, k.Errorf(key, "%q: want an http(s) URL", v))
		}
	}
	if err := checkECSTemplate(s.ECSEndpoint); err != nil {
		errs = append(errs, k.Errorf("ecs_endpoint", "%v", err))
	}
	errs = append(errs, k.Between("concurrency", s.Concurrency, 1, section.MaxConcurrency),
		s.SecretFiles(k, "ak_file", s.AKFile, "sk_file", s.SKFile))
	return errors.Join(errs...)
}

// checkECSTemplate wants {region} in ecs_endpoint: ECS answers for its
// own region only, so one host for every region would read one region's
// flavours (or none) as every region's.
func checkECSTemplate(ecs string) error {
	if !strings.Contains(ecs, "{region}") {
		return fmt.Errorf("%q has no {region}: ECS has a host per region (the default is %s)", ecs, DefaultECSEndpoint)
	}
	return nil
}

// Provider registers Huawei Cloud (see package providers).
var Provider = fetchers.Provider{
	Name:  Name,
	Facts: section.Facts{NeedsEndpoint: true},
	Section: func() section.Section {
		return &Section{Common: section.Common{Enabled: true, Endpoint: DefaultEndpoint, Schedule: "55 */6 * * *", Timeout: 20 * time.Minute},
			IAMEndpoint: DefaultIAMEndpoint, ECSEndpoint: DefaultECSEndpoint, Concurrency: DefaultConcurrency}
	},
	Build: fetchers.Builder(func(s *Section, env fetchers.Env) (fetchers.Fetcher, error) {
		ak, sk, err := CredentialsFrom(s.AKFile, s.SKFile)
		if err != nil {
			return nil, err
		}
		env.Secrets(ak, sk)
		return New(Config{Endpoint: s.Endpoint, IAMEndpoint: s.IAMEndpoint, ECSEndpoint: s.ECSEndpoint, Regions: s.Regions,
			AK: ak, SK: sk, Concurrency: s.Concurrency, Now: env.Now}, env.Client, env.Log)
	}),
}

// CredentialsFrom reads the key pair from the environment or the files.
func CredentialsFrom(akFile, skFile string) (ak, sk section.Secret, err error) {
	if ak, err = fetchers.ReadKey("huawei access key (AK)", EnvAK, akFile); err != nil {
		return ak, sk, err
	}
	if sk, err = fetchers.ReadKey("huawei secret key (SK)", EnvSK, skFile); err != nil {
		return ak, sk, err
	}
	if ak.Empty() || sk.Empty() {
		return ak, sk, fmt.Errorf("%w: set %s and %s, or providers.huawei.ak_file and sk_file", fetchers.ErrNoCredentials, EnvAK, EnvSK)
	}
	return ak, sk, nil
}

// Config is what New needs.
type Config struct {
	// Endpoint (BSS), IAMEndpoint and ECSEndpoint ({region} replaced) are
	// base URLs; empty means the defaults.
	Endpoint, IAMEndpoint, ECSEndpoint string
	// Regions to read (region codes such as cn-north-4); empty means every
	// region the account has a project in.
	Regions []string
	// AK and SK sign every request.
	AK, SK section.Secret
	// Concurrency bounds the requests in flight (0: DefaultConcurrency).
	Concurrency int
	// Now is the signing clock; nil means time.Now.
	Now func() time.Time
}

// Fetcher implements fetchers.Fetcher for Huawei Cloud.
type Fetcher struct {
	cfg         Config
	bss, iam    *url.URL
	ecsTemplate string
	client      *fetchers.Client
	log         *zap.Logger
}

var _ fetchers.Fetcher = (*Fetcher)(nil)

// regionCode is a Huawei Cloud region ("cn-north-4", "ap-southeast-1");
// sub-projects ("cn-north-4_dev") and "MOS" are not regions.
var regionCode = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]+$`)

// New checks cfg and returns a Fetcher. Missing keys wrap
// fetchers.ErrNoCredentials.
func New(cfg Config, client *fetchers.Client, log *zap.Logger) (*Fetcher, error) {
	if cfg.AK.Empty() || cfg.SK.Empty() {
		return nil, fmt.Errorf("%w: set %s and %s, or providers.huawei.ak_file and sk_file", fetchers.ErrNoCredentials, EnvAK, EnvSK)
	}
	bss, log, err := fetchers.Endpoint(Name, client, log, cfg.Endpoint, DefaultEndpoint, "")
	if err != nil {
		return nil, err
	}
	iam, _, err := fetchers.Endpoint(Name, client, log, cfg.IAMEndpoint, DefaultIAMEndpoint, "")
	if err != nil {
		return nil, fmt.Errorf("%s: iam_endpoint: %w", Name, err)
	}
	ecs := cfg.ECSEndpoint
	if ecs == "" {
		ecs = DefaultECSEndpoint
	}
	if _, _, err := fetchers.Endpoint(Name, client, log, strings.ReplaceAll(ecs, "{region}", "region"), DefaultECSEndpoint, ""); err != nil {
		return nil, fmt.Errorf("%s: ecs_endpoint: %w", Name, err)
	}
	if err := checkECSTemplate(ecs); err != nil {
		return nil, fmt.Errorf("%s: ecs_endpoint: %w", Name, err)
	}
	cfg.Regions, err = fetchers.Distinct(cfg.Regions, func(r string) string { return strings.ToLower(strings.TrimSpace(r)) }, func(_ int, r string) error {
		if !regionCode.MatchString(r) {
			return fmt.Errorf("%s: providers.%s.regions: %q is not a region code such as cn-north-4", Name, Name, r)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Fetcher{cfg: cfg, bss: bss, iam: iam, ecsTemplate: strings.TrimSuffix(ecs, "/"), client: client, log: log}, nil
}

// Provider returns Name.
func (f *Fetcher) Provider() string { return Name }

// call sends one signed request (body: a JSON document or nil) and decodes
// the 200 answer into v. A refused key wraps fetchers.ErrAuth and names
// where the key comes from, never the key.
func (f *Fetcher) call(ctx context.Context, method string, u *url.URL, body []byte, where, answer string, v any) error {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	resp, err := f.client.Do(rctx, func(ctx context.Context) (*http.Request, error) {
		var r io.Reader
		if body != nil {
			r = strings.NewReader(string(body))
		}
		req, err := http.NewRequestWithContext(ctx, method, u.String(), r)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "application/json")
		if body != nil {
			req.Header.Set("Content-Type", "application/json;charset=UTF-8")
		}
		// Signed per attempt: the signature carries the time.
		sign(req, body, f.cfg.AK, f.cfg.SK, f.cfg.Now())
		return req, nil
	})
	if err != nil {
		var se *fetchers.StatusError
		if errors.As(err, &se) && (se.Status == http.StatusUnauthorized || se.Status == http.StatusForbidden) {
			return fmt.Errorf("%s: %w: the AK/SK was refused (check %s/%s or providers.huawei.ak_file/sk_file): %w", where, fetchers.ErrAuth, EnvAK, EnvSK, err)
		}
		return fmt.Errorf("%s: %w", where, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%w: %s: HTTP %d instead of %s", fetchers.ErrIncomplete, where, resp.StatusCode, answer)
	}
	b, err := fetchers.ReadBody(ctx, cancel, resp.Body, maxBodyBytes, bodyTimeout, where)
	if err != nil {
		return err
	}
	if err := fetchers.DecodeWhole(b, answer, v); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	return nil
}

// project is one IAM project: a region's (or a sub-project's) ID.
type project struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Enabled *bool  `json:"enabled"`
}

// projects maps each region to read to its project ID.
func (f *Fetcher) projects(ctx context.Context) (map[string]string, error) {
	next := *f.iam
	next.Path = strings.TrimSuffix(next.Path, "/") + pathProjects
	out := map[string]string{}
	seen := map[string]bool{}
	// The list is one page in practice; a links.next is followed, within
	// the IAM endpoint's origin and a bounded number of pages.
	for page := 1; ; page++ {
		where := fmt.Sprintf("%s IAM %s page %d", Name, pathProjects, page)
		if page > maxProjectPages || seen[next.String()] {
			return nil, fmt.Errorf("%w: %s: links.next repeats or runs past %d pages", fetchers.ErrIncomplete, where, maxProjectPages)
		}
		seen[next.String()] = true
		var ans struct {
			Projects *[]project `json:"projects"`
			Links    struct {
				Next *string `json:"next"`
			} `json:"links"`
		}
		if err := f.call(ctx, http.MethodGet, &next, nil, where, "the project list", &ans); err != nil {
			return nil, err
		}
		if ans.Projects == nil {
			return nil, fmt.Errorf("%w: %s: no projects list", fetchers.ErrIncomplete, where)
		}
		for _, p := range *ans.Projects {
			if regionCode.MatchString(p.Name) && p.ID != "" && (p.Enabled == nil || *p.Enabled) {
				out[p.Name] = p.ID
			}
		}
		if ans.Links.Next == nil || strings.TrimSpace(*ans.Links.Next) == "" {
			break
		}
		ref, err := url.Parse(strings.TrimSpace(*ans.Links.Next))
		if err != nil {
			return nil, fmt.Errorf("%w: %s: links.next is not a URL", fetchers.ErrIncomplete, where)
		}
		u := next.ResolveReference(ref)
		if err := fetchers.CheckOrigin(f.iam, u, "links.next"); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		next = *u
	}
	if len(f.cfg.Regions) == 0 {
		return out, nil
	}
	picked := map[string]string{}
	for _, r := range f.cfg.Regions {
		id, ok := out[r]
		if !ok {
			return nil, fmt.Errorf("%s: region %s: the account has no project there (IAM %s lists %d regions)", Name, r, pathProjects, len(out))
		}
		picked[r] = id
	}
	return picked, nil
}

// Fetch reads every region's GPU flavors and prices them.
func (f *Fetcher) Fetch(ctx context.Context, _ fetchers.Previous) (*pricewatch.Snapshot, error) {
	projects, err := f.projects(ctx)
	if err != nil {
		return nil, err
	}
	if len(projects) == 0 {
		return nil, fmt.Errorf("%w: %s: IAM lists no region project for this account", fetchers.ErrIncomplete, Name)
	}
	regions := slices.Sorted(func(yield func(string) bool) {
		for r := range projects {
			if !yield(r) {
				return
			}
		}
	})
	results := make([]*regionResult, len(regions))
	jobs := make([]func(context.Context) error, len(regions))
	for i, r := range regions {
		jobs[i] = func(ctx context.Context) error {
			res, err := f.region(ctx, r, projects[r])
			results[i] = res
			return err
		}
	}
	// Regions one at a time; each region bounds its own rating requests.
	if err := fetchers.Bounded(ctx, 1, jobs); err != nil {
		return nil, err
	}
	snap := &pricewatch.Snapshot{Provider: Name, Versions: map[string]string{}}
	skipped := map[string]int{}
	for _, res := range results {
		snap.Offers = append(snap.Offers, res.offers...)
		snap.Availability = append(snap.Availability, res.availability...)
		snap.Coverage = append(snap.Coverage, res.scope)
		for k, n := range res.skipped {
			skipped[k] += n
		}
	}
	if len(snap.Offers) == 0 {
		return nil, fmt.Errorf("%w: %s: not one GPU flavor priced in %d regions: not believed", fetchers.ErrIncomplete, Name, len(regions))
	}
	sort.Slice(snap.Offers, func(i, j int) bool { return snap.Offers[i].Key().String() < snap.Offers[j].Key().String() })
	if err := snap.Validate(); err != nil {
		return nil, fmt.Errorf("%s: built an invalid snapshot: %w", Name, err)
	}
	f.log.Info("huawei prices fetched", zap.Int("regions", len(regions)), zap.Int("offers", len(snap.Offers)),
		zap.Int("availability", len(snap.Availability)), zap.Any("skipped", skipped))
	return snap, nil
}

// flavor is one ECS flavor of ListFlavors.
type flavor struct {
	ID     string          `json:"id"`
	Name   string          `json:"name"`
	VCPUs  json.RawMessage `json:"vcpus"`
	RAM    json.Number     `json:"ram"`
	Extras map[string]any  `json:"os_extra_specs"`
}

func (fl flavor) extra(k string) string {
	v, _ := fl.Extras[k].(string)
	return strings.TrimSpace(v)
}

// gpuFamily: the P (computing), Pi (inference) and G (graphics) series.
var gpuFamily = regexp.MustCompile(`^(p|pi|g)[a-z]*[0-9]+[a-z0-9]*$`)

// Reasons a flavor is left out, counted in the log.
const (
	skipNotGPU      = "not a GPU flavor"
	skipAbandoned   = "withdrawn (abandon) everywhere"
	skipNoGPUInfo   = "GPU flavor without its GPU model and count"
	skipNoPrice     = "no price for the flavor in the answer (stored prices kept)"
	skipZeroPrice   = "price is zero (stored prices kept)"
	skipPriceFailed = "price inquiry refused for the flavor (stored prices kept)"
)

// gpuFlavor is a flavor kept, with its hardware.
type gpuFlavor struct {
	name string
	hw   pricewatch.Hardware
	// zones are the sell status per AZ ("" for the whole region).
	zones map[string]string
}

// regionResult is what one region gave.
type regionResult struct {
	offers       []pricewatch.Offer
	availability []pricewatch.Availability
	scope        pricewatch.Scope
	skipped      map[string]int
}

func (f *Fetcher) region(ctx context.Context, region, projectID string) (*regionResult, error) {
	res := &regionResult{skipped: map[string]int{}}
	base, err := url.Parse(strings.ReplaceAll(f.ecsTemplate, "{region}", region))
	if err != nil {
		return nil, fmt.Errorf("%s %s: ecs_endpoint: %w", Name, region, err)
	}
	u := *base
	u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/" + url.PathEscape(projectID) + "/cloudservers/flavors"
	var ans struct {
		Flavors *[]flavor `json:"flavors"`
	}
	where := Name + " " + region + " ListFlavors"
	if err := f.call(ctx, http.MethodGet, &u, nil, where, "the flavor list", &ans); err != nil {
		return nil, err
	}
	if ans.Flavors == nil {
		return nil, fmt.Errorf("%w: %s: no flavors list", fetchers.ErrIncomplete, where)
	}
	var kept []gpuFlavor
	for _, fl := range *ans.Flavors {
		g, why := gpuFlavorOf(fl)
		if why != "" {
			res.skipped[why]++
			continue
		}
		kept = append(kept, g)
	}
	for _, g := range kept {
		for _, zone := range slices.Sorted(func(yield func(string) bool) {
			for z := range g.zones {
				if !yield(z) {
					return
				}
			}
		}) {
			st := g.zones[zone]
			state := pricewatch.Offered
			if strings.Contains(st, "sellout") {
				state = pricewatch.SoldOut
			}
			res.availability = append(res.availability, pricewatch.Availability{Provider: Name, Region: region, Zone: zone,
				InstanceType: g.name, State: state, StockDetail: st, Hardware: g.hw})
		}
	}
	res.scope = pricewatch.Scope{Region: region, Availability: true}
	doubt := map[pricewatch.PriceType]bool{}
	var mu sync.Mutex
	add := func(o pricewatch.Offer) {
		mu.Lock()
		defer mu.Unlock()
		res.offers = append(res.offers, o)
	}
	skip := func(why string, pt pricewatch.PriceType) {
		mu.Lock()
		defer mu.Unlock()
		res.skipped[why]++
		// A price refused, missing from the answer or zero is not news
		// that the flavor left: its stored prices stay current.
		if why == skipPriceFailed || why == skipNoPrice || why == skipZeroPrice {
			doubt[pt] = true
		}
	}
	var jobs []func(context.Context) error
	for start := 0; start < len(kept); start += batchSize {
		batch := kept[start:min(start+batchSize, len(kept))]
		for _, kind := range []rating{onDemand, monthly, yearly} {
			jobs = append(jobs, func(ctx context.Context) error {
				return f.rate(ctx, region, projectID, kind, batch, add, skip)
			})
		}
	}
	if err := fetchers.Bounded(ctx, f.cfg.Concurrency, jobs); err != nil {
		return nil, err
	}
	for _, pt := range pricewatch.ListedPriceTypes {
		if len(doubt) > 0 && !doubt[pt] {
			res.scope.PriceTypes = append(res.scope.PriceTypes, pt)
		}
	}
	if len(doubt) > 0 && len(res.scope.PriceTypes) == 0 {
		return nil, fmt.Errorf("%w: %s %s: no price type could be read in full", fetchers.ErrIncomplete, Name, region)
	}
	return res, nil
}

// gpuFlavorOf keeps a GPU flavor that is sold somewhere, or says why not.
func gpuFlavorOf(fl flavor) (gpuFlavor, string) {
	name := strings.TrimSpace(fl.Name)
	if name == "" {
		name = strings.TrimSpace(fl.ID)
	}
	family, _, _ := strings.Cut(name, ".")
	if !gpuFamily.MatchString(family) && fl.extra("ecs:performancetype") != "gpu" {
		return gpuFlavor{}, skipNotGPU
	}
	model, count := gpuOf(fl)
	if model == "" || count <= 0 {
		if !gpuFamily.MatchString(family) {
			return gpuFlavor{}, skipNotGPU
		}
		return gpuFlavor{}, skipNoGPUInfo
	}
	zones := sellStatus(fl.extra("cond:operation:status"), fl.extra("cond:operation:az"))
	if len(zones) == 0 {
		return gpuFlavor{}, skipAbandoned
	}
	// The memory per GPU the flavor states ("1 * NVIDIA V100 / 32G") tells
	// memory variants apart and is stored; without it, the resolved
	// model's (an A100 80 GB alias), as GCP's and OVHcloud's are.
	id := gpu.Resolve(model, gpu.Hint{MemoryGB: gpuMemoryOf(fl)})
	hw := pricewatch.Hardware{GPUModel: id.Name(), GPUCount: count, GPUMemoryGB: id.MemoryGB}
	if n, err := strconv.Atoi(strings.Trim(string(fl.VCPUs), `" `)); err == nil {
		hw.VCPUs = n
	}
	if mb, err := fl.RAM.Int64(); err == nil {
		hw.MemoryGB = float64(mb) / 1024
	}
	return gpuFlavor{name: name, hw: hw, zones: zones}, ""
}

// aliasRe is pci_passthrough:alias, "model:count" ("nvidia-t4:1").
var aliasRe = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9_.-]*):([0-9]+)$`)

// gpuSpecsRe is pci_passthrough:gpu_specs of the G series: a passthrough
// GPU is "m60:direct_graphics:1"; a virtual slice ("m60_1q:virt:1") is
// not a whole GPU and is not read as one.
var gpuSpecsRe = regexp.MustCompile(`^([A-Za-z0-9-]+):direct_graphics:([0-9]+)$`)

// gpuOf is the flavor's GPU model and count: from pci_passthrough:alias,
// else a passthrough pci_passthrough:gpu_specs, else info:gpu:name
// ("2 * NVIDIA V100" or a bare model) with the count in quota:gpu.
func gpuOf(fl flavor) (string, float64) {
	if m := aliasRe.FindStringSubmatch(fl.extra("pci_passthrough:alias")); m != nil {
		n, _ := strconv.Atoi(m[2])
		return m[1], float64(n)
	}
	if m := gpuSpecsRe.FindStringSubmatch(fl.extra("pci_passthrough:gpu_specs")); m != nil {
		n, _ := strconv.Atoi(m[2])
		return m[1], float64(n)
	}
	name := fl.extra("info:gpu:name")
	if name == "" {
		return "", 0
	}
	if c, model, ok := strings.Cut(name, "*"); ok {
		if n, err := strconv.Atoi(strings.TrimSpace(c)); err == nil {
			return strings.TrimSpace(model), float64(n)
		}
	}
	if n, err := strconv.Atoi(fl.extra("quota:gpu")); err == nil {
		return name, float64(n)
	}
	return name, 0
}

// gpuMemoryRe is the memory per GPU at the end of info:gpu:name, as
// Huawei writes it: "2 * NVIDIA V100 / 32G", "1 * NVIDIA T4 / 16GB".
var gpuMemoryRe = regexp.MustCompile(`/\s*([0-9]+(?:\.[0-9]+)?)\s*(?:G|GB|GiB)\s*$`)

// gpuMemoryOf is the memory of one GPU that info:gpu:name states, in GB;
// 0 when it states none.
func gpuMemoryOf(fl flavor) float64 {
	m := gpuMemoryRe.FindStringSubmatch(fl.extra("info:gpu:name"))
	if m == nil {
		return 0
	}
	gb, err := strconv.ParseFloat(m[1], 64)
	if err != nil || gb <= 0 {
		return 0
	}
	return gb
}

// sellStatus is the status per AZ: cond:operation:az ("cn-north-4a(normal),
// cn-north-4b(sellout)") where it names a zone, else the region-wide
// cond:operation:status (empty: normal) under zone "". Withdrawn
// (abandon) zones are left out.
func sellStatus(region, azs string) map[string]string {
	if region == "" {
		region = "normal"
	}
	out := map[string]string{}
	for _, part := range strings.Split(azs, ",") {
		part = strings.TrimSpace(part)
		zone, st, ok := strings.Cut(part, "(")
		if !ok || !strings.HasSuffix(st, ")") || strings.TrimSpace(zone) == "" {
			continue
		}
		if st = strings.TrimSuffix(st, ")"); st != "abandon" {
			out[strings.TrimSpace(zone)] = st
		}
	}
	if len(out) == 0 && azs == "" && region != "abandon" {
		out[""] = region
	}
	return out
}

// rating is one kind of price inquiry.
type rating struct {
	pt     pricewatch.PriceType
	term   string
	period int // period_type; 0 for the on-demand inquiry
}

var (
	onDemand = rating{pt: pricewatch.OnDemand}
	monthly  = rating{pt: pricewatch.Reserved, term: "1m", period: periodMonth}
	yearly   = rating{pt: pricewatch.Reserved, term: "1y", period: periodYear}
)

// productInfo is one line of a rating request.
type productInfo struct {
	ID               string `json:"id"`
	CloudServiceType string `json:"cloud_service_type"`
	ResourceType     string `json:"resource_type"`
	ResourceSpec     string `json:"resource_spec"`
	Region           string `json:"region"`
	UsageFactor      string `json:"usage_factor,omitempty"`
	UsageValue       int    `json:"usage_value,omitempty"`
	UsageMeasureID   int    `json:"usage_measure_id,omitempty"`
	PeriodType       int    `json:"period_type,omitempty"`
	PeriodNum        int    `json:"period_num,omitempty"`
	SubscriptionNum  int    `json:"subscription_num"`
}

// productRating is one line of a rating answer.
type productRating struct {
	ID                    string       `json:"id"`
	ProductID             string       `json:"product_id"`
	OfficialWebsiteAmount *json.Number `json:"official_website_amount"`
	MeasureID             *int         `json:"measure_id"`
}

// ratingAnswer holds both answers' shapes: the on-demand one at the top
// level, the period one under official_website_rating_result.
type ratingAnswer struct {
	Currency             string           `json:"currency"`
	MeasureID            *int             `json:"measure_id"`
	ProductRatingResults *[]productRating `json:"product_rating_results"`
	Official             *struct {
		MeasureID            *int             `json:"measure_id"`
		ProductRatingResults *[]productRating `json:"product_rating_results"`
	} `json:"official_website_rating_result"`
}

// rate prices batch with one inquiry. A batch the API refuses (HTTP 400:
// one spec it does not sell that way fails the whole request) is asked
// again flavor by flavor, so that one odd flavor costs only its own price.
func (f *Fetcher) rate(ctx context.Context, region, projectID string, kind rating, batch []gpuFlavor,
	add func(pricewatch.Offer), skip func(string, pricewatch.PriceType)) error {
	err := f.rateOnce(ctx, region, projectID, kind, batch, add, skip)
	var se *fetchers.StatusError
	if err == nil || !errors.As(err, &se) || se.Status != http.StatusBadRequest {
		return err
	}
	if len(batch) == 1 {
		f.log.Warn("huawei price inquiry refused for a flavor; its stored prices stay current", zap.String("region", region),
			zap.String("flavor", batch[0].name), zap.String("price_type", string(kind.pt)), zap.String("term", kind.term), zap.Error(err))
		skip(skipPriceFailed, kind.pt)
		return nil
	}
	for _, g := range batch {
		if err := f.rate(ctx, region, projectID, kind, []gpuFlavor{g}, add, skip); err != nil {
			return err
		}
	}
	return nil
}

func (f *Fetcher) rateOnce(ctx context.Context, region, projectID string, kind rating, batch []gpuFlavor,
	add func(pricewatch.Offer), skip func(string, pricewatch.PriceType)) error {
	infos := make([]productInfo, len(batch))
	for i, g := range batch {
		p := productInfo{ID: strconv.Itoa(i + 1), CloudServiceType: serviceType, ResourceType: resourceType,
			ResourceSpec: g.name + ".linux", Region: region, SubscriptionNum: 1}
		if kind.period == 0 {
			p.UsageFactor, p.UsageValue, p.UsageMeasureID = "Duration", 1, usageHour
		} else {
			p.PeriodType, p.PeriodNum = kind.period, 1
		}
		infos[i] = p
	}
	body, err := json.Marshal(struct {
		ProjectID    string        `json:"project_id"`
		ProductInfos []productInfo `json:"product_infos"`
	}{projectID, infos})
	if err != nil {
		return fmt.Errorf("%s: encoding a rating request: %w", Name, err)
	}
	path, what := pathOnDemand, "ListOnDemandResourceRatings"
	if kind.period != 0 {
		path, what = pathPeriod, "ListRateOnPeriodDetail"
	}
	u := *f.bss
	u.Path = strings.TrimSuffix(u.Path, "/") + path
	where := fmt.Sprintf("%s %s %s", Name, region, what)
	var ans ratingAnswer
	if err := f.call(ctx, http.MethodPost, &u, body, where, "a price inquiry answer", &ans); err != nil {
		return err
	}
	results, measure := ans.ProductRatingResults, ans.MeasureID
	if kind.period != 0 {
		if ans.Official == nil {
			return fmt.Errorf("%w: %s: no official_website_rating_result", fetchers.ErrIncomplete, where)
		}
		results, measure = ans.Official.ProductRatingResults, ans.Official.MeasureID
	}
	if results == nil {
		return fmt.Errorf("%w: %s: no product_rating_results", fetchers.ErrIncomplete, where)
	}
	// The answers leave currency empty for CNY on the Chinese site.
	currency := strings.TrimSpace(ans.Currency)
	if currency == "" {
		currency = "CNY"
	}
	byID := map[string]productRating{}
	for _, r := range *results {
		byID[r.ID] = r
	}
	for i, g := range batch {
		r, ok := byID[strconv.Itoa(i+1)]
		if !ok || r.OfficialWebsiteAmount == nil {
			skip(skipNoPrice, kind.pt)
			continue
		}
		m := measure
		if r.MeasureID != nil {
			m = r.MeasureID
		}
		amount, err := inYuan(*r.OfficialWebsiteAmount, m)
		if err != nil {
			f.log.Warn("huawei price unreadable; the flavor's stored price stays current", zap.String("region", region),
				zap.String("flavor", g.name), zap.String("price_type", string(kind.pt)), zap.Error(err))
			skip(skipPriceFailed, kind.pt)
			continue
		}
		if !amount.IsPositive() {
			skip(skipZeroPrice, kind.pt)
			continue
		}
		o := pricewatch.Offer{Provider: Name, Region: region, InstanceType: g.name, PriceType: kind.pt, OS: pricewatch.Linux,
			Currency: currency, Hardware: g.hw, CloudIDs: pricewatch.CloudIDs{SkuID: strings.TrimSpace(r.ProductID)}}
		if kind.period == 0 {
			// usage_value 1 hour: the amount is one hour's.
			o.Hourly = amount
		} else {
			o.Term, o.Payment, o.Upfront = kind.term, pricewatch.AllUpfront, amount
		}
		add(o)
	}
	return nil
}

// inYuan reads an amount in the unit measure_id names (1 yuan or dollar,
// 2 jiao, 3 fen; absent: 1), exactly.
func inYuan(n json.Number, measure *int) (decimal.Decimal, error) {
	d, err := pricewatch.ParseAmount(n.String())
	if err != nil {
		return decimal.Decimal{}, err
	}
	if d.IsNegative() {
		return decimal.Decimal{}, fmt.Errorf("amount %s is negative", n)
	}
	m := 1
	if measure != nil {
		m = *measure
	}
	switch m {
	case 1:
		return d, nil
	case 2:
		return d.Shift(-1), nil
	case 3:
		return d.Shift(-2), nil
	}
	return decimal.Decimal{}, fmt.Errorf("measure_id %d is not yuan, jiao or fen", m)
}
