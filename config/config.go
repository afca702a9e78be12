// Package config holds pricewatch's configuration file schema, its defaults
// and its validation. Every key is documented in config.example.yaml at the
// repository root; a test loads that file so the two cannot drift apart.
//
// Decoding is strict: an unknown key or a bad value is an error that names
// the key and its line.
package config

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	"gopkg.in/yaml.v3"
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
	Alerts    Alerts    `yaml:"alerts"`
	Digest    Digest    `yaml:"digest"`

	// Source is the file the config came from ("" for built-in defaults).
	Source string `yaml:"-"`
	lines  map[string]int
}

// Database is where history lives.
type Database struct {
	Path        string        `yaml:"path"`
	BusyTimeout time.Duration `yaml:"busy_timeout"`
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
}

// Log controls zap.
type Log struct {
	Level  string `yaml:"level"`  // debug, info, warn, error
	Format string `yaml:"format"` // auto, json, console
}

// HTTP is the daemon's metrics and health listener.
type HTTP struct {
	Listen string `yaml:"listen"` // host:port; empty disables
}

// Fetch holds settings shared by every provider run.
type Fetch struct {
	// MinOfferRatio guards against a run that suddenly finds far fewer
	// offers than the last complete run (an API returning an empty but
	// well-formed answer): below this share of the previous count the run
	// fails instead of closing every missing price.
	MinOfferRatio float64 `yaml:"min_offer_ratio"`
}

// Providers has one section per cloud.
type Providers struct {
	AWS     AWS     `yaml:"aws"`
	Azure   Azure   `yaml:"azure"`
	Alibaba Alibaba `yaml:"alibaba"`
	Tencent Tencent `yaml:"tencent"`
}

// Common are the keys every provider has.
type Common struct {
	Enabled  bool          `yaml:"enabled"`
	Endpoint string        `yaml:"endpoint"`
	Regions  []string      `yaml:"regions"`  // empty means all
	Schedule string        `yaml:"schedule"` // robfig/cron spec, evaluated in UTC
	Timeout  time.Duration `yaml:"timeout"`  // whole run
}

// AWS reads the public Price List Bulk API and the spot feed.
type AWS struct {
	Common       `yaml:",inline"`
	SpotEndpoint string `yaml:"spot_endpoint"`
	SpotEnabled  bool   `yaml:"spot"`
	SavingsPlans bool   `yaml:"savings_plans"`
}

// Azure reads the Retail Prices API.
type Azure struct {
	Common  `yaml:",inline"`
	Windows bool `yaml:"windows"` // also store Windows prices (kept apart from Linux)
}

// Alibaba calls ECS with signed requests.
type Alibaba struct {
	Common              `yaml:",inline"`
	AccessKeyIDFile     string `yaml:"access_key_id_file"`
	AccessKeySecretFile string `yaml:"access_key_secret_file"`
	MaxPriceCalls       int    `yaml:"max_price_calls"`
	Concurrency         int    `yaml:"concurrency"`
}

// Tencent calls CVM with TC3-signed requests.
type Tencent struct {
	Common        `yaml:",inline"`
	SecretIDFile  string `yaml:"secret_id_file"`
	SecretKeyFile string `yaml:"secret_key_file"`
	// Currency of the account's prices: CNY on the China site, USD on the
	// international one (the API does not say).
	Currency string `yaml:"currency"`
	// ImageID is the image quoted when asking prepaid prices; empty picks a
	// public Linux image per region.
	ImageID       string `yaml:"image_id"`
	MaxPriceCalls int    `yaml:"max_price_calls"`
	Concurrency   int    `yaml:"concurrency"`
}

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
	Rules             []Rule        `yaml:"rules"`
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
}

