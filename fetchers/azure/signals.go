package azure

// Capacity signals (issue 23 items 4 and 5): the spot placement score
// (Microsoft.Compute placementScores/spot/generate) and the spot eviction
// rate (Azure Resource Graph, SpotResources). Both need an Entra ID
// service principal and a subscription; both are optional, and neither
// can fail the price fetch they ride on.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/secret"
	"github.com/pricewatch/pricewatch/section"
)

// Defaults of the signal keys.
const (
	// DefaultARMEndpoint is Azure Resource Manager in the public cloud.
	DefaultARMEndpoint = "https://management.azure.com"
	// DefaultAuthorityHost is Microsoft Entra ID in the public cloud.
	DefaultAuthorityHost = "https://login.microsoftonline.com/"
	// PlacementAPIVersion is the first generally available version of the
	// spot placement score API.
	PlacementAPIVersion = "2025-06-05"
	// ResourceGraphAPIVersion is the stable version of Resource Graph's
	// resources query.
	ResourceGraphAPIVersion = "2022-10-01"
)

// Environment variables the credentials come from when the config keys
// are empty (the names the Azure SDKs and CLI use).
const (
	EnvTenantID       = "AZURE_TENANT_ID"
	EnvClientID       = "AZURE_CLIENT_ID"
	EnvClientSecret   = "AZURE_CLIENT_SECRET"
	EnvSubscriptionID = "AZURE_SUBSCRIPTION_ID"
)

// Sources of the stored signals.
const (
	SourcePlacementScores = "azure:Microsoft.Compute/placementScores/spot"
	SourceEvictionRates   = "azure:ResourceGraph/skuspotevictionrate"
)

// The placement score API takes up to eight locations and five sizes per
// call (learn.microsoft.com, virtual-machine-scale-sets/spot-placement-score).
const (
	maxPlacementLocations = 8
	maxPlacementSizes     = 5
	// maxDesiredCount bounds desired_count: the API documents no limit,
	// but a score for more than a thousand spot VMs of one size is not a
	// question this tracker asks.
	maxDesiredCount = 1000
	// graphPageSize is Resource Graph's largest $top; graphMaxPages bounds
	// one query's pages (GPU sizes × locations are a few thousand rows).
	graphPageSize = 1000
	graphMaxPages = 100
	// signalBodyLimit bounds one answer.
	signalBodyLimit = 32 << 20
)

// DefaultPlacementSizes are the ND sizes with H100, H200 and A100 GPUs.
var DefaultPlacementSizes = []string{"Standard_ND96isr_H100_v5", "Standard_ND96isr_H200_v5", "Standard_ND96asr_v4", "Standard_ND96amsr_A100_v4"}

// Placement scores, as Azure spells them. DataNotFound is not among them:
// it says Azure has no score, which is no observation.
var placementBands = []string{"High", "Medium", "Low", "RestrictedSkuNotAvailable"}

const placementNoData = "DataNotFound"

// Eviction-rate bands (percent per hour), as Resource Graph spells them.
var evictionBands = []string{"0-5", "5-10", "10-15", "15-20", "20+"}

// Signals configures the capacity signals. Zero values take defaults.
type Signals struct {
	// SubscriptionID scopes both calls; TenantID, ClientID and
	// ClientSecret are the Entra ID service principal.
	SubscriptionID, TenantID, ClientID string
	ClientSecret                       section.Secret
	// ARMEndpoint is Azure Resource Manager (DefaultARMEndpoint when empty);
	// AuthorityHost is Entra ID (DefaultAuthorityHost when empty; https
	// only, as the SDK demands).
	ARMEndpoint, AuthorityHost string
	Placement                  PlacementScores
	EvictionRates              bool
	// TokenTransport carries the token requests (a TLS fake's client in
	// tests); nil is the SDK's default.
	TokenTransport policy.Transporter
}

