// Package config holds pricewatch's configuration file schema, its defaults
// and its validation. Every key is documented in config.example.yaml at the
// repository root; a test loads that file so the two cannot drift apart.
//
// Decoding is strict: an unknown key or a bad value is an error that names
// the key and its line.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/leader"
	"github.com/pricewatch/pricewatch/providers"
	"github.com/pricewatch/pricewatch/section"
)

// EnvConfig names the environment variable that points at the config file.
const EnvConfig = "PRICEWATCH_CONFIG"

// DefaultFile is read when present and no file is named.
const DefaultFile = "pricewatch.yaml"

// Config is the whole file.
type Config struct {
	Database  Database  `yaml:"database"`
	Storage   Storage   `yaml:"storage"`
	Log       Log       `yaml:"log"`
	HTTP      HTTP      `yaml:"http"`
	Fetch     Fetch     `yaml:"fetch"`
	Providers Providers `yaml:"providers"`
	FX        FX        `yaml:"fx"`
	Slack     Slack     `yaml:"slack"`
	Webhook   Webhook   `yaml:"webhook"`
	Guard     Guard     `yaml:"guard"`
	Alerts    Alerts    `yaml:"alerts"`
	Digest    Digest    `yaml:"digest"`
	Metrics   Metrics   `yaml:"metrics"`
	Hardware  Hardware  `yaml:"hardware"`
	// HA is the leader election among replicas on one PostgreSQL
	// database; package leader owns its keys and checks.
	HA leader.Config `yaml:"ha"`

	// Source is the file the config came from ("" for built-in defaults).
	Source string `yaml:"-"`
	lines  map[string]int
}

// Database is where history lives: an SQLite file (Path, the default) or
// a PostgreSQL database (URL or URLFile), never both.
type Database struct {
	Path string `yaml:"path"`
	// URL (postgres://…) selects PostgreSQL. It is a secret (it may carry
	// a password): never logged, never in an error; URLFile reads it from
	// a file instead.
	URL         Secret        `yaml:"url"`
	URLFile     string        `yaml:"url_file"`
	BusyTimeout time.Duration `yaml:"busy_timeout"`
}

// UsesPostgres reports whether database.url or database.url_file is set.
func (d Database) UsesPostgres() bool { return !d.URL.Empty() || d.URLFile != "" }

// DatabaseTarget returns what storage.OpenURL opens: database.path, or the
// PostgreSQL URL of database.url / database.url_file (read now). An error
// names the key, never the URL.
func (c *Config) DatabaseTarget() (string, error) {
	if !c.Database.UsesPostgres() {
		return c.Database.Path, nil
	}
	u, err := ReadSecret("", c.Database.URL, c.Database.URLFile)
	if err != nil {
		return "", c.keyErr("database.url_file", "%v", err)
	}
	if u.Empty() {
		return "", c.keyErr("database.url_file", "%s is empty: put the postgres:// URL in it", c.Database.URLFile)
	}
	if !isPostgresURL(u.Value()) {
		return "", c.keyErr("database.url_file", "%s does not hold a postgres:// (or postgresql://) URL", c.Database.URLFile)
	}
	return u.Value(), nil
}

func isPostgresURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Storage is how history is kept as it grows.
type Storage struct {
	Retention Retention `yaml:"retention"`
	// MaintenanceSchedule is when the daemon applies the retention policy
	// and truncates the WAL (cron, UTC).
	MaintenanceSchedule string `yaml:"maintenance_schedule"`
}

// Retention says what old history is pruned or thinned. Price intervals
// are kept forever unless spot thinning is on.
type Retention struct {
	// ChangesMaxAge: detected changes older than this are deleted once
	// their alerts are delivered; 0 keeps them forever.
	ChangesMaxAge time.Duration `yaml:"changes_max_age"`
	// SpotThinAfter: spot intervals that ended longer ago are thinned to
	// one per offer per SpotThinStep; 0 (default) keeps every one.
	SpotThinAfter time.Duration `yaml:"spot_thin_after"`
	SpotThinStep  time.Duration `yaml:"spot_thin_step"`
	// SignalsMaxAge: capacity-signal intervals that ended longer ago are
	// deleted; 0 keeps them forever.
	SignalsMaxAge time.Duration `yaml:"signals_max_age"`
}

// Log controls zap.
type Log struct {
	Level  string `yaml:"level"`  // debug, info, warn, error
	Format string `yaml:"format"` // auto, json, console
}