// Default returns the built-in configuration: every provider enabled
// against its public API, the database in ./pricewatch.db.
func Default() *Config {
	return &Config{
		Database: Database{Path: "pricewatch.db", BusyTimeout: 5 * time.Second},
		Storage: Storage{MaintenanceSchedule: "@hourly",
			Retention: Retention{ChangesMaxAge: 90 * 24 * time.Hour, SpotThinStep: 24 * time.Hour}},
		Log:   Log{Level: "info", Format: "auto"},
		HTTP:  HTTP{Listen: "127.0.0.1:9108"},
		Fetch: Fetch{MinOfferRatio: 0.5},
		Providers: Providers{
			AWS: AWS{
				Common:       Common{Enabled: true, Endpoint: "https://pricing.us-east-1.amazonaws.com", Schedule: "17 */6 * * *", Timeout: 2 * time.Hour},
				SpotEndpoint: "https://website.spot.ec2.aws.a2z.com/spot.json",
				SpotEnabled:  true,
				SavingsPlans: true,
			},
			Azure: Azure{
				Common:  Common{Enabled: true, Endpoint: "https://prices.azure.com/api/retail/prices", Schedule: "5 * * * *", Timeout: 30 * time.Minute},
				Windows: true,
			},
			Alibaba: Alibaba{
				Common:        Common{Enabled: true, Regions: []string{"cn-hangzhou", "cn-shanghai", "cn-beijing", "ap-southeast-1"}, Schedule: "25 * * * *", Timeout: 30 * time.Minute},
				MaxPriceCalls: 2000, Concurrency: 4,
			},
			Tencent: Tencent{
				Common:   Common{Enabled: true, Regions: []string{"ap-guangzhou", "ap-shanghai", "ap-beijing", "ap-singapore"}, Schedule: "45 * * * *", Timeout: 30 * time.Minute},
				Currency: "CNY", MaxPriceCalls: 500, Concurrency: 4,
			},
		},
		FX: FX{
			Enabled:  true,
			Endpoint: "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml",
			MaxAge:   7 * 24 * time.Hour,
			Currency: "USD",
		},
		Alerts: Alerts{
			WithdrawAfterRuns: 2,
			FlapWindow:        6 * time.Hour,
			FetchDeliveryWait: 30 * time.Second,
		},
		Digest: Digest{
			Enabled:   true,
			Schedule:  "0 9 * * 1",
			Timezone:  "UTC",
			Currency:  "USD",
			GPUModels: []string{"H100", "H200", "B200", "A100-80GB", "A100-40GB", "L40S"},
			Chart:     true,
		},
		lines: map[string]int{},
	}
}

// Locate returns the config file to use: the flag value, else
// $PRICEWATCH_CONFIG, else ./pricewatch.yaml when it exists, else "" for the
// built-in defaults.
func Locate(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	if v := os.Getenv(EnvConfig); v != "" {
		return v
	}
	if _, err := os.Stat(DefaultFile); err == nil {
		return DefaultFile
	}
	return ""
}

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
	if err := yaml.NewDecoder(r).Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return cfg, cfg.Validate()
		}
		return nil, fmt.Errorf("%s: %v", name, err)
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

// Line returns the line of key in the file, or 0.
func (c *Config) Line(key string) int { return c.lines[key] }

// keyErr builds an error for key, with its line when the file set it.
func (c *Config) keyErr(key, format string, args ...any) error {
	return &KeyError{File: c.Source, Line: c.lines[key], Key: key, Msg: fmt.Sprintf(format, args...)}
}

