package alerting_test

import (
	"maps"
	"slices"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/alerting/alertingtest"
	"github.com/pricewatch/pricewatch/alerting/outboxstore"
	"github.com/pricewatch/pricewatch/config"
)

// TestBuiltInRulesReachEveryNotifier: Issue 20 item 12: with webhook.url
// and no Slack, the built-in rules queued their messages for Slack's
// route only, which went to the log. They go to every configured
// notifier, and to the webhook alone when Slack is not configured.
func TestBuiltInRulesReachEveryNotifier(t *testing.T) {
	drop := alertingtest.PriceChange(pricewatch.PriceChanged, alertingtest.AzureH100(pricewatch.OnDemand, ""), "98.32", "88.488",
		time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	tests := []struct {
		name     string
		to       alerting.Configured
		slackCh  string
		channels []string // of the price drop's messages
	}{
		{"nothing configured: the log", alerting.Configured{}, "", []string{""}},
		{"Slack only", alerting.Configured{Slack: true}, "C0GPUALERTS", []string{"C0GPUALERTS"}},
		{"webhook only", alerting.Configured{Webhook: true}, "", []string{alerting.WebhookChannel}},
		{"webhook only, slack.channel left set", alerting.Configured{Webhook: true}, "C0GPUALERTS", []string{alerting.WebhookChannel}},
		{"both", alerting.Configured{Slack: true, Webhook: true}, "C0GPUALERTS", []string{"C0GPUALERTS", alerting.WebhookChannel}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := rulesConfig(config.Alerts{Rules: config.DefaultRules()}, tt.slackCh)
			rc.Rules = alerting.RouteBuiltIn(rc.Rules, tt.to)
			rules, err := alerting.NewRules(rc)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, g := range rules.Groups(alerting.Run{ID: 7, Provider: pricewatch.Azure, At: drop.At, Changes: []pricewatch.Change{drop}}) {
				if g.Event == alerting.PriceDrop {
					got = append(got, g.Channel)
				}
			}
			if !slices.Equal(got, tt.channels) {
				t.Errorf("price drop queued for %q, want %q", got, tt.channels)
			}
			// Every rule routes the same way.
			routes := slices.Sorted(maps.Keys(rules.Channels()))
			if want := slices.Sorted(slices.Values(tt.channels)); !slices.Equal(routes, want) {
				t.Errorf("rules route to %q, want %q", routes, want)
			}
		})
	}
	// The built-in rules themselves are left as they are.
	if d := config.DefaultRules(); d[0].Webhook {
		t.Error("RouteBuiltIn changed config.DefaultRules")
	}
}

// TestLoggedIsNotSent: Issue 20 item 12: a message that only reached the
// log was counted sent ("1 sent" with no notifier configured). It counts
// as logged; a message the webhook took counts as sent.
func TestLoggedIsNotSent(t *testing.T) {
	clk := newClock()
	db := alertingtest.OpenDB(t, "", clk)
	queue(t, db, "C0GPUALERTS:to-slack", "webhook:to-hook")
	hook := &fakeNotifier{}
	router := alerting.Router{Default: alerting.LogNotifier{Log: zap.NewNop()}, Channels: map[string]alerting.Notifier{alerting.WebhookChannel: hook}}
	d := outboxstore.NewDispatcher(db, router, nil, alerting.DispatcherOptions{Sleep: clk.Sleep})
	rep, err := d.Deliver(t.Context(), 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sent != 1 || rep.Logged != 1 || rep.Failed+rep.Pending != 0 {
		t.Errorf("report %+v, want 1 sent (the webhook) and 1 logged", rep)
	}
	if len(hook.got) != 1 {
		t.Errorf("webhook got %v", hook.got)
	}
}
