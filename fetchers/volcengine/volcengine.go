// Package volcengine reads Volcengine (ByteDance's cloud): its ECS GPU
// instance types (DescribeInstanceTypes) and their stock per zone
// (DescribeAvailableResource) through the signed OpenAPI, ECS version
// 2020-04-01, and its prices from price sheets (package sheet): the
// billing API's price inquiry (QueryPriceForPayAsYouGo) needs product,
// configuration and charge-item codes that no ECS answer gives, so no API
// call prices an instance type (shared/research/neoclouds.md §12).
//
// Field names follow the official Go SDK's generated structs
// (volcengine/volcengine-go-sdk service/ecs); no real answer was found,
// so the fakes' values are made up (volcenginetest/README.md).
package volcengine

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/sheet"
	"github.com/pricewatch/pricewatch/gpu"
	"github.com/pricewatch/pricewatch/section"
)

const (
	// DefaultEndpoint is the OpenAPI host; the region travels in the
	// signature's credential scope, not the host.
	DefaultEndpoint = "https://open.volcengineapi.com"
	// Service and APIVersion are ECS's (the SDK's service_ecs.go).
	Service    = "ecs"
	APIVersion = "2020-04-01"
	// EnvAccessKey and EnvSecretKey are the variables Volcengine's SDKs
	// and Terraform provider read.
	EnvAccessKey = "VOLCENGINE_ACCESS_KEY"
	EnvSecretKey = "VOLCENGINE_SECRET_KEY"
	// Algorithm names the signature scheme in Authorization.
	Algorithm = "HMAC-SHA256"
	// TimeFormat is X-Date's layout.
	TimeFormat = "20060102T150405Z"

	pageSize     = 100
	maxPages     = 200
	maxBodyBytes = 16 << 20
	bodyTimeout  = time.Minute
	contentType  = "application/x-www-form-urlencoded; charset=utf-8"
)

// Section is providers.volcengine.
type Section struct {
	section.Common `yaml:",inline"`
	// AccessKeyFile and SecretKeyFile hold the key pair when the
	// environment variables are not set.
	AccessKeyFile string `yaml:"access_key_file"`
	SecretKeyFile string `yaml:"secret_key_file"`
	// PriceSheets are the sheets (files or URLs) with Volcengine's prices.
	PriceSheets []string `yaml:"price_sheets"`
}

// Validate checks the keys beyond the shared ones.
func (s *Section) Validate(k section.Checker) error {
	return errors.Join(s.SecretFiles(k, "access_key_file", s.AccessKeyFile, "secret_key_file", s.SecretKeyFile),
		sheet.CheckSources(k, "price_sheets", s.PriceSheets))
}

// Provider registers Volcengine (see package providers).
var Provider = fetchers.Provider{
	Name:  pricewatch.Volcengine,
	Facts: section.Facts{NeedsEndpoint: true},
	Section: func() section.Section {
		return &Section{Common: section.Common{Enabled: true, Endpoint: DefaultEndpoint,
			Regions: []string{"cn-beijing", "cn-shanghai", "cn-guangzhou"}, Schedule: "35 * * * *", Timeout: 10 * time.Minute}}
	},
	Build: fetchers.Builder(func(s *Section, env fetchers.Env) (fetchers.Fetcher, error) {
		ak, err := fetchers.ReadKey("volcengine access key", EnvAccessKey, s.AccessKeyFile)
		if err != nil {
			return nil, err
		}
		sk, err := fetchers.ReadKey("volcengine secret key", EnvSecretKey, s.SecretKeyFile)
		if err != nil {
			return nil, err
		}
		env.Secrets(ak, sk)
		f, err := New(Config{Endpoint: s.Endpoint, Regions: s.Regions, AccessKey: ak, SecretKey: sk, PriceSheets: s.PriceSheets}, env.Client, env.Log, env.Now)
		if err != nil {
			return nil, err
		}
		return f, nil
	}),
}

// Config is what New needs.
type Config struct {
	Endpoint             string
	Regions              []string
	AccessKey, SecretKey section.Secret
	PriceSheets          []string
}

// Fetcher reads the GPU types, their stock and the sheets.
type Fetcher struct {
	cfg    Config
	url    *url.URL
	client *fetchers.Client
	log    *zap.Logger
	now    func() time.Time
}

