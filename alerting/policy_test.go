package alerting_test

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/storage"
)

// The policy is what storage consumes.
var _ storage.MovePolicy = alerting.Policy{}

func price(s string) decimal.NullDecimal {
	return decimal.NewNullDecimal(decimal.RequireFromString(s))
}

func samePrice(a, b decimal.NullDecimal) bool {
	return a.Valid == b.Valid && (!a.Valid || a.Decimal.Equal(b.Decimal))
}

// TestPolicyJudge: issue 21 item 4, "is this move large" as a pure
// decision (alerts.confirm_change_pct), exact at the threshold.
func TestPolicyJudge(t *testing.T) {
	tests := []struct {
		name     string
		pct      float64
		old, new string
		want     pricewatch.MoveDecision
	}{
		{"−60% waits", 50, "10", "4", pricewatch.MoveAwaits},
		{"exactly −50% waits", 50, "10", "5", pricewatch.MoveAwaits},
		{"just under −50% alerts", 50, "10", "5.01", pricewatch.MoveAlerts},
		{"a rise of 60% waits", 50, "10", "16", pricewatch.MoveAwaits},
		{"exactly +50% waits", 50, "10", "15", pricewatch.MoveAwaits},
		{"just under +50% alerts", 50, "10", "14.99", pricewatch.MoveAlerts},
		{"a small move alerts", 50, "10", "9", pricewatch.MoveAlerts},
		// 1.7 × 100 = 17 × 10 exactly; in floats 1.7 / 10 × 100 is
		// 16.999999999999993 and would alert.
		{"decided exactly at the threshold", 17, "10", "8.3", pricewatch.MoveAwaits},
		{"exactly 10% of 0.7", 10, "0.7", "0.63", pricewatch.MoveAwaits},
		{"from nothing there is no percentage", 50, "0", "4", pricewatch.MoveAlerts},
		{"confirmation off", 0, "10", "1", pricewatch.MoveAlerts},
		{"a negative threshold is off", -5, "10", "1", pricewatch.MoveAlerts},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := alerting.NewPolicy(tt.pct, 1)
			if got := p.Judge(decimal.RequireFromString(tt.old), decimal.RequireFromString(tt.new)); got != tt.want {
				t.Errorf("Judge(%s → %s) at %v%% = %v, want %v", tt.old, tt.new, tt.pct, got, tt.want)
			}
		})
	}
	if got := (alerting.Policy{}).Judge(decimal.NewFromInt(10), decimal.NewFromInt(1)); got != pricewatch.MoveAlerts {
		t.Errorf("zero Policy judged −90%% %v, want alerts", got)
	}
}

