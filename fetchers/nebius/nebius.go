// Package nebius fetches Nebius AI Cloud's GPU VM prices from its billing
// calculator, over gRPC, with a service account's credentials.
//
// One run: the service account's self-signed JWT is exchanged for an IAM
// token (iam.v1 TokenExchangeService/Exchange); the tenants and their
// projects it sees are listed (TenantService/List, ProjectService/List)
// and one project per region kept, since Nebius ties a project to a
// region; each region's compute platforms and their presets are listed
// (compute.v1 PlatformService/List); every GPU preset is priced by the
// calculator (billing.v1alpha1 CalculatorService/Estimate), on-demand and,
// where the platform allows preemptible VMs, preemptible (stored as spot).
// The price is the whole VM's, per hour, a decimal string; the calculator
// names no currency and Nebius bills in USD. Nebius states no stock or
// capacity: no availability is stored.
//
// The messages are encoded by hand (see wire.go): Nebius's Go SDK is not
// served by the module proxy this project builds from.
package nebius

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"go.uber.org/zap"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/gpu"
	"github.com/pricewatch/pricewatch/section"
)

const (
	// Name is the provider's key.
	Name = pricewatch.Nebius
	// DefaultEndpoint is the API's domain. Each service is at its own
	// host below it, named as Nebius's SDKs name them (the service's
	// api_service_name, then the domain): see the Service* constants.
	DefaultEndpoint = "https://api.nebius.cloud"

	// The hosts' prefixes below the domain (the protos' api_service_name
	// annotations; PlatformService, which has none, is compute's).
	ServiceTokens     = "tokens.iam"
	ServiceIAM        = "cpl.iam"
	ServiceCompute    = "compute"
	ServiceCalculator = "api.calculator.billing-data-plane"

	// EnvCredentials names the environment variable holding the content
	// of a service-account credentials file.
	EnvCredentials = "NEBIUS_CREDENTIALS"

	// currency: the calculator's CostBreakdown carries none; Nebius's
	// price list and bills are in USD.
	currency = "USD"
	// pageSize asks for whole lists at once (gpuhunt asks 999); paging
	// is followed all the same.
	pageSize = 999
	// maxPages bounds a paged list: a server handing out tokens forever
	// fails the run instead of hanging it.
	maxPages = 100
	// maxMessage bounds one answer (platform lists are a few KB).
	maxMessage = 16 << 20
)

// Section is providers.nebius.
type Section struct {
	section.Common `yaml:",inline"`
	// CredentialsFile names the service account's credentials file (the
	// JSON `nebius iam auth-public-key generate` writes), read when
	// NEBIUS_CREDENTIALS is not set.
	CredentialsFile string `yaml:"credentials_file"`
	// The services' own addresses, each an http(s) URL with host and
	// port; empty: the service's host below endpoint. https dials TLS,
	// http plaintext (a local fake).
	TokenEndpoint      string `yaml:"token_endpoint"`
	IAMEndpoint        string `yaml:"iam_endpoint"`
	ComputeEndpoint    string `yaml:"compute_endpoint"`
	CalculatorEndpoint string `yaml:"calculator_endpoint"`
}

// Validate checks the credentials file and the services' addresses.
func (s *Section) Validate(k section.Checker) error {
	errs := []error{s.SecretFiles(k, "credentials_file", s.CredentialsFile)}
	for _, e := range []struct{ key, v string }{{"token_endpoint", s.TokenEndpoint}, {"iam_endpoint", s.IAMEndpoint},
		{"compute_endpoint", s.ComputeEndpoint}, {"calculator_endpoint", s.CalculatorEndpoint}} {
		if e.v != "" {
			errs = append(errs, k.URL(e.key, e.v))
		}
	}
	return errors.Join(errs...)
}

