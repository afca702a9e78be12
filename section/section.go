// Package section holds what one part of the configuration file is built
// from, so that the package owning a part (each fetcher owns
// providers.<name>) can define its keys, defaults and checks without
// importing package config, which composes the parts: the keys every
// provider shares, the line-aware key error, the checks shared by every
// part, and the Secret type keys holding credentials use.
package section

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// Section is one provider's part of the file, providers.<name>. Its value
// is a pointer to a struct decoded key by key (yaml tags name the keys,
// `yaml:",inline"` flattens an embedded struct such as Common), holding
// the defaults until the file says otherwise.
type Section interface {
	// Shared returns the keys every provider has, for the checks config
	// runs on each provider and for the daemon's schedule.
	Shared() Common
	// Validate checks the section's own keys; k names them under
	// providers.<name>, with the line each is on.
	Validate(k Checker) error
}

// Common are the keys most providers have.
type Common struct {
	Enabled  bool          `yaml:"enabled"`
	Endpoint string        `yaml:"endpoint"`
	Regions  []string      `yaml:"regions"`  // empty means all
	Schedule string        `yaml:"schedule"` // robfig/cron spec, evaluated in UTC
	Timeout  time.Duration `yaml:"timeout"`  // whole run
}

// Shared returns c: a section embedding Common has the method too.
func (c Common) Shared() Common { return c }

