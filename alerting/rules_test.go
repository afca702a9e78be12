package alerting_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/alerting/alertingtest"
	"github.com/pricewatch/pricewatch/alerting/outboxstore"
	"github.com/pricewatch/pricewatch/config"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/storage/dbtest"
)

var at = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

func priceChange(kind pricewatch.ChangeKind, o pricewatch.Offer, old, new string) pricewatch.Change {
	return alertingtest.PriceChange(kind, o, old, new, at)
}

func result(changes ...pricewatch.Change) alerting.Run {
	return alerting.Run{ID: 7, Provider: changes[0].Place.Provider, At: at, Changes: changes}
}

// events lists the (event, place, pct) triples of every group, in order.
func events(gs []alerting.Group) []string {
	var out []string
	for _, g := range gs {
		for _, it := range g.Items {
			s := fmt.Sprintf("%s:%s %s", g.Rule, it.Event, it.Change.Place.InstanceType)
			if it.Change.Place.Zone != "" {
				s += "@" + it.Change.Place.Zone
			}
			if it.DeltaPct.Valid {
				s += " " + it.DeltaPct.Decimal.String() + "%"
			}
			out = append(out, s)
		}
	}
	return out
}

func TestFirstRunIsBaseline(t *testing.T) {
	res := result(priceChange(pricewatch.PriceNew, alertingtest.AzureH100(pricewatch.OnDemand, "98.32"), "", "98.32"))
	res.FirstRun = true
	rules := []config.Rule{{Name: "new", Events: []string{"price_new"}}}
	if gs := mustRules(t, config.Alerts{Rules: rules}).Groups(res); len(gs) != 0 {
		t.Fatalf("first run alerted: %v", events(gs))
	}
	msgs, err := mustRules(t, config.Alerts{Rules: rules}).Messages(res)
	if err != nil || len(msgs) != 0 {
		t.Fatalf("first run queued %d messages (%v)", len(msgs), err)
	}
	gs := mustRules(t, config.Alerts{Rules: rules, AlertOnFirstRun: true}).Groups(res)
	if got := events(gs); fmt.Sprint(got) != "[new:price_new Standard_ND96isr_H100_v5]" {
		t.Fatalf("with alert_on_first_run: %v", got)
	}
}