// HTTP is the daemon's listener: metrics, health, the JSON API and the
// dashboard.
type HTTP struct {
	Listen string `yaml:"listen"` // host:port; empty disables
	// TokenFile holds the bearer token every request but /healthz must
	// carry (relative names are looked up in $CREDENTIALS_DIRECTORY).
	TokenFile string `yaml:"token_file"`
	// AllowUnauthenticated lets a non-loopback listen go without a token.
	AllowUnauthenticated bool `yaml:"allow_unauthenticated"`
}

// ListenIsLoopback reports whether addr (host:port) binds only loopback
// interfaces; an empty host binds every interface.
func ListenIsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// HTTPToken reads http.token_file. A token file that is set but missing or
// empty is an error naming the key and its line: the daemon must not come
// up open when it was meant to be closed. The error never holds the token.
func (c *Config) HTTPToken() (Secret, error) {
	if c.HTTP.TokenFile == "" {
		return Secret{}, nil
	}
	tok, err := ReadSecret("", Secret{}, c.HTTP.TokenFile)
	if err != nil {
		return Secret{}, c.keyErr("http.token_file", "%v", err)
	}
	if tok.Empty() {
		return Secret{}, c.keyErr("http.token_file", "%s is empty: put the bearer token in it", c.HTTP.TokenFile)
	}
	return tok, nil
}

// Fetch holds settings shared by every provider run.
type Fetch struct {
	// MinOfferRatio guards against a run that suddenly finds far fewer
	// offers than the last complete run (an API returning an empty but
	// well-formed answer): below this share of the previous count the run
	// fails instead of closing every missing price.
	MinOfferRatio float64 `yaml:"min_offer_ratio"`
	// LeaseWait bounds how long a run waits for another run of the same
	// provider (another process) to finish before it is skipped.
	LeaseWait time.Duration `yaml:"lease_wait"`
	// MaxRetryAfter caps the wait a cloud's Retry-After asks for.
	MaxRetryAfter time.Duration `yaml:"max_retry_after"`
}

// Providers holds one section per registered provider (package
// providers), under its name. Each fetcher package defines its section's
// keys, defaults and checks; config decodes and validates them in place.
type Providers struct {
	sections map[string]section.Section
}

// defaultProviders holds every registered provider's default section.
func defaultProviders() Providers {
	p := Providers{sections: map[string]section.Section{}}
	for _, reg := range providers.All() {
		p.sections[reg.Name] = reg.Section()
	}
	return p
}

// Section returns the named provider's section (nil for an unknown name);
// its concrete type is the one the provider's package defines.
func (p Providers) Section(name string) section.Section { return p.sections[name] }

// Common are the keys most providers have (see package section).
type Common = section.Common

// FX is the exchange-rate source.
type FX struct {
	Enabled  bool   `yaml:"enabled"`
	Endpoint string `yaml:"endpoint"`
	// FixedRates are units of each currency per 1 EUR (the ECB's
	// convention), used when no published rate is stored.
	FixedRates map[string]string `yaml:"fixed_rates"`
	// MaxAge: a rate older than this is flagged wherever it is used.
	MaxAge time.Duration `yaml:"max_age"`
	// Currency is the default currency for comparisons.
	Currency string `yaml:"currency"`
}

// Slack is the alert and digest channel.
type Slack struct {
	Channel    string `yaml:"channel"`
	Token      Secret `yaml:"token"`
	TokenFile  string `yaml:"token_file"`
	WebhookURL Secret `yaml:"webhook_url"`
	APIURL     string `yaml:"api_url"`
	// MaxRetryAfter caps the wait Slack's Retry-After asks for.
	MaxRetryAfter time.Duration `yaml:"max_retry_after"`
}

// Webhook is the generic webhook notifier: alerts as JSON, optionally
// signed, to any HTTP endpoint (rules route to it with webhook: true).
type Webhook struct {
	// URL is a secret (it often carries a token); URLFile reads it from a
	// file instead.
	URL     Secret `yaml:"url"`
	URLFile string `yaml:"url_file"`
	// SecretFile holds the HMAC-SHA256 key; without it bodies are unsigned.
	SecretFile string `yaml:"secret_file"`
}

// Guard holds back implausible prices between fetch and store. The
// composition converts it to guard.Config, which has the same fields.
type Guard struct {
	// Enabled turns the guard on (default true).
	Enabled bool `yaml:"enabled"`
	// ImplausibleRatio: a price per GPU-hour at or below 1/ratio of the
	// offer's own stored price and of every other current offer of the
	// same GPU model and price type (same currency) is held.
	ImplausibleRatio float64 `yaml:"implausible_ratio"`
	// FloorPerGPUHour: per currency, a price per GPU-hour below this is
	// held. A currency without a floor has none.
	FloorPerGPUHour map[string]float64 `yaml:"floor_per_gpu_hour"`
	// AcceptAfterRuns: a held price that comes back unchanged in this many
	// consecutive complete runs is accepted in the last of them.
	AcceptAfterRuns int `yaml:"accept_after_runs"`
	// CommitmentMinFraction: a reservation or savings plan whose effective
	// hourly is below this fraction of the same offer's on-demand price
	// is held (a 1-year total that is really one month's price reads as
	// 1/12 of it). 0 turns the test off.
	CommitmentMinFraction float64 `yaml:"commitment_min_fraction"`
}

