package guard

import (
	"context"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/config"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/storage/dbtest"
)

func offer(provider, typ, model string, count float64, currency, hourly string) pricewatch.Offer {
	return pricewatch.Offer{Provider: provider, Region: "r1", InstanceType: typ, PriceType: pricewatch.OnDemand, OS: pricewatch.Linux,
		Currency: currency, Hourly: decimal.RequireFromString(hourly), Hardware: pricewatch.Hardware{GPUModel: model, GPUCount: count}}
}

// complete is a run's snapshot of provider's offers, covering every region.
func complete(provider string, offers ...pricewatch.Offer) *pricewatch.Snapshot {
	return &pricewatch.Snapshot{Provider: provider, Offers: offers, Coverage: []pricewatch.Scope{{Region: pricewatch.AllRegions}}}
}

func store(t *testing.T, db *storage.DB, provider string, offers ...pricewatch.Offer) {
	t.Helper()
	dbtest.Save(t, db, complete(provider, offers...))
}

// defaultGuard is a Guard of the default guard: settings.
func defaultGuard(t *testing.T) *Guard {
	t.Helper()
	g, err := New(Config(config.Default().Guard), nil)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// checkRun is g's check of snap, as a run makes it before saving.
func checkRun(t *testing.T, g *Guard, db *storage.DB, snap *pricewatch.Snapshot) []storage.HeldPrice {
	t.Helper()
	held, err := g.Check(context.Background(), db, snap)
	if err != nil {
		t.Fatal(err)
	}
	return held
}

func TestCheck(t *testing.T) {
	floorsOff := Config{Enabled: true, ImplausibleRatio: 1000, AcceptAfterRuns: 3}
	defaults := Config(config.Default().Guard)
	h100 := func(hourly string) pricewatch.Offer {
		return offer("azure", "Standard_ND96isr_H100_v5", "H100", 8, "USD", hourly)
	}
	tests := []struct {
		name    string
		cfg     Config
		stored  map[string][]pricewatch.Offer // provider → stored current offers
		offer   pricewatch.Offer
		reason  string // "" = not held
		contain string
	}{
		{name: "placeholder below the USD floor", cfg: defaults,
			offer: offer("azure", "Standard_ND96isr_H200_v5", "H200", 8, "USD", "0.01"), reason: storage.HeldBelowFloor, contain: "0.00125 USD per GPU-hour"},
		{name: "the real RTX PRO 6000 spot placeholder", cfg: defaults,
			offer: offer("azure", "Standard_NC320lds_xl_RTXPRO6000BSE_v6", "RTX-PRO-6000", 2, "USD", "0.0052"), reason: storage.HeldBelowFloor},
		{name: "the real RTX PRO 6000 spot price", cfg: defaults,
			offer: offer("azure", "Standard_NC320lds_xl_RTXPRO6000BSE_v6", "RTX-PRO-6000", 2, "USD", "3.5204")},
		{name: "CNY has its own floor", cfg: defaults,
			offer: offer("tencent", "GN7.2XLARGE32", "T4", 1, "CNY", "0.10"), reason: storage.HeldBelowFloor},
		{name: "a cheap real USD GPU-hour is above the floor", cfg: defaults,
			offer: offer("azure", "Standard_NC4as_T4_v3", "T4", 1, "USD", "0.0473")},
		{name: "a real CNY price above the CNY floor", cfg: defaults,
			offer: offer("tencent", "GN7.2XLARGE32", "T4", 1, "CNY", "8.5")},
		{name: "a fractional slice is floored per GPU-hour", cfg: defaults,
			offer: offer("azure", "Standard_NV4as_v4", "MI25", 0.125, "USD", "0.04074")}, // 0.326 per GPU-hour
		{name: "unknown GPU count is not floored", cfg: defaults,
			offer: offer("azure", "Standard_NX1", "", 0, "USD", "0.001")},
		{name: "a thousandth of its own price", cfg: floorsOff,
			stored: map[string][]pricewatch.Offer{"azure": {h100("98.32")}}, offer: h100("0.09832"), reason: storage.HeldFractionOfPrice, contain: "1/1000"},
		{name: "just above a thousandth of its own price", cfg: floorsOff,
			stored: map[string][]pricewatch.Offer{"azure": {h100("98.32")}}, offer: h100("0.09833")},
		{name: "a thousandth of its own price but not of another H100", cfg: floorsOff,
			stored: map[string][]pricewatch.Offer{"azure": {h100("98.32")}, "aws": {offer("aws", "p5.48xlarge", "H100", 8, "USD", "55.04")}},
			offer:  h100("0.09832")}, // 0.0123/GPU-h × 1000 = 12.29 > 6.88
		{name: "a thousandth of every other H100, new offer", cfg: floorsOff,
			stored: map[string][]pricewatch.Offer{"aws": {offer("aws", "p5.48xlarge", "H100", 8, "USD", "55.04")}},
			offer:  h100("0.05504"), reason: storage.HeldFractionOfPrice},
		{name: "peers in another currency are not compared", cfg: floorsOff,
			stored: map[string][]pricewatch.Offer{"alibaba": {offer("alibaba", "ecs.gn8v", "H100", 8, "CNY", "400")}},
			offer:  h100("0.001")},
		{name: "the stored price itself is never held", cfg: defaults,
			stored: map[string][]pricewatch.Offer{"azure": {h100("0.01")}}, offer: h100("0.01")},
		{name: "guard off", cfg: Config{Enabled: false, ImplausibleRatio: 1000, AcceptAfterRuns: 3, FloorPerGPUHour: map[string]float64{"USD": 0.05}},
			offer: h100("0.01")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := dbtest.Open(t)
			for p, offers := range tt.stored {
				store(t, db, p, offers...)
			}
			g, err := New(tt.cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			snap := &pricewatch.Snapshot{Provider: tt.offer.Provider, Offers: []pricewatch.Offer{tt.offer}}
			held, err := g.Check(context.Background(), db, snap)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.reason == "" && len(held) != 0:
				t.Errorf("held %+v, want nothing held", held)
			case tt.reason != "" && (len(held) != 1 || held[0].Reason != tt.reason || held[0].Accepted):
				t.Errorf("held %+v, want one hold for %s", held, tt.reason)
			case tt.reason != "" && !strings.Contains(held[0].Detail, tt.contain):
				t.Errorf("detail %q lacks %q", held[0].Detail, tt.contain)
			}
		})
	}
}