func TestPriceThresholds(t *testing.T) {
	od := alertingtest.AzureH100(pricewatch.OnDemand, "100")
	win := od
	win.OS = pricewatch.Windows
	noGPU := od
	noGPU.GPUCount = 0
	spot := alertingtest.AzureH100(pricewatch.Spot, "20")
	tests := []struct {
		name     string
		rule     config.Rule
		change   pricewatch.Change
		want     string // "" for no alert
		wantPct  string
		wantPerG string
	}{
		{"drop exactly 5% alerts", config.Rule{Events: []string{"price_drop"}, MinChangePct: 5},
			priceChange(pricewatch.PriceChanged, od, "100", "95"), "price_drop", "-5", "-0.625"},
		{"drop of 4.99% does not", config.Rule{Events: []string{"price_drop"}, MinChangePct: 5},
			priceChange(pricewatch.PriceChanged, od, "100", "95.01"), "", "", ""},
		{"a rise is no drop", config.Rule{Events: []string{"price_drop"}, MinChangePct: 5},
			priceChange(pricewatch.PriceChanged, od, "100", "110"), "", "", ""},
		{"rise exactly 5% alerts", config.Rule{Events: []string{"price_rise"}, MinChangePct: 5},
			priceChange(pricewatch.PriceChanged, od, "100", "105"), "price_rise", "5", "0.625"},
		{"real Azure price: 98.32 to 93.404 is exactly 5%", config.Rule{Events: []string{"price_drop"}, MinChangePct: 5},
			priceChange(pricewatch.PriceChanged, od, "98.32", "93.404"), "price_drop", "-5", "-0.6145"},
		{"per GPU-hour floor met exactly (4 over 8 GPUs = 0.5)", config.Rule{Events: []string{"price_drop"}, MinChangePerGPUHour: 0.5},
			priceChange(pricewatch.PriceChanged, od, "100", "96"), "price_drop", "-4", "-0.5"},
		{"per GPU-hour floor missed by a cent", config.Rule{Events: []string{"price_drop"}, MinChangePerGPUHour: 0.5},
			priceChange(pricewatch.PriceChanged, od, "100", "96.01"), "", "", ""},
		{"both thresholds: percent met, absolute not", config.Rule{Events: []string{"price_drop"}, MinChangePct: 5, MinChangePerGPUHour: 1},
			priceChange(pricewatch.PriceChanged, od, "100", "94"), "", "", ""},
		{"both thresholds met", config.Rule{Events: []string{"price_drop"}, MinChangePct: 5, MinChangePerGPUHour: 1},
			priceChange(pricewatch.PriceChanged, od, "100", "92"), "price_drop", "-8", "-1"},
		{"tiny float threshold is exact: 0.1 per GPU-hour", config.Rule{Events: []string{"price_drop"}, MinChangePerGPUHour: 0.1},
			priceChange(pricewatch.PriceChanged, od, "100", "99.2"), "price_drop", "-0.8", "-0.1"},
		{"no thresholds: any drop", config.Rule{Events: []string{"price_drop"}},
			priceChange(pricewatch.PriceChanged, od, "100", "99.9999"), "price_drop", "0", "-0.0000125"},
		{"unknown GPU count with a per-GPU floor", config.Rule{Events: []string{"price_drop"}, MinChangePerGPUHour: 0.1},
			priceChange(pricewatch.PriceChanged, noGPU, "100", "50"), "", "", ""},
		{"unknown GPU count, percent only", config.Rule{Events: []string{"price_drop"}, MinChangePct: 5},
			priceChange(pricewatch.PriceChanged, noGPU, "100", "50"), "price_drop", "-50", ""},
		{"Windows prices never alert", config.Rule{Events: []string{"price_drop"}},
			priceChange(pricewatch.PriceChanged, win, "100", "50"), "", "", ""},
		{"currency changed: no comparable old price", config.Rule{Events: []string{"price_drop"}},
			priceChange(pricewatch.PriceChanged, od, "", "50"), "", "", ""},
		{"price type filter", config.Rule{Events: []string{"price_drop"}, PriceTypes: []string{"on_demand"}},
			priceChange(pricewatch.PriceChanged, spot, "20", "10"), "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.rule.Name = "r"
			gs := mustRules(t, config.Alerts{Rules: []config.Rule{tt.rule}}).Groups(result(tt.change))
			if tt.want == "" {
				if len(gs) != 0 {
					t.Fatalf("alerted %v, want nothing", events(gs))
				}
				return
			}
			if len(gs) != 1 || len(gs[0].Items) != 1 {
				t.Fatalf("got %v, want one %s", events(gs), tt.want)
			}
			it := gs[0].Items[0]
			if string(it.Event) != tt.want || it.DeltaPct.Decimal.String() != tt.wantPct {
				t.Errorf("got %s %s%%, want %s %s%%", it.Event, it.DeltaPct.Decimal, tt.want, tt.wantPct)
			}
			if got := it.DeltaPerGPU.Decimal.String(); it.DeltaPerGPU.Valid != (tt.wantPerG != "") || (it.DeltaPerGPU.Valid && got != tt.wantPerG) {
				t.Errorf("per GPU-hour delta = %s (valid %v), want %q", got, it.DeltaPerGPU.Valid, tt.wantPerG)
			}
		})
	}
}