// Alerts configures change detection and routing.
type Alerts struct {
	// AlertOnFirstRun: the first run of a provider normally only sets the
	// baseline; set true to alert on everything it finds.
	AlertOnFirstRun bool `yaml:"alert_on_first_run"`
	// WithdrawAfterRuns: a type counts as withdrawn only after it is
	// missing from this many consecutive complete runs.
	WithdrawAfterRuns int `yaml:"withdraw_after_runs"`
	// FlapWindow: a stock state that changes back within this window does
	// not alert each flip.
	FlapWindow time.Duration `yaml:"flap_window"`
	// FetchDeliveryWait bounds how long `pricewatch fetch` waits for Slack.
	FetchDeliveryWait time.Duration `yaml:"fetch_delivery_wait"`
	// ConfirmChangePct: a price move of at least this many percent is
	// alerted only when the next complete run shows the same price; a move
	// that reverts is never alerted. 0 alerts every move at once.
	ConfirmChangePct float64 `yaml:"confirm_change_pct"`
	// PlacementScoreThresholds: a numeric spot placement score alerts
	// placement_score_changed only when it crosses one of these edges
	// (ascending, 2 to 10; a score at or above an edge is above it), not
	// on every point of jitter.
	PlacementScoreThresholds []int `yaml:"placement_score_thresholds"`
	// Rules default to DefaultRules; an explicit empty list turns alerts
	// off.
	Rules []Rule `yaml:"rules"`
}

// DefaultRules are the alert rules in effect when the config has no
// alerts.rules: new frontier capacity, price drops of at least 5% on
// frontier GPUs, cheap H100 spot, capacity blocks of frontier GPUs. config.example.yaml shows them.
func DefaultRules() []Rule {
	return []Rule{
		{Name: "new-frontier-capacity", Events: []string{"availability_new", "back_in_stock"}, GPUModels: []string{"H100", "H200", "B200"}},
		{Name: "price-drops", Events: []string{"price_drop"}, GPUModels: []string{"H100", "H200", "B200", "A100-80GB", "A100-40GB"},
			PriceTypes: []string{"on_demand", "reserved", "savings_plan"}, MinChangePct: 5},
		{Name: "cheap-spot-h100", Events: []string{"spot_below"}, GPUModels: []string{"H100"}, SpotBelowPerGPUHour: 2.5},
		// Issue 23: "capacity block for H100/H200/B200 available".
		{Name: "frontier-capacity-blocks", Events: []string{"capacity_block_available"}, GPUModels: []string{"H100", "H200", "B200"}},
	}
}

// Rule selects events and routes them to a channel.
type Rule struct {
	Name       string   `yaml:"name"`
	Events     []string `yaml:"events"`
	GPUModels  []string `yaml:"gpu_models"`
	Providers  []string `yaml:"providers"`
	Regions    []string `yaml:"regions"` // globs
	PriceTypes []string `yaml:"price_types"`
	// MinChangePct is the smallest price move, in percent, that alerts.
	MinChangePct float64 `yaml:"min_change_pct"`
	// MinChangePerGPUHour is the smallest absolute move per GPU-hour.
	MinChangePerGPUHour float64 `yaml:"min_change_per_gpu_hour"`
	// SpotBelowPerGPUHour alerts when a spot price per GPU-hour falls below it.
	SpotBelowPerGPUHour float64 `yaml:"spot_below_per_gpu_hour"`
	Channel             string  `yaml:"channel"`
	// Webhook also sends the rule's messages to the generic webhook
	// (webhook.url), beside its Slack channel.
	Webhook bool `yaml:"webhook"`
}

