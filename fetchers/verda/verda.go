// Package verda fetches Verda's (formerly DataCrunch) GPU instance types,
// their on-demand and spot prices, and which types can be deployed in
// which location now, from its public API v1 with OAuth2 client
// credentials.
//
// One run: POST /v1/oauth2/token (client credentials → bearer token),
// then GET /v1/instance-types, /v1/locations and
// /v1/instance-availability twice (is_spot=false and is_spot=true:
// without is_spot the API answers for on-demand only). Prices are per
// instance-hour and the same in every location; each GPU type is stored
// per location, on-demand and (where spot_price is given) spot, with its
// on-demand deployability as availability.
package verda

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
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
	// DefaultEndpoint is the API host the docs and SDK still name after
	// the rename to Verda.
	DefaultEndpoint = "https://api.datacrunch.io"

	pathToken        = "/v1/oauth2/token"
	pathTypes        = "/v1/instance-types"
	pathLocations    = "/v1/locations"
	pathAvailability = "/v1/instance-availability"

	// EnvClientID and EnvClientSecret name the environment variables
	// holding the OAuth2 client credentials.
	EnvClientID     = "VERDA_CLIENT_ID"
	EnvClientSecret = "VERDA_CLIENT_SECRET"

	maxBodyBytes = 8 << 20
)

// Section is providers.verda.
type Section struct {
	section.Common   `yaml:",inline"`
	ClientIDFile     string `yaml:"client_id_file"`
	ClientSecretFile string `yaml:"client_secret_file"`
}

// Validate checks the credential files when the provider is on.
func (s *Section) Validate(k section.Checker) error {
	return s.SecretFiles(k, "client_id_file", s.ClientIDFile, "client_secret_file", s.ClientSecretFile)
}

// Provider registers Verda (see package providers).
var Provider = fetchers.Provider{
	Name:  pricewatch.Verda,
	Facts: section.Facts{NeedsEndpoint: true},
	Section: func() section.Section {
		// Spot prices change several times a day and capacity within
		// minutes: four small requests every ten minutes.
		return &Section{Common: section.Common{Enabled: true, Endpoint: DefaultEndpoint, Schedule: "*/10 * * * *", Timeout: 2 * time.Minute}}
	},
	Build: fetchers.Builder(func(s *Section, env fetchers.Env) (fetchers.Fetcher, error) {
		id, secret, err := CredentialsFrom(s.ClientIDFile, s.ClientSecretFile)
		if err != nil {
			return nil, err
		}
		env.Secrets(id, secret)
		return New(Config{Endpoint: s.Endpoint, Regions: s.Regions, ClientID: id, ClientSecret: secret, AddSecrets: env.AddSecrets}, env.Client, env.Log)
	}),
}

// CredentialsFrom reads the client id and secret from the environment or
// the files; without both the error wraps fetchers.ErrNoCredentials.
func CredentialsFrom(idFile, secretFile string) (id, secret section.Secret, err error) {
	if id, err = fetchers.ReadKey("verda client id", EnvClientID, idFile); err != nil {
		return id, secret, err
	}
	if secret, err = fetchers.ReadKey("verda client secret", EnvClientSecret, secretFile); err != nil {
		return id, secret, err
	}
	if id.Empty() || secret.Empty() {
		return id, secret, errNoCredentials
	}
	return id, secret, nil
}

var errNoCredentials = fmt.Errorf("%w: set %s and %s, or providers.verda.client_id_file and client_secret_file",
	fetchers.ErrNoCredentials, EnvClientID, EnvClientSecret)

// Config is what New needs.
type Config struct {
	// Endpoint is the base URL (scheme and host); empty: DefaultEndpoint.
	Endpoint string
	// Regions are the location codes to store (FIN-01, ICE-01); empty:
	// every location the API lists.
	Regions []string
	// ClientID and ClientSecret are exchanged for a bearer token.
	ClientID, ClientSecret section.Secret
	// AddSecrets hands each run's bearer token to the redactor.
	AddSecrets func(...section.Secret)
}

// Fetcher implements fetchers.Fetcher for Verda.
type Fetcher struct {
	base    string
	cfg     Config
	client  *fetchers.Client
	log     *zap.Logger
	regions map[string]bool
}

