package compose

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/alerting/digest"
	"github.com/pricewatch/pricewatch/alerting/outboxstore"
	"github.com/pricewatch/pricewatch/alerting/slack"
	"github.com/pricewatch/pricewatch/alerting/webhook"
	"github.com/pricewatch/pricewatch/config"
	"github.com/pricewatch/pricewatch/storage"
)

// RulesConfig converts the YAML's alerts section into the rules' own
// configuration.
func RulesConfig(cfg *config.Config) alerting.RulesConfig {
	rc := alerting.RulesConfig{AlertOnFirstRun: cfg.Alerts.AlertOnFirstRun, FlapWindow: cfg.Alerts.FlapWindow, DefaultChannel: cfg.Slack.Channel,
		PlacementScoreThresholds: cfg.Alerts.PlacementScoreThresholds}
	for _, r := range cfg.Alerts.Rules {
		rc.Rules = append(rc.Rules, alerting.RuleSpec{Name: r.Name, Events: r.Events, GPUModels: r.GPUModels, Providers: r.Providers,
			Regions: r.Regions, PriceTypes: r.PriceTypes, MinChangePct: r.MinChangePct, MinChangePerGPUHour: r.MinChangePerGPUHour,
			SpotBelowPerGPUHour: r.SpotBelowPerGPUHour, Channel: r.Channel, Webhook: r.Webhook})
	}
	return rc
}

// EnvSlackToken names the environment variable holding the bot token; it
// wins over slack.token and slack.token_file.
const EnvSlackToken = "PRICEWATCH_SLACK_TOKEN"

// SlackToken resolves the bot token (never logged, never in errors).
func (w *Wiring) SlackToken() (config.Secret, error) {
	return config.ReadSecret(EnvSlackToken, w.Config.Slack.Token, w.Config.Slack.TokenFile)
}

// OutboxFunc returns the function storage calls inside each run's
// transaction to turn the run's changes into outbox documents
// (storage.SaveOptions.Outbox), or nil when no alert rule is configured.
func (w *Wiring) OutboxFunc() (func(*storage.Result) ([]storage.OutboxMessage, error), error) {
	rc := RulesConfig(w.Config)
	if reflect.DeepEqual(w.Config.Alerts.Rules, config.DefaultRules()) {
		// The built-in rules name no notifier: they go to every one
		// configured (a webhook-only setup got nothing).
		rc.Rules = alerting.RouteBuiltIn(rc.Rules, w.ConfiguredNotifiers())
	}
	rules, err := alerting.NewRules(rc)
	if err != nil {
		return nil, err
	}
	if rules.Empty() {
		return nil, nil
	}
	// chat.postMessage needs a channel. (An unreadable token file is
	// reported when delivering; it must not stop prices being stored.)
	if token, err := w.SlackToken(); err == nil && !token.Empty() {
		if names := rules.Channels()[""]; len(names) > 0 {
			return nil, fmt.Errorf("alert rules %s have no channel and slack.channel is empty: set slack.channel (a channel ID such as C0123ABCD) or the rules' channel",
				strings.Join(names, ", "))
		}
	}
	return outboxstore.SaveFunc(rules), nil
}

// ConfiguredNotifiers says which notifiers the config sets up (a token
// file that cannot be read still counts: it was meant to be Slack).
func (w *Wiring) ConfiguredNotifiers() alerting.Configured {
	token, err := w.SlackToken()
	return alerting.Configured{
		Slack:   err != nil || !token.Empty() || !w.Config.Slack.WebhookURL.Empty(),
		Webhook: !w.Config.Webhook.URL.Empty() || w.Config.Webhook.URLFile != "",
	}
}

// AlertOutbox is OutboxFunc for storage.SaveOptions.Outbox, which cannot
// return an error: a rule set that does not build makes every run fail with
// that error rather than store changes without their alerts (the next run
// after the fix finds the same changes and alerts them). Check outboxFunc
// at start-up so this stays theoretical.
func (w *Wiring) AlertOutbox() func(*storage.Result) ([]storage.OutboxMessage, error) {
	fn, err := w.OutboxFunc()
	if err != nil {
		return func(*storage.Result) ([]storage.OutboxMessage, error) { return nil, err }
	}
	return fn
}