// Provider registers Nebius (see package providers).
var Provider = fetchers.Provider{
	Name:  Name,
	Facts: section.Facts{NeedsEndpoint: true},
	Section: func() section.Section {
		// List prices change rarely; a run is some tens of small calls.
		return &Section{Common: section.Common{Enabled: true, Endpoint: DefaultEndpoint, Schedule: "50 */3 * * *", Timeout: 10 * time.Minute}}
	},
	Build: fetchers.Builder(func(s *Section, env fetchers.Env) (fetchers.Fetcher, error) {
		creds, err := CredentialsFrom(s.CredentialsFile)
		if err != nil {
			return nil, err
		}
		env.Secrets(creds)
		return New(Config{Endpoint: s.Endpoint, TokenEndpoint: s.TokenEndpoint, IAMEndpoint: s.IAMEndpoint,
			ComputeEndpoint: s.ComputeEndpoint, CalculatorEndpoint: s.CalculatorEndpoint, Regions: s.Regions,
			Credentials: creds}, env)
	}),
}

// Config is what New needs.
type Config struct {
	// Endpoint is the API domain as a URL; empty: DefaultEndpoint.
	Endpoint string
	// The services' own addresses (see Section); empty: derived from
	// Endpoint.
	TokenEndpoint, IAMEndpoint, ComputeEndpoint, CalculatorEndpoint string
	// Regions keeps only the projects in these regions; empty: every
	// region the service account has a project in.
	Regions []string
	// Credentials is a service-account credentials file's content.
	Credentials section.Secret
	// DialOptions are added to every connection's (a test's interceptor).
	DialOptions []grpc.DialOption
}

// Fetcher implements fetchers.Fetcher for Nebius.
type Fetcher struct {
	account account
	addr    map[string]target // by service prefix
	regions []string
	client  *fetchers.Client
	log     *zap.Logger
	secrets func(...section.Secret)
	dial    []grpc.DialOption
}

// target is one service's address and whether it is dialled with TLS.
type target struct {
	host string // host:port
	tls  bool
}

// New checks cfg and returns a Fetcher. env.Client's retry policy and
// sleep pace the retries of calls (the calls themselves go through
// gRPC's own HTTP/2 transport); a missing credential wraps
// fetchers.ErrNoCredentials.
func New(cfg Config, env fetchers.Env) (*Fetcher, error) {
	log, err := fetchers.Logger(Name, env.Client, env.Log)
	if err != nil {
		return nil, err
	}
	if cfg.Credentials.Empty() {
		return nil, errNoCredentials
	}
	acct, err := parseCredentials(cfg.Credentials)
	if err != nil {
		return nil, err
	}
	if cfg.Endpoint == "" {
		cfg.Endpoint = DefaultEndpoint
	}
	domain, err := parseTarget("endpoint", cfg.Endpoint)
	if err != nil {
		return nil, err
	}
	f := &Fetcher{account: acct, addr: map[string]target{}, regions: cfg.Regions, client: env.Client, log: log,
		secrets: env.AddSecrets, dial: cfg.DialOptions}
	for _, s := range []struct{ service, key, v string }{{ServiceTokens, "token_endpoint", cfg.TokenEndpoint},
		{ServiceIAM, "iam_endpoint", cfg.IAMEndpoint}, {ServiceCompute, "compute_endpoint", cfg.ComputeEndpoint},
		{ServiceCalculator, "calculator_endpoint", cfg.CalculatorEndpoint}} {
		if s.v == "" {
			f.addr[s.service] = target{host: s.service + "." + domain.host, tls: domain.tls}
			continue
		}
		if f.addr[s.service], err = parseTarget(s.key, s.v); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// parseTarget reads an http(s) URL as a gRPC address: its host and port
// (443 or 80 by default); https dials TLS.
func parseTarget(key, v string) (target, error) {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		return target{}, fmt.Errorf("%s: providers.%s.%s %q: want an http(s) URL of a host (and port), such as %s", Name, Name, key, v, DefaultEndpoint)
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"https": "443", "http": "80"}[u.Scheme]
	}
	return target{host: net.JoinHostPort(u.Hostname(), port), tls: u.Scheme == "https"}, nil
}

// Provider returns Name.
func (f *Fetcher) Provider() string { return Name }

// session is one run's connections and IAM token.
type session struct {
	f     *Fetcher
	conns map[string]*grpc.ClientConn
	token section.Secret
}

