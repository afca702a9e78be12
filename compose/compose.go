// Package compose is the one place that turns a loaded config.Config into
// the packages' own types: the provider jobs (asking the provider
// registry), the alert rules, notifiers and dispatcher, the save options,
// the weekly digest's message, and the secret set every log and error is
// masked with. The CLI and the daemon both compose through it; nothing
// else reads the config's sections for another package.
package compose

import (
	"io"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/config"
	"github.com/pricewatch/pricewatch/daemon"
	"github.com/pricewatch/pricewatch/daemon/metrics"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fx"
	"github.com/pricewatch/pricewatch/guard"
	"github.com/pricewatch/pricewatch/hardware"
	"github.com/pricewatch/pricewatch/providers"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/run"
	"github.com/pricewatch/pricewatch/secret"
	"github.com/pricewatch/pricewatch/section"
	"github.com/pricewatch/pricewatch/storage"
)

// Wiring is one config composed, with what the pieces built from it share.
type Wiring struct {
	Config *config.Config
	Log    *zap.Logger
	// Secrets is the set every configured secret read is added to.
	Secrets *secret.Set
	// Now is the time fetchers judge validity fields by.
	Now func() time.Time
	// Progress is where long downloads report bytes and rate (nil: nowhere).
	Progress io.Writer

	expected expectedMemo
}

// addSecrets adds the configured secrets that are set to w's set.
func (w *Wiring) addSecrets(secrets ...config.Secret) { w.Secrets.Add(section.Values(secrets...)...) }

// Jobs builds the enabled providers' fetchers (only those named, when
// only is not empty), asking the registry: each provider's package builds
// its fetcher from its own config section.
func (w *Wiring) Jobs(only []string) ([]daemon.Job, error) {
	policy := fetchers.DefaultRetryPolicy()
	policy.MaxRetryAfter = w.Config.Fetch.MaxRetryAfter
	client := fetchers.NewClient(policy)
	client.Log = w.Log.Named("http")
	var jobs []daemon.Job
	for _, p := range providers.All() {
		sec := w.Config.Providers.Section(p.Name)
		shared := sec.Shared()
		if len(only) > 0 && !slices.Contains(only, p.Name) || len(only) == 0 && !shared.Enabled {
			continue
		}
		f, err := p.New(sec, fetchers.Env{Client: client, Log: w.Log.Named(p.Name), Now: w.Now, Progress: w.Progress, AddSecrets: w.addSecrets})
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, daemon.Job{Job: run.Job{Name: p.Name, Fetcher: f, Timeout: shared.Timeout}, Schedule: shared.Schedule})
	}
	g, err := guard.New(guard.Config(w.Config.Guard), w.Log.Named("guard"))
	if err != nil {
		return nil, err
	}
	// Every job applies the same hardware.overrides; jobs are rebuilt on
	// a reload, so a changed override takes effect from the next run.
	rules := make([]hardware.Override, len(w.Config.Hardware.Overrides))
	for i, o := range w.Config.Hardware.Overrides {
		rules[i] = hardware.Override(o)
	}
	overrides := hardware.NewOverrides(rules)
	for i := range jobs {
		jobs[i].Guard = g
		jobs[i].Hardware = overrides
		jobs[i].LeaseWait = w.Config.Fetch.LeaseWait
		// On PostgreSQL (where replicas elect a leader) a run's lease
		// lapses as fast as leadership hands over: a run cut off by a
		// partition blocks its provider for ha.takeover at most.
		if w.Config.Database.UsesPostgres() {
			jobs[i].LeaseTTL = w.Config.HA.Takeover
		}
		jobs[i].Scrub = w.Secrets
	}
	return jobs, nil
}

// SaveOptions are the storage settings every run uses.
func (w *Wiring) SaveOptions() storage.SaveOptions {
	return storage.SaveOptions{
		MinOfferRatio: w.Config.Fetch.MinOfferRatio,
		Outbox:        w.AlertOutbox(),
		Policy:        alerting.NewPolicy(w.Config.Alerts.ConfirmChangePct, w.Config.Alerts.WithdrawAfterRuns),
	}
}

// Rates is the exchange-rate updater of fx.* (`fx update`, and after each
// cycle of `fetch` and the daemon).
func (w *Wiring) Rates() *fx.Updater {
	return &fx.Updater{Enabled: w.Config.FX.Enabled, Client: fetchers.NewClient(fetchers.DefaultRetryPolicy()), Endpoint: w.Config.FX.Endpoint}
}

// Snapshot composes the daemon's snapshot of cfg, with a secret set of its
// own (every credential the config names, read now), or says why cfg
// cannot run: alert rules, provider settings and credentials are checked
// before anything takes effect. root lends its log, clock and progress.
func Snapshot(root *Wiring, cfg *config.Config) (*daemon.Snapshot, error) {
	w := &Wiring{Config: cfg, Log: root.Log, Secrets: secret.New(), Now: root.Now, Progress: root.Progress}
	if _, err := w.OutboxFunc(); err != nil {
		return nil, err
	}
	jobs, err := w.Jobs(nil)
	if err != nil {
		return nil, err
	}
	// Every secret is read now, so that the snapshot's set is complete
	// before anything uses it (the notifier built later adds nothing).
	if token, err := w.SlackToken(); err == nil {
		w.addSecrets(token)
	}
	w.addSecrets(cfg.Slack.WebhookURL)
	token, tokenErr := cfg.HTTPToken()
	if tokenErr == nil {
		w.addSecrets(token)
	}
	if u, err := config.ReadSecret("", cfg.Webhook.URL, cfg.Webhook.URLFile); err == nil {
		w.addSecrets(u)
	}
	if key, err := config.ReadSecret("", config.Secret{}, cfg.Webhook.SecretFile); err == nil {
		w.addSecrets(key)
	}
	snap := &daemon.Snapshot{
		Source: cfg.Source, LogLevel: cfg.Log.Level,
		HTTP: daemon.HTTP{Listen: cfg.HTTP.Listen, Loopback: config.ListenIsLoopback(cfg.HTTP.Listen), Token: token.Value(), TokenErr: tokenErr,
			AllowUnauthenticated: cfg.HTTP.AllowUnauthenticated},
		FX: ReportFX(cfg.FX), Prices: MetricsSettings(cfg),
		Maintenance: cfg.Storage.MaintenanceSchedule, Retention: storage.Retention(cfg.Storage.Retention),
		Jobs: jobs, Save: w.SaveOptions(), Secrets: w.Secrets.Values(),
		Alerts: w, Digests: w.Digests(), Rates: w.Rates(), Expected: w.ExpectedIntervals,
	}
	if cfg.Digest.Enabled {
		snap.Digest = &daemon.DigestSchedule{Schedule: cfg.Digest.Schedule, Timezone: cfg.Digest.Timezone}
	}
	return snap, nil
}

// MetricsSettings are what the /metrics price series read of the config:
// fx.* and metrics.offers.
func MetricsSettings(cfg *config.Config) metrics.PriceSettings {
	return metrics.PriceSettings{Currency: strings.ToUpper(cfg.FX.Currency), Fixed: cfg.FX.FixedRates, MaxAge: cfg.FX.MaxAge,
		Offers: metrics.Offers(cfg.Metrics.Offers)}
}

// ReportFX is what the reports read of the fx section.
func ReportFX(c config.FX) report.FX {
	return report.FX{Currency: c.Currency, FixedRates: c.FixedRates, MaxAge: c.MaxAge}
}
