// Package alertingtest holds what the alerting packages' tests share: a
// fake clock that the outbox database and the dispatcher both read (so a
// test moves time instead of waiting for it), a real outbox database on
// it, and offers and changes modelled on the clouds' real samples (Azure's
// Standard_ND96isr_H100_v5 in eastus, 98.32 USD/h on demand, from
// shared/api-samples/azure; Tencent's GN10Xp types, 8 V100 with stock per
// zone, from research/cloud-apis.md).
package alertingtest

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/storage"
)

// Clock is the database's and the dispatcher's time in tests. It is safe
// for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock standing at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now is the clock's time (storage.DB.Now).
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock d forward; a zero or negative d leaves it.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d > 0 {
		c.t = c.t.Add(d)
	}
}

// Sleep is alerting.DispatcherOptions.Sleep on the clock: it moves the
// clock instead of waiting, and reports a done ctx.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	c.Advance(d)
	return ctx.Err()
}

// OpenDB opens the database at path (a new one in a temporary directory
// when path is ""), on clk's time, closed when the test ends.
func OpenDB(t testing.TB, path string, clk *Clock) *storage.DB {
	t.Helper()
	if path == "" {
		path = filepath.Join(t.TempDir(), "pw.db")
	}
	db, err := storage.Open(context.Background(), path, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.Now = clk.Now
	return db
}

// AzureH100 is Azure's Standard_ND96isr_H100_v5 in eastus on price type pt,
// at hourly USD ("" leaves the price zero, for changes that carry their own).
func AzureH100(pt pricewatch.PriceType, hourly string) pricewatch.Offer {
	o := pricewatch.Offer{Provider: pricewatch.Azure, Region: "eastus", InstanceType: "Standard_ND96isr_H100_v5", PriceType: pt,
		OS: pricewatch.Linux, Currency: "USD", Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8, GPUMemoryGB: 80, VCPUs: 96, MemoryGB: 1900}}
	if hourly != "" {
		o.Hourly = decimal.RequireFromString(hourly)
	}
	return o
}

// TencentGN10Xp is Tencent's GN10Xp.20XLARGE320 (8 V100-32GB) in zone of
// ap-guangzhou, in state.
func TencentGN10Xp(zone string, state pricewatch.AvailabilityState) pricewatch.Availability {
	return pricewatch.Availability{Provider: pricewatch.Tencent, Region: "ap-guangzhou", Zone: zone, InstanceType: "GN10Xp.20XLARGE320", State: state,
		Hardware: pricewatch.Hardware{GPUModel: "V100-32GB", GPUCount: 8, GPUMemoryGB: 32, VCPUs: 80, MemoryGB: 320}}
}

// PriceChange is the change storage records when o's price moves from old
// to new at at ("" for no price: a new or withdrawn offer).
func PriceChange(kind pricewatch.ChangeKind, o pricewatch.Offer, old, new string, at time.Time) pricewatch.Change {
	c := pricewatch.Change{Kind: kind, At: at, Offer: o.Key(), Currency: o.Currency, Hardware: o.Hardware,
		Place: pricewatch.AvailabilityKey{Provider: o.Provider, Region: o.Region, Zone: o.Zone, InstanceType: o.InstanceType}}
	if old != "" {
		c.Old = decimal.NewNullDecimal(decimal.RequireFromString(old))
	}
	if new != "" {
		c.New = decimal.NewNullDecimal(decimal.RequireFromString(new))
	}
	return c
}

// NullDec is the exact figure s, set (a change's or a rule's figure).
func NullDec(s string) decimal.NullDecimal {
	return decimal.NewNullDecimal(decimal.RequireFromString(s))
}
