package main

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

// rulesConfig converts the YAML's alerts section into the rules' own
// configuration.
func rulesConfig(cfg *config.Config) alerting.RulesConfig {
	rc := alerting.RulesConfig{AlertOnFirstRun: cfg.Alerts.AlertOnFirstRun, FlapWindow: cfg.Alerts.FlapWindow, DefaultChannel: cfg.Slack.Channel}
	for _, r := range cfg.Alerts.Rules {
		rc.Rules = append(rc.Rules, alerting.RuleSpec{Name: r.Name, Events: r.Events, GPUModels: r.GPUModels, Providers: r.Providers,
			Regions: r.Regions, PriceTypes: r.PriceTypes, MinChangePct: r.MinChangePct, MinChangePerGPUHour: r.MinChangePerGPUHour,
			SpotBelowPerGPUHour: r.SpotBelowPerGPUHour, Channel: r.Channel, Webhook: r.Webhook})
	}
	return rc
}

// envSlackToken names the environment variable holding the bot token; it
// wins over slack.token and slack.token_file.
const envSlackToken = "PRICEWATCH_SLACK_TOKEN"

// slackToken resolves the bot token (never logged, never in errors).
func (a *app) slackToken() (config.Secret, error) {
	return config.ReadSecret(envSlackToken, a.cfg.Slack.Token, a.cfg.Slack.TokenFile)
}

