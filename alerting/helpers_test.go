package alerting_test

import (
	"context"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/alerting/alertingtest"
	"github.com/pricewatch/pricewatch/config"
	"github.com/pricewatch/pricewatch/storage"
)

// Test data follows the real samples in shared/api-samples: Azure's
// Standard_ND96isr_H100_v5 in eastus costs 98.32 USD/h on demand and
// 18.169536 USD/h as spot (azure/retail-prices-ND96isr_H100_v5-eastus-
// items-trimmed.json); Tencent's GN10Xp types carry 8 V100 and report
// stock per zone (research/cloud-apis.md). Other prices are moves of
// these, made up for the edge being tested.

// rulesConfig converts the YAML's alerts section as cmd/pricewatch does.
func rulesConfig(cfg config.Alerts, defaultChannel string) alerting.RulesConfig {
	rc := alerting.RulesConfig{AlertOnFirstRun: cfg.AlertOnFirstRun, FlapWindow: cfg.FlapWindow, DefaultChannel: defaultChannel,
		PlacementScoreThresholds: cfg.PlacementScoreThresholds}
	for _, r := range cfg.Rules {
		rc.Rules = append(rc.Rules, alerting.RuleSpec{Name: r.Name, Events: r.Events, GPUModels: r.GPUModels, Providers: r.Providers,
			Regions: r.Regions, PriceTypes: r.PriceTypes, MinChangePct: r.MinChangePct, MinChangePerGPUHour: r.MinChangePerGPUHour,
			SpotBelowPerGPUHour: r.SpotBelowPerGPUHour, Channel: r.Channel, Webhook: r.Webhook})
	}
	return rc
}

// placesOf reads a queued alert document back as "event region/zone/type"
// per item, so tests see exactly what the rules decided.
func placesOf(t *testing.T, payload []byte) []string {
	t.Helper()
	doc, err := alerting.DecodeDocument(payload)
	if err != nil || doc.Alert == nil {
		t.Fatalf("queued payload is not an alert document: %v\n%s", err, payload)
	}
	var out []string
	for _, it := range doc.Alert.Items {
		out = append(out, string(it.Event)+" "+it.Change.Place.Region+"/"+it.Change.Place.Zone+"/"+it.Change.Place.InstanceType)
	}
	return out
}

// newClock is the tests' start: a Monday morning.
func newClock() *alertingtest.Clock {
	return alertingtest.NewClock(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
}

func mustRules(t *testing.T, cfg config.Alerts) *alerting.Rules {
	t.Helper()
	r, err := alerting.NewRules(rulesConfig(cfg, "#gpu-alerts"))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func outbox(t *testing.T, db *storage.DB) []storage.OutboxEntry {
	t.Helper()
	all, err := db.ListOutbox(context.Background(), storage.OutboxFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return all
}