func (f *Fetcher) connect() (*session, error) {
	s := &session{f: f, conns: map[string]*grpc.ClientConn{}}
	for service, t := range f.addr {
		creds := insecure.NewCredentials()
		if t.tls {
			creds = credentials.NewTLS(&tls.Config{MinVersion: tls.VersionTLS12})
		}
		opts := append([]grpc.DialOption{grpc.WithTransportCredentials(creds),
			grpc.WithDefaultCallOptions(grpc.ForceCodec(rawCodec{}), grpc.MaxCallRecvMsgSize(maxMessage)),
			grpc.WithUserAgent("pricewatch (+https://github.com/pricewatch/pricewatch)")}, f.dial...)
		// NewClient connects on the first call, not here.
		c, err := grpc.NewClient(t.host, opts...)
		if err != nil {
			s.close()
			return nil, fmt.Errorf("nebius %s (%s): %w", service, t.host, err)
		}
		s.conns[service] = c
	}
	return s, nil
}

func (s *session) close() {
	for _, c := range s.conns {
		c.Close()
	}
}

// Fetch returns the complete snapshot, or an error if the token, the
// project list or a region's platform list was not complete.
func (f *Fetcher) Fetch(ctx context.Context, _ fetchers.Previous) (*pricewatch.Snapshot, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("nebius: %w", err)
	}
	s, err := f.connect()
	if err != nil {
		return nil, err
	}
	defer s.close()
	if err := s.exchange(ctx); err != nil {
		return nil, err
	}
	projects, err := s.projects(ctx)
	if err != nil {
		return nil, err
	}
	snap := &pricewatch.Snapshot{Provider: Name, SourceVersion: "billing/v1alpha1 CalculatorService/Estimate"}
	var malformed []string
	for _, p := range projects {
		plats, odd, err := s.platforms(ctx, p)
		if err != nil {
			return nil, err
		}
		offers, oddPrices, err := s.price(ctx, p, plats)
		if err != nil {
			return nil, err
		}
		snap.Offers = append(snap.Offers, offers...)
		malformed = append(malformed, odd...)
		// A malformed row's good neighbours are stored, but its scope
		// (the region's price type; the whole region for a platform
		// that could not be read) is not claimed complete: a row that
		// failed to read this time keeps its stored price rather than
		// being closed as withdrawn.
		covered := []pricewatch.PriceType{pricewatch.OnDemand, pricewatch.Spot}
		if len(odd) > 0 {
			covered = nil
		}
		for pt, rows := range oddPrices {
			malformed = append(malformed, rows...)
			covered = slices.DeleteFunc(covered, func(c pricewatch.PriceType) bool { return c == pt })
		}
		if len(covered) > 0 {
			snap.Coverage = append(snap.Coverage, pricewatch.Scope{Region: p.region, PriceTypes: covered})
		}
	}
	if len(malformed) > 0 {
		sort.Strings(malformed)
		f.log.Warn("nebius rows malformed; left out, their scopes' other prices stored but not taken as complete",
			zap.Int("malformed", len(malformed)), zap.Strings("rows", malformed))
	}
	if len(snap.Offers) == 0 {
		return nil, fmt.Errorf("%w: nebius: %d projects but not one GPU preset with a price: not believed", fetchers.ErrIncomplete, len(projects))
	}
	if len(snap.Coverage) == 0 {
		return nil, fmt.Errorf("%w: nebius: a malformed row in every region and price type: nothing can be taken as complete", fetchers.ErrIncomplete)
	}
	return fetchers.Done(f.log, "nebius", snap, "nebius prices fetched", zap.Int("regions", len(projects)), zap.Int("offers", len(snap.Offers)))
}

