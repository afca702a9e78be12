package fetchers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/section"
)

// Provider is what a cloud's package registers (package providers lists
// every one): which cloud it reads, its config section and how to build
// its fetcher from that section. How the cloud is written and where its
// pricing pages are is package clouds' table, which needs no fetcher.
type Provider struct {
	// Name is the cloud's key in package clouds: providers.<name> in
	// config, the provider column in storage, --provider on the command
	// line.
	Name string
	// Facts are what the checks of the shared keys need (whether the
	// endpoint is always called, why regions mean nothing).
	section.Facts
	// Section returns a new section holding the defaults.
	Section func() section.Section
	// Build makes the fetcher from a section of the type Section returns;
	// write it with Builder.
	Build func(section.Section, Env) (Fetcher, error)
}

// Env is what a fetcher may take from the program building it, beside its
// own section.
type Env struct {
	// Client is the shared retrying HTTP client.
	Client *Client
	// Log is the provider's logger.
	Log *zap.Logger
	// Now is the clock deciding which prices are in effect.
	Now func() time.Time
	// Progress receives status lines during long downloads; nil shows none.
	Progress io.Writer
	// AddSecrets hands the credentials read to the program's redactor, so
	// that no log line or error shows them. Nil drops them.
	AddSecrets func(...section.Secret)
}

// Secrets hands credentials to the program's redactor.
func (e Env) Secrets(s ...section.Secret) {
	if e.AddSecrets != nil {
		e.AddSecrets(s...)
	}
}

// Builder adapts a constructor taking the provider's own section type to
// Provider.Build.
func Builder[S section.Section](build func(S, Env) (Fetcher, error)) func(section.Section, Env) (Fetcher, error) {
	return func(s section.Section, env Env) (Fetcher, error) {
		typed, ok := s.(S)
		if !ok {
			return nil, fmt.Errorf("building a fetcher: the section is a %T, want a %T", s, *new(S))
		}
		return build(typed, env)
	}
}

// New builds p's fetcher from its section. A provider without credentials
// becomes a fetcher that reports so on every run, so that it is skipped
// with one clear line instead of failing (or failing to start the daemon).
func (p Provider) New(s section.Section, env Env) (Fetcher, error) {
	f, err := p.Build(s, env)
	switch {
	case errors.Is(err, ErrNoCredentials):
		return unconfigured{name: p.Name, err: err}, nil
	case err != nil:
		return nil, err
	}
	return f, nil
}

// KeyedProvider completes p for a cloud whose section is section.Keyed:
// one global API read with an API key. defaults are the section's
// defaults, key says where the key comes from (Key.From; api_key_file
// names its file), build makes the fetcher from the section's endpoint
// and key and the program's Env (its client, the provider's log, the
// clock); the key is handed to the redactor before.
func KeyedProvider[F Fetcher](p Provider, defaults section.Keyed, key Key, build func(KeyedConfig, Env) (F, error)) Provider {
	p.NeedsEndpoint = true
	p.Section = func() section.Section {
		s := defaults
		return &s
	}
	p.Build = Builder(func(s *section.Keyed, env Env) (Fetcher, error) {
		k, err := key.From(s.APIKeyFile)
		if err != nil {
			return nil, err
		}
		env.Secrets(k)
		f, err := build(KeyedConfig{Endpoint: s.Endpoint, APIKey: k}, env)
		if err != nil {
			return nil, err // not f: a nil *F would be a non-nil Fetcher
		}
		return f, nil
	})
	return p
}

// WithClient adapts a constructor taking the client and the log (New(cfg,
// client, log)) to KeyedProvider's build.
func WithClient[F Fetcher](build func(KeyedConfig, *Client, *zap.Logger) (F, error)) func(KeyedConfig, Env) (F, error) {
	return func(cfg KeyedConfig, env Env) (F, error) { return build(cfg, env.Client, env.Log) }
}

type unconfigured struct {
	name string
	err  error
}

func (u unconfigured) Provider() string { return u.name }
func (u unconfigured) Fetch(context.Context, Previous) (*pricewatch.Snapshot, error) {
	return nil, u.err
}

// ReadKey resolves one credential: the environment variable env first,
// then file (a relative name is looked up in $CREDENTIALS_DIRECTORY, as
// systemd's LoadCredential provides). Neither set gives an empty Secret
// and no error: the fetcher decides whether it needs the key. The error
// names what was read (what, e.g. "lambda API key"), never its value.
func ReadKey(what, env, file string) (section.Secret, error) {
	v, err := section.ReadSecret(env, section.Secret{}, file)
	if err != nil {
		return section.Secret{}, fmt.Errorf("%s: %w", what, err)
	}
	return v, nil
}

// Logger checks what every HTTP fetcher's New is given: a client is
// required, a nil log discards. The logger returned names the provider.
func Logger(provider string, client *Client, log *zap.Logger) (*zap.Logger, error) {
	if client == nil {
		return nil, fmt.Errorf("%s: an HTTP client is required", provider)
	}
	if log == nil {
		log = zap.NewNop()
	}
	return log.With(zap.String("provider", provider)), nil
}

// Endpoint checks what the New of a fetcher reading one HTTP API is
// given (see Logger) and parses providers.<provider>.endpoint (def when
// empty): an http(s) URL with a host, with path, when set, appended to
// its own.
func Endpoint(provider string, client *Client, log *zap.Logger, v, def, path string) (*url.URL, *zap.Logger, error) {
	log, err := Logger(provider, client, log)
	if err != nil {
		return nil, nil, err
	}
	if v == "" {
		v = def
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, nil, fmt.Errorf("%s: providers.%s.endpoint %q: want an http(s) URL such as %s", provider, provider, v, def)
	}
	if path != "" {
		u.Path = strings.TrimSuffix(u.Path, "/") + path
	}
	return u, log, nil
}

// Distinct returns list's entries, each cleaned by clean, in their order
// and without repeats (nil for none): what a fetcher makes of a configured
// or answered list of names. The first entry check refuses (given its
// index in list and its cleaned value) stops it with check's error.
func Distinct(list []string, clean func(string) string, check func(i int, v string) error) ([]string, error) {
	var out []string
	seen := make(map[string]bool, len(list))
	for i, v := range list {
		v = clean(v)
		if err := check(i, v); err != nil {
			return nil, err
		}
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out, nil
}