// outboxFunc returns the function storage calls inside each run's
// transaction to turn the run's changes into outbox documents
// (storage.SaveOptions.Outbox), or nil when no alert rule is configured.
func (a *app) outboxFunc() (func(*storage.Result) ([]storage.OutboxMessage, error), error) {
	rc := rulesConfig(a.cfg)
	if reflect.DeepEqual(a.cfg.Alerts.Rules, config.DefaultRules()) {
		// The built-in rules name no notifier: they go to every one
		// configured (a webhook-only setup got nothing).
		rc.Rules = alerting.RouteBuiltIn(rc.Rules, a.configuredNotifiers())
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
	if token, err := a.slackToken(); err == nil && !token.Empty() {
		if names := rules.Channels()[""]; len(names) > 0 {
			return nil, fmt.Errorf("alert rules %s have no channel and slack.channel is empty: set slack.channel (a channel ID such as C0123ABCD) or the rules' channel",
				strings.Join(names, ", "))
		}
	}
	return outboxstore.SaveFunc(rules), nil
}

// configuredNotifiers says which notifiers the config sets up (a token
// file that cannot be read still counts: it was meant to be Slack).
func (a *app) configuredNotifiers() alerting.Configured {
	token, err := a.slackToken()
	return alerting.Configured{
		Slack:   err != nil || !token.Empty() || !a.cfg.Slack.WebhookURL.Empty(),
		Webhook: !a.cfg.Webhook.URL.Empty() || a.cfg.Webhook.URLFile != "",
	}
}

// alertOutbox is outboxFunc for storage.SaveOptions.Outbox, which cannot
// return an error: a rule set that does not build makes every run fail with
// that error rather than store changes without their alerts (the next run
// after the fix finds the same changes and alerts them). Check outboxFunc
// at start-up so this stays theoretical.
func (a *app) alertOutbox() func(*storage.Result) ([]storage.OutboxMessage, error) {
	fn, err := a.outboxFunc()
	if err != nil {
		return func(*storage.Result) ([]storage.OutboxMessage, error) { return nil, err }
	}
	return fn
}

// newNotifier builds the Slack notifier from the config: the bot token
// ($PRICEWATCH_SLACK_TOKEN, slack.token or slack.token_file) when set, else
// slack.webhook_url; without either, alerts go to the log.
func (a *app) newNotifier() (alerting.Notifier, error) {
	token, err := a.slackToken()
	if err != nil {
		return nil, err
	}
	a.addSecrets(token, a.cfg.Slack.WebhookURL)
	if token.Empty() && a.cfg.Slack.WebhookURL.Empty() {
		return alerting.LogNotifier{Log: a.log.Named("alerts")}, nil
	}
	n, err := slack.New(slack.Config{Token: token.Value(), WebhookURL: a.cfg.Slack.WebhookURL.Value(), APIURL: a.cfg.Slack.APIURL, Digest: digest.RenderSlack})
	if err != nil {
		return nil, err
	}
	return n, nil
}

// newWebhook builds the generic webhook notifier from webhook.url (or
// url_file) and webhook.secret_file; nil when no URL is configured.
func (a *app) newWebhook() (alerting.Notifier, error) {
	w := a.cfg.Webhook
	u, err := config.ReadSecret("", w.URL, w.URLFile)
	if err != nil {
		return nil, fmt.Errorf("webhook.url_file: %w", err)
	}
	if u.Empty() {
		return nil, nil
	}
	key, err := config.ReadSecret("", config.Secret{}, w.SecretFile)
	if err != nil {
		return nil, fmt.Errorf("webhook.secret_file: %w", err)
	}
	if w.SecretFile != "" && key.Empty() {
		return nil, fmt.Errorf("webhook.secret_file %s is empty: write the signing key into it, or remove the key to send unsigned", w.SecretFile)
	}
	a.addSecrets(u, key)
	return webhook.New(webhook.Config{URL: u.Value(), Secret: []byte(key.Value())})
}

// newRouter is the dispatcher's notifier: the webhook's outbox channel to
// the webhook (or the log when none is configured), every other channel to
// Slack (or the log).
func (a *app) newRouter() (alerting.Notifier, error) {
	n, err := a.newNotifier()
	if err != nil {
		return nil, err
	}
	wh, err := a.newWebhook()
	if err != nil {
		return nil, err
	}
	if wh == nil {
		wh = alerting.LogNotifier{Log: a.log.Named("alerts")}
	}
	return alerting.Router{Default: n, Channels: map[string]alerting.Notifier{alerting.WebhookChannel: wh}}, nil
}

// newDispatcher returns a dispatcher draining db's outbox to Slack and the
// webhook (or the log).
func (a *app) newDispatcher(db *storage.DB) (*alerting.Dispatcher, error) {
	n, err := a.newRouter()
	if err != nil {
		return nil, fmt.Errorf("setting up alert delivery: %w", err)
	}
	return outboxstore.NewDispatcher(db, n, a.log.Named("alerts"), alerting.DispatcherOptions{MaxRetryAfter: a.cfg.Slack.MaxRetryAfter}), nil
}

func (a *app) deliver(ctx context.Context, db *storage.DB, maxWait time.Duration, force bool) (alerting.Report, error) {
	d, err := a.newDispatcher(db)
	if err != nil {
		return alerting.Report{}, err
	}
	rep, err := d.Deliver(ctx, maxWait, force)
	if err != nil {
		return rep, fmt.Errorf("delivering alerts: %w", err)
	}
	if rep.Sent+rep.Logged+rep.Failed+rep.Retrying > 0 {
		a.log.Info("alerts delivered", zap.Int("sent", rep.Sent), zap.Int("logged", rep.Logged), zap.Int("failed", rep.Failed), zap.Int("pending", rep.Pending))
	}
	if rep.Pending > 0 {
		a.log.Warn("alerts left pending: the daemon or `pricewatch alerts deliver` sends them later", zap.Int("pending", rep.Pending))
	}
	return rep, nil
}

// deliverAfterFetch delivers what a `pricewatch fetch` queued, waiting at
// most alerts.fetch_delivery_wait, and returns the summary line the fetch
// prints ("" when there was nothing to send).
func (a *app) deliverAfterFetch(ctx context.Context, db *storage.DB) string {
	if ctx.Err() != nil {
		return ""
	}
	rep, err := a.deliver(ctx, db, a.cfg.Alerts.FetchDeliveryWait, false)
	if err != nil {
		a.log.Error("alerts not delivered", zap.Error(err))
		return fmt.Sprintf("%-8s failed   %v (alerts stay queued)", "alerts", err)
	}
	if rep.Sent+rep.Logged+rep.Failed+rep.Pending == 0 {
		return ""
	}
	return fmt.Sprintf("%-8s %s", "alerts", reportLine(rep))
}

func reportLine(rep alerting.Report) string {
	s := fmt.Sprintf("%d sent", rep.Sent)
	if rep.Logged > 0 {
		// Only the log has them: nobody was told, so not "sent".
		logged := fmt.Sprintf("%d logged (no Slack or webhook is configured for them: set slack.* or webhook.url)", rep.Logged)
		if rep.Sent == 0 {
			s = logged
		} else {
			s += ", " + logged
		}
	}
	if rep.Failed > 0 {
		s += fmt.Sprintf(", %d failed (see `pricewatch alerts list --failed`)", rep.Failed)
	}
	if rep.Pending > 0 {
		s += fmt.Sprintf(", %d pending (Slack did not take them in time; they are retried)", rep.Pending)
	}
	return s
}

// runDispatcher delivers alerts continuously until ctx ends, for the
// daemon; each value on nudge (sent after a run queued messages) wakes it.
func (a *app) runDispatcher(ctx context.Context, db *storage.DB, nudge <-chan struct{}) error {
	d, err := a.newDispatcher(db)
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