// call makes one unary call, retrying as env.Client's policy says: a rate
// limit (RESOURCE_EXHAUSTED, waiting what its RetryInfo asks), a server
// down for a moment (UNAVAILABLE) and a call that timed out. A refused
// token is fetchers.ErrAuth; an answer that ended inside its message
// (INTERNAL, DATA_LOSS: what gRPC reports of a cut stream) is
// fetchers.ErrIncomplete and is not retried.
func (s *session) call(ctx context.Context, service, method string, req []byte, what string) ([]byte, error) {
	policy := s.f.client.Policy
	attempts := max(policy.MaxAttempts, 1)
	where := "nebius " + strings.TrimPrefix(method, "/nebius.")
	if s.token.Value() != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+s.token.Value())
	}
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		actx, cancel := ctx, context.CancelFunc(func() {})
		if policy.RequestTimeout > 0 {
			actx, cancel = context.WithTimeout(ctx, policy.RequestTimeout)
		}
		var out frame
		err := s.conns[service].Invoke(actx, method, &frame{b: req}, &out)
		cancel()
		if err == nil {
			return out.b, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: %w", where, ctx.Err())
		}
		st := status.Convert(err)
		var wait time.Duration
		var final error
		switch st.Code() {
		case codes.Unauthenticated, codes.PermissionDenied:
			return nil, fmt.Errorf("%s: %w: %s (check %s or providers.nebius.credentials_file, and the service account's access)",
				where, fetchers.ErrAuth, st.Message(), EnvCredentials)
		case codes.Internal, codes.DataLoss:
			return nil, fmt.Errorf("%s: %w: %s ended inside its message: %s", where, fetchers.ErrIncomplete, what, st.Message())
		case codes.ResourceExhausted:
			wait = retryDelay(st, policy.MaxRetryAfter)
			final = fmt.Errorf("%s: %w: %s", where, fetchers.ErrThrottled, st.Message())
		case codes.Unavailable:
			final = fmt.Errorf("%s: %w: %s", where, fetchers.ErrUnreachable, st.Message())
		case codes.DeadlineExceeded:
			final = fmt.Errorf("%s: %w: no answer within %s", where, fetchers.ErrTimeout, policy.RequestTimeout)
		default:
			return nil, fmt.Errorf("%s: %s refused: %s: %s", where, what, st.Code(), st.Message())
		}
		if attempt >= attempts {
			return nil, fmt.Errorf("%w (after %d attempts)", final, attempt)
		}
		if wait == 0 {
			if err := s.f.client.Wait(ctx, attempt); err != nil {
				return nil, fmt.Errorf("%w (while waiting to retry: %v)", err, final)
			}
			continue
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return nil, fmt.Errorf("%w (the next try would be in %s, after the run's timeout: %w)", final, wait.Round(time.Second), context.DeadlineExceeded)
		}
		if err := s.f.client.Sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("%w (while waiting to retry: %v)", err, final)
		}
	}
}

// retryDelay is the wait a RESOURCE_EXHAUSTED status's RetryInfo asks
// for, capped at limit (fetch.max_retry_after; 0: an hour); 0 when it
// asks none.
func retryDelay(st *status.Status, limit time.Duration) time.Duration {
	if limit <= 0 {
		limit = time.Hour
	}
	for _, d := range st.Details() {
		if ri, ok := d.(*errdetails.RetryInfo); ok && ri.GetRetryDelay() != nil {
			return min(max(ri.GetRetryDelay().AsDuration(), 0), limit)
		}
	}
	return 0
}

// exchange gets the run's IAM token for the service account's JWT.
func (s *session) exchange(ctx context.Context) error {
	// The wall clock, not the run's price clock: the token service
	// checks the JWT's times against its own.
	jwt, err := s.f.account.signJWT(time.Now())
	if err != nil {
		return err
	}
	signed := section.NewSecret(jwt)
	if s.f.secrets != nil {
		s.f.secrets(signed)
	}
	raw, err := s.call(ctx, ServiceTokens, methodExchange, exchangeRequest(jwt), "the IAM token")
	if err != nil {
		return err
	}
	t, err := decodeToken(raw)
	if err != nil || t.AccessToken == "" {
		return fmt.Errorf("nebius %s: %w: no access_token in the answer", methodExchange, fetchers.ErrIncomplete)
	}
	if !strings.EqualFold(t.TokenType, "bearer") {
		return fmt.Errorf("nebius %s: %w: token_type %q, want Bearer", methodExchange, fetchers.ErrIncomplete, t.TokenType)
	}
	s.token = section.NewSecret(t.AccessToken)
	if s.f.secrets != nil {
		s.f.secrets(s.token)
	}
	return nil
}