// Digest is the weekly FinOps summary.
type Digest struct {
	Enabled   bool     `yaml:"enabled"`
	Schedule  string   `yaml:"schedule"`
	Timezone  string   `yaml:"timezone"`
	Channel   string   `yaml:"channel"`
	Currency  string   `yaml:"currency"`
	GPUModels []string `yaml:"gpu_models"`
	Chart     bool     `yaml:"chart"`
	// FleetGPUs is the reference fleet whose monthly run-rate (GPUs × 730
	// h at the commitment's rate) the digest shows; 0 leaves it out.
	FleetGPUs int `yaml:"fleet_gpus"`
	// Regions scopes the digest to these region codes; empty means all.
	Regions []string `yaml:"regions"`
	// Providers scopes it to these clouds; empty means all.
	Providers []string `yaml:"providers"`
	// Sellers are whose capacity it reports: cloud (the clouds' own),
	// marketplace (third-party hosts); empty means both, each cheapest
	// shown side by side (issue 31).
	Sellers []string `yaml:"sellers"`
}

// Metrics tunes the Prometheus series on /metrics.
type Metrics struct {
	Offers MetricsOffers `yaml:"offers"`
}

// MetricsOffers selects offers exported one series each
// (pricewatch_offer_price_per_gpu_hour). Off while GPUModels is empty: a
// series per offer of every cloud would be tens of thousands.
type MetricsOffers struct {
	// GPUModels are models or families (A100 covers A100-40GB, A100-80GB).
	GPUModels []string `yaml:"gpu_models"`
	// PriceTypes and Providers narrow the selection; empty keeps all.
	PriceTypes []string `yaml:"price_types"`
	Providers  []string `yaml:"providers"`
}

// Default returns the built-in configuration: every provider enabled
// against its public API, the database in ./pricewatch.db.
func Default() *Config {
	return &Config{
		Database: Database{Path: "pricewatch.db", BusyTimeout: 5 * time.Second},
		Storage: Storage{MaintenanceSchedule: "@hourly",
			Retention: Retention{ChangesMaxAge: 90 * 24 * time.Hour, SpotThinStep: 24 * time.Hour, SignalsMaxAge: 180 * 24 * time.Hour}},
		Log:       Log{Level: "info", Format: "auto"},
		HTTP:      HTTP{Listen: "127.0.0.1:9108"},
		Fetch:     Fetch{MinOfferRatio: 0.5, LeaseWait: time.Minute, MaxRetryAfter: time.Hour},
		Slack:     Slack{MaxRetryAfter: time.Hour},
		Providers: defaultProviders(),
		FX: FX{
			Enabled:  true,
			Endpoint: "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml",
			MaxAge:   7 * 24 * time.Hour,
			Currency: "USD",
		},
		Guard: Guard{
			Enabled:          true,
			ImplausibleRatio: 1000,
			FloorPerGPUHour:  map[string]float64{"USD": 0.02, "EUR": 0.02, "CNY": 0.15},
			AcceptAfterRuns:  3,
			// The deepest real commitment discounts are about 70 % (AWS
			// 3-year all-upfront p5: 37.6 % of on-demand; Azure 3-year
			// H200: 50 %); 20 % leaves room below them.
			CommitmentMinFraction: 0.2,
		},
		Alerts: Alerts{
			WithdrawAfterRuns: 2,
			FlapWindow:        6 * time.Hour,
			FetchDeliveryWait: 30 * time.Second,
			ConfirmChangePct:  50,
			// Low (1–2), medium (3–6), high (7–10).
			PlacementScoreThresholds: []int{3, 7},
			Rules:                    DefaultRules(),
		},
		Digest: Digest{
			Enabled:   true,
			Schedule:  "0 9 * * 1",
			Timezone:  "UTC",
			Currency:  "USD",
			GPUModels: []string{"H100", "H200", "B200", "A100-80GB", "A100-40GB", "L40S"},
			FleetGPUs: 8,
			Chart:     true,
		},
		HA:    leader.Default(),
		lines: map[string]int{},
	}
}

// Locate returns the config file to use ("" for the built-in defaults), by
// the search order of Find.
func Locate(flagValue string) string { return Find(flagValue).Path }

// Load reads and validates the file at path; "" yields the defaults.
func Load(path string) (*Config, error) {
	if path == "" {
		cfg := Default()
		return cfg, cfg.Validate()
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	defer f.Close()
	return Parse(f, path)
}

// Parse decodes a config from r over the defaults and validates it. name is
// used in error messages.
func Parse(r io.Reader, name string) (*Config, error) {
	cfg := Default()
	cfg.Source = name
	var root yaml.Node
	dec := yaml.NewDecoder(leadingCommentTabs(r))
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return cfg, cfg.Validate()
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	// A second document ("---" and more keys) would be ignored: refuse it.
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, fmt.Errorf("%s: after the first document: %v", name, err)
		}
		return nil, fmt.Errorf("%s:line %d: a second YAML document; pricewatch reads one (remove the \"---\" and merge the keys)", name, extra.Line)
	}
	d := &decoder{file: name, lines: cfg.lines}
	d.decode(&root, reflectValue(cfg), "")
	// Report every problem at once: decoding problems, then values that
	// decoded but make no sense.
	if err := errors.Join(append(d.errs, cfg.Validate())...); err != nil {
		return nil, err
	}
	return cfg, nil
}