// New checks cfg and returns a Fetcher.
func New(cfg Config, client *fetchers.Client, log *zap.Logger) (*Fetcher, error) {
	if client != nil && (cfg.ClientID.Empty() || cfg.ClientSecret.Empty()) {
		return nil, errNoCredentials
	}
	// The keyed API's checks of the base URL, reused.
	a, err := fetchers.NewKeyedAPI(fetchers.KeyedSpec{Provider: pricewatch.Verda, DefaultEndpoint: DefaultEndpoint, Path: pathTypes},
		fetchers.KeyedConfig{Endpoint: cfg.Endpoint}, client, log)
	if err != nil {
		return nil, err
	}
	f := &Fetcher{base: strings.TrimSuffix(a.URL, pathTypes), cfg: cfg, client: client, log: a.Log}
	if len(cfg.Regions) > 0 {
		f.regions = map[string]bool{}
		for _, r := range cfg.Regions {
			f.regions[r] = true
		}
	}
	return f, nil
}

// Provider returns pricewatch.Verda.
func (f *Fetcher) Provider() string { return pricewatch.Verda }

const refused = "the client credentials were refused (check " + EnvClientID + "/" + EnvClientSecret + " or providers.verda.client_id_file/client_secret_file)"

func (f *Fetcher) token(ctx context.Context) (section.Secret, error) {
	body, _ := json.Marshal(map[string]string{"grant_type": "client_credentials",
		"client_id": f.cfg.ClientID.Value(), "client_secret": f.cfg.ClientSecret.Value()})
	raw, err := f.client.Read(ctx, fetchers.Request{Method: http.MethodPost, URL: f.base + pathToken, Body: body,
		Where: "verda " + pathToken, Answer: "an access token", Refused: refused, Limit: 1 << 20})
	if err != nil {
		return section.Secret{}, err
	}
	var t struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(raw, &t); err != nil || t.AccessToken == "" {
		return section.Secret{}, fmt.Errorf("verda %s: %w: no access_token in the answer", pathToken, fetchers.ErrIncomplete)
	}
	tok := section.NewSecret(t.AccessToken)
	if f.cfg.AddSecrets != nil {
		f.cfg.AddSecrets(tok)
	}
	return tok, nil
}

func (f *Fetcher) get(ctx context.Context, tok section.Secret, path, query, answer string) ([]byte, error) {
	u := f.base + path
	if query != "" {
		u += "?" + query
	}
	return f.client.Read(ctx, fetchers.Request{Method: http.MethodGet, URL: u, Bearer: tok, Where: "verda " + path + "?" + query,
		Answer: answer, Refused: refused, Limit: maxBodyBytes})
}

// Fetch reads the four lists and returns the complete snapshot, or an
// error if any of them was not complete.
func (f *Fetcher) Fetch(ctx context.Context, _ fetchers.Previous) (*pricewatch.Snapshot, error) {
	tok, err := f.token(ctx)
	if err != nil {
		return nil, err
	}
	rawTypes, err := f.get(ctx, tok, pathTypes, "", "the instance-type list")
	if err != nil {
		return nil, err
	}
	types, malformed, err := decodeTypes(rawTypes)
	if err != nil {
		return nil, fmt.Errorf("verda %s: %w", pathTypes, err)
	}
	rawLoc, err := f.get(ctx, tok, pathLocations, "", "the location list")
	if err != nil {
		return nil, err
	}
	locations, err := decodeLocations(rawLoc)
	if err != nil {
		return nil, fmt.Errorf("verda %s: %w", pathLocations, err)
	}
	avail := map[bool]map[string]map[string]bool{}
	for _, spot := range []bool{false, true} {
		q := fmt.Sprintf("is_spot=%t", spot)
		raw, err := f.get(ctx, tok, pathAvailability, q, "the availability list")
		if err != nil {
			return nil, err
		}
		if avail[spot], err = decodeAvailability(raw, !spot); err != nil {
			return nil, fmt.Errorf("verda %s?%s: %w", pathAvailability, q, err)
		}
	}
	if f.regions != nil {
		locations = slices.DeleteFunc(locations, func(l location) bool { return !f.regions[l.Code] })
		if len(locations) == 0 {
			return nil, fmt.Errorf("%w: verda: none of the configured regions %v is a location the API lists", fetchers.ErrIncomplete, f.cfg.Regions)
		}
	}
	snap := build(types, locations, avail, f.cfg.Regions)
	return fetchers.Listed{Provider: pricewatch.Verda, Where: pathTypes, Entries: "instance types", Key: "types", Read: len(types),
		Malformed: malformed, Want: "one GPU type with a price", Fields: []zap.Field{zap.Int("locations", len(locations))}}.Finish(f.log, snap)
}