// list reads every page of a List call; req builds a page's request from
// its token. A token handed out twice, or more than maxPages pages, fails
// the list.
func (s *session) list(ctx context.Context, service, method, what string, req func(token string) []byte) ([][]byte, error) {
	var items [][]byte
	seen := map[string]bool{}
	token := ""
	for page := 1; ; page++ {
		raw, err := s.call(ctx, service, method, req(token), what)
		if err != nil {
			return nil, err
		}
		p, err := decodeList(raw)
		if err != nil {
			return nil, fmt.Errorf("nebius %s: %w: %s: %v", method, fetchers.ErrIncomplete, what, err)
		}
		items = append(items, p.Items...)
		if p.Next == "" {
			return items, nil
		}
		if seen[p.Next] || page >= maxPages {
			return nil, fmt.Errorf("nebius %s: %w: %s: page token handed out twice, or over %d pages", method, fetchers.ErrIncomplete, what, maxPages)
		}
		seen[p.Next] = true
		token = p.Next
	}
}

// project is the one project a region's prices are asked under.
type project struct{ id, region string }

// projects lists the tenants the service account sees, their projects,
// and keeps one per region (the first by id, so that runs agree), only
// the configured regions when set.
func (s *session) projects(ctx context.Context) ([]project, error) {
	tenants, err := s.list(ctx, ServiceIAM, methodTenants, "the tenant list", func(tok string) []byte { return tenantsRequest(pageSize, tok) })
	if err != nil {
		return nil, err
	}
	byRegion := map[string]string{}
	for _, raw := range tenants {
		t, err := decodeContainer(raw)
		if err != nil || t.ID == "" {
			return nil, fmt.Errorf("nebius %s: %w: a tenant without an id", methodTenants, fetchers.ErrIncomplete)
		}
		items, err := s.list(ctx, ServiceIAM, methodProjects, "the project list", func(tok string) []byte { return projectsRequest(t.ID, pageSize, tok) })
		if err != nil {
			return nil, err
		}
		for _, raw := range items {
			p, err := decodeContainer(raw)
			if err != nil || p.ID == "" || p.Region() == "" {
				// Which project prices a region decides every offer's
				// region: an odd one makes the list unbelievable.
				return nil, fmt.Errorf("nebius %s: %w: a project without an id or a region", methodProjects, fetchers.ErrIncomplete)
			}
			if old, ok := byRegion[p.Region()]; !ok || p.ID < old {
				byRegion[p.Region()] = p.ID
			}
		}
	}
	var out []project
	for r, id := range byRegion {
		if len(s.f.regions) == 0 || slices.Contains(s.f.regions, r) {
			out = append(out, project{id: id, region: r})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].region < out[j].region })
	if len(out) == 0 {
		if len(s.f.regions) > 0 {
			return nil, fmt.Errorf("%w: nebius: the service account has no project in the configured regions %v (its projects' regions: %v)",
				fetchers.ErrIncomplete, s.f.regions, slices.Sorted(maps.Keys(byRegion)))
		}
		return nil, fmt.Errorf("%w: nebius: the service account sees no project (grant it a role in a tenant's projects)", fetchers.ErrIncomplete)
	}
	return out, nil
}

// platforms lists a region's platforms; odd names the platforms that
// could not be read (left out). An empty list fails: Nebius always lists
// its platforms, CPU ones at least.
func (s *session) platforms(ctx context.Context, p project) ([]platform, []string, error) {
	items, err := s.list(ctx, ServiceCompute, methodPlatform, "the platform list of "+p.region,
		func(tok string) []byte { return platformsRequest(p.id, pageSize, tok) })
	if err != nil {
		return nil, nil, err
	}
	if len(items) == 0 {
		return nil, nil, fmt.Errorf("nebius %s: %w: no platform in %s", methodPlatform, fetchers.ErrIncomplete, p.region)
	}
	var out []platform
	var odd []string
	for i, raw := range items {
		pl, err := decodePlatform(raw)
		if err == nil && pl.Name == "" {
			err = errors.New("no name")
		}
		if err != nil {
			odd = append(odd, fmt.Sprintf("%s platform #%d: %v", p.region, i, err))
			continue
		}
		out = append(out, pl)
	}
	return out, odd, nil
}