// leadingCommentTabs works around the YAML scanner refusing tabs in the
// blank and comment lines that open a file ("\t# note" or "\n\t#" fail
// with "found character that cannot start any token", while the same lines
// after a comment are skipped, as the YAML spec has it: tabs are separation
// space there). Until the first line that holds anything else, the tabs of
// those lines become spaces: same columns, same lines, so every position an
// error names is still the file's. Nothing past that first content line is
// touched (a block scalar's "\t#" is text), nor a file in UTF-16.
func leadingCommentTabs(r io.Reader) io.Reader {
	data, err := io.ReadAll(r)
	if err != nil {
		return io.MultiReader(bytes.NewReader(data), errReader{err})
	}
	if bytes.HasPrefix(data, []byte("\xfe\xff")) || bytes.HasPrefix(data, []byte("\xff\xfe")) {
		return bytes.NewReader(data)
	}
	i := 0
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		i = 3
	}
	var fixed []byte
	for i < len(data) {
		lineStart := i
		for i < len(data) && (data[i] == ' ' || data[i] == '\t') {
			i++
		}
		if i < len(data) && data[i] != '\n' && data[i] != '\r' && data[i] != '#' {
			break // the first line with content: leave it and the rest alone
		}
		for j := lineStart; j < i; j++ {
			if data[j] == '\t' {
				if fixed == nil {
					fixed = bytes.Clone(data)
				}
				fixed[j] = ' '
			}
		}
		for i < len(data) && data[i] != '\n' && data[i] != '\r' {
			i++ // the comment's text
		}
		for i < len(data) && (data[i] == '\n' || data[i] == '\r') {
			i++
		}
	}
	if fixed == nil {
		return bytes.NewReader(data)
	}
	return bytes.NewReader(fixed)
}

// errReader hands on a read error met while reading the file.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// Line returns the line of key in the file, or 0.
func (c *Config) Line(key string) int { return c.lines[key] }

// keyErr builds an error for key, with its line when the file set it.
func (c *Config) keyErr(key, format string, args ...any) error {
	return c.checker().Errorf(key, format, args...)
}

// checker names keys from the top of the file, with their lines.
func (c *Config) checker() section.Checker { return section.NewChecker(c.Source, c.lines) }