// New checks cfg. Without the key pair the provider is skipped
// (fetchers.ErrNoCredentials).
func New(cfg Config, client *fetchers.Client, log *zap.Logger, now func() time.Time) (*Fetcher, error) {
	if cfg.AccessKey.Empty() || cfg.SecretKey.Empty() {
		return nil, fmt.Errorf("%w: set %s and %s, or providers.volcengine.access_key_file and secret_key_file", fetchers.ErrNoCredentials, EnvAccessKey, EnvSecretKey)
	}
	u, log, err := fetchers.Endpoint(pricewatch.Volcengine, client, log, cfg.Endpoint, DefaultEndpoint, "")
	if err != nil {
		return nil, err
	}
	if cfg.Regions, err = fetchers.Distinct(cfg.Regions, strings.TrimSpace, func(_ int, r string) error {
		if !pricewatch.IsRegionCode(r) {
			return fmt.Errorf("providers.volcengine.regions: %q is not a region code", r)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if len(cfg.Regions) == 0 {
		return nil, fmt.Errorf("providers.volcengine.regions: name at least one region (cn-beijing, cn-shanghai, …)")
	}
	if now == nil {
		now = time.Now
	}
	return &Fetcher{cfg: cfg, url: u, client: client, log: log, now: now}, nil
}

// Provider returns pricewatch.Volcengine.
func (f *Fetcher) Provider() string { return pricewatch.Volcengine }

// Sign sets X-Date, X-Content-Sha256, Host and Authorization on req (a
// request whose body is body) for the key pair in region and service at
// t. The recipe is Volcengine's (its SDKs' base/sign.go): an AWS-style
// canonical request over the method, path, sorted query (spaces as %20),
// the signed headers content-type;host;x-content-sha256;x-date and the
// body's SHA-256; the string to sign "HMAC-SHA256\n<X-Date>\n<date>/<region>/<service>/request\n<hash>";
// the key HMAC-chained from the secret itself (no prefix) over date,
// region, service and "request".
func Sign(req *http.Request, body []byte, ak, sk, region, service string, t time.Time) {
	ts := t.UTC().Format(TimeFormat)
	sum := sha256.Sum256(body)
	payload := hex.EncodeToString(sum[:])
	if req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("X-Date", ts)
	req.Header.Set("X-Content-Sha256", payload)
	host := req.URL.Host
	if h, port, ok := strings.Cut(host, ":"); ok && (port == "80" || port == "443") {
		host = h
	}
	path := req.URL.EscapedPath()
	if path == "" {
		path = "/"
	}
	signed := "content-type;host;x-content-sha256;x-date"
	canonical := strings.Join([]string{req.Method, path, strings.ReplaceAll(req.URL.Query().Encode(), "+", "%20"),
		"content-type:" + strings.TrimSpace(req.Header.Get("Content-Type")) + "\nhost:" + host + "\nx-content-sha256:" + payload + "\nx-date:" + ts + "\n",
		signed, payload}, "\n")
	scope := ts[:8] + "/" + region + "/" + service + "/request"
	h := sha256.Sum256([]byte(canonical))
	toSign := Algorithm + "\n" + ts + "\n" + scope + "\n" + hex.EncodeToString(h[:])
	key := []byte(sk)
	for _, part := range []string{ts[:8], region, service, "request"} {
		key = hmacSHA256(key, part)
	}
	req.Header.Set("Authorization", Algorithm+" Credential="+ak+"/"+scope+", SignedHeaders="+signed+", Signature="+hex.EncodeToString(hmacSHA256(key, toSign)))
}

func hmacSHA256(key []byte, s string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(s))
	return m.Sum(nil)
}

// envelope is every OpenAPI answer: ResponseMetadata (with Error on a
// refusal) and Result.
type envelope struct {
	ResponseMetadata struct {
		RequestID string `json:"RequestId"`
		Error     *struct {
			Code    string `json:"Code"`
			Message string `json:"Message"`
		} `json:"Error"`
	} `json:"ResponseMetadata"`
	Result json.RawMessage `json:"Result"`
}

// authCodes are the error codes that mean the key pair was refused.
var authCodes = []string{"InvalidAccessKey", "SignatureDoesNotMatch", "InvalidCredential", "AccessDenied", "InvalidAuthorization", "MissingAuthenticationToken"}

// call sends one signed GET of action in region and decodes its Result.
func (f *Fetcher) call(ctx context.Context, region, action string, params url.Values, out any) error {
	where := fmt.Sprintf("volcengine %s %s", region, action)
	q := url.Values{"Action": {action}, "Version": {APIVersion}}
	for k, v := range params {
		q[k] = v
	}
	u := *f.url
	u.RawQuery = q.Encode()
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	resp, err := f.client.Do(rctx, func(ctx context.Context) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "application/json")
		// Signed per attempt: X-Date is part of the signature.
		Sign(req, nil, f.cfg.AccessKey.Value(), f.cfg.SecretKey.Value(), region, Service, f.now())
		return req, nil
	})
	var body []byte
	status := 0
	if err == nil {
		defer resp.Body.Close()
		status = resp.StatusCode
		body, err = fetchers.ReadBody(ctx, cancel, resp.Body, maxBodyBytes, bodyTimeout, where)
	} else {
		var se *fetchers.StatusError
		if errors.As(err, &se) && (se.Status == http.StatusUnauthorized || se.Status == http.StatusForbidden) {
			return fmt.Errorf("%s: %w: the key pair was refused (check %s and %s): %w", where, fetchers.ErrAuth, EnvAccessKey, EnvSecretKey, err)
		}
		return fmt.Errorf("%s: %w", where, err)
	}
	if err != nil {
		return err
	}
	var env envelope
	if status == http.StatusOK || (status >= 400 && status < 500) {
		if derr := json.Unmarshal(body, &env); derr == nil && env.ResponseMetadata.Error != nil {
			e := env.ResponseMetadata.Error
			for _, c := range authCodes {
				if strings.HasPrefix(e.Code, c) {
					return fmt.Errorf("%s: %w: %s (check %s and %s)", where, fetchers.ErrAuth, pricewatch.Printable(e.Code), EnvAccessKey, EnvSecretKey)
				}
			}
			return fmt.Errorf("%s: %w: %s: %s", where, fetchers.ErrIncomplete, pricewatch.Printable(e.Code), pricewatch.Printable(e.Message))
		}
	}
	if status != http.StatusOK {
		return fmt.Errorf("%w: %s: HTTP %d", fetchers.ErrIncomplete, where, status)
	}
	if err := fetchers.DecodeWhole(body, "an OpenAPI answer", &env); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	if len(env.Result) == 0 || string(env.Result) == "null" {
		return fmt.Errorf("%w: %s: no Result", fetchers.ErrIncomplete, where)
	}
	if err := json.Unmarshal(env.Result, out); err != nil {
		return fmt.Errorf("%w: %s: Result: %v", fetchers.ErrIncomplete, where, err)
	}
	return nil
}

