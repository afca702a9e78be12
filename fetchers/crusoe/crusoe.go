// Package crusoe reads Crusoe Cloud: its capacities (GET /capacities,
// the available quantity per instance type and location, signed with an
// access key) as availability, and its prices from price sheets: Crusoe
// states them only on https://www.crusoe.ai/cloud/pricing (see package
// sheet).
package crusoe

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
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
	// DefaultEndpoint is the API's base URL with its version, which the
	// signature covers (gpuhunt and Crusoe's API docs use this host;
	// its OpenAPI document also names api.cloud.crusoe.ai/v1).
	DefaultEndpoint = "https://api.crusoecloud.com/v1alpha5"
	// Path lists capacities.
	Path = "/capacities"
	// EnvAccessKeyID and EnvSecretKey name the environment variables of
	// the access key pair.
	EnvAccessKeyID = "CRUSOE_ACCESS_KEY_ID"
	EnvSecretKey   = "CRUSOE_SECRET_KEY"
	// signatureVersion is the scheme's version in the Authorization
	// header.
	signatureVersion = "1.0"

	maxBodyBytes = 4 << 20
)

// Section is providers.crusoe.
type Section struct {
	// Keys hold price_sheets, the sheets with Crusoe's prices.
	sheet.Keys `yaml:",inline"`
	// AccessKeyID is the key's public half (CRUSOE_ACCESS_KEY_ID wins).
	AccessKeyID string `yaml:"access_key_id"`
	// SecretKeyFile holds the secret half when CRUSOE_SECRET_KEY is not
	// set.
	SecretKeyFile string `yaml:"secret_key_file"`
}

// Validate checks secret_key_file and price_sheets when the provider is
// on.
func (s *Section) Validate(k section.Checker) error {
	return s.Check(k, "secret_key_file", s.SecretKeyFile)
}

// Provider registers Crusoe (see package providers).
var Provider = fetchers.Provider{
	Name:  pricewatch.Crusoe,
	Facts: section.Facts{NeedsEndpoint: true, RegionsUnused: "one capacities answer covers every Crusoe location"},
	Section: func() section.Section {
		return &Section{Keys: sheet.Keys{Enabled: true, Endpoint: DefaultEndpoint, Schedule: "*/10 * * * *", Timeout: 2 * time.Minute}}
	},
	Build: fetchers.Builder(func(s *Section, env fetchers.Env) (fetchers.Fetcher, error) {
		secret, err := fetchers.ReadKey("crusoe secret key", EnvSecretKey, s.SecretKeyFile)
		if err != nil {
			return nil, err
		}
		env.Secrets(secret)
		id, _ := fetchers.ReadKey("crusoe access key id", EnvAccessKeyID, "")
		if id.Empty() {
			id = section.NewSecret(s.AccessKeyID)
		}
		return New(Config{Endpoint: s.Endpoint, AccessKeyID: id.Value(), SecretKey: secret, PriceSheets: s.PriceSheets}, env.Client, env.Log, env.Now)
	}),
}

// Config is what New needs.
type Config struct {
	Endpoint    string
	AccessKeyID string
	SecretKey   section.Secret
	PriceSheets []string
}

// Fetcher reads capacities and the sheets.
type Fetcher struct {
	url    *url.URL
	id     string
	secret []byte
	sheets []string
	client *fetchers.Client
	log    *zap.Logger
	now    func() time.Time
}

var errNoKey = fmt.Errorf("%w: set %s and %s (or providers.crusoe.access_key_id and secret_key_file)",
	fetchers.ErrNoCredentials, EnvAccessKeyID, EnvSecretKey)