// TestHeldPriceAcceptedAfterRuns: the same implausible price held in two
// consecutive complete runs is accepted in the third (accept_after_runs 3)
// and then stays, as the stored price, unheld.
func TestHeldPriceAcceptedAfterRuns(t *testing.T) {
	db := dbtest.Open(t)
	g := defaultGuard(t)
	real := offer("azure", "Standard_ND96isr_H200_v5", "H200", 8, "USD", "106.0")
	low := offer("azure", "Standard_ND96isr_H200_v5", "H200", 8, "USD", "0.01")
	store(t, db, "azure", real)
	for run := 1; run <= 4; run++ {
		snap := complete("azure", low)
		held := checkRun(t, g, db, snap)
		want := map[int]string{1: "held", 2: "held", 3: "accepted", 4: "none"}[run]
		got := "none"
		if len(held) == 1 && held[0].Accepted {
			got = "accepted"
		} else if len(held) == 1 {
			got = "held"
		}
		if got != want {
			t.Fatalf("run %d: %s, want %s", run, got, want)
		}
		dbtest.SaveWith(t, db, snap, storage.SaveOptions{Held: held})
	}
	cur, err := db.Prices(context.Background(), storage.PriceFilter{CurrentOnly: true})
	if err != nil || len(cur) != 1 || cur[0].Hourly.String() != "0.01" {
		t.Errorf("current after acceptance: %+v %v", cur, err)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, c := range []Config{{AcceptAfterRuns: 0}, {AcceptAfterRuns: 1, ImplausibleRatio: 0.5}} {
		if _, err := New(c, nil); err == nil {
			t.Errorf("accepted %+v", c)
		}
	}
}