// Validate checks values that decode fine but make no sense.
func (c *Config) Validate() error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	switch {
	case !c.Database.URL.Empty() && c.Database.URLFile != "":
		add(c.keyErr("database.url_file", "set database.url or database.url_file, not both"))
	case c.Database.UsesPostgres() && c.Line("database.path") > 0:
		// database.path has a default; only one the file sets conflicts.
		add(c.keyErr("database.path", "set database.path (SQLite) or database.url / database.url_file (PostgreSQL), not both"))
	case !c.Database.URL.Empty() && !isPostgresURL(c.Database.URL.Value()):
		// The value is a secret: the error names the key, not the value.
		add(c.keyErr("database.url", "must be a postgres:// (or postgresql://) URL; for an SQLite file use database.path"))
	case !c.Database.UsesPostgres() && c.Database.Path == "":
		add(c.keyErr("database.path", "must not be empty"))
	}
	for key, d := range map[string]time.Duration{
		"database.busy_timeout":      c.Database.BusyTimeout,
		"alerts.fetch_delivery_wait": c.Alerts.FetchDeliveryWait,
		"alerts.flap_window":         c.Alerts.FlapWindow,
		"fx.max_age":                 c.FX.MaxAge,
	} {
		if d < 0 {
			add(c.keyErr(key, "%s: must not be negative", d))
		}
	}
	if c.HTTP.Listen != "" {
		add(c.checkListen("http.listen", c.HTTP.Listen))
	}
	if r := c.Storage.Retention; r.ChangesMaxAge < 0 || r.SpotThinAfter < 0 || r.SpotThinStep < 0 || r.SignalsMaxAge < 0 {
		add(c.keyErr("storage.retention", "ages must not be negative"))
	}
	if r := c.Storage.Retention; r.SpotThinAfter > 0 && r.SpotThinStep < time.Hour {
		add(c.keyErr("storage.retention.spot_thin_step", "%s: want at least 1h when spot_thin_after is set", r.SpotThinStep))
	}
	add(c.checkSchedule("storage.maintenance_schedule", c.Storage.MaintenanceSchedule))
	switch c.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		add(c.keyErr("log.level", "%q: want debug, info, warn or error", c.Log.Level))
	}
	switch c.Log.Format {
	case "auto", "json", "console":
	default:
		add(c.keyErr("log.format", "%q: want auto, json or console", c.Log.Format))
	}
	if l := c.HTTP.Listen; l != "" {
		if _, _, err := net.SplitHostPort(l); err != nil {
			add(c.keyErr("http.listen", "%q is not host:port: %v", l, err))
		} else if !ListenIsLoopback(l) && c.HTTP.TokenFile == "" && !c.HTTP.AllowUnauthenticated {
			add(c.keyErr("http.listen", "%q is not a loopback address: anyone who can reach it could read it; set http.token_file "+
				"(a bearer token every request must carry) or, behind your own access control, http.allow_unauthenticated: true", l))
		}
	}
	if c.Fetch.MinOfferRatio < 0 || c.Fetch.MinOfferRatio > 1 {
		add(c.keyErr("fetch.min_offer_ratio", "%v: want a share between 0 and 1", c.Fetch.MinOfferRatio))
	}
	add(c.checker().NotNegative("fetch.lease_wait", c.Fetch.LeaseWait))
	if c.Fetch.MaxRetryAfter <= 0 {
		add(c.keyErr("fetch.max_retry_after", "must be positive"))
	}
	if c.Slack.MaxRetryAfter <= 0 {
		add(c.keyErr("slack.max_retry_after", "must be positive"))
	}
	// Each provider: the keys all share, then its own section's checks.
	for _, reg := range providers.All() {
		sec := c.Providers.Section(reg.Name)
		k := c.checker().Under("providers." + reg.Name)
		errs = append(errs, section.CheckShared(k, sec.Shared(), reg.Facts)...)
		add(sec.Validate(k))
	}
	if c.FX.Enabled {
		add(c.checkURL("fx.endpoint", c.FX.Endpoint))
	}
	if !isCurrency(c.FX.Currency) {
		add(c.keyErr("fx.currency", "%q is not a three-letter currency code", c.FX.Currency))
	}
	for cur, rate := range c.FX.FixedRates {
		if !isCurrency(cur) {
			add(c.keyErr("fx.fixed_rates."+cur, "%q is not a three-letter currency code", cur))
		}
		if !isPositiveNumber(rate) {
			add(c.keyErr("fx.fixed_rates."+cur, "%q is not a positive number", rate))
		}
	}
	if c.Slack.APIURL != "" {
		add(c.checkURL("slack.api_url", c.Slack.APIURL))
	}
	add(c.checkChannel("slack.channel", c.Slack.Channel))
	add(c.checkChannel("digest.channel", c.Digest.Channel))
	add(c.checker().Secret("slack.token", c.Slack.Token))
	add(c.checker().Secret("slack.webhook_url", c.Slack.WebhookURL))
	add(c.checker().Secret("webhook.url", c.Webhook.URL))
	if !c.Slack.Token.Empty() && c.Slack.TokenFile != "" {
		add(c.keyErr("slack.token_file", "set slack.token or slack.token_file, not both"))
	}
	if !c.Slack.WebhookURL.Empty() {
		if u, err := url.Parse(c.Slack.WebhookURL.Value()); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			// The value is a secret: say what is wrong without echoing it.
			add(c.keyErr("slack.webhook_url", "is not an http(s) URL"))
		}
	}
	add(c.checker().AtLeast("alerts.withdraw_after_runs", c.Alerts.WithdrawAfterRuns, 1))
	for i, e := range c.Alerts.PlacementScoreThresholds {
		if e < 2 || e > 10 || (i > 0 && e <= c.Alerts.PlacementScoreThresholds[i-1]) {
			add(c.keyErr("alerts.placement_score_thresholds", "%v: want ascending scores from 2 to 10 (a score at or above an edge is above it)", c.Alerts.PlacementScoreThresholds))
			break
		}
	}
	if c.Alerts.ConfirmChangePct < 0 {
		add(c.keyErr("alerts.confirm_change_pct", "must not be negative (0 alerts every move at once)"))
	}
	if c.Guard.ImplausibleRatio != 0 && c.Guard.ImplausibleRatio <= 1 {
		add(c.keyErr("guard.implausible_ratio", "must be greater than 1 (1000: a thousandth of the price), or 0 to turn the ratio test off"))
	}
	add(c.checker().AtLeast("guard.accept_after_runs", c.Guard.AcceptAfterRuns, 1))
	if f := c.Guard.CommitmentMinFraction; f < 0 || f >= 1 {
		add(c.keyErr("guard.commitment_min_fraction", "must be at least 0 and below 1 (0.2: a commitment under a fifth of on-demand is held; 0 turns the test off)"))
	}
	for cur, v := range c.Guard.FloorPerGPUHour {
		if !isCurrency(cur) {
			add(c.keyErr("guard.floor_per_gpu_hour."+cur, "%q is not a three-letter currency code", cur))
		}
		if v < 0 {
			add(c.keyErr("guard.floor_per_gpu_hour."+cur, "must not be negative"))
		}
	}
	for i, r := range c.Alerts.Rules {
		add(c.validateRule(i, r))
	}
	if c.Digest.Schedule != "" {
		add(c.checkSchedule("digest.schedule", c.Digest.Schedule))
	}
	if _, err := time.LoadLocation(c.Digest.Timezone); err != nil {
		add(c.keyErr("digest.timezone", "%q is not a time zone (e.g. UTC, Europe/Berlin)", c.Digest.Timezone))
	}
	if c.Digest.FleetGPUs < 0 {
		add(c.keyErr("digest.fleet_gpus", "%d: want 0 (no run-rate) or a number of GPUs", c.Digest.FleetGPUs))
	}
	if !isCurrency(c.Digest.Currency) {
		add(c.keyErr("digest.currency", "%q is not a three-letter currency code", c.Digest.Currency))
	}
	for i, p := range c.Digest.Providers {
		if _, ok := providers.Lookup(p); !ok {
			add(c.keyErr(fmt.Sprintf("digest.providers[%d]", i), "%q is not a provider", p))
		}
	}
	for i, s := range c.Digest.Sellers {
		if !contains([]string{"cloud", "marketplace"}, s) {
			add(c.keyErr(fmt.Sprintf("digest.sellers[%d]", i), "%q: want cloud or marketplace", s))
		}
	}
	errs = append(errs, c.validateHardware()...)
	add(c.validateMetrics())
	add(c.validateWebhook())
	add(c.HA.Validate(c.checker()))
	return errors.Join(errs...)
}