func TestSpotBelow(t *testing.T) {
	// The real Azure spot price: 18.169536 for 8 GPUs = 2.271192 per GPU-hour.
	spot := alertingtest.AzureH100(pricewatch.Spot, "18.169536")
	od := alertingtest.AzureH100(pricewatch.OnDemand, "18.169536")
	tests := []struct {
		name      string
		threshold float64
		change    pricewatch.Change
		want      bool
	}{
		{"new spot offer below", 2.5, priceChange(pricewatch.PriceNew, spot, "", "18.169536"), true},
		{"exactly at the threshold is not below", 2.271192, priceChange(pricewatch.PriceNew, spot, "", "18.169536"), false},
		{"just above the price", 2.271193, priceChange(pricewatch.PriceNew, spot, "", "18.169536"), true},
		{"crossing from above", 2.5, priceChange(pricewatch.PriceChanged, spot, "20.5", "18.169536"), true},
		{"crossing from exactly the threshold", 2.5, priceChange(pricewatch.PriceChanged, spot, "20", "18.169536"), true},
		{"already below: no repeat", 2.5, priceChange(pricewatch.PriceChanged, spot, "19", "18.169536"), false},
		{"rising above", 2.5, priceChange(pricewatch.PriceChanged, spot, "18.169536", "21"), false},
		{"on-demand is not spot", 2.5, priceChange(pricewatch.PriceNew, od, "", "18.169536"), false},
		{"a gone price is not below", 2.5, priceChange(pricewatch.PriceGone, spot, "18.169536", ""), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := config.Rule{Name: "spot", Events: []string{"spot_below"}, GPUModels: []string{"h100"}, SpotBelowPerGPUHour: tt.threshold}
			gs := mustRules(t, config.Alerts{Rules: []config.Rule{r}}).Groups(result(tt.change))
			if got := len(gs) == 1; got != tt.want {
				t.Fatalf("alerted = %v (%v), want %v", got, events(gs), tt.want)
			}
			if tt.want && gs[0].Items[0].NewPerGPU.Decimal.String() != "2.271192" {
				t.Errorf("per GPU-hour = %s, want 2.271192", gs[0].Items[0].NewPerGPU.Decimal)
			}
		})
	}
}

func TestFlapWindow(t *testing.T) {
	window := 6 * time.Hour
	stock := func(kind pricewatch.ChangeKind, lasted time.Duration) pricewatch.Change {
		a := alertingtest.TencentGN10Xp("ap-guangzhou-3", pricewatch.InStock)
		c := pricewatch.Change{Kind: kind, At: at, Place: a.Key(), Hardware: a.Hardware, OldSince: at.Add(-lasted),
			OldState: pricewatch.SoldOut, NewState: pricewatch.InStock}
		if kind == pricewatch.SoldOutNow {
			c.OldState, c.NewState = pricewatch.InStock, pricewatch.SoldOut
		}
		return c
	}
	tests := []struct {
		name   string
		window time.Duration
		change pricewatch.Change
		want   bool
	}{
		{"sold out for 5h of a 6h window: a flap", window, stock(pricewatch.BackInStock, 5*time.Hour), false},
		{"sold out for exactly the window: alert", window, stock(pricewatch.BackInStock, window), true},
		{"sold out for days: alert", window, stock(pricewatch.BackInStock, 72*time.Hour), true},
		{"in stock for 10 minutes then sold out: a flap", window, stock(pricewatch.SoldOutNow, 10*time.Minute), false},
		{"window 0 alerts every flip", 0, stock(pricewatch.SoldOutNow, time.Minute), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := config.Rule{Name: "stock", Events: []string{"back_in_stock", "sold_out"}}
			gs := mustRules(t, config.Alerts{FlapWindow: tt.window, Rules: []config.Rule{r}}).Groups(result(tt.change))
			if got := len(gs) == 1; got != tt.want {
				t.Fatalf("alerted = %v (%v), want %v", got, events(gs), tt.want)
			}
		})
	}
}