// Validate checks values that decode fine but make no sense.
func (c *Config) Validate() error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if c.Database.Path == "" {
		add(c.keyErr("database.path", "must not be empty"))
	}
	if r := c.Storage.Retention; r.ChangesMaxAge < 0 || r.SpotThinAfter < 0 || r.SpotThinStep < 0 {
		add(c.keyErr("storage.retention", "ages must not be negative"))
	}
	if r := c.Storage.Retention; r.SpotThinAfter > 0 && r.SpotThinStep < time.Hour {
		add(c.keyErr("storage.retention.spot_thin_step", "%s: want at least 1h when spot_thin_after is set", r.SpotThinStep))
	}
	if _, err := cron.ParseStandard(c.Storage.MaintenanceSchedule); err != nil {
		add(c.keyErr("storage.maintenance_schedule", "%q: %v", c.Storage.MaintenanceSchedule, err))
	}
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
	if c.Fetch.MinOfferRatio < 0 || c.Fetch.MinOfferRatio > 1 {
		add(c.keyErr("fetch.min_offer_ratio", "%v: want a share between 0 and 1", c.Fetch.MinOfferRatio))
	}
	for name, p := range c.providerCommons() {
		prefix := "providers." + name
		if p.Endpoint != "" || name == "azure" || name == "aws" {
			add(c.checkURL(prefix+".endpoint", p.Endpoint))
		}
		if p.Schedule != "" {
			if _, err := cron.ParseStandard(p.Schedule); err != nil {
				add(c.keyErr(prefix+".schedule", "%q is not a cron spec: %v", p.Schedule, err))
			}
		}
		if p.Timeout < 0 {
			add(c.keyErr(prefix+".timeout", "must not be negative"))
		}
		for i, r := range p.Regions {
			if strings.TrimSpace(r) == "" || strings.ContainsAny(r, " /?&") {
				add(c.keyErr(fmt.Sprintf("%s.regions[%d]", prefix, i), "%q is not a region code", r))
			}
		}
	}
	if c.Providers.AWS.SpotEnabled {
		add(c.checkURL("providers.aws.spot_endpoint", c.Providers.AWS.SpotEndpoint))
	}
	if c.Providers.Alibaba.Concurrency < 1 {
		add(c.keyErr("providers.alibaba.concurrency", "must be at least 1"))
	}
	if !isCurrency(c.Providers.Tencent.Currency) {
		add(c.keyErr("providers.tencent.currency", "%q is not a three-letter currency code (CNY on the China site, USD on the international one)", c.Providers.Tencent.Currency))
	}
	if c.Providers.Tencent.Concurrency < 1 {
		add(c.keyErr("providers.tencent.concurrency", "must be at least 1"))
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
	if !c.Slack.Token.Empty() && c.Slack.TokenFile != "" {
		add(c.keyErr("slack.token_file", "set slack.token or slack.token_file, not both"))
	}
	if !c.Slack.WebhookURL.Empty() {
		if u, err := url.Parse(c.Slack.WebhookURL.Value()); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			// The value is a secret: say what is wrong without echoing it.
			add(c.keyErr("slack.webhook_url", "is not an http(s) URL"))
		}
	}
	if c.Alerts.WithdrawAfterRuns < 1 {
		add(c.keyErr("alerts.withdraw_after_runs", "must be at least 1"))
	}
	for i, r := range c.Alerts.Rules {
		add(c.validateRule(i, r))
	}
	if c.Digest.Schedule != "" {
		if _, err := cron.ParseStandard(c.Digest.Schedule); err != nil {
			add(c.keyErr("digest.schedule", "%q is not a cron spec: %v", c.Digest.Schedule, err))
		}
	}
	if _, err := time.LoadLocation(c.Digest.Timezone); err != nil {
		add(c.keyErr("digest.timezone", "%q is not a time zone (e.g. UTC, Europe/Berlin)", c.Digest.Timezone))
	}
	if !isCurrency(c.Digest.Currency) {
		add(c.keyErr("digest.currency", "%q is not a three-letter currency code", c.Digest.Currency))
	}
	return errors.Join(errs...)
}

// Events a rule may select.
var ruleEvents = []string{"availability_new", "availability_gone", "back_in_stock", "sold_out", "price_drop", "price_rise", "spot_below", "price_new"}

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
		if !contains([]string{"aws", "azure", "alibaba", "tencent"}, p) {
			errs = append(errs, c.keyErr(fmt.Sprintf("%s.providers[%d]", prefix, j), "%q: want aws, azure, alibaba or tencent", p))
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
	return errors.Join(errs...)
}

func (c *Config) providerCommons() map[string]Common {
	return map[string]Common{
		"aws":     c.Providers.AWS.Common,
		"azure":   c.Providers.Azure.Common,
		"alibaba": c.Providers.Alibaba.Common,
		"tencent": c.Providers.Tencent.Common,
	}
}

func (c *Config) checkURL(key, v string) error {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return c.keyErr(key, "%q is not an http(s) URL", v)
	}
	return nil
}

func isCurrency(s string) bool {
	if len(s) != 3 {
		return false
	}
	for _, r := range s {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}

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