// TestPolicySettle: issue 21 item 4, what becomes of a waiting move
// (confirm, revert, re-judge, end, wait on) as a pure decision.
func TestPolicySettle(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	key := pricewatch.OfferKey{Provider: "azure", Region: "eastus", InstanceType: "Standard_ND96isr_H100_v5", PriceType: pricewatch.OnDemand}
	// Users were told 10; 4 waits.
	pending := pricewatch.Change{Kind: pricewatch.PriceChanged, At: at, Offer: key, Currency: "USD", Old: price("10"), New: price("4"),
		Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8}}
	change := func(kind pricewatch.ChangeKind, currency string, old, new decimal.NullDecimal) pricewatch.Change {
		return pricewatch.Change{Kind: kind, At: at.Add(time.Hour), Offer: key, Currency: currency, Old: old, New: new}
	}
	none := decimal.NullDecimal{}
	tests := []struct {
		name     string
		now      pricewatch.Change
		observed bool
		want     pricewatch.MoveSettlement
		wantOld  decimal.NullDecimal // of the returned change
		wantNew  decimal.NullDecimal
		wantAt   time.Time
	}{
		{"the same price again confirms", pricewatch.Change{}, true, pricewatch.MoveConfirmed, price("10"), price("4"), at},
		{"not seen (held, or not covered) waits on", pricewatch.Change{}, false, pricewatch.MovePending, price("10"), price("4"), at},
		{"back to the price told reverts", change(pricewatch.PriceChanged, "USD", price("4"), price("10")), true,
			pricewatch.MoveReverted, price("4"), price("10"), at.Add(time.Hour)},
		{"back to an equal price reverts", change(pricewatch.PriceChanged, "USD", price("4"), price("10.000")), true,
			pricewatch.MoveReverted, price("4"), price("10.000"), at.Add(time.Hour)},
		{"moving on is judged from the price told", change(pricewatch.PriceChanged, "USD", price("4"), price("4.4")), true,
			pricewatch.MoveRejudged, price("10"), price("4.4"), at.Add(time.Hour)},
		{"close to the old price is judged from the price told", change(pricewatch.PriceChanged, "USD", price("4"), price("9.6")), true,
			pricewatch.MoveRejudged, price("10"), price("9.6"), at.Add(time.Hour)},
		{"a move in another currency is judged as it is", change(pricewatch.PriceChanged, "EUR", price("4"), price("10")), true,
			pricewatch.MoveRejudged, price("4"), price("10"), at.Add(time.Hour)},
		{"closed ends the wait", change(pricewatch.PriceGone, "USD", price("4"), none), true,
			pricewatch.MoveEnded, price("4"), none, at.Add(time.Hour)},
		{"a new currency ends the wait", change(pricewatch.PriceChanged, "EUR", none, price("3.7")), true,
			pricewatch.MoveEnded, none, price("3.7"), at.Add(time.Hour)},
		{"listed anew ends the wait", change(pricewatch.PriceNew, "USD", none, price("4")), true,
			pricewatch.MoveEnded, none, price("4"), at.Add(time.Hour)},
		{"a stock change says nothing of the price", pricewatch.Change{Kind: pricewatch.BackInStock, Offer: key}, true,
			pricewatch.MovePending, price("10"), price("4"), at},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, p := range []alerting.Policy{alerting.NewPolicy(50, 2), {}} {
				got, c := p.Settle(pending, tt.now, tt.observed)
				if got != tt.want {
					t.Errorf("Settle = %v, want %v", got, tt.want)
				}
				if !samePrice(c.Old, tt.wantOld) || !samePrice(c.New, tt.wantNew) || !c.At.Equal(tt.wantAt) || c.Offer != key {
					t.Errorf("Settle's change %s %v → %v at %s, want %v → %v at %s", c.Offer, c.Old, c.New, c.At, tt.wantOld, tt.wantNew, tt.wantAt)
				}
			}
		})
	}
	if !samePrice(pending.Old, price("10")) || !samePrice(pending.New, price("4")) {
		t.Errorf("Settle changed the pending move: %v → %v", pending.Old, pending.New)
	}
}

// TestPolicyWithdraw: issue 21 item 4, "withdraw after N runs"
// (alerts.withdraw_after_runs) as a pure decision.
func TestPolicyWithdraw(t *testing.T) {
	tests := []struct {
		name   string
		policy alerting.Policy
		missed int
		want   bool
	}{
		{"after 2: one miss waits", alerting.NewPolicy(50, 2), 1, false},
		{"after 2: the second miss withdraws", alerting.NewPolicy(50, 2), 2, true},
		{"after 2: more misses stay withdrawn", alerting.NewPolicy(50, 2), 3, true},
		{"after 3: two misses wait", alerting.NewPolicy(0, 3), 2, false},
		{"after 1: the first miss withdraws", alerting.NewPolicy(0, 1), 1, true},
		{"not missed is not withdrawn", alerting.NewPolicy(0, 1), 0, false},
		{"below 1 counts as 1", alerting.NewPolicy(0, 0), 1, true},
		{"the zero Policy withdraws at the first miss", alerting.Policy{}, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.policy.Withdraw(tt.missed); got != tt.want {
				t.Errorf("Withdraw(%d) = %v, want %v", tt.missed, got, tt.want)
			}
		})
	}
}