// Notifier builds the Slack notifier from the config: the bot token
// ($PRICEWATCH_SLACK_TOKEN, slack.token or slack.token_file) when set, else
// slack.webhook_url; without either, alerts go to the log.
func (w *Wiring) Notifier() (alerting.Notifier, error) {
	token, err := w.SlackToken()
	if err != nil {
		return nil, err
	}
	w.addSecrets(token, w.Config.Slack.WebhookURL)
	if token.Empty() && w.Config.Slack.WebhookURL.Empty() {
		return alerting.LogNotifier{Log: w.Log.Named("alerts")}, nil
	}
	n, err := slack.New(slack.Config{Token: token.Value(), WebhookURL: w.Config.Slack.WebhookURL.Value(), APIURL: w.Config.Slack.APIURL, Digest: digest.RenderSlack})
	if err != nil {
		return nil, err
	}
	return n, nil
}

// Webhook builds the generic webhook notifier from webhook.url (or
// url_file) and webhook.secret_file; nil when no URL is configured.
func (w *Wiring) Webhook() (alerting.Notifier, error) {
	wh := w.Config.Webhook
	u, err := config.ReadSecret("", wh.URL, wh.URLFile)
	if err != nil {
		return nil, fmt.Errorf("webhook.url_file: %w", err)
	}
	if u.Empty() {
		return nil, nil
	}
	key, err := config.ReadSecret("", config.Secret{}, wh.SecretFile)
	if err != nil {
		return nil, fmt.Errorf("webhook.secret_file: %w", err)
	}
	if wh.SecretFile != "" && key.Empty() {
		return nil, fmt.Errorf("webhook.secret_file %s is empty: write the signing key into it, or remove the key to send unsigned", wh.SecretFile)
	}
	w.addSecrets(u, key)
	return webhook.New(webhook.Config{URL: u.Value(), Secret: []byte(key.Value())})
}

// Router is the dispatcher's notifier: the webhook's outbox channel to
// the webhook (or the log when none is configured), every other channel to
// Slack (or the log).
func (w *Wiring) Router() (alerting.Notifier, error) {
	n, err := w.Notifier()
	if err != nil {
		return nil, err
	}
	wh, err := w.Webhook()
	if err != nil {
		return nil, err
	}
	if wh == nil {
		wh = alerting.LogNotifier{Log: w.Log.Named("alerts")}
	}
	return alerting.Router{Default: n, Channels: map[string]alerting.Notifier{alerting.WebhookChannel: wh}}, nil
}

// Dispatcher returns a dispatcher draining db's outbox to Slack and the
// webhook (or the log).
func (w *Wiring) Dispatcher(db *storage.DB) (*alerting.Dispatcher, error) {
	n, err := w.Router()
	if err != nil {
		return nil, fmt.Errorf("setting up alert delivery: %w", err)
	}
	opts := alerting.DispatcherOptions{MaxRetryAfter: w.Config.Slack.MaxRetryAfter}
	// On PostgreSQL (where replicas elect a leader) a claim lapses as
	// fast as leadership hands over: a message a killed leader was
	// posting is taken up by the next one within ha.takeover of its claim.
	if w.Config.Database.UsesPostgres() {
		opts.Lease = w.Config.HA.Takeover
	}
	return outboxstore.NewDispatcher(db, n, w.Log.Named("alerts"), opts), nil
}

func (w *Wiring) Deliver(ctx context.Context, db *storage.DB, maxWait time.Duration, force bool) (alerting.Report, error) {
	d, err := w.Dispatcher(db)
	if err != nil {
		return alerting.Report{}, err
	}
	rep, err := d.Deliver(ctx, maxWait, force)
	if err != nil {
		return rep, fmt.Errorf("delivering alerts: %w", err)
	}
	if rep.Sent+rep.Logged+rep.Failed+rep.Retrying > 0 {
		w.Log.Info("alerts delivered", zap.Int("sent", rep.Sent), zap.Int("logged", rep.Logged), zap.Int("failed", rep.Failed), zap.Int("pending", rep.Pending))
	}
	if rep.Pending > 0 {
		w.Log.Warn("alerts left pending: the daemon or `pricewatch alerts deliver` sends them later", zap.Int("pending", rep.Pending))
	}
	return rep, nil
}

// RunDispatcher delivers alerts continuously until ctx ends, for the
// daemon; each value on nudge (sent after a run queued messages) wakes it.
func (w *Wiring) RunDispatcher(ctx context.Context, db *storage.DB, nudge <-chan struct{}) error {
	d, err := w.Dispatcher(db)
	if err != nil {
		return err
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case <-done:
				return
			case <-nudge:
				d.Nudge()
			}
		}
	}()
	return d.Run(ctx)
}