// New checks cfg. Without the key pair the provider is skipped
// (fetchers.ErrNoCredentials).
func New(cfg Config, client *fetchers.Client, log *zap.Logger, now func() time.Time) (*Fetcher, error) {
	if client != nil && (cfg.AccessKeyID == "" || cfg.SecretKey.Empty()) {
		return nil, errNoKey
	}
	u, log, err := fetchers.Endpoint(pricewatch.Crusoe, client, log, cfg.Endpoint, DefaultEndpoint, Path)
	if err != nil {
		return nil, err
	}
	// The secret is base64url (Crusoe hands it out so); its bytes key the
	// HMAC. A secret that does not decode is refused without naming it.
	secret, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(cfg.SecretKey.Value(), "="))
	if err != nil {
		return nil, fmt.Errorf("%w: crusoe secret key is not base64url", fetchers.ErrAuth)
	}
	if now == nil {
		now = time.Now
	}
	return &Fetcher{url: u, id: cfg.AccessKeyID, secret: secret, sheets: cfg.PriceSheets, client: client, log: log, now: now}, nil
}

// Provider returns pricewatch.Crusoe.
func (f *Fetcher) Provider() string { return pricewatch.Crusoe }

// Sign returns the Authorization header of a request of method to path
// (with the API's version, e.g. /v1alpha5/capacities) and query at ts:
// signature version 1.0, HMAC-SHA256 of
// "path\nsorted query\nMETHOD\ntimestamp\n" keyed with the secret's
// bytes, base64url without padding.
func Sign(id string, secret []byte, method, path string, query url.Values, ts string) string {
	var pairs []string
	for k, vs := range query {
		for _, v := range vs {
			pairs = append(pairs, k+"="+v)
		}
	}
	sort.Strings(pairs)
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(path + "\n" + strings.Join(pairs, "&") + "\n" + method + "\n" + ts + "\n"))
	return "Bearer " + signatureVersion + ":" + id + ":" + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// Fetch reads the capacities, then the sheets; either failing fails the
// run.
func (f *Fetcher) Fetch(ctx context.Context, prev fetchers.Previous) (*pricewatch.Snapshot, error) {
	body, err := f.capacities(ctx)
	if err != nil {
		return nil, err
	}
	caps, odd, err := decode(body)
	if err != nil {
		return nil, fmt.Errorf("crusoe %s: %w", Path, err)
	}
	if len(odd) > 0 {
		f.log.Warn("crusoe capacities left out; the others are stored", zap.Int("malformed", len(odd)), zap.String("first", odd[0]))
	}
	var offers []pricewatch.Offer
	if len(f.sheets) > 0 {
		if offers, err = sheet.ReadAll(ctx, f.client, f.log, pricewatch.Crusoe, f.sheets); err != nil {
			return nil, err
		}
	}
	hw := map[string]pricewatch.Hardware{}
	for _, o := range offers {
		hw[o.InstanceType] = o.Hardware
	}
	snap := &pricewatch.Snapshot{Provider: pricewatch.Crusoe, Offers: offers, SourceVersion: "capacities; price sheets",
		// A malformed row's place is not known complete: this run then
		// closes no availability.
		Coverage: []pricewatch.Scope{{Region: pricewatch.AllRegions, Availability: len(odd) == 0}}}
	for _, c := range caps {
		h, ok := hw[c.typ]
		if !ok {
			h = hardware(c.typ)
		}
		if h.GPUCount <= 0 {
			continue // a CPU type: pricewatch follows GPUs
		}
		a := pricewatch.Availability{Provider: pricewatch.Crusoe, Region: c.location, InstanceType: c.typ, State: pricewatch.SoldOut,
			StockDetail: "quantity 0", Hardware: h}
		if c.quantity > 0 {
			a.State, a.StockDetail = pricewatch.InStock, "quantity "+strconv.Itoa(c.quantity)
		}
		snap.Availability = append(snap.Availability, a)
	}
	return fetchers.Done(f.log, "crusoe", snap, "crusoe fetched", zap.Int("offers", len(snap.Offers)), zap.Int("availability", len(snap.Availability)))
}