// PlacementScores is what placement scores to ask for.
type PlacementScores struct {
	Enabled bool
	// Sizes are ARM SKU names (DefaultPlacementSizes when empty).
	Sizes []string
	// DesiredCount is the number of spot VMs a score answers for (1 when 0).
	DesiredCount int
	// Locations to score; empty means the fetcher's regions.
	Locations []string
	// AvailabilityZones asks for a score per zone instead of per region.
	AvailabilityZones bool
}

func (s Signals) enabled() bool { return s.Placement.Enabled || s.EvictionRates }

// PlacementSection is providers.azure.placement_scores.
type PlacementSection struct {
	Enabled           bool     `yaml:"enabled"`
	Sizes             []string `yaml:"sizes"`
	DesiredCount      int      `yaml:"desired_count"`
	Locations         []string `yaml:"locations"`
	AvailabilityZones bool     `yaml:"availability_zones"`
}

// EvictionSection is providers.azure.eviction_rates.
type EvictionSection struct {
	Enabled bool `yaml:"enabled"`
}

// skuName is what an ARM size name looks like; it is sent in a JSON body
// and compared with answers, never pasted into a query.
var skuName = regexp.MustCompile(`^Standard_[A-Za-z0-9_]+$`)

// checkSignals validates the signal keys of Section, every bad key named
// with its line.
func (s *Section) checkSignals(k section.Checker) error {
	var errs []error
	for _, kv := range [][2]string{{"arm_endpoint", s.ARMEndpoint}, {"authority_host", s.AuthorityHost}} {
		errs = append(errs, k.URL(kv[0], kv[1]))
	}
	if u, err := url.Parse(s.AuthorityHost); err == nil && u.Scheme == "http" {
		errs = append(errs, k.Errorf("authority_host", "%q: Entra ID is reached over https only", s.AuthorityHost))
	}
	// Checked when set, whether or not a signal is on yet: the IDs are
	// pasted into URL paths, and "x y" would only fail at the first
	// run after a signal is turned on.
	for _, kv := range [][2]string{{"subscription_id", s.SubscriptionID}, {"tenant_id", s.TenantID}} {
		if kv[1] != "" && !guidOrName.MatchString(kv[1]) {
			errs = append(errs, k.Errorf(kv[0], "%q: want a GUID (or, for a tenant, its domain name)", kv[1]))
		}
	}
	errs = append(errs, s.SecretFiles(k, "client_secret_file", s.ClientSecretFile))
	p := k.Under("placement_scores")
	for _, sz := range s.Placement.Sizes {
		if !skuName.MatchString(strings.TrimSpace(sz)) {
			errs = append(errs, p.Errorf("sizes", "%q is not an ARM size name such as Standard_ND96isr_H100_v5", sz))
			break
		}
	}
	for _, l := range s.Placement.Locations {
		if !regionCode.MatchString(foldRegion(l)) {
			errs = append(errs, p.Errorf("locations", "%q is not an Azure region code such as eastus", l))
			break
		}
	}
	errs = append(errs, p.Between("desired_count", s.Placement.DesiredCount, 1, maxDesiredCount))
	return errors.Join(errs...)
}

// signalsConfig is what Build hands New: the keys, the IDs from the
// environment where the keys are empty, and the secret read.
func (s *Section) signalsConfig(env fetchers.Env) (Signals, error) {
	out := Signals{
		SubscriptionID: firstSet(s.SubscriptionID, EnvSubscriptionID), TenantID: firstSet(s.TenantID, EnvTenantID),
		ClientID: firstSet(s.ClientID, EnvClientID), ARMEndpoint: s.ARMEndpoint, AuthorityHost: s.AuthorityHost,
		Placement: PlacementScores{Enabled: s.Placement.Enabled, Sizes: s.Placement.Sizes, DesiredCount: s.Placement.DesiredCount,
			Locations: s.Placement.Locations, AvailabilityZones: s.Placement.AvailabilityZones},
		EvictionRates: s.Eviction.Enabled,
	}
	if !out.enabled() {
		return out, nil
	}
	sec, err := fetchers.ReadKey("azure client secret", EnvClientSecret, s.ClientSecretFile)
	if err != nil {
		return Signals{}, err
	}
	env.Secrets(sec)
	out.ClientSecret = sec
	return out, nil
}

