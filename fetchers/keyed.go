package fetchers

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch/section"
)

// KeyedConfig is what a fetcher of a keyed API (see KeyedAPI) is built
// from.
type KeyedConfig struct {
	// Endpoint is the base URL (scheme and host); empty means the API's
	// default. The API's path is appended.
	Endpoint string
	// APIKey is sent when set: as a bearer token, or in the spec's
	// KeyHeader.
	APIKey section.Secret
}

// KeyedSpec describes one keyed API.
type KeyedSpec struct {
	// Provider names the cloud in errors ("lambda").
	Provider string
	// DefaultEndpoint is the API's base URL; Path is appended.
	DefaultEndpoint, Path string
	// KeyHelp says where the key comes from, in the error a refused key
	// gives ("check LAMBDA_API_KEY or providers.lambda.api_key_file").
	KeyHelp string
	// Answer names what a 200 holds, for the error another status gives
	// ("the instance-type list").
	Answer string
	// MaxBody and BodyTimeout bound reading the body; zero:
	// DefaultMaxBody and DefaultBodyTimeout.
	MaxBody     int64
	BodyTimeout time.Duration
	// KeyHeader, when set, is the header the key travels in instead of
	// the Authorization bearer token (Shadeform's X-API-KEY, Hyperstack's
	// api_key).
	KeyHeader string
}

// KeyedAPI is one HTTP API at a fixed path below a base URL, answering one
// request with the whole list, read with a bearer key (Lambda; RunPod,
// whose key is optional). It sends the request, tells a refused key apart
// and reads the body within its bounds.
type KeyedAPI struct {
	KeyedSpec
	// URL is the base URL with Path appended.
	URL string
	// Log is the fetcher's logger, naming the provider.
	Log    *zap.Logger
	key    section.Secret
	client *Client
}

// NewKeyedAPI checks cfg against spec: a client is required (see Logger;
// a nil log discards) and the endpoint must be a base URL, scheme and
// host with no path, query or user info.
func NewKeyedAPI(spec KeyedSpec, cfg KeyedConfig, client *Client, log *zap.Logger) (KeyedAPI, error) {
	log, err := Logger(spec.Provider, client, log)
	if err != nil {
		return KeyedAPI{}, err
	}
	v := cfg.Endpoint
	if v == "" {
		v = spec.DefaultEndpoint
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		return KeyedAPI{}, fmt.Errorf("%s: providers.%s.endpoint %q: want a base URL such as %s (scheme and host only; %s is appended)",
			spec.Provider, spec.Provider, v, spec.DefaultEndpoint, spec.Path)
	}
	return KeyedAPI{KeyedSpec: spec, URL: u.Scheme + "://" + u.Host + spec.Path, Log: log, key: cfg.APIKey, client: client}, nil
}

// API is NewKeyedAPI for a cloud whose key k describes: a required key
// that is missing is refused first (Check, wrapping ErrNoCredentials) when
// there is a client to send it with, and a refused key's error says where
// the key comes from (Help) unless spec.KeyHelp says otherwise.
func (k Key) API(spec KeyedSpec, cfg KeyedConfig, client *Client, log *zap.Logger) (KeyedAPI, error) {
	if client != nil {
		if err := k.Check(cfg.APIKey); err != nil {
			return KeyedAPI{}, err
		}
	}
	if spec.KeyHelp == "" {
		spec.KeyHelp = k.Help()
	}
	return NewKeyedAPI(spec, cfg, client, log)
}

// Do sends method with body (a JSON document, or nil) and returns the
// whole body of a 200 answer (see Client.Read); a refused key wraps
// ErrAuth.
func (a KeyedAPI) Do(ctx context.Context, method string, body []byte) ([]byte, error) {
	r := Request{Method: method, URL: a.URL, Body: body, Bearer: a.key,
		Where: a.Provider + " " + a.Path, Answer: a.Answer, Refused: "the API key was refused (" + a.KeyHelp + ")",
		Limit: a.MaxBody, Timeout: a.BodyTimeout}
	if a.KeyHeader != "" {
		r.Bearer, r.KeyHeader, r.Key = section.Secret{}, a.KeyHeader, a.key
	}
	return a.client.Read(ctx, r)
}