// TestFlappingZoneThroughStorage drives real runs: a zone that flips back
// and forth within the window alerts its first flip only, and the next
// flip after a state held for the window.
func TestFlappingZoneThroughStorage(t *testing.T) {
	clk := newClock()
	db := alertingtest.OpenDB(t, "", clk)
	rules := mustRules(t, config.Alerts{FlapWindow: 6 * time.Hour, Rules: []config.Rule{{Name: "stock", Events: []string{"back_in_stock", "sold_out"}}}})
	opts := storage.SaveOptions{Outbox: outboxstore.SaveFunc(rules), Policy: alerting.NewPolicy(0, 2)}
	steps := []struct {
		after time.Duration
		state pricewatch.AvailabilityState
		want  string
	}{
		{0, pricewatch.InStock, ""},                          // baseline
		{10 * time.Hour, pricewatch.SoldOut, "sold_out"},     // stable for 10h: alert
		{time.Hour, pricewatch.InStock, ""},                  // sold out for 1h: flap
		{30 * time.Minute, pricewatch.SoldOut, ""},           // in stock for 30m: flap
		{20 * time.Minute, pricewatch.InStock, ""},           // flap
		{9 * time.Hour, pricewatch.SoldOut, "sold_out"},      // in stock for 9h: alert
		{7 * time.Hour, pricewatch.InStock, "back_in_stock"}, // sold out for 7h: alert
	}
	for i, s := range steps {
		clk.Advance(s.after)
		snap := &pricewatch.Snapshot{Provider: pricewatch.Tencent,
			Availability: []pricewatch.Availability{alertingtest.TencentGN10Xp("ap-guangzhou-3", s.state)},
			Coverage:     []pricewatch.Scope{{Region: "ap-guangzhou", Availability: true}}}
		before := len(outbox(t, db))
		if _, err := dbtest.Store(t, db, snap, opts); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		msgs := outbox(t, db)[before:]
		got := ""
		if len(msgs) == 1 {
			got = msgs[0].Kind
		} else if len(msgs) > 1 {
			t.Fatalf("step %d queued %d messages", i, len(msgs))
		}
		if got != s.want {
			t.Errorf("step %d (%s after %s): queued %q, want %q", i, s.state, s.after, got, s.want)
		}
	}
}

// TestWithdrawalAfterCompleteRuns: a type missing from one complete run is
// not withdrawn; missing from two is; a failed run in between does not
// count as missing.
func TestWithdrawalAfterCompleteRuns(t *testing.T) {
	clk := newClock()
	db := alertingtest.OpenDB(t, "", clk)
	rules := mustRules(t, config.Alerts{Rules: []config.Rule{{Name: "capacity", Events: []string{"availability_new", "availability_gone"}}}})
	opts := storage.SaveOptions{Outbox: outboxstore.SaveFunc(rules), Policy: alerting.NewPolicy(0, 2)}
	both := []pricewatch.Availability{
		alertingtest.TencentGN10Xp("ap-guangzhou-3", pricewatch.InStock),
		alertingtest.TencentGN10Xp("ap-guangzhou-4", pricewatch.InStock),
	}
	snap := func(av ...pricewatch.Availability) *pricewatch.Snapshot {
		return &pricewatch.Snapshot{Provider: pricewatch.Tencent, Availability: av,
			Coverage: []pricewatch.Scope{{Region: "ap-guangzhou", Availability: true}}}
	}
	run := func(step string, s *pricewatch.Snapshot, want string) {
		t.Helper()
		clk.Advance(time.Hour)
		before := len(outbox(t, db))
		if _, err := dbtest.Store(t, db, s, opts); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		var got []string
		for _, m := range outbox(t, db)[before:] {
			got = append(got, placesOf(t, m.Payload)...)
		}
		if strings.Join(got, ",") != want {
			t.Errorf("%s: alerts %v, want %q", step, got, want)
		}
	}
	run("baseline", snap(both...), "")
	run("both listed", snap(both...), "")
	run("zone 4 missing once", snap(both[0]), "")
	// A failed run (the fetch failed, nothing was stored) is no evidence.
	id, err := db.StartRun(t.Context(), pricewatch.Tencent)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.FinishRun(t.Context(), id, pricewatch.RunFailed, "throttled"); err != nil {
		t.Fatal(err)
	}
	run("zone 4 missing twice", snap(both[0]), "availability_gone ap-guangzhou/ap-guangzhou-4/GN10Xp.20XLARGE320")
	run("zone 4 back", snap(both...), "availability_new ap-guangzhou/ap-guangzhou-4/GN10Xp.20XLARGE320")
}