func (f *Fetcher) capacities(ctx context.Context) ([]byte, error) {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	where := "crusoe " + Path
	resp, err := f.client.Do(rctx, func(ctx context.Context) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.url.String(), nil)
		if err != nil {
			return nil, err
		}
		// Signed per attempt: the timestamp is part of the signature.
		ts := f.now().UTC().Format(time.RFC3339)
		req.Header.Set("Accept", "application/json")
		req.Header.Set("X-Crusoe-Timestamp", ts)
		req.Header.Set("Authorization", Sign(f.id, f.secret, http.MethodGet, f.url.Path, f.url.Query(), ts))
		return req, nil
	})
	if err != nil {
		var se *fetchers.StatusError
		if errors.As(err, &se) && (se.Status == http.StatusUnauthorized || se.Status == http.StatusForbidden) {
			return nil, fmt.Errorf("%s: %w: the access key was refused (check %s and %s): %w", where, fetchers.ErrAuth, EnvAccessKeyID, EnvSecretKey, err)
		}
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: %s: HTTP %d instead of the capacities", fetchers.ErrIncomplete, where, resp.StatusCode)
	}
	return fetchers.ReadBody(ctx, cancel, resp.Body, maxBodyBytes, fetchers.DefaultBodyTimeout, where)
}

type answer struct {
	Items *[]struct {
		Type     string `json:"type"`
		Location string `json:"location"`
		Quantity *int   `json:"quantity"`
	} `json:"items"`
}

type capacity struct {
	typ, location string
	quantity      int
}

// decode reads the answer. An item without type, location or a
// non-negative quantity is left out and named in odd; a (type, location)
// listed twice keeps its largest quantity (as gpuhunt reads it).
func decode(body []byte) (caps []capacity, odd []string, err error) {
	var a answer
	if err := fetchers.DecodeWhole(body, "a capacities list", &a); err != nil {
		return nil, nil, err
	}
	if a.Items == nil {
		return nil, nil, fmt.Errorf("%w: no items", fetchers.ErrIncomplete)
	}
	// Crusoe lists its types with or without stock; an empty list is a
	// fault upstream, never "every type withdrawn".
	if len(*a.Items) == 0 {
		return nil, nil, fmt.Errorf("%w: the capacities list is empty", fetchers.ErrIncomplete)
	}
	best := map[[2]string]int{}
	for i, it := range *a.Items {
		if it.Type == "" || it.Location == "" || strings.ContainsAny(it.Location, " /,") || it.Quantity == nil || *it.Quantity < 0 {
			odd = append(odd, fmt.Sprintf("item %d (%q in %q)", i, it.Type, it.Location))
			continue
		}
		k := [2]string{it.Type, it.Location}
		if q, seen := best[k]; !seen || *it.Quantity > q {
			best[k] = *it.Quantity
		}
	}
	for k, q := range best {
		caps = append(caps, capacity{typ: k[0], location: k[1], quantity: q})
	}
	sort.Slice(caps, func(i, j int) bool {
		if caps[i].typ != caps[j].typ {
			return caps[i].typ < caps[j].typ
		}
		return caps[i].location < caps[j].location
	})
	if len(caps) == 0 {
		return nil, nil, fmt.Errorf("%w: %d items and not one that can be read", fetchers.ErrIncomplete, len(odd))
	}
	return caps, odd, nil
}

// hardware reads a type's GPU and count from its name
// ("h100-80gb-sxm-ib.8x": 8 × H100 80 GB) for a type no sheet prices;
// "ib" (its InfiniBand fabric) is no part of the GPU's name.
func hardware(typ string) pricewatch.Hardware {
	name, count, ok := strings.Cut(typ, ".")
	n, err := strconv.Atoi(strings.TrimSuffix(count, "x"))
	if !ok || err != nil || n <= 0 {
		return pricewatch.Hardware{}
	}
	var words []string
	for _, w := range strings.Split(name, "-") {
		if w != "ib" {
			words = append(words, w)
		}
	}
	id := gpu.Resolve(strings.Join(words, " "), gpu.Hint{})
	// Only a catalogue GPU is believed from a name: "c1a" (a CPU type)
	// would otherwise pass for an unknown GPU.
	if id.Kind != gpu.KindGPU || !id.Known {
		return pricewatch.Hardware{}
	}
	return pricewatch.Hardware{GPUModel: id.Name(), GPUCount: float64(n) * id.Fraction, GPUMemoryGB: id.MemoryGB}
}