type rawType struct {
	InstanceType string `json:"instance_type"`
	// PricePerHour and SpotPrice are decimal strings, USD per
	// instance-hour (the SDK renames spot_price; the wire name is this).
	PricePerHour *string `json:"price_per_hour"`
	SpotPrice    *string `json:"spot_price"`
	Currency     string  `json:"currency"`
	GPU          *struct {
		Description  string `json:"description"`
		NumberOfGPUs *int   `json:"number_of_gpus"`
	} `json:"gpu"`
	GPUMemory struct {
		SizeInGigabytes float64 `json:"size_in_gigabytes"` // the instance's total
	} `json:"gpu_memory"`
	CPU struct {
		NumberOfCores int `json:"number_of_cores"`
	} `json:"cpu"`
	Memory struct {
		SizeInGigabytes float64 `json:"size_in_gigabytes"`
	} `json:"memory"`
}

type verdaType struct {
	name     string
	currency string
	onDemand decimal.Decimal
	spot     decimal.Decimal // zero: no spot price
	hw       pricewatch.Hardware
	cpuOnly  bool
}

func price(field string, v *string) (decimal.Decimal, error) {
	if v == nil || *v == "" {
		return decimal.Decimal{}, nil
	}
	d, err := decimal.NewFromString(*v)
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("%s %q: %v", field, *v, err)
	}
	if d.IsNegative() {
		return decimal.Decimal{}, fmt.Errorf("%s %q negative", field, *v)
	}
	return d, nil
}

// countPrefix is the "2x " of "2x RTX A6000 48GB".
var countPrefix = regexp.MustCompile(`^\s*\d+\s*x\s+`)

func decodeTypes(body []byte) ([]verdaType, map[string]string, error) {
	var list *[]json.RawMessage
	if err := fetchers.DecodeWhole(body, "an instance-type list", &list); err != nil {
		return nil, nil, err
	}
	if list == nil || len(*list) == 0 {
		// Verda always lists its types; empty is a fault, never "all gone".
		return nil, nil, fmt.Errorf("%w: the instance-type list is empty", fetchers.ErrIncomplete)
	}
	var out []verdaType
	malformed := map[string]string{}
	seen := map[string]bool{}
	for i, raw := range *list {
		var r rawType
		err := fetchers.DecodeWhole(raw, "an instance type", &r)
		key := r.InstanceType
		if key == "" {
			key = fmt.Sprintf("#%d", i)
		}
		var t verdaType
		if err == nil {
			t, err = checkType(r)
		}
		if err == nil && seen[t.name] {
			err = errors.New("listed twice")
		}
		if err != nil {
			malformed[key] = err.Error()
			continue
		}
		seen[t.name] = true
		out = append(out, t)
	}
	// A type listed twice: neither copy is believed.
	out = slices.DeleteFunc(out, func(t verdaType) bool { _, bad := malformed[t.name]; return bad })
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, malformed, nil
}

func checkType(r rawType) (verdaType, error) {
	if r.InstanceType == "" || strings.ContainsAny(r.InstanceType, " /,") {
		return verdaType{}, fmt.Errorf("instance_type %q", r.InstanceType)
	}
	if r.GPU == nil || r.GPU.NumberOfGPUs == nil || *r.GPU.NumberOfGPUs < 0 {
		return verdaType{}, errors.New("no gpu.number_of_gpus")
	}
	if r.PricePerHour == nil {
		return verdaType{}, errors.New("no price_per_hour")
	}
	cur := strings.ToUpper(r.Currency)
	if len(cur) != 3 {
		return verdaType{}, fmt.Errorf("currency %q", r.Currency)
	}
	od, err := price("price_per_hour", r.PricePerHour)
	if err != nil {
		return verdaType{}, err
	}
	spot, err := price("spot_price", r.SpotPrice)
	if err != nil {
		return verdaType{}, err
	}
	n := *r.GPU.NumberOfGPUs
	t := verdaType{name: r.InstanceType, currency: cur, onDemand: od, spot: spot, cpuOnly: n == 0}
	var perGPU float64
	if n > 0 {
		perGPU = r.GPUMemory.SizeInGigabytes / float64(n)
	}
	desc := countPrefix.ReplaceAllString(r.GPU.Description, "")
	t.hw = pricewatch.Hardware{GPUCount: float64(n), GPUMemoryGB: perGPU, VCPUs: r.CPU.NumberOfCores, MemoryGB: r.Memory.SizeInGigabytes}
	if n > 0 {
		t.hw.GPUModel = gpu.Resolve(desc, gpu.Hint{MemoryGB: perGPU}).Name()
	}
	return t, nil
}