func firstSet(v, env string) string {
	if v = strings.TrimSpace(v); v != "" {
		return v
	}
	return strings.TrimSpace(os.Getenv(env))
}

// signalClient is what a run needs to ask ARM: the credential, the
// subscription and the scrubber that keeps the client secret out of
// every error and log line.
type signalClient struct {
	cred  azcore.TokenCredential
	scope string
	arm   *url.URL
	sub   string
	scrub *secret.Set
}

// newSignalClient checks the signal configuration. It returns nil, with
// the one line saying why, when no signal is enabled or the credentials
// are incomplete: the signals are optional, the prices are not.
func newSignalClient(cfg *Signals, log *zap.Logger) (*signalClient, error) {
	if !cfg.enabled() {
		return nil, nil
	}
	if cfg.ARMEndpoint == "" {
		cfg.ARMEndpoint = DefaultARMEndpoint
	}
	if cfg.AuthorityHost == "" {
		cfg.AuthorityHost = DefaultAuthorityHost
	}
	arm, err := url.Parse(strings.TrimRight(cfg.ARMEndpoint, "/"))
	if err != nil || (arm.Scheme != "http" && arm.Scheme != "https") || arm.Host == "" || arm.User != nil || arm.RawQuery != "" {
		return nil, fmt.Errorf("azure: providers.azure.arm_endpoint %q: want an http(s) URL such as %s", cfg.ARMEndpoint, DefaultARMEndpoint)
	}
	if u, err := url.Parse(cfg.AuthorityHost); err != nil || u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("azure: providers.azure.authority_host %q: want an https URL such as %s", cfg.AuthorityHost, DefaultAuthorityHost)
	}
	if err := cfg.normalizePlacement(); err != nil {
		return nil, err
	}
	var missing []string
	for _, m := range []struct{ v, name string }{
		{cfg.SubscriptionID, "providers.azure.subscription_id or " + EnvSubscriptionID},
		{cfg.TenantID, "providers.azure.tenant_id or " + EnvTenantID},
		{cfg.ClientID, "providers.azure.client_id or " + EnvClientID},
		{cfg.ClientSecret.Value(), "providers.azure.client_secret_file or " + EnvClientSecret},
	} {
		if m.v == "" {
			missing = append(missing, m.name)
		}
	}
	if len(missing) > 0 {
		log.Info("azure capacity signals skipped: no Entra ID credentials (set " + strings.Join(missing, ", ") + ")")
		return nil, nil
	}
	for name, v := range map[string]string{"subscription_id": cfg.SubscriptionID, "tenant_id": cfg.TenantID} {
		if !guidOrName.MatchString(v) {
			return nil, fmt.Errorf("azure: providers.azure.%s %q: want a GUID", name, v)
		}
	}
	opts := &azidentity.ClientSecretCredentialOptions{ClientOptions: azcore.ClientOptions{
		Cloud: cloud.Configuration{ActiveDirectoryAuthorityHost: cfg.AuthorityHost}, Transport: cfg.TokenTransport,
	}}
	// Instance discovery asks the public cloud's Entra ID whether the
	// authority is known; another authority (a sovereign cloud, a test's
	// fake) is the operator's to vouch for.
	opts.DisableInstanceDiscovery = strings.TrimRight(cfg.AuthorityHost, "/") != strings.TrimRight(DefaultAuthorityHost, "/")
	cred, err := azidentity.NewClientSecretCredential(cfg.TenantID, cfg.ClientID, cfg.ClientSecret.Value(), opts)
	scrub := secret.New(cfg.ClientSecret.Value())
	if err != nil {
		return nil, fmt.Errorf("azure: Entra ID credential: %w", scrub.Error(err))
	}
	// The token's audience is ARM itself: its scheme and host.
	return &signalClient{cred: cred, scope: arm.Scheme + "://" + arm.Host + "/.default", arm: arm, sub: cfg.SubscriptionID, scrub: scrub}, nil
}