// TestFailedRunQueuesNothing: a run storage refuses (every price gone at
// once) stores no change and queues no alert.
func TestFailedRunQueuesNothing(t *testing.T) {
	clk := newClock()
	db := alertingtest.OpenDB(t, "", clk)
	rules := mustRules(t, config.Alerts{Rules: []config.Rule{{Name: "all", Events: []string{"price_drop", "price_new", "availability_gone"}}}})
	opts := storage.SaveOptions{Outbox: outboxstore.SaveFunc(rules), Policy: alerting.NewPolicy(0, 2), MinOfferRatio: 0.5}
	cover := []pricewatch.Scope{{Region: pricewatch.AllRegions}}
	if _, err := dbtest.Store(t, db, &pricewatch.Snapshot{Provider: pricewatch.Azure, Offers: []pricewatch.Offer{alertingtest.AzureH100(pricewatch.OnDemand, "98.32"), alertingtest.AzureH100(pricewatch.Spot, "18.169536")}, Coverage: cover}, opts); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Hour)
	if _, err := dbtest.Store(t, db, &pricewatch.Snapshot{Provider: pricewatch.Azure, Coverage: cover}, opts); !errors.Is(err, storage.ErrSuspiciousDrop) {
		t.Fatalf("a run that finds no offers where two are stored: err = %v, want ErrSuspiciousDrop", err)
	}
	if n := len(outbox(t, db)); n != 0 {
		t.Fatalf("failed run queued %d messages", n)
	}
	clk.Advance(time.Hour)
	res, err := dbtest.Store(t, db, &pricewatch.Snapshot{Provider: pricewatch.Azure, Offers: []pricewatch.Offer{alertingtest.AzureH100(pricewatch.OnDemand, "90"), alertingtest.AzureH100(pricewatch.Spot, "18.169536")}, Coverage: cover}, opts)
	if err != nil {
		t.Fatal(err)
	}
	msgs := outbox(t, db)
	if len(msgs) != 1 || msgs[0].Kind != "price_drop" || msgs[0].DeliveryKey != fmt.Sprintf("run/%d/%%23gpu-alerts/all/price_drop", res.RunID) {
		t.Fatalf("after a good run: %+v", msgs)
	}
}