// instanceTypes is DescribeInstanceTypes' Result (the SDK's
// DescribeInstanceTypesOutput).
type instanceTypes struct {
	InstanceTypes []instanceType `json:"InstanceTypes"`
	NextToken     string         `json:"NextToken"`
}

type instanceType struct {
	InstanceTypeID     string     `json:"InstanceTypeId"`
	InstanceTypeFamily string     `json:"InstanceTypeFamily"`
	Gpu                *gpuInfo   `json:"Gpu"`
	Memory             *size      `json:"Memory"`
	Processor          *processor `json:"Processor"`
}

type gpuInfo struct {
	GpuDevices []gpuDevice `json:"GpuDevices"`
}

type gpuDevice struct {
	Count       *float64 `json:"Count"`
	ProductName string   `json:"ProductName"`
	Memory      *size    `json:"Memory"`
}

type size struct {
	Size *float64 `json:"Size"`
}

type processor struct {
	Cpus *int `json:"Cpus"`
}

// availableResource is DescribeAvailableResource's Result.
type availableResource struct {
	AvailableZones *[]struct {
		RegionID           string `json:"RegionId"`
		ZoneID             string `json:"ZoneId"`
		Status             string `json:"Status"`
		AvailableResources []struct {
			Type               string `json:"Type"`
			SupportedResources []struct {
				Value  string `json:"Value"`
				Status string `json:"Status"`
			} `json:"SupportedResources"`
		} `json:"AvailableResources"`
	} `json:"AvailableZones"`
}

// gpuTypes pages through DescribeInstanceTypes in region and returns the
// GPU types' hardware; odd rows are named in odd.
func (f *Fetcher) gpuTypes(ctx context.Context, region string) (map[string]pricewatch.Hardware, []string, error) {
	out := map[string]pricewatch.Hardware{}
	var odd []string
	err := fetchers.TokenPages(fmt.Sprintf("volcengine %s DescribeInstanceTypes", region), maxPages, func(token string) (string, error) {
		params := url.Values{"MaxResults": {fmt.Sprint(pageSize)}}
		if token != "" {
			params.Set("NextToken", token)
		}
		var page instanceTypes
		if err := f.call(ctx, region, "DescribeInstanceTypes", params, &page); err != nil {
			return "", err
		}
		for _, it := range page.InstanceTypes {
			hw, isGPU, err := hardware(it)
			switch {
			case err != nil:
				odd = append(odd, it.InstanceTypeID+": "+err.Error())
			case isGPU:
				out[it.InstanceTypeID] = hw
			}
		}
		return page.NextToken, nil
	})
	return out, odd, err
}