func (c *Config) validateMetrics() error {
	var errs []error
	o := c.Metrics.Offers
	for i, g := range o.GPUModels {
		if strings.TrimSpace(g) == "" {
			errs = append(errs, c.keyErr(fmt.Sprintf("metrics.offers.gpu_models[%d]", i), "must not be empty"))
		}
	}
	for i, p := range o.PriceTypes {
		if !contains([]string{"on_demand", "spot", "reserved", "savings_plan"}, p) {
			errs = append(errs, c.keyErr(fmt.Sprintf("metrics.offers.price_types[%d]", i), "%q: want on_demand, spot, reserved or savings_plan", p))
		}
	}
	for i, p := range o.Providers {
		if _, ok := providers.Lookup(p); !ok {
			errs = append(errs, c.keyErr(fmt.Sprintf("metrics.offers.providers[%d]", i), "%q is not a provider", p))
		}
	}
	if len(o.GPUModels) == 0 && (len(o.PriceTypes) > 0 || len(o.Providers) > 0) {
		errs = append(errs, c.keyErr("metrics.offers.gpu_models", "per-offer series need at least one GPU model (price_types and providers only narrow them)"))
	}
	return errors.Join(errs...)
}

// Events a rule may select: alerting's, named once there.
var ruleEvents = func() []string {
	out := make([]string, len(alerting.Events))
	for i, e := range alerting.Events {
		out[i] = string(e)
	}
	return out
}()