func TestFiltersAndRouting(t *testing.T) {
	a100 := alertingtest.AzureH100(pricewatch.OnDemand, "100")
	a100.GPUModel, a100.InstanceType = "A100-80GB", "Standard_ND96amsr_A100_v4"
	a10 := alertingtest.AzureH100(pricewatch.OnDemand, "100")
	a10.GPUModel, a10.InstanceType = "A10", "Standard_NV36ads_A10_v5"
	zoneStock := alertingtest.TencentGN10Xp("ap-guangzhou-3", pricewatch.InStock)
	newIn := pricewatch.Change{Kind: pricewatch.AvailabilityNew, At: at, Place: zoneStock.Key(), Hardware: zoneStock.Hardware, NewState: pricewatch.InStock}
	changes := []pricewatch.Change{
		priceChange(pricewatch.PriceChanged, a100, "100", "80"),
		priceChange(pricewatch.PriceChanged, a10, "100", "80"),
		priceChange(pricewatch.PriceChanged, alertingtest.AzureH100(pricewatch.OnDemand, "100"), "100", "90"),
		newIn,
	}
	tests := []struct {
		name string
		rule config.Rule
		want string
	}{
		{"family A100 matches A100-80GB, not A10", config.Rule{Events: []string{"price_drop"}, GPUModels: []string{"a100"}},
			"[r:price_drop Standard_ND96amsr_A100_v4 -20%]"},
		// The same matcher as compare: a vendor spelling names the
		// catalogue model, so this rule alerts (it never did before).
		{"vendor spelling A100-SXM4-80GB matches stored A100-80GB", config.Rule{Events: []string{"price_drop"}, GPUModels: []string{"A100-SXM4-80GB"}},
			"[r:price_drop Standard_ND96amsr_A100_v4 -20%]"},
		{"NVIDIA H100 80GB HBM3 matches H100", config.Rule{Events: []string{"price_drop"}, GPUModels: []string{"NVIDIA H100 80GB HBM3"}},
			"[r:price_drop Standard_ND96isr_H100_v5 -10%]"},
		{"A10 matches A10 only", config.Rule{Events: []string{"price_drop"}, GPUModels: []string{"A10"}},
			"[r:price_drop Standard_NV36ads_A10_v5 -20%]"},
		{"provider filter", config.Rule{Events: []string{"price_drop", "availability_new"}, Providers: []string{"tencent"}},
			"[r:availability_new GN10Xp.20XLARGE320@ap-guangzhou-3]"},
		{"region glob on the zone", config.Rule{Events: []string{"availability_new"}, Regions: []string{"ap-guangzhou-?"}},
			"[r:availability_new GN10Xp.20XLARGE320@ap-guangzhou-3]"},
		{"region glob on the region", config.Rule{Events: []string{"price_drop"}, Regions: []string{"east*"}},
			"[r:price_drop Standard_ND96amsr_A100_v4 -20% r:price_drop Standard_NV36ads_A10_v5 -20% r:price_drop Standard_ND96isr_H100_v5 -10%]"},
		{"glob that matches nothing", config.Rule{Events: []string{"price_drop", "availability_new"}, Regions: []string{"eu-*"}}, "[]"},
		{"price types do not filter availability", config.Rule{Events: []string{"availability_new"}, PriceTypes: []string{"spot"}},
			"[r:availability_new GN10Xp.20XLARGE320@ap-guangzhou-3]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.rule.Name = "r"
			res := result(changes...)
			gs := mustRules(t, config.Alerts{Rules: []config.Rule{tt.rule}}).Groups(res)
			if got := fmt.Sprint(events(gs)); got != tt.want {
				t.Errorf("got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestGroupingSortingAndDedup(t *testing.T) {
	// A price-file update that moves 300 prices.
	var changes []pricewatch.Change
	for i := 0; i < 300; i++ {
		o := alertingtest.AzureH100(pricewatch.OnDemand, "100")
		o.Region = fmt.Sprintf("region-%03d", i)
		newPrice := 100 - (i%40 + 1) // 1 to 40 % down
		changes = append(changes, priceChange(pricewatch.PriceChanged, o, "100", fmt.Sprint(newPrice)))
	}
	cfg := config.Alerts{Rules: []config.Rule{
		{Name: "drops", Events: []string{"price_drop"}, MinChangePct: 5},
		{Name: "h100-drops", Events: []string{"price_drop"}, GPUModels: []string{"H100"}},                              // same channel: no repeats
		{Name: "finops", Events: []string{"price_drop"}, MinChangePct: 30, Channel: "C0FINOPS"},                        // another channel
		{Name: "rises", Events: []string{"price_rise"}},                                                                // nothing rose
		{Name: "both", Events: []string{"price_drop", "availability_new"}, GPUModels: []string{"B200"}, Channel: "C0"}, // no B200
	}}
	gs := mustRules(t, cfg).Groups(result(changes...))
	if len(gs) != 3 {
		t.Fatalf("got %d groups, want drops, h100-drops (the 4%% and smaller moves) and finops", len(gs))
	}
	drops, rest, finops := gs[0], gs[1], gs[2]
	// Moves of 1..40%, cycling: 268 of the 300 are 5% or more.
	if drops.Rule != "drops" || len(drops.Items) != 268 || drops.Channel != "#gpu-alerts" {
		t.Fatalf("drops: rule %s, %d items, channel %s", drops.Rule, len(drops.Items), drops.Channel)
	}
	if rest.Rule != "h100-drops" || len(rest.Items) != 32 {
		t.Fatalf("h100-drops: rule %s, %d items; want only the 32 moves below 5%% not already reported", rest.Rule, len(rest.Items))
	}
	if finops.Channel != "C0FINOPS" || len(finops.Items) != 77 {
		t.Fatalf("finops: channel %s, %d items", finops.Channel, len(finops.Items))
	}
	for i := 1; i < len(drops.Items); i++ {
		if drops.Items[i-1].DeltaPct.Decimal.Abs().LessThan(drops.Items[i].DeltaPct.Decimal.Abs()) {
			t.Fatalf("items not sorted by magnitude at %d: %s before %s", i, drops.Items[i-1].DeltaPct.Decimal, drops.Items[i].DeltaPct.Decimal)
		}
	}
	if drops.Items[0].DeltaPct.Decimal.String() != "-40" {
		t.Errorf("biggest move first: got %s", drops.Items[0].DeltaPct.Decimal)
	}
	msgs, err := mustRules(t, cfg).Messages(result(changes...))
	if err != nil {
		t.Fatal(err)
	}
	again, _ := mustRules(t, cfg).Messages(result(changes...))
	if len(msgs) != 3 {
		t.Fatalf("got %d messages, want 3", len(msgs))
	}
	for i := range msgs {
		if msgs[i].DeliveryKey != again[i].DeliveryKey {
			t.Errorf("delivery key not deterministic: %s vs %s", msgs[i].DeliveryKey, again[i].DeliveryKey)
		}
	}
	if msgs[0].DeliveryKey != "run/7/%23gpu-alerts/drops/price_drop" || msgs[2].DeliveryKey != "run/7/C0FINOPS/finops/price_drop" {
		t.Errorf("keys: %s, %s", msgs[0].DeliveryKey, msgs[2].DeliveryKey)
	}
}

func TestNewRulesErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  config.Alerts
		want string
	}{
		{"duplicate names", config.Alerts{Rules: []config.Rule{{Name: "a", Events: []string{"price_new"}}, {Name: "a", Events: []string{"price_new"}}}}, "must be unique"},
		{"spot_below without threshold", config.Alerts{Rules: []config.Rule{{Events: []string{"spot_below"}}}}, "spot_below_per_gpu_hour"},
		{"unknown event", config.Alerts{Rules: []config.Rule{{Events: []string{"price_drops"}}}}, `unknown event "price_drops"`},
		{"no events", config.Alerts{Rules: []config.Rule{{Name: "x"}}}, "at least one event"},
		{"bad glob", config.Alerts{Rules: []config.Rule{{Events: []string{"price_new"}, Regions: []string{"us-[east"}}}}, "not a valid glob"},
		{"bad price type", config.Alerts{Rules: []config.Rule{{Events: []string{"price_new"}, PriceTypes: []string{"ondemand"}}}}, "unknown price type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := alerting.NewRules(rulesConfig(tt.cfg, ""))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
	r, err := alerting.NewRules(rulesConfig(config.Alerts{Rules: []config.Rule{{Events: []string{"price_new"}}, {Events: []string{"price_new"}, Channel: "C1"}}}, "#def"))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(r.Channels()); got != "map[#def:[rule-1] C1:[rule-2]]" {
		t.Errorf("Channels() = %s", got)
	}
}

// TestExampleConfigRules: the shipped example's rules build, and its
// defaults alert what docs/alerts.md promises: new H100/H200/B200 capacity,
// on-demand drops of 5% or more, cheap H100 spot.
func TestExampleConfigRules(t *testing.T) {
	cfg, err := config.Load("../config.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rules, err := alerting.NewRules(rulesConfig(cfg.Alerts, "C0GPUALERTS"))
	if err != nil {
		t.Fatal(err)
	}
	newH200 := pricewatch.Change{Kind: pricewatch.AvailabilityNew, At: at, NewState: pricewatch.Offered,
		Place:    pricewatch.AvailabilityKey{Provider: pricewatch.AWS, Region: "us-east-2", InstanceType: "p5en.48xlarge"},
		Hardware: pricewatch.Hardware{GPUModel: "H200", GPUCount: 8}}
	a100 := alertingtest.AzureH100(pricewatch.OnDemand, "32.77")
	a100.InstanceType, a100.GPUModel = "Standard_ND96amsr_A100_v4", "A100-80GB"
	changes := []pricewatch.Change{
		newH200,
		priceChange(pricewatch.PriceChanged, a100, "32.77", "31.1315"),                                            // −5%: alert
		priceChange(pricewatch.PriceChanged, alertingtest.AzureH100(pricewatch.OnDemand, "98.32"), "98.32", "95"), // −3.4%: no
		priceChange(pricewatch.PriceChanged, alertingtest.AzureH100(pricewatch.Spot, "25"), "25", "18.169536"),    // spot crosses 2.5/GPU-h
		priceChange(pricewatch.PriceChanged, alertingtest.AzureH100(pricewatch.Spot, "25"), "25", "18.169536"),    // (same change twice: reported once)
	}
	got := fmt.Sprint(events(rules.Groups(result(changes...))))
	want := "[new-frontier-capacity:availability_new p5en.48xlarge price-drops:price_drop Standard_ND96amsr_A100_v4 -5% cheap-spot-h100:spot_below Standard_ND96isr_H100_v5 -27.32%]"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// Issue 23 item 3: a capacity block stored as a price. Its appearance is
// capacity_block_available's (a signal); price events of blocks reach only
// a rule naming capacity_block in price_types, and a block's price closing
// (the offering bought or past) alerts nothing, so neither the built-in
// rules nor a rule of every price type speak of blocks again.
func TestCapacityBlockPriceEvents(t *testing.T) {
	block := pricewatch.Offer{Provider: pricewatch.AWS, Region: "us-east-2", Zone: "us-east-2b", InstanceType: "p5.48xlarge",
		PriceType: pricewatch.CapacityBlockPrice, Term: "7d", Payment: pricewatch.AllUpfront, OS: pricewatch.Linux, Currency: "USD",
		Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8}}
	all := []string{"price_new", "price_drop", "price_rise"}
	tests := []struct {
		name   string
		rules  []config.Rule
		change pricewatch.Change
		want   string
	}{
		{"new block, rule of every price type", []config.Rule{{Name: "r", Events: all}},
			priceChange(pricewatch.PriceNew, block, "", "31.464"), "[]"},
		{"cheaper next block, rule of every price type", []config.Rule{{Name: "r", Events: all}},
			priceChange(pricewatch.PriceChanged, block, "31.464", "25"), "[]"},
		{"block gone, rule of every price type", []config.Rule{{Name: "r", Events: all}},
			priceChange(pricewatch.PriceGone, block, "31.464", ""), "[]"},
		{"block gone, built-in rules", config.DefaultRules(),
			priceChange(pricewatch.PriceGone, block, "31.464", ""), "[]"},
		{"cheaper next block, built-in rules", config.DefaultRules(),
			priceChange(pricewatch.PriceChanged, block, "31.464", "25"), "[]"},
		{"cheaper next block, rule naming capacity_block", []config.Rule{{Name: "r", Events: all, PriceTypes: []string{"capacity_block"}}},
			priceChange(pricewatch.PriceChanged, block, "31.464", "25"), "[r:price_drop p5.48xlarge@us-east-2b -20.54%]"},
		{"block gone, rule naming capacity_block", []config.Rule{{Name: "r", Events: all, PriceTypes: []string{"capacity_block"}}},
			priceChange(pricewatch.PriceGone, block, "31.464", ""), "[]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gs := mustRules(t, config.Alerts{Rules: tt.rules}).Groups(result(tt.change))
			if got := fmt.Sprint(events(gs)); got != tt.want {
				t.Errorf("alerted %s, want %s", got, tt.want)
			}
		})
	}
}