// guidOrName admits subscription and tenant IDs (GUIDs) and, for tenants,
// a domain name; both are pasted into a URL path.
var guidOrName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9.-]*$`)

// normalizePlacement resolves the placement defaults and case-folds the
// keys: sizes to the hardware table's spelling, locations to lower case.
func (cfg *Signals) normalizePlacement() error {
	p := &cfg.Placement
	if len(p.Sizes) == 0 {
		p.Sizes = slices.Clone(DefaultPlacementSizes)
	}
	sizes, err := fetchers.Distinct(p.Sizes, canonicalSize, func(_ int, s string) error {
		if !skuName.MatchString(s) {
			return fmt.Errorf("azure: providers.azure.placement_scores.sizes: %q is not an ARM size name such as Standard_ND96isr_H100_v5", s)
		}
		return nil
	})
	if err != nil {
		return err
	}
	p.Sizes = sizes
	locs, err := regionCodes(p.Locations, "placement_scores.locations")
	if err != nil {
		return err
	}
	p.Locations = locs
	if p.DesiredCount == 0 {
		p.DesiredCount = 1
	}
	if p.DesiredCount < 1 || p.DesiredCount > maxDesiredCount {
		return fmt.Errorf("azure: providers.azure.placement_scores.desired_count %d: want 1 to %d", p.DesiredCount, maxDesiredCount)
	}
	return nil
}

// canonicalSize is the hardware table's spelling of a size, or the name
// trimmed when the table does not know it. Azure answers in any case
// ("standard_nd96isr_h100_v5" from Resource Graph); prices are stored
// under the table's spelling, and a signal must name the same type.
func canonicalSize(name string) string {
	name = strings.TrimSpace(name)
	if s, ok := lookupSKU(name); ok {
		return s.name
	}
	return name
}

func sizeHardware(name string) pricewatch.Hardware {
	if s, ok := lookupSKU(name); ok {
		return s.hw
	}
	return pricewatch.Hardware{GPUModel: modelFromName(name)}
}

// signals adds the enabled signals to snap. Nothing here fails the run:
// a call that fails is logged (without the secret) and leaves its part
// uncovered, so the stored signals it would have spoken for stand.
func (f *Fetcher) signals(ctx context.Context, snap *pricewatch.Snapshot) {
	if f.sig == nil {
		return
	}
	tok, err := f.sig.token(ctx)
	if err != nil {
		if ctx.Err() == nil {
			f.log.Warn("azure capacity signals not read this run: no Entra ID token; stored signals stand", zap.String("error", f.sig.scrub.String(err.Error())))
		}
		return
	}
	if f.cfg.Signals.Placement.Enabled {
		f.placementScores(ctx, tok, snap)
	}
	if f.cfg.Signals.EvictionRates {
		f.evictionRates(ctx, tok, snap)
	}
}

func (c *signalClient) token(ctx context.Context) (section.Secret, error) {
	t, err := c.cred.GetToken(ctx, policy.TokenRequestOptions{Scopes: []string{c.scope}})
	if err != nil {
		return section.Secret{}, fmt.Errorf("getting an Entra ID token for %s: %w", c.scope, c.scrub.Error(err))
	}
	return section.NewSecret(t.Token), nil
}

// post sends one JSON request to ARM with the bearer token and returns
// the answer's body. 429 and 5xx are retried by the client, honouring
// Retry-After.
func (f *Fetcher) post(ctx context.Context, tok section.Secret, path, apiVersion string, body any, where, answer string) ([]byte, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("%s: encoding the request: %w", where, err)
	}
	u := *f.sig.arm
	u.Path = strings.TrimRight(u.Path, "/") + path
	u.RawQuery = "api-version=" + apiVersion
	out, err := f.client.Read(ctx, fetchers.Request{Method: http.MethodPost, URL: u.String(), Body: b, Bearer: tok,
		Where: where, Answer: answer, Limit: signalBodyLimit, Timeout: f.pageTimeout,
		Refused: "the Entra ID token was refused (check that the service principal has a role on subscription " + f.sig.sub + ")"})
	if err != nil {
		return nil, f.sig.scrub.Error(err)
	}
	return out, nil
}

// placementRequest and placementAnswer are the spot placement score API's
// documented request and response bodies (SpotPlacementScoresInput and
// SpotPlacementScoresResponse).
type placementRequest struct {
	DesiredLocations  []string       `json:"desiredLocations"`
	DesiredSizes      []resourceSize `json:"desiredSizes"`
	DesiredCount      int            `json:"desiredCount"`
	AvailabilityZones bool           `json:"availabilityZones"`
}

type resourceSize struct {
	SKU string `json:"sku"`
}

type placementAnswer struct {
	PlacementScores *[]struct {
		SKU              string `json:"sku"`
		Region           string `json:"region"`
		AvailabilityZone string `json:"availabilityZone"`
		Score            string `json:"score"`
		IsQuotaAvailable *bool  `json:"isQuotaAvailable"`
	} `json:"placementScores"`
}

// placementScores asks for every configured size in every location, at
// most eight locations and five sizes per call. A location is covered
// when every call that asked for it answered, with a known score or
// DataNotFound for each size asked: a stored score Azure no longer has
// data for ends (recorded as ended, never as a transition). A failed
// call, an answer missing a size asked for, or a score this fetcher does
// not know leaves the location uncovered, so its stored scores stand.
func (f *Fetcher) placementScores(ctx context.Context, tok section.Secret, snap *pricewatch.Snapshot) {
	p := f.cfg.Signals.Placement
	locations := p.Locations
	if len(locations) == 0 {
		locations = f.cfg.Regions
	}
	if len(locations) == 0 {
		f.log.Info("azure placement scores skipped: no locations (set providers.azure.placement_scores.locations or providers.azure.regions)")
		return
	}
	shape := pricewatch.ShapeOf("desired_count", strconv.Itoa(p.DesiredCount))
	doubt := map[string]bool{}
	noData := 0
	for locs := range slices.Chunk(locations, maxPlacementLocations) {
		for sizes := range slices.Chunk(p.Sizes, maxPlacementSizes) {
			if ctx.Err() != nil {
				return
			}
			sigs, bad, nd, err := f.placementCall(ctx, tok, locs, sizes, shape)
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				f.log.Warn("azure placement scores not read; stored scores of these locations stand",
					zap.Strings("locations", locs), zap.Strings("sizes", sizes), zap.String("error", f.sig.scrub.String(err.Error())))
				for _, l := range locs {
					doubt[l] = true
				}
				continue
			}
			noData += nd
			for l := range bad {
				doubt[l] = true
			}
			snap.Signals = append(snap.Signals, sigs...)
		}
	}
	for _, l := range locations {
		if !doubt[l] {
			snap.SignalCoverage = append(snap.SignalCoverage, pricewatch.SignalScope{Kind: pricewatch.PlacementScore, Region: l})
		}
	}
	if noData > 0 {
		f.log.Info("azure placement scores without data (DataNotFound) are no observation; a stored score for them ends", zap.Int("rows", noData))
	}
}

// placementCall makes one call and returns its scores, the locations the
// answer left in doubt, and how many rows said DataNotFound.
func (f *Fetcher) placementCall(ctx context.Context, tok section.Secret, locs, sizes []string, shape string) ([]pricewatch.Signal, map[string]bool, int, error) {
	req := placementRequest{DesiredLocations: locs, DesiredCount: f.cfg.Signals.Placement.DesiredCount, AvailabilityZones: f.cfg.Signals.Placement.AvailabilityZones}
	for _, s := range sizes {
		req.DesiredSizes = append(req.DesiredSizes, resourceSize{SKU: s})
	}
	where := "azure placement scores " + strings.Join(locs, ",")
	// The call is made at the first location asked; desiredLocations
	// names every location scored.
	body, err := f.post(ctx, tok, "/subscriptions/"+url.PathEscape(f.sig.sub)+"/providers/Microsoft.Compute/locations/"+url.PathEscape(locs[0])+"/placementScores/spot/generate",
		PlacementAPIVersion, req, where, "placement scores")
	if err != nil {
		return nil, nil, 0, err
	}
	var ans placementAnswer
	if err := json.Unmarshal(body, &ans); err != nil {
		return nil, nil, 0, fmt.Errorf("%w: %s: %v", fetchers.ErrIncomplete, where, err)
	}
	if ans.PlacementScores == nil {
		return nil, nil, 0, fmt.Errorf("%w: %s: the answer has no placementScores", fetchers.ErrIncomplete, where)
	}
	asked := map[string]bool{}
	for _, l := range locs {
		asked[l] = true
	}
	answered := map[[2]string]bool{}
	doubt := map[string]bool{}
	noData := 0
	var out []pricewatch.Signal
	seen := map[pricewatch.SignalKey]bool{}
	for _, row := range *ans.PlacementScores {
		region := foldRegion(row.Region)
		size := canonicalSize(row.SKU)
		zone := strings.TrimSpace(row.AvailabilityZone)
		if !asked[region] || !slices.Contains(sizes, size) {
			f.log.Warn("azure placement score for a size or location not asked for; left out",
				zap.String("sku", pricewatch.Printable(row.SKU)), zap.String("region", pricewatch.Printable(row.Region)))
			continue
		}
		answered[[2]string{region, size}] = true
		score := strings.TrimSpace(row.Score)
		if strings.EqualFold(score, placementNoData) {
			noData++
			continue
		}
		i := slices.IndexFunc(placementBands, func(b string) bool { return strings.EqualFold(b, score) })
		if i < 0 {
			f.log.Warn("azure placement score not one Azure documents; left out, stored scores of the location stand",
				zap.String("sku", size), zap.String("region", region), zap.String("zone", pricewatch.Printable(zone)), zap.String("score", pricewatch.Printable(score)))
			doubt[region] = true
			continue
		}
		sg := pricewatch.Signal{Provider: pricewatch.Azure, Kind: pricewatch.PlacementScore, Region: region, Zone: zone, InstanceType: size,
			Shape: shape, Value: placementBands[i], Unit: "score", Source: SourcePlacementScores, Hardware: sizeHardware(size)}
		if row.IsQuotaAvailable != nil {
			sg.Detail = "quota available"
			if !*row.IsQuotaAvailable {
				sg.Detail = "quota not available"
			}
		}
		if err := sg.Validate(); err != nil || seen[sg.Key()] {
			f.log.Warn("azure placement score unreadable or listed twice; left out, stored scores of the location stand",
				zap.String("sku", size), zap.String("region", region), zap.String("zone", pricewatch.Printable(zone)))
			doubt[region] = true
			continue
		}
		seen[sg.Key()] = true
		out = append(out, sg)
	}
	for _, l := range locs {
		for _, s := range sizes {
			if !answered[[2]string{l, s}] {
				// A cut answer must not read as "no score any more".
				doubt[l] = true
			}
		}
	}
	return out, doubt, noData, nil
}

// graphRequest and graphAnswer are Resource Graph's documented
// QueryRequest and QueryResponse (resultFormat objectArray).
type graphRequest struct {
	Subscriptions []string     `json:"subscriptions"`
	Query         string       `json:"query"`
	Options       graphOptions `json:"options"`
}

type graphOptions struct {
	Top          int    `json:"$top"`
	SkipToken    string `json:"$skipToken,omitempty"`
	ResultFormat string `json:"resultFormat"`
}

type graphAnswer struct {
	TotalRecords *int64 `json:"totalRecords"`
	Count        int64  `json:"count"`
	// ResultTruncated is the string enum "true"/"false" in the REST
	// specification and a Boolean in the prose; either is read.
	ResultTruncated json.RawMessage `json:"resultTruncated"`
	SkipToken       string          `json:"$skipToken"`
	Data            *[]struct {
		SkuName      string `json:"skuName"`
		Location     string `json:"location"`
		EvictionRate string `json:"evictionRate"`
	} `json:"data"`
}

// evictionQuery is the KQL sent: the eviction-rate rows of the GPU
// families, in the configured regions. Region codes are checked against
// regionCode before they are pasted in.
func evictionQuery(regions []string) string {
	var fam []string
	for _, p := range gpuFamilyPrefixes {
		fam = append(fam, "'"+strings.ToLower(p)+"'")
	}
	q := "SpotResources\n| where type =~ 'microsoft.compute/skuspotevictionrate/location'\n" +
		"| extend skuName = tostring(sku.name)\n| where " + familyFilter(fam) + "\n"
	if len(regions) > 0 {
		var in []string
		for _, r := range regions {
			in = append(in, "'"+r+"'")
		}
		q += "| where location in~ (" + strings.Join(in, ", ") + ")\n"
	}
	return q + "| project skuName, location, evictionRate = tostring(properties.evictionRate)\n| order by skuName asc, location asc"
}

func familyFilter(fam []string) string {
	parts := make([]string, len(fam))
	for i, f := range fam {
		parts[i] = "skuName startswith " + f
	}
	// Resource Graph spells SKU names in lower case; =~ and startswith
	// compare without case anyway.
	return "(" + strings.Join(parts, " or ") + ")"
}

// evictionRates reads every page of the eviction-rate query. The answer
// covers the configured regions (every region when none is configured)
// only when every page was read and the rows add up to totalRecords; a
// row with a band this fetcher does not know is left out, and its region
// is then not covered, so its stored band stands.
func (f *Fetcher) evictionRates(ctx context.Context, tok section.Secret, snap *pricewatch.Snapshot) {
	sigs, doubt, complete, err := f.readEvictionRates(ctx, tok)
	if err != nil {
		if ctx.Err() == nil {
			f.log.Warn("azure spot eviction rates not read in full; stored bands stand", zap.String("error", f.sig.scrub.String(err.Error())))
		}
	}
	snap.Signals = append(snap.Signals, sigs...)
	if !complete {
		return
	}
	if doubt[pricewatch.AllRegions] {
		return
	}
	if len(f.cfg.Regions) == 0 {
		if len(doubt) == 0 {
			snap.SignalCoverage = append(snap.SignalCoverage, pricewatch.SignalScope{Kind: pricewatch.EvictionBand, Region: pricewatch.AllRegions})
			return
		}
		// Every region but the doubtful: those the answer named.
		regions := map[string]bool{}
		for _, sg := range sigs {
			regions[sg.Region] = true
		}
		for _, r := range slices.Sorted(maps.Keys(regions)) {
			if !doubt[r] {
				snap.SignalCoverage = append(snap.SignalCoverage, pricewatch.SignalScope{Kind: pricewatch.EvictionBand, Region: r})
			}
		}
		return
	}
	for _, r := range f.cfg.Regions {
		if !doubt[r] {
			snap.SignalCoverage = append(snap.SignalCoverage, pricewatch.SignalScope{Kind: pricewatch.EvictionBand, Region: r})
		}
	}
}

// readEvictionRates follows $skipToken to the last page. It returns what
// was read even when a later page fails (those rows are current), and
// whether the whole answer was read.
func (f *Fetcher) readEvictionRates(ctx context.Context, tok section.Secret) ([]pricewatch.Signal, map[string]bool, bool, error) {
	req := graphRequest{Subscriptions: []string{f.sig.sub}, Query: evictionQuery(f.cfg.Regions),
		Options: graphOptions{Top: graphPageSize, ResultFormat: "objectArray"}}
	var out []pricewatch.Signal
	doubt := map[string]bool{}
	seen := map[pricewatch.SignalKey]bool{}
	var rows int64
	var total *int64
	page := 0
	err := fetchers.TokenPages("azure resource graph eviction rates", graphMaxPages, func(token string) (string, error) {
		page++
		req.Options.SkipToken = token
		where := fmt.Sprintf("azure resource graph eviction rates page %d", page)
		body, err := f.post(ctx, tok, "/providers/Microsoft.ResourceGraph/resources", ResourceGraphAPIVersion, req, where, "a query result")
		if err != nil {
			return "", err
		}
		var ans graphAnswer
		if err := json.Unmarshal(body, &ans); err != nil {
			return "", fmt.Errorf("%w: %s: %v", fetchers.ErrIncomplete, where, err)
		}
		if ans.Data == nil {
			return "", fmt.Errorf("%w: %s: the answer has no data", fetchers.ErrIncomplete, where)
		}
		if total == nil {
			total = ans.TotalRecords
		}
		for _, row := range *ans.Data {
			rows++
			sg, ok, ours := f.evictionSignal(row.SkuName, row.Location, row.EvictionRate)
			if !ours {
				continue
			}
			if !ok || seen[sg.Key()] {
				region := foldRegion(row.Location)
				if !pricewatch.IsRegionCode(region) {
					region = pricewatch.AllRegions
				}
				doubt[region] = true
				continue
			}
			seen[sg.Key()] = true
			out = append(out, sg)
		}
		next := strings.TrimSpace(ans.SkipToken)
		if t := strings.Trim(strings.TrimSpace(string(ans.ResultTruncated)), `"`); next == "" && strings.EqualFold(t, "true") {
			return "", fmt.Errorf("%w: %s: the result is truncated and no $skipToken follows", fetchers.ErrIncomplete, where)
		}
		return next, nil
	})
	if err != nil {
		return out, doubt, false, err
	}
	if total != nil && *total != rows {
		return out, doubt, false, fmt.Errorf("%w: azure resource graph: %d rows read where totalRecords says %d", fetchers.ErrIncomplete, rows, *total)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Region != out[j].Region {
			return out[i].Region < out[j].Region
		}
		return out[i].InstanceType < out[j].InstanceType
	})
	return out, doubt, true, nil
}