// price asks the calculator for every GPU preset of plats in p's region,
// on-demand and, where allowed, preemptible.
func (s *session) price(ctx context.Context, p project, plats []platform) ([]pricewatch.Offer, map[pricewatch.PriceType][]string, error) {
	var offers []pricewatch.Offer
	odd := map[pricewatch.PriceType][]string{}
	for _, pl := range plats {
		memGB := float64(pl.GPUMemoryGB)
		if memGB == 0 {
			memGB = float64(pl.GPUMemoryGiB) // the field it replaced
		}
		model := gpuModel(pl.Name, memGB)
		for _, ps := range pl.Presets {
			if ps.GPUCount <= 0 {
				continue // a CPU preset
			}
			typ := pl.Name + "." + ps.Name
			if ps.Name == "" {
				for _, pt := range []pricewatch.PriceType{pricewatch.OnDemand, pricewatch.Spot} {
					odd[pt] = append(odd[pt], p.region+" "+pl.Name+": a preset without a name")
				}
				continue
			}
			hw := pricewatch.Hardware{GPUModel: model, GPUCount: float64(ps.GPUCount), GPUMemoryGB: memGB,
				VCPUs: int(ps.VCPUs), MemoryGB: float64(ps.MemoryGiB)}
			types := []pricewatch.PriceType{pricewatch.OnDemand}
			if pl.AllowPreemptible {
				types = append(types, pricewatch.Spot)
			}
			for _, pt := range types {
				raw, err := s.call(ctx, ServiceCalculator, methodEstimate, estimateRequest(p.id, pl.Name, ps.Name, pt == pricewatch.Spot),
					"the estimate of "+typ)
				if err != nil {
					return nil, nil, err
				}
				cost, err := hourly(raw)
				if err != nil {
					odd[pt] = append(odd[pt], fmt.Sprintf("%s %s %s: %v", p.region, typ, pt, err))
					continue
				}
				offers = append(offers, pricewatch.Offer{Provider: Name, Region: p.region, InstanceType: typ, PriceType: pt,
					OS: pricewatch.Linux, Currency: currency, Hourly: cost, Hardware: hw})
			}
		}
	}
	return offers, odd, nil
}

// hourly reads an estimate's hourly_cost.general.total.cost: a positive
// decimal.
func hourly(raw []byte) (decimal.Decimal, error) {
	e, err := decodeEstimate(raw)
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("estimate: %v", err)
	}
	if !e.Set || e.Cost == "" {
		return decimal.Decimal{}, errors.New("no hourly_cost.general.total.cost")
	}
	d, err := decimal.NewFromString(e.Cost)
	if err != nil || !d.IsPositive() {
		return decimal.Decimal{}, fmt.Errorf("hourly cost %q is not a positive decimal", e.Cost)
	}
	return d, nil
}

// gpuAliases are platform names' GPU words the catalogue cannot read
// alone: "rtx6000" is the RTX PRO 6000 Blackwell Server Edition (Nebius's
// platform page), not the Quadro RTX 6000.
var gpuAliases = map[string]string{"rtx6000": "RTX PRO 6000 Blackwell"}

// gpuModel resolves a platform's GPU from its name, gpu-<model>-<form>
// [-<variant>] (gpu-h100-sxm, gpu-b200-sxm-a, gpu-l40s-a), and the
// GPU memory the platform states.
func gpuModel(platform string, memGB float64) string {
	parts := strings.Split(strings.TrimPrefix(platform, "gpu-"), "-")
	name := parts[0]
	if a, ok := gpuAliases[name]; ok {
		name = a
	}
	hint := gpu.Hint{MemoryGB: memGB}
	if len(parts) > 1 && strings.EqualFold(parts[1], "sxm") {
		hint.FormFactor = "SXM"
	}
	return gpu.Resolve(name, hint).Name()
}