func (c *Config) validateRule(i int, r Rule) error {
	var errs []error
	prefix := fmt.Sprintf("alerts.rules[%d]", i)
	if len(r.Events) == 0 {
		errs = append(errs, c.keyErr(prefix+".events", "a rule needs at least one event (%s)", strings.Join(ruleEvents, ", ")))
	}
	for j, e := range r.Events {
		if !contains(ruleEvents, e) {
			errs = append(errs, c.keyErr(fmt.Sprintf("%s.events[%d]", prefix, j), "%q: want one of %s", e, strings.Join(ruleEvents, ", ")))
		}
	}
	for j, p := range r.Providers {
		if !contains(providers.Names(), p) {
			errs = append(errs, c.keyErr(fmt.Sprintf("%s.providers[%d]", prefix, j), "%q: want one of %s", p, strings.Join(providers.Names(), ", ")))
		}
	}
	for j, g := range r.Regions {
		if _, err := filepath.Match(g, "x"); err != nil {
			errs = append(errs, c.keyErr(fmt.Sprintf("%s.regions[%d]", prefix, j), "%q is not a valid glob", g))
		}
	}
	for j, p := range r.PriceTypes {
		if !contains([]string{"on_demand", "spot", "reserved", "savings_plan"}, p) {
			errs = append(errs, c.keyErr(fmt.Sprintf("%s.price_types[%d]", prefix, j), "%q: want on_demand, spot, reserved or savings_plan", p))
		}
	}
	if r.MinChangePct < 0 {
		errs = append(errs, c.keyErr(prefix+".min_change_pct", "must not be negative"))
	}
	if r.MinChangePerGPUHour < 0 {
		errs = append(errs, c.keyErr(prefix+".min_change_per_gpu_hour", "must not be negative"))
	}
	if r.SpotBelowPerGPUHour < 0 {
		errs = append(errs, c.keyErr(prefix+".spot_below_per_gpu_hour", "must not be negative"))
	}
	if r.Webhook && c.Webhook.URL.Empty() && c.Webhook.URLFile == "" {
		errs = append(errs, c.keyErr(prefix+".webhook", "the rule sends to the webhook, but webhook.url and webhook.url_file are empty"))
	}
	if r.Channel != "webhook" {
		errs = append(errs, c.checkChannel(prefix+".channel", r.Channel))
	}
	if r.Channel == "webhook" {
		errs = append(errs, c.keyErr(prefix+".channel", `"webhook" is the webhook's outbox channel, not a Slack channel: set webhook: true instead`))
	}
	return errors.Join(errs...)
}

// validateWebhook checks the webhook's keys; the URL itself is checked when
// it is read (it may come from a file).
func (c *Config) validateWebhook() error {
	w := c.Webhook
	if !w.URL.Empty() && w.URLFile != "" {
		return c.keyErr("webhook.url_file", "set webhook.url or webhook.url_file, not both")
	}
	if !w.URL.Empty() {
		if u, err := url.Parse(w.URL.Value()); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return c.keyErr("webhook.url", "is not an http(s) URL")
		}
	}
	if w.SecretFile != "" && w.URL.Empty() && w.URLFile == "" {
		return c.keyErr("webhook.secret_file", "is set but webhook.url and webhook.url_file are empty")
	}
	return nil
}

// Commons returns the keys every provider has, per provider name: what
// the digest and the daemon iterate (see package providers for the run
// order), rather than naming each section.
func (p Providers) Commons() map[string]Common {
	out := make(map[string]Common, len(p.sections))
	for name, s := range p.sections {
		out[name] = s.Shared()
	}
	return out
}

// slackChannel is what a Slack channel can be called: an ID (C0123ABCD,
// or a user's U… for a direct message) or a name, with or without "#".
// Slack's names are letters, digits, hyphens, underscores and periods, at
// most 80 of them; anything else (markup, spaces) cannot name a channel
// and would reach Slack's API and the messages pricewatch prints.
// Compiled when first needed: its Unicode classes cost 16 ms of every
// command's start (GODEBUG=inittrace=1), pricewatch mcp's first answer
// among them.
var slackChannel = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^#?[\p{L}\p{N}][\p{L}\p{N}._-]{0,79}$`)
})

// checkChannel wants "" (the default) or a Slack channel ID or name.
func (c *Config) checkChannel(key, ch string) error {
	if ch == "" || slackChannel().MatchString(ch) {
		return nil
	}
	return c.keyErr(key, "%q is not a Slack channel: use the channel ID (C0123ABCD, from the channel's details) or its name (letters, digits, - _ . and at most 80 characters)", ch)
}

// checkSchedule parses a cron spec (see section.Checker.Schedule).
func (c *Config) checkSchedule(key, spec string) error { return c.checker().Schedule(key, spec) }

// checkListen wants host:port with a port number (the host may be empty
// for every interface).
func (c *Config) checkListen(key, v string) error {
	host, port, err := net.SplitHostPort(v)
	if err != nil {
		return c.keyErr(key, "%q: want host:port, e.g. 127.0.0.1:9108 (empty disables the listener)", v)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return c.keyErr(key, "%q: port %q is not a number from 0 to 65535", v, port)
	}
	if strings.ContainsAny(host, " /?#") {
		return c.keyErr(key, "%q: %q is not a host name or address", v, host)
	}
	return nil
}

func (c *Config) checkURL(key, v string) error { return c.checker().URL(key, v) }

func isCurrency(s string) bool { return pricewatch.IsCurrencyCode(s) }

func isPositiveNumber(s string) bool {
	var f float64
	_, err := fmt.Sscanf(s, "%g", &f)
	return err == nil && f > 0
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
