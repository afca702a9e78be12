package fetchers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/pricewatch/pricewatch/section"
)

// KeyedConfig is what a fetcher of a keyed API (see KeyedAPI) is built
// from.
type KeyedConfig struct {
	// Endpoint is the base URL (scheme and host); empty means the API's
	// default. The API's path is appended.
	Endpoint string
	// APIKey is sent as a bearer token when set.
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
	// MaxBody and BodyTimeout bound reading the body.
	MaxBody     int64
	BodyTimeout time.Duration
}

// KeyedAPI is one HTTP API at a fixed path below a base URL, answering one
// request with the whole list, read with a bearer key (Lambda; RunPod,
// whose key is optional). It sends the request, tells a refused key apart
// and reads the body within its bounds.
type KeyedAPI struct {
	KeyedSpec
	// URL is the base URL with Path appended.
	URL    string
	key    section.Secret
	client *Client
}

// NewKeyedAPI checks cfg against spec: a client is required and the
// endpoint must be a base URL, scheme and host with no path, query or
// user info.
func NewKeyedAPI(spec KeyedSpec, cfg KeyedConfig, client *Client) (KeyedAPI, error) {
	if client == nil {
		return KeyedAPI{}, fmt.Errorf("%s: an HTTP client is required", spec.Provider)
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
	return KeyedAPI{KeyedSpec: spec, URL: u.Scheme + "://" + u.Host + spec.Path, key: cfg.APIKey, client: client}, nil
}

// Do sends method with body (a JSON document, or nil) and returns the
// whole body of a 200 answer. The client retries 429 and 5xx with
// back-off; what is left is an error, wrapping ErrAuth when the key was
// refused and ErrIncomplete for any other status or a cut-off body.
func (a KeyedAPI) Do(ctx context.Context, method string, body []byte) ([]byte, error) {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	resp, err := a.client.Do(rctx, func(ctx context.Context) (*http.Request, error) {
		var r io.Reader
		if body != nil {
			r = bytes.NewReader(body)
		}
		req, err := http.NewRequestWithContext(ctx, method, a.URL, r)
		if err != nil {
			return nil, err
		}
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		req.Header.Set("Accept", "application/json")
		if !a.key.Empty() {
			req.Header.Set("Authorization", "Bearer "+a.key.Value())
		}
		return req, nil
	})
	if err != nil {
		var se *StatusError
		if errors.As(err, &se) && (se.Status == http.StatusUnauthorized || se.Status == http.StatusForbidden) {
			return nil, fmt.Errorf("%s %s: %w: the API key was refused (%s): %w", a.Provider, a.Path, ErrAuth, a.KeyHelp, err)
		}
		return nil, fmt.Errorf("%s %s: %w", a.Provider, a.Path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: %s %s: HTTP %d instead of %s", ErrIncomplete, a.Provider, a.Path, resp.StatusCode, a.Answer)
	}
	return ReadBody(ctx, cancel, resp.Body, a.MaxBody, a.BodyTimeout, a.Provider+" "+a.Path)
}