type location struct {
	Code string `json:"code"`
	Name string `json:"name"`
}

func decodeLocations(body []byte) ([]location, error) {
	var list *[]location
	if err := fetchers.DecodeWhole(body, "a location list", &list); err != nil {
		return nil, err
	}
	if list == nil || len(*list) == 0 {
		return nil, fmt.Errorf("%w: the location list is empty", fetchers.ErrIncomplete)
	}
	seen := map[string]bool{}
	for _, l := range *list {
		if l.Code == "" || strings.ContainsAny(l.Code, " /,") || seen[l.Code] {
			// Locations decide what every offer is keyed by: one odd code
			// makes the list unbelievable, not just one row.
			return nil, fmt.Errorf("%w: location code %q empty, odd or listed twice", fetchers.ErrIncomplete, l.Code)
		}
		seen[l.Code] = true
	}
	out := slices.Clone(*list)
	sort.Slice(out, func(i, j int) bool { return out[i].Code < out[j].Code })
	return out, nil
}

// decodeAvailability reads [{location_code, availabilities: [type…]}]
// into location → type set. For on-demand (required) an empty answer is a
// fault: Verda always has some type deployable somewhere; for spot it can
// be true.
func decodeAvailability(body []byte, required bool) (map[string]map[string]bool, error) {
	var list *[]struct {
		LocationCode   string    `json:"location_code"`
		Availabilities *[]string `json:"availabilities"`
	}
	if err := fetchers.DecodeWhole(body, "an availability list", &list); err != nil {
		return nil, err
	}
	if list == nil || (required && len(*list) == 0) {
		return nil, fmt.Errorf("%w: the availability list is empty", fetchers.ErrIncomplete)
	}
	out := map[string]map[string]bool{}
	for _, l := range *list {
		if l.LocationCode == "" || l.Availabilities == nil {
			return nil, fmt.Errorf("%w: an entry without location_code or availabilities", fetchers.ErrIncomplete)
		}
		if out[l.LocationCode] == nil {
			out[l.LocationCode] = map[string]bool{}
		}
		for _, t := range *l.Availabilities {
			out[l.LocationCode][t] = true
		}
	}
	return out, nil
}

func yesNo(b bool) string {
	if b {
		return "available"
	}
	return "not available"
}

// build: per GPU type and location, the on-demand offer, the spot offer
// where spot_price is given, and one availability record whose state is
// on-demand deployability (what most buyers wait for); the detail says
// both.
func build(types []verdaType, locations []location, avail map[bool]map[string]map[string]bool, regions []string) *pricewatch.Snapshot {
	snap := &pricewatch.Snapshot{Provider: pricewatch.Verda, SourceVersion: "v1/instance-types"}
	if len(regions) == 0 {
		snap.Coverage = []pricewatch.Scope{{Region: pricewatch.AllRegions, Availability: true}}
	} else {
		for _, l := range locations {
			snap.Coverage = append(snap.Coverage, pricewatch.Scope{Region: l.Code, Availability: true})
		}
	}
	for _, t := range types {
		if t.cpuOnly || !t.onDemand.IsPositive() {
			continue
		}
		for _, l := range locations {
			base := pricewatch.Offer{Provider: pricewatch.Verda, Region: l.Code, InstanceType: t.name, OS: pricewatch.Linux,
				Currency: t.currency, Hardware: t.hw, CloudIDs: pricewatch.CloudIDs{RegionName: l.Name}}
			od := base
			od.PriceType, od.Hourly = pricewatch.OnDemand, t.onDemand
			snap.Offers = append(snap.Offers, od)
			if t.spot.IsPositive() {
				sp := base
				sp.PriceType, sp.Hourly = pricewatch.Spot, t.spot
				snap.Offers = append(snap.Offers, sp)
			}
			inOD, inSpot := avail[false][l.Code][t.name], avail[true][l.Code][t.name]
			a := pricewatch.Availability{Provider: pricewatch.Verda, Region: l.Code, InstanceType: t.name, State: pricewatch.SoldOut,
				StockDetail: "on-demand " + yesNo(inOD) + ", spot " + yesNo(inSpot), Hardware: t.hw}
			if inOD {
				a.State = pricewatch.InStock
			}
			snap.Availability = append(snap.Availability, a)
		}
	}
	return snap
}
