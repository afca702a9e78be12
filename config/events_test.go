package config

import (
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch/alerting"
)

// Issue 32 item 4: a rule may select exactly alerting's events, each
// accepted by name, and nothing else.
func TestRuleEventsAreAlertings(t *testing.T) {
	rule := func(events ...string) *Config {
		cfg := Default()
		cfg.Alerts.Rules = []Rule{{Name: "r", Events: events}}
		return cfg
	}
	for _, e := range alerting.Events {
		if err := rule(string(e)).validateRule(0, rule(string(e)).Alerts.Rules[0]); err != nil {
			t.Errorf("alerting's event %s refused: %v", e, err)
		}
	}
	for _, tc := range []struct {
		name   string
		events []string
		want   string
	}{
		{"unknown", []string{"price_fell"}, `alerts.rules[0].events[0]: "price_fell": want one of availability_new, back_in_stock`},
		{"none", nil, "a rule needs at least one event (availability_new, "},
	} {
		cfg := rule(tc.events...)
		err := cfg.validateRule(0, cfg.Alerts.Rules[0])
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