// SecretFiles checks each pair of a secret-file key and its value with
// Checker.SecretFile when the provider is on (a disabled provider reads
// no secret, so its files may be gone).
func (c Common) SecretFiles(k Checker, keyFile ...string) error {
	if !c.Enabled {
		return nil
	}
	var errs []error
	for i := 0; i+1 < len(keyFile); i += 2 {
		if err := k.SecretFile(keyFile[i], keyFile[i+1]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// KeyError is a configuration problem tied to one key and, when the value
// came from a file, the line it is on.
type KeyError struct {
	File string
	Line int
	Key  string // dotted path, e.g. providers.azure.endpoint
	Msg  string
}

func (e *KeyError) Error() string {
	loc := e.File
	if e.Line > 0 {
		if loc != "" {
			loc += ":"
		}
		loc += fmt.Sprintf("line %d", e.Line)
	}
	if loc != "" {
		return fmt.Sprintf("%s: %s: %s", loc, e.Key, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Key, e.Msg)
}

// Checker builds KeyErrors for the keys under one prefix, with the line
// the file gave each key on.
type Checker struct {
	file   string
	lines  map[string]int
	prefix string
}

// NewChecker names keys from the top of the file; lines maps a dotted key
// to its line (a key the file did not set has none).
func NewChecker(file string, lines map[string]int) Checker {
	return Checker{file: file, lines: lines}
}

// Under returns a Checker naming keys below key ("providers.aws").
func (c Checker) Under(key string) Checker {
	c.prefix = c.Key(key)
	return c
}

// Key is the dotted path of key below the Checker's prefix.
func (c Checker) Key(key string) string {
	if c.prefix == "" {
		return key
	}
	return c.prefix + "." + key
}

// Errorf builds an error for key, with its line when the file set it.
func (c Checker) Errorf(key, format string, args ...any) error {
	full := c.Key(key)
	return &KeyError{File: c.file, Line: c.lines[full], Key: full, Msg: fmt.Sprintf(format, args...)}
}

// URL wants an http(s) URL with a host.
func (c Checker) URL(key, v string) error {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return c.Errorf(key, "%q is not an http(s) URL", v)
	}
	return nil
}

// DefaultSchedule is when a provider without a schedule runs.
const DefaultSchedule = "@hourly"

// ParseSchedule parses a provider's schedule (cron, UTC; empty:
// DefaultSchedule): the one parse the daemon's scheduler, its catch-up,
// the expected intervals and the config's check share.
func ParseSchedule(spec string) (cron.Schedule, error) {
	if spec == "" {
		spec = DefaultSchedule
	}
	return cron.ParseStandard(spec)
}

// Schedule parses a cron spec. robfig/cron takes "@every -3s" (and any
// interval under a second) and quietly runs every second: refused.
func (c Checker) Schedule(key, spec string) error {
	if spec == "" { // ParseSchedule would take the default
		return c.Errorf(key, "%q is not a cron spec: empty spec string", spec)
	}
	if _, err := ParseSchedule(spec); err != nil {
		return c.Errorf(key, "%q is not a cron spec: %v", spec, err)
	}
	if rest, ok := strings.CutPrefix(strings.TrimSpace(spec), "@every "); ok {
		d, err := time.ParseDuration(strings.TrimSpace(rest))
		if err != nil || d < time.Second {
			return c.Errorf(key, "%q: @every needs an interval of at least 1s", spec)
		}
	}
	return nil
}

// AtLeast wants v to be at least min.
func (c Checker) AtLeast(key string, v, min int) error {
	if v < min {
		return c.Errorf(key, "must be at least %d", min)
	}
	return nil
}

// Between wants v within [min, max].
func (c Checker) Between(key string, v, min, max int) error {
	if v < min || v > max {
		return c.Errorf(key, "%d: want %d to %d", v, min, max)
	}
	return nil
}

// NotNegative wants d to be 0 or more.
func (c Checker) NotNegative(key string, d time.Duration) error {
	if d < 0 {
		return c.Errorf(key, "must not be negative")
	}
	return nil
}

// Bounds of providers.<name>.timeout.
const (
	MinRunTimeout = 10 * time.Second
	MaxRunTimeout = 24 * time.Hour
)

// Bounds of the keys the clouds with per-call quotas share (Alibaba's and
// Tencent's max_price_calls and concurrency): a negative budget quietly
// meant the default, and 100,000 calls in flight only meet the clouds'
// rate limits (their APIs allow tens of calls a second).
const (
	MaxPriceCalls  = 100000
	MaxConcurrency = 32
)

// Facts are what the checks of the shared keys need to know about a
// provider beyond its section.
type Facts struct {
	// NeedsEndpoint: the fetcher always calls the endpoint (the others
	// build their hosts per region unless one is set).
	NeedsEndpoint bool
	// RegionsUnused, when set, says why regions has no meaning for this
	// cloud (and is refused).
	RegionsUnused string
}

// CheckShared checks the keys every provider has; k names them under
// providers.<name>.
func CheckShared(k Checker, c Common, f Facts) []error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if c.Endpoint != "" || f.NeedsEndpoint {
		add(k.URL("endpoint", c.Endpoint))
	}
	if c.Schedule != "" {
		add(k.Schedule("schedule", c.Schedule))
	}
	// A run's whole timeout: 0s failed every run at once, and no cloud's
	// full catalogue takes more than a day.
	if c.Timeout < MinRunTimeout || c.Timeout > MaxRunTimeout {
		add(k.Errorf("timeout", "%s: want %s to %s (the bound of one whole run)", c.Timeout, MinRunTimeout, MaxRunTimeout))
	}
	for i, r := range c.Regions {
		if !regionCode.MatchString(r) {
			add(k.Errorf(fmt.Sprintf("regions[%d]", i), "%q is not a region code", r))
		}
	}
	if f.RegionsUnused != "" && len(c.Regions) > 0 {
		add(k.Errorf("regions", "is not used: %s", f.RegionsUnused))
	}
	return errs
}

// regionCode is the shape every cloud's region codes share: letters and
// digits in words joined by hyphens, underscores or dots (eastus,
// us-east-1, cn-hangzhou, EU-RO-1).
var regionCode = regexp.MustCompile(`^[A-Za-z0-9]+([-_.][A-Za-z0-9]+)*$`)

// Keyed are the keys of a provider with one global API (no regions to
// choose: the answer covers every region) read with an API key: Lambda,
// RunPod.
type Keyed struct {
	Enabled bool `yaml:"enabled"`
	// Endpoint is the base URL (scheme and host); the fetcher appends the
	// API's path.
	Endpoint string        `yaml:"endpoint"`
	Schedule string        `yaml:"schedule"`
	Timeout  time.Duration `yaml:"timeout"`
	// APIKeyFile names a file holding the key, used when the provider's
	// environment variable is not set (a relative name is looked up in
	// $CREDENTIALS_DIRECTORY).
	APIKeyFile string `yaml:"api_key_file"`
}

// Shared returns the keys Keyed has in common with every provider.
func (k Keyed) Shared() Common {
	return Common{Enabled: k.Enabled, Endpoint: k.Endpoint, Schedule: k.Schedule, Timeout: k.Timeout}
}

// Validate checks api_key_file when the provider is on; the shared
// checks cover the other keys.
func (k Keyed) Validate(c Checker) error {
	if !k.Enabled {
		return nil
	}
	return c.SecretFile("api_key_file", k.APIKeyFile)
}