// evictionSignal reads one row: ok, or left out because it is not ours
// (ours false: a size or region not asked for), or left out as unreadable
// (ours true, logged), which leaves its region's stored band standing.
func (f *Fetcher) evictionSignal(sku, location, rate string) (sg pricewatch.Signal, ok, ours bool) {
	region := foldRegion(location)
	size := canonicalSize(sku)
	rate = strings.TrimSpace(rate)
	// The query asked for GPU families in the configured regions; rows
	// beyond them say nothing of what is tracked.
	if !isGPUFamily(size) || (len(f.cfg.Regions) > 0 && !slices.Contains(f.cfg.Regions, region)) {
		return pricewatch.Signal{}, false, false
	}
	if !slices.Contains(evictionBands, rate) {
		f.log.Warn("azure spot eviction rate not one Azure documents; left out, the stored band of the region stands",
			zap.String("sku", pricewatch.Printable(sku)), zap.String("region", pricewatch.Printable(location)), zap.String("evictionRate", pricewatch.Printable(rate)))
		return pricewatch.Signal{}, false, true
	}
	sg = pricewatch.Signal{Provider: pricewatch.Azure, Kind: pricewatch.EvictionBand, Region: region, InstanceType: size,
		Value: rate, Unit: "band", Source: SourceEvictionRates, Hardware: sizeHardware(size)}
	if err := sg.Validate(); err != nil {
		f.log.Warn("azure spot eviction rate row unreadable; left out", zap.String("sku", pricewatch.Printable(sku)),
			zap.String("region", pricewatch.Printable(location)))
		return pricewatch.Signal{}, false, true
	}
	return sg, true, true
}