// hardware reads a type's GPUs. GPU and instance memory sizes are MiB in
// Volcengine's API reference; a type with no GPU device is no GPU type.
func hardware(it instanceType) (pricewatch.Hardware, bool, error) {
	id, g, mem, cpu := it.InstanceTypeID, it.Gpu, it.Memory, it.Processor
	var hw pricewatch.Hardware
	if !pricewatch.IsRegionCode(id) {
		return hw, false, fmt.Errorf("instance type id %q", id)
	}
	if g == nil || len(g.GpuDevices) == 0 {
		return hw, false, nil
	}
	d := g.GpuDevices[0]
	if d.Count == nil || *d.Count <= 0 {
		return hw, false, fmt.Errorf("GPU count missing or not positive")
	}
	hint := gpu.Hint{}
	if d.Memory != nil && d.Memory.Size != nil {
		hint.MemoryGB = *d.Memory.Size / 1024
	}
	idn := gpu.Resolve(d.ProductName, hint)
	if idn.Kind != gpu.KindGPU {
		return hw, false, nil
	}
	hw.GPUModel = idn.Name()
	hw.GPUCount = *d.Count * idn.Fraction
	hw.GPUMemoryGB = idn.MemoryGB
	if hw.GPUMemoryGB <= 0 {
		hw.GPUMemoryGB = hint.MemoryGB
	}
	if mem != nil && mem.Size != nil {
		hw.MemoryGB = *mem.Size / 1024
	}
	if cpu != nil && cpu.Cpus != nil {
		hw.VCPUs = *cpu.Cpus
	}
	return hw, true, nil
}

// Fetch reads every configured region's GPU types and their stock per
// zone, then the sheets; any call failing fails the run.
func (f *Fetcher) Fetch(ctx context.Context, _ fetchers.Previous) (*pricewatch.Snapshot, error) {
	snap := &pricewatch.Snapshot{Provider: pricewatch.Volcengine, SourceVersion: "ecs-api " + APIVersion}
	var odd []string
	for _, region := range f.cfg.Regions {
		types, bad, err := f.gpuTypes(ctx, region)
		if err != nil {
			return nil, err
		}
		odd = append(odd, bad...)
		var res availableResource
		if err := f.call(ctx, region, "DescribeAvailableResource", url.Values{"DestinationResource": {"InstanceType"}}, &res); err != nil {
			return nil, err
		}
		if res.AvailableZones == nil {
			return nil, fmt.Errorf("%w: volcengine %s DescribeAvailableResource: no AvailableZones", fetchers.ErrIncomplete, region)
		}
		complete := true
		for _, z := range *res.AvailableZones {
			if !pricewatch.IsRegionCode(z.ZoneID) {
				odd = append(odd, fmt.Sprintf("zone %q", z.ZoneID))
				complete = false
				continue
			}
			for _, ar := range z.AvailableResources {
				if ar.Type != "InstanceType" {
					continue
				}
				for _, sr := range ar.SupportedResources {
					hw, isGPU := types[sr.Value]
					if !isGPU {
						continue
					}
					// Status as in Alibaba's call of the same layout:
					// Volcengine's own list of values was not found.
					state, ok := fetchers.AvailableResourceStatus(sr.Status)
					if !ok {
						odd = append(odd, fmt.Sprintf("%s in %s: status %q", sr.Value, z.ZoneID, sr.Status))
						complete = false
						continue
					}
					snap.Availability = append(snap.Availability, pricewatch.Availability{Provider: pricewatch.Volcengine, Region: region,
						Zone: z.ZoneID, InstanceType: sr.Value, State: state, StockDetail: sr.Status, Hardware: hw})
				}
			}
		}
		if len(types) == 0 {
			// Every region sells GPUs; none listed is a fault upstream,
			// never "all withdrawn".
			return nil, fmt.Errorf("%w: volcengine %s DescribeInstanceTypes lists no GPU type", fetchers.ErrIncomplete, region)
		}
		// A zone or state that does not read leaves the region's
		// availability not known complete: nothing of it is closed.
		snap.Coverage = append(snap.Coverage, pricewatch.Scope{Region: region, Availability: complete})
	}
	if len(odd) > 0 {
		f.log.Warn("volcengine rows left out; the others are stored", zap.Int("rows", len(odd)), zap.String("first", pricewatch.Printable(odd[0])))
	}
	if len(f.cfg.PriceSheets) > 0 {
		offers, err := sheet.ReadAll(ctx, f.client, f.log, pricewatch.Volcengine, f.cfg.PriceSheets)
		if err != nil {
			return nil, err
		}
		snap.Offers = offers
		snap.SourceVersion += "; price sheets"
		// The sheets are read whole: they describe every price they state.
		snap.Coverage = append(snap.Coverage, pricewatch.Scope{Region: pricewatch.AllRegions})
	}
	sort.Slice(snap.Availability, func(i, j int) bool {
		a, b := snap.Availability[i], snap.Availability[j]
		if a.Region != b.Region {
			return a.Region < b.Region
		}
		if a.Zone != b.Zone {
			return a.Zone < b.Zone
		}
		return a.InstanceType < b.InstanceType
	})
	if err := snap.Validate(); err != nil {
		return nil, fmt.Errorf("volcengine: built an invalid snapshot: %w", err)
	}
	return snap, nil
}
