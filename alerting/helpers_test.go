package alerting_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/alerting"
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
	rc := alerting.RulesConfig{AlertOnFirstRun: cfg.AlertOnFirstRun, FlapWindow: cfg.FlapWindow, DefaultChannel: defaultChannel}
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

// clock is the database's and the dispatcher's time in tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)} }

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d > 0 {
		c.t = c.t.Add(d)
	}
}

// sleep is DispatcherOptions.Sleep on the fake clock.
func (c *clock) sleep(ctx context.Context, d time.Duration) error {
	c.advance(d)
	return ctx.Err()
}

func openDB(t *testing.T, path string, clk *clock) *storage.DB {
	t.Helper()
	if path == "" {
		path = filepath.Join(t.TempDir(), "pw.db")
	}
	db, err := storage.Open(context.Background(), path, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.Now = clk.now
	return db
}

func h100(priceType pricewatch.PriceType, hourly string) pricewatch.Offer {
	return pricewatch.Offer{
		Provider: pricewatch.Azure, Region: "eastus", InstanceType: "Standard_ND96isr_H100_v5", PriceType: priceType,
		OS: pricewatch.Linux, Currency: "USD", Hourly: decimal.RequireFromString(hourly),
		Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8, GPUMemoryGB: 80, VCPUs: 96, MemoryGB: 1900},
	}
}

func tencentStock(zone, typ string, state pricewatch.AvailabilityState) pricewatch.Availability {
	return pricewatch.Availability{
		Provider: pricewatch.Tencent, Region: "ap-guangzhou", Zone: zone, InstanceType: typ, State: state,
		Hardware: pricewatch.Hardware{GPUModel: "V100-32GB", GPUCount: 8, GPUMemoryGB: 32, VCPUs: 80, MemoryGB: 320},
	}
}

// store saves snap as one complete run with opts, the way `pricewatch
// fetch` does, and returns the result (nil and the error for a failed run).
func store(t *testing.T, db *storage.DB, snap *pricewatch.Snapshot, opts storage.SaveOptions) (*storage.Result, error) {
	t.Helper()
	ctx := context.Background()
	id, err := db.StartRun(ctx, snap.Provider)
	if err != nil {
		t.Fatal(err)
	}
	res, err := db.SaveSnapshot(ctx, id, snap, opts)
	if err != nil {
		if ferr := db.FinishRun(ctx, id, storage.RunFailed, err.Error()); ferr != nil {
			t.Fatal(ferr)
		}
	}
	return res, err
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
