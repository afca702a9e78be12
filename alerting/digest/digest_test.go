package digest

import (
	"bytes"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/png"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/alerting/slack"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/analysis/digest"
	"github.com/pricewatch/pricewatch/fx"
)

// Test data: real instance types and GPU counts; Azure's ND96isr H100 v5
// eastus prices (98.32 on demand, 18.169536 spot) are the real Retail
// Prices API figures (shared/api-samples/azure); the other prices are made
// up for hand computation. Rates are the ECB's of 2022-07-08 (1 EUR =
// 1.0163 USD = 6.8095 CNY).

var now = time.Date(2022, 7, 18, 9, 0, 0, 0, time.UTC) // a Monday, ISO 2022-W29

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func ecb(t *testing.T) *fx.Book {
	t.Helper()
	b, err := fx.NewBook([]fx.Rates{{Date: time.Date(2022, 7, 8, 0, 0, 0, 0, time.UTC), Source: fx.SourceECB,
		PerEUR: map[string]decimal.Decimal{"USD": dec("1.0163"), "CNY": dec("6.8095")}}}, nil, 30*24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type offerSpec struct {
	provider, region, zone, typ string
	pt                          pricewatch.PriceType
	term, payment, currency     string
	model                       string
	gpus                        float64
}

func (s offerSpec) offer(hourly, upfront string) pricewatch.Offer {
	o := pricewatch.Offer{Provider: s.provider, Region: s.region, Zone: s.zone, InstanceType: s.typ, PriceType: s.pt, Term: s.term,
		Payment: s.payment, OS: pricewatch.Linux, Currency: s.currency, Hourly: dec(hourly), Upfront: dec(upfront),
		Hardware: pricewatch.Hardware{GPUModel: s.model, GPUCount: s.gpus}}
	if s.pt == pricewatch.SavingsPlan {
		o.OfferingClass = pricewatch.ComputeSavingsPlan
	}
	return o
}

// history turns (from, hourly) change points into intervals.
func history(s offerSpec, upfront string, points ...any) []analysis.Interval {
	var out []analysis.Interval
	for i := 0; i < len(points); i += 2 {
		o := s.offer(points[i+1].(string), upfront)
		eff, err := o.EffectiveHourly()
		if err != nil {
			panic(err)
		}
		var to time.Time
		if i+2 < len(points) {
			to = points[i+2].(time.Time)
		}
		out = append(out, analysis.NewInterval(o, eff, points[i].(time.Time), to))
	}
	return out
}

var (
	weeksAgo = func(n int) time.Time { return now.Add(-time.Duration(n) * digest.Week).Add(-3 * time.Hour) }
	azH100OD = offerSpec{pricewatch.Azure, "eastus", "", "Standard_ND96isr_H100_v5", pricewatch.OnDemand, "", "", "USD", "H100", 8}
	azH100SP = offerSpec{pricewatch.Azure, "eastus", "", "Standard_ND96isr_H100_v5", pricewatch.Spot, "", "", "USD", "H100", 8}
	azH100RI = offerSpec{pricewatch.Azure, "eastus", "", "Standard_ND96isr_H100_v5", pricewatch.Reserved, "1y", pricewatch.AllUpfront, "USD", "H100", 8}
	aliA100  = offerSpec{pricewatch.Alibaba, "cn-hangzhou", "", "ecs.ebmgn7e.32xlarge", pricewatch.OnDemand, "", "", "CNY", "A100-80GB", 8}
	aliA100S = offerSpec{pricewatch.Alibaba, "cn-hangzhou", "", "ecs.ebmgn7e.32xlarge", pricewatch.Spot, "", "", "CNY", "A100-80GB", 8}
	azA100   = offerSpec{pricewatch.Azure, "eastus", "", "Standard_ND96amsr_A100_v4", pricewatch.OnDemand, "", "", "USD", "A100-80GB", 8}
)

func baseInput(t *testing.T) digest.Input {
	var prices []analysis.Interval
	prices = append(prices, history(azH100OD, "0", weeksAgo(14), "98.32")...)
	// Spot 18.169536 until this week, then 16.352582 (−10%).
	prices = append(prices, history(azH100SP, "0", weeksAgo(14), "18.169536", now.Add(-2*24*time.Hour), "16.352582")...)
	// 525,600 upfront over 8,760 hours: 60.00 per hour, 7.50 per GPU-hour.
	prices = append(prices, history(azH100RI, "525600", weeksAgo(14), "0")...)
	// 220 CNY on demand = 27.50 CNY per GPU-hour = 27.5 × 1.0163 / 6.8095 USD.
	prices = append(prices, history(aliA100, "0", weeksAgo(14), "232", weeksAgo(3), "220")...)
	prices = append(prices, history(aliA100S, "0", weeksAgo(14), "66")...)
	prices = append(prices, history(azA100, "0", weeksAgo(14), "32.77")...)
	// A Windows price must never be compared.
	win := azH100OD.offer("1.00", "0")
	win.OS = pricewatch.Windows
	prices = append(prices, analysis.NewInterval(win, dec("1.00"), weeksAgo(14), time.Time{}))
	ok := func(id int64, provider string, at time.Time) pricewatch.Run {
		return pricewatch.Run{ID: id, Provider: provider, StartedAt: at, FinishedAt: &at, Status: pricewatch.RunOK}
	}
	return digest.Input{Now: now, Currency: "USD", Models: []string{"H100", "A100-80GB", "B200"}, Prices: prices, FX: ecb(t),
		Runs:     []pricewatch.Run{ok(10, "azure", now.Add(-3*time.Hour)), ok(11, "alibaba", now.Add(-3*time.Hour))},
		Expected: map[string]time.Duration{"azure": time.Hour * 24, "alibaba": time.Hour * 24}}
}

func TestBuildHandComputed(t *testing.T) {
	d, err := digest.Build(baseInput(t))
	if err != nil {
		t.Fatal(err)
	}
	if d.Week != "2022-W29" || d.Currency != "USD" || d.Offers != 6 || d.Changed != 1 {
		t.Errorf("week %s currency %s offers %d changed %d", d.Week, d.Currency, d.Offers, d.Changed)
	}
	h100 := d.Models[0]
	if h100.Model != "H100" || h100.OnDemand == nil || !h100.OnDemand.PerGPUHour.Equal(dec("12.29")) {
		t.Fatalf("H100 on-demand %+v (a Windows 1.00 must not win)", h100.OnDemand)
	}
	if !h100.Spot.PerGPUHour.Equal(dec("2.04407275")) || !h100.SpotWoW.Valid || !h100.SpotWoW.Decimal.Equal(dec("-10")) {
		t.Errorf("H100 spot %s, w/w %v", h100.Spot.PerGPUHour, h100.SpotWoW)
	}
	if !h100.OnDemandWoW.Valid || !h100.OnDemandWoW.Decimal.IsZero() {
		t.Errorf("H100 on-demand w/w %v, want 0", h100.OnDemandWoW)
	}
	if h100.Commitment == nil || !h100.Commitment.PerGPUHour.Equal(dec("7.5")) || h100.Commitment.Offer.Term != "1y" {
		t.Errorf("H100 commitment %+v", h100.Commitment)
	}
	// A100-80GB: Alibaba's 27.50 CNY per GPU-hour is 4.10439… USD, more
	// than Azure's 32.77 / 8 = 4.09625 USD.
	a100 := d.Models[1]
	if a100.OnDemand.Offer.Provider != pricewatch.Azure || !a100.OnDemand.PerGPUHour.Equal(dec("4.09625")) {
		t.Errorf("A100 on-demand %+v", a100.OnDemand)
	}
	// Alibaba's spot 66 / 8 = 8.25 CNY converts at 1.0163 / 6.8095.
	wantSpot := dec("8.25").Mul(dec("1.0163")).DivRound(dec("6.8095"), 10)
	if a100.Spot.Offer.Provider != pricewatch.Alibaba || !a100.Spot.PerGPUHour.Equal(wantSpot) || !a100.Spot.NativePerGPUHour.Equal(dec("8.25")) || a100.Spot.NativeCurrency != "CNY" {
		t.Errorf("A100 spot %s (native %s %s), want %s", a100.Spot.PerGPUHour, a100.Spot.NativePerGPUHour, a100.Spot.NativeCurrency, wantSpot)
	}
	if b200 := d.Models[2]; b200.OnDemand != nil || b200.Spot != nil || b200.Commitment != nil || b200.Offers != 0 {
		t.Errorf("B200 %+v", b200)
	}
	// H100: 1 − 60 / 98.32 = 38.9748% at full use, break-even 0.610252.
	if len(d.Savings) != 1 || d.Savings[0].Model != "H100" || !d.Savings[0].FullUseSavingsPct.Equal(dec("38.9748")) ||
		!d.Savings[0].BreakEvenUtilization.Equal(dec("0.610252")) || !d.Savings[0].EffectivePerGPU.Equal(dec("7.5")) {
		t.Errorf("savings %+v", d.Savings)
	}
	if len(d.Moves) != 1 || d.Moves[0].Key.PriceType != pricewatch.Spot || !d.Moves[0].Pct.Equal(dec("-10")) {
		t.Errorf("moves %+v", d.Moves)
	}
	if len(d.Rates) != 1 || d.Rates[0].From != "CNY" || d.Rates[0].Missing || d.Rates[0].Offers != 2 || d.Rates[0].Quote.Source != fx.SourceECB {
		t.Errorf("rates %+v", d.Rates)
	}
	if len(d.Stale()) != 0 {
		t.Errorf("stale %+v", d.Stale())
	}
	// 13 weekly points for H100 on-demand and spot and A100 on-demand and
	// spot, from 12 weeks ago to now.
	if len(d.Chart.Series) != 4 {
		t.Fatalf("%d series", len(d.Chart.Series))
	}
	for _, s := range d.Chart.Series[:3] {
		if len(s.Points) != digest.ChartWeeks+1 || !s.Points[0].At.Equal(now.Add(-digest.ChartWeeks*digest.Week)) || !s.Points[digest.ChartWeeks].At.Equal(now) {
			t.Errorf("%s: %d points", s.Label, len(s.Points))
		}
	}
	// The only A100 spot price is Alibaba's, in CNY, and the first rate
	// is of 2022-07-08: the weeks before have no point rather than a
	// price read as USD, and the chart says what it left out.
	a100Spot := d.Chart.Series[3]
	if len(a100Spot.Points) != 2 || !a100Spot.Points[0].At.Equal(now.Add(-digest.Week)) || len(a100Spot.Unconverted) != 1 {
		t.Errorf("A100 spot: %d points from %v, unconverted %q", len(a100Spot.Points), a100Spot.Points[0].At, a100Spot.Unconverted)
	}
	if p := d.Chart.Series[2].Points; !p[0].PerGPUHour.Equal(dec("4.09625")) || p[0].Key.Provider != pricewatch.Azure {
		t.Errorf("A100 on-demand first point %+v", p[0])
	}
}

// The dashboard's overview builds the digest WithoutSavings and
// WithoutChart: the same model rows, no best commitments and no chart
// (issue 30: the savings were a quarter of its CPU).
func TestBuildWithoutSavings(t *testing.T) {
	full, err := digest.Build(baseInput(t))
	if err != nil {
		t.Fatal(err)
	}
	in := baseInput(t)
	in.WithoutSavings, in.WithoutChart = true, true
	lean, err := digest.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Savings) == 0 || len(lean.Savings) != 0 {
		t.Errorf("savings: %d with, %d without; want some, then none", len(full.Savings), len(lean.Savings))
	}
	if len(full.Chart.Series) == 0 || len(lean.Chart.Series) != 0 {
		t.Errorf("chart: %d lines with, %d without; want some, then none", len(full.Chart.Series), len(lean.Chart.Series))
	}
	if !reflect.DeepEqual(full.Models, lean.Models) {
		t.Errorf("model rows differ without the savings:\n%+v\n%+v", full.Models, lean.Models)
	}
}

// A price without an exchange rate is shown as left out, never compared as
// if it were already in the digest's currency.
func TestMissingRateIsVisibleNeverOne(t *testing.T) {
	in := baseInput(t)
	// 1.00 CNY per hour for eight GPUs would be the cheapest A100 by far if
	// it were read as USD.
	in.Prices = append(in.Prices, history(offerSpec{pricewatch.Alibaba, "cn-shanghai", "", "ecs.ebmgn7e.32xlarge", pricewatch.Spot, "", "", "CNY", "A100-80GB", 8}, "0", weeksAgo(14), "1.00")...)
	for name, conv := range map[string]analysis.Converter{"no converter": nil, "book without CNY": bookWithout(t)} {
		t.Run(name, func(t *testing.T) {
			in.FX = conv
			d, err := digest.Build(in)
			if err != nil {
				t.Fatal(err)
			}
			a100 := d.Models[1]
			if a100.Spot != nil {
				t.Errorf("A100 spot %s from %s: a CNY price was compared without a rate", a100.Spot.PerGPUHour, a100.Spot.Offer.Provider)
			}
			if a100.Unconverted["CNY"] != 3 {
				t.Errorf("unconverted %v, want 3 CNY offers", a100.Unconverted)
			}
			if m := d.MissingRates(); len(m) != 1 || m[0] != "CNY" || d.Rates[0].Offers != 3 {
				t.Errorf("missing rates %v, rates %+v", m, d.Rates)
			}
			for _, s := range d.Chart.Series {
				for _, p := range s.Points {
					if p.NativeCurrency != "USD" {
						t.Errorf("%s point of %s charted without a rate", s.Label, p.NativeCurrency)
					}
				}
			}
			var text bytes.Buffer
			if err := WriteText(&text, d); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"3 offers in CNY left out: no exchange rate", "CNY   MISSING:"} {
				if !strings.Contains(text.String(), want) {
					t.Errorf("text lacks %q:\n%s", want, text.String())
				}
			}
			payload, err := SlackPayload(d, SlackOptions{DeliveryKey: "digest/2022-W29/C1"})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(shownText(t, payload), "no exchange rate for CNY (those prices are left out)") {
				t.Errorf("Slack summary does not flag the missing rate: %s", payload)
			}
		})
	}
}

func bookWithout(t *testing.T) *fx.Book {
	b, err := fx.NewBook([]fx.Rates{{Date: time.Date(2022, 7, 8, 0, 0, 0, 0, time.UTC), Source: fx.SourceECB,
		PerEUR: map[string]decimal.Decimal{"USD": dec("1.0163")}}}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestStaleRateIsFlagged(t *testing.T) {
	in := baseInput(t)
	b, err := fx.NewBook([]fx.Rates{{Date: time.Date(2022, 7, 8, 0, 0, 0, 0, time.UTC), Source: fx.SourceECB,
		PerEUR: map[string]decimal.Decimal{"USD": dec("1.0163"), "CNY": dec("6.8095")}}}, nil, 7*24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	in.FX = b
	d, err := digest.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	if !d.StaleRates() || !d.Models[1].Spot.FXStale {
		t.Errorf("stale rates %v, A100 spot stale %v", d.StaleRates(), d.Models[1].Spot.FXStale)
	}
	var text bytes.Buffer
	if err := WriteText(&text, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "STALE: 10 days old") || !strings.Contains(text.String(), "[stale rate]") {
		t.Errorf("text does not flag the stale rate:\n%s", text.String())
	}
}

func avail(provider, zone, typ, model string, state pricewatch.AvailabilityState, since time.Time, until *time.Time) pricewatch.AvailabilityInterval {
	return pricewatch.AvailabilityInterval{AvailabilityKey: pricewatch.AvailabilityKey{Provider: provider, Region: "r1", Zone: zone, InstanceType: typ},
		GPUModel: model, GPUCount: 8, State: state, Since: since, Until: until}
}

func at(d time.Duration) *time.Time { t := now.Add(-d); return &t }

func TestAvailabilityEvents(t *testing.T) {
	const day = 24 * time.Hour
	old := now.Add(-30 * day)
	in := baseInput(t)
	in.Availability = []pricewatch.AvailabilityInterval{
		// Zone a: in stock, sold out 3 days ago, still sold out.
		avail("alibaba", "a", "gpu8", "A100-80GB", pricewatch.InStock, old, at(3*day)),
		avail("alibaba", "a", "gpu8", "A100-80GB", pricewatch.SoldOut, now.Add(-3*day), nil),
		// Zone b: sold out for long, back in stock 2 days ago.
		avail("alibaba", "b", "gpu8", "A100-80GB", pricewatch.SoldOut, old, at(2*day)),
		avail("alibaba", "b", "gpu8", "A100-80GB", pricewatch.InStock, now.Add(-2*day), nil),
		// Zone c: first listed this week, in stock.
		avail("alibaba", "c", "gpu8", "A100-80GB", pricewatch.InStock, now.Add(-1*day), nil),
		// Zone d: flapped: sold out 5 days ago, back 4 days ago.
		avail("alibaba", "d", "gpu8", "A100-80GB", pricewatch.InStock, old, at(5*day)),
		avail("alibaba", "d", "gpu8", "A100-80GB", pricewatch.SoldOut, now.Add(-5*day), at(4*day)),
		avail("alibaba", "d", "gpu8", "A100-80GB", pricewatch.InStock, now.Add(-4*day), nil),
		// Zone e: withdrawn 6 days ago.
		avail("alibaba", "e", "gpu8", "A100-80GB", pricewatch.InStock, old, at(6*day)),
		// Zone f: first seen sold out: not a sell-out.
		avail("alibaba", "f", "gpu8", "A100-80GB", pricewatch.SoldOut, now.Add(-1*day), nil),
		// An unwatched model changes too.
		avail("alibaba", "a", "gpuT4", "T4", pricewatch.SoldOut, now.Add(-1*day), nil),
		// Withdrawn before the week: not this week's news.
		avail("alibaba", "g", "gpu8", "A100-80GB", pricewatch.InStock, old, at(9*day)),
		// A provider whose data starts this week is a baseline, not news.
		avail("tencent", "z", "GT4", "A100-80GB", pricewatch.InStock, now.Add(-1*day), nil),
	}
	d, err := digest.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	got := func(es []digest.AvailabilityEvent) []string {
		var out []string
		for _, e := range es {
			s := e.Provider + " " + e.InstanceType + " " + e.State + " " + strings.Join(e.Zones, ",")
			if e.Back {
				s += " back"
			}
			if !e.Still {
				s += " (not still)"
			}
			out = append(out, s)
		}
		return out
	}
	wantNew := []string{"alibaba gpu8 in_stock c", "alibaba gpu8 in_stock b,d back"}
	wantGone := []string{"alibaba gpu8 sold_out a,d (not still)", "alibaba gpu8 withdrawn e"}
	if g := got(d.NewAvailability); strings.Join(g, "|") != strings.Join(wantNew, "|") {
		t.Errorf("new availability %q, want %q", g, wantNew)
	}
	if g := got(d.SoldOut); strings.Join(g, "|") != strings.Join(wantGone, "|") {
		t.Errorf("sold out %q, want %q", g, wantGone)
	}
	if strings.Join(d.Baseline, ",") != "tencent" {
		t.Errorf("baseline %v", d.Baseline)
	}
}

func TestFreshness(t *testing.T) {
	ts := func(d time.Duration) time.Time { return now.Add(-d) }
	run := func(id int64, provider, status string, started time.Time, errText string) pricewatch.Run {
		r := pricewatch.Run{ID: id, Provider: provider, StartedAt: started, Status: status, Error: errText}
		if status != pricewatch.RunRunning {
			f := started.Add(time.Minute)
			r.FinishedAt = &f
		}
		return r
	}
	in := baseInput(t)
	in.Runs = []pricewatch.Run{
		run(1, "aws", pricewatch.RunOK, ts(7*24*time.Hour), ""),
		run(2, "azure", pricewatch.RunOK, ts(2*time.Hour), ""),
		run(3, "azure", pricewatch.RunRunning, ts(10*time.Minute), ""),
		run(4, "tencent", pricewatch.RunOK, ts(26*time.Hour), ""),
		run(5, "tencent", pricewatch.RunFailed, ts(2*time.Hour), "AuthFailure.SignatureFailure: <b>bad</b>"),
		run(6, "alibaba", pricewatch.RunSkipped, ts(time.Hour), "no credentials"),
	}
	in.Expected = map[string]time.Duration{"aws": 6 * time.Hour, "azure": time.Hour, "tencent": time.Hour, "alibaba": time.Hour, "nowhere": time.Hour}
	d, err := digest.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"alibaba": "last run skipped: no credentials; no successful run yet",
		"aws":     "last successful run 6d ago, runs expected every 6h",
		"azure":   "",
		"nowhere": "never fetched",
		"tencent": "last run failed: AuthFailure.SignatureFailure: <b>bad</b>; last successful run 25h ago, runs expected every 1h",
	}
	if len(d.Freshness) != len(want) {
		t.Fatalf("freshness %+v", d.Freshness)
	}
	for _, p := range d.Freshness {
		if p.Reason != want[p.Provider] || p.Stale != (want[p.Provider] != "") {
			t.Errorf("%s: stale %v %q, want %q", p.Provider, p.Stale, p.Reason, want[p.Provider])
		}
	}
	payload, err := SlackPayload(d, SlackOptions{DeliveryKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if text := shownText(t, payload); strings.Contains(text, "<b>") || !strings.Contains(text, "&lt;b&gt;bad&lt;/b&gt;") {
		t.Errorf("a run's error reached Slack unescaped: %s", text)
	}
}

// TestHostileCloudTextWithinLimits: however much a week holds, and whatever
// the clouds call things, the message stays within Slack's limits and
// cloud text cannot ping or link.
func TestHostileCloudTextWithinLimits(t *testing.T) {
	evil := "<!channel> & <https://evil.example|click> " + strings.Repeat("x", 300)
	// No Location: renderers fall back to UTC.
	d := digest.Digest{Week: "2022-W29", Now: now, From: now.Add(-digest.Week), Currency: "USD", Offers: 9999, Changed: 500}
	o := azH100OD.offer("98.32", "0")
	o.InstanceType, o.Region = evil, evil
	yes := false
	ch := &digest.Choice{PerGPUHour: dec("12.29"), NativeCurrency: "CNY", NativePerGPUHour: dec("88"), Offer: o, Available: &yes, FXStale: true}
	for i := 0; i < 60; i++ {
		d.Models = append(d.Models, digest.ModelRow{Model: evil, OnDemand: ch, Spot: ch, Commitment: ch, Unconverted: map[string]int{"HKD": 3, evil[:3]: 1}})
		d.Moves = append(d.Moves, digest.Move{Key: o.Key(), Currency: "USD", Hardware: o.Hardware, From: dec("1"), To: dec("2"), Pct: dec("100")})
		d.NewAvailability = append(d.NewAvailability, digest.AvailabilityEvent{Provider: evil, Region: evil, InstanceType: evil, Zones: []string{evil}, State: "in_stock", At: now, Still: true})
		d.SoldOut = append(d.SoldOut, digest.AvailabilityEvent{Provider: "tencent", Region: evil, InstanceType: evil, State: "sold_out", At: now})
		d.Freshness = append(d.Freshness, digest.ProviderStatus{Provider: evil, Stale: true, Reason: evil + evil})
		d.Rates = append(d.Rates, digest.Rate{From: "HKD", To: "USD", Missing: true, Error: evil, Offers: 3})
		d.Savings = append(d.Savings, digest.SavingsRow{Model: evil, Savings: analysis.Savings{Offer: o, OfferKeyJSON: pricewatch.OfferKeyJSON{Provider: evil, Region: evil, InstanceType: evil}}})
	}
	payload, err := SlackPayload(d, SlackOptions{DeliveryKey: evil, Chart: ChartAttached})
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Text   string       `json:"text"`
		Blocks []shownBlock `json:"blocks"`
		File   struct {
			AltText string `json:"alt_text"`
		} `json:"file"`
	}
	if err := json.Unmarshal(payload, &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Blocks) > 50 {
		t.Errorf("%d blocks", len(p.Blocks))
	}
	total := 0
	for i, b := range p.Blocks {
		n := len([]rune(strings.Join(b.texts(), "")))
		limit := 3000
		if b.Type == "header" {
			limit = 150
		}
		if n > limit {
			t.Errorf("block %d (%s): %d characters", i, b.Type, n)
		}
		total += n
	}
	if total > 11000 {
		t.Errorf("%d characters of block text; Slack rejects about 13,000", total)
	}
	if len([]rune(p.Text)) > 3000 || len([]rune(p.File.AltText)) > 1000 {
		t.Errorf("fallback %d, alt text %d characters", len([]rune(p.Text)), len([]rune(p.File.AltText)))
	}
	text := shownText(t, payload)
	for _, bad := range []string{"<!channel>", "<https://evil.example"} {
		if strings.Contains(text, bad) {
			t.Errorf("cloud text %q reached Slack unescaped", bad)
		}
	}
	if !strings.Contains(text, "&lt;!channel&gt; &amp;") {
		t.Error("escaped cloud text missing")
	}

	// The other renderers take the same digest; a "|" from a cloud must
	// not add a Markdown table column.
	var md, txt, js bytes.Buffer
	for _, err := range []error{WriteMarkdown(&md, d), WriteText(&txt, d), WriteJSON(&js, d)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if !json.Valid(js.Bytes()) {
		t.Error("JSON output is not JSON")
	}
	cols := 0
	for _, line := range strings.Split(md.String(), "\n") {
		if !strings.HasPrefix(line, "|") {
			cols = 0
			continue
		}
		n := strings.Count(line, "|") - strings.Count(line, `\|`)
		if cols == 0 {
			cols = n
		} else if n != cols {
			t.Fatalf("Markdown row has %d column bars, its table %d: %s", n, cols, line)
		}
	}
	if strings.Contains(md.String(), "<!channel>") {
		t.Error("raw cloud markup in Markdown")
	}
}

// shownText is every text of a payload Slack renders as mrkdwn or shows
// in a notification: the fallback and each block's text, decoded.
func shownText(t *testing.T, payload []byte) string {
	t.Helper()
	var p struct {
		Text   string       `json:"text"`
		Blocks []shownBlock `json:"blocks"`
	}
	if err := json.Unmarshal(payload, &p); err != nil {
		t.Fatal(err)
	}
	out := []string{p.Text}
	for _, b := range p.Blocks {
		out = append(out, b.texts()...)
	}
	return strings.Join(out, "\n")
}

// shownBlock is what Slack shows of a Block Kit block: a section's or a
// header's text, a context's elements.
type shownBlock struct {
	Type     string      `json:"type"`
	Text     *blockText  `json:"text"`
	Elements []blockText `json:"elements"`
}

type blockText struct {
	Text string `json:"text"`
}

func (b shownBlock) texts() []string {
	var out []string
	if b.Text != nil {
		out = append(out, b.Text.Text)
	}
	for _, e := range b.Elements {
		out = append(out, e.Text)
	}
	return out
}

func TestRenderChartPNG(t *testing.T) {
	d, err := digest.Build(baseInput(t))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := RenderChart(d, &buf); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != ChartWidth || b.Dy() != ChartHeight {
		t.Errorf("size %v", b)
	}
	// Not blank: many distinct colours, and mostly white background.
	colours := map[uint32]bool{}
	white := 0
	for y := 0; y < ChartHeight; y += 2 {
		for x := 0; x < ChartWidth; x += 2 {
			r, g, b, _ := img.At(x, y).RGBA()
			colours[(r>>8)<<16|(g>>8)<<8|b>>8] = true
			if r>>8 == 0xff && g>>8 == 0xff && b>>8 == 0xff {
				white++
			}
		}
	}
	samples := (ChartWidth / 2) * (ChartHeight / 2)
	if len(colours) < 20 || white == samples || white < samples/2 {
		t.Errorf("%d colours, %d of %d samples white", len(colours), white, samples)
	}

	d.Chart.Series = nil
	if err := RenderChart(d, &buf); !errors.Is(err, ErrEmptyChart) {
		t.Errorf("empty chart: %v", err)
	}
}

// TestChartDrawsEachPoint: every week's price is drawn where its value
// is, in its family's colour (a two-point line of one price included), on
// a solid line for on-demand prices and a dashed one for spot prices.
func TestChartDrawsEachPoint(t *testing.T) {
	d, err := digest.Build(baseInput(t))
	if err != nil {
		t.Fatal(err)
	}
	img, sc, err := drawChart(d)
	if err != nil {
		t.Fatal(err)
	}
	at := func(x, y float32) color.RGBA { return img.RGBAAt(int(x), int(y)) }
	drawn := 0
	for _, s := range d.Chart.Series {
		want := seriesColors[s.GPU]
		var prev pt
		for i, p := range s.Points {
			v, _ := p.PerGPUHour.Float64()
			q := pt{sc.x(float64(p.At.Unix())), sc.y(v)}
			if got := at(q.x, q.y); got != want {
				t.Errorf("%s at %s: pixel (%.0f, %.0f) is %v, want %v", s.Label, p.At.Format(time.DateOnly), q.x, q.y, got, want)
			}
			drawn++
			if i == 0 {
				prev = q
				continue
			}
			// Along the segment from the last marker's edge to this one's.
			on, samples := 0, 0
			for f := float32(0.15); f <= 0.85; f += 0.01 {
				samples++
				if at(prev.x+(q.x-prev.x)*f, prev.y+(q.y-prev.y)*f) == want {
					on++
				}
			}
			dashed := s.PriceType == pricewatch.Spot
			if !dashed && on != samples || dashed && (on == samples || on < samples/3) {
				t.Errorf("%s, %s: %d of %d pixels along the line drawn (dashed: %v)", s.Label, p.At.Format(time.DateOnly), on, samples, dashed)
			}
			prev = q
		}
	}
	if drawn < 20 {
		t.Fatalf("only %d points checked", drawn)
	}

	// Every price 0: an axis to 1, the points on its foot.
	for i := range d.Chart.Series {
		for j := range d.Chart.Series[i].Points {
			d.Chart.Series[i].Points[j].PerGPUHour = decimal.Zero
		}
	}
	if _, _, err := drawChart(d); err != nil {
		t.Errorf("a chart of zero prices: %v", err)
	}
	// No week between its ends: a frame without week labels, not a panic.
	d.Chart.To = d.Chart.From.Add(-digest.Week)
	if _, _, err := drawChart(d); err != nil {
		t.Errorf("a chart of no weeks: %v", err)
	}
}

func TestISOWeek(t *testing.T) {
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Skip("no time zone data")
	}
	for _, c := range []struct {
		t    time.Time
		loc  *time.Location
		want string
	}{
		{time.Date(2021, 1, 3, 12, 0, 0, 0, time.UTC), nil, "2020-W53"},
		{time.Date(2024, 12, 30, 9, 0, 0, 0, time.UTC), time.UTC, "2025-W01"},
		// Sunday 23:30 UTC is already Monday in Shanghai: the next week.
		{time.Date(2022, 10, 2, 23, 30, 0, 0, time.UTC), time.UTC, "2022-W39"},
		{time.Date(2022, 10, 2, 23, 30, 0, 0, time.UTC), shanghai, "2022-W40"},
	} {
		if got := digest.ISOWeek(c.t, c.loc); got != c.want {
			t.Errorf("ISOWeek(%s, %v) = %s, want %s", c.t, c.loc, got, c.want)
		}
	}
}

func TestBuildRejectsBadInput(t *testing.T) {
	in := baseInput(t)
	in.Currency = "dollars"
	if _, err := digest.Build(in); err == nil {
		t.Error("bad currency accepted")
	}
	in = baseInput(t)
	in.Now = time.Time{}
	if _, err := digest.Build(in); err == nil {
		t.Error("zero time accepted")
	}
	in = baseInput(t)
	in.Prices = append(in.Prices, history(azH100OD, "0", weeksAgo(5), "1")...) // overlaps the stored series
	if _, err := digest.Build(in); err == nil || !strings.Contains(err.Error(), "overlap") {
		t.Errorf("overlapping history: %v", err)
	}
}

// The week's count is of changes observed: a price that first appeared
// five days ago and moved twice since counts two, though no price existed a
// week ago to compare with (the first week after a fetch, with alerts).
// digest.regions scopes every section; the run-rate is fleet × 730 h.
func TestObservedChangesRegionsAndRunRate(t *testing.T) {
	in := baseInput(t)
	fresh := offerSpec{pricewatch.Azure, "westus2", "", "Standard_ND96isr_H100_v5", pricewatch.OnDemand, "", "", "USD", "H100", 8}
	in.Prices = append(in.Prices, history(fresh, "0", now.Add(-5*24*time.Hour), "100", now.Add(-3*24*time.Hour), "90", now.Add(-24*time.Hour), "80")...)
	in.FleetGPUs = 8
	d, err := digest.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	// The spot move of baseInput, and the two moves of the new offer.
	if d.Changed != 3 {
		t.Errorf("changed %d, want 3", d.Changed)
	}
	// 7.50 USD per GPU-hour × 8 GPUs × 730 h = 43,800 a month.
	if rr, ok := d.MonthlyRunRate(dec("7.5")); !ok || !rr.Equal(dec("43800")) {
		t.Errorf("run-rate %s %v, want 43800", rr, ok)
	}
	var text strings.Builder
	if err := WriteText(&text, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "a fleet of 8 GPUs at this rate (8 × 730 h): 43,800.00 USD a month") || !strings.Contains(text.String(), "upfront 525,600.00 USD per instance of 8 GPUs") ||
		!strings.Contains(text.String(), "assumes 100% utilisation") {
		t.Errorf("text lacks the commitment's cash or the utilisation:\n%s", text.String())
	}

	in.Regions = []string{"WestUS2"}
	d, err = digest.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	if d.Offers != 1 || d.Changed != 2 || len(d.Savings) != 0 {
		t.Errorf("scoped to westus2: offers %d changed %d savings %d, want 1, 2, 0", d.Offers, d.Changed, len(d.Savings))
	}
	if _, ok := (digest.Digest{}).MonthlyRunRate(dec("1")); ok {
		t.Error("no fleet, yet a run-rate")
	}
}

// Issue 20 item 15: a week whose price changes all moved back said "1
// changed price this week" and then "No watched price changed this week".
// Each count now says what it covers: changes recorded, offers whose price
// differs from a week ago, and why the moves list is empty.
func TestDigestCountsSayWhatTheyCover(t *testing.T) {
	in := baseInput(t)
	// The Azure spot price drops two days ago and comes back a day later:
	// two changes in the week, no move from 7 days ago.
	var prices []analysis.Interval
	for _, iv := range in.Prices {
		if iv.Offer.Key() != azH100SP.offer("0", "0").Key() {
			prices = append(prices, iv)
		}
	}
	prices = append(prices, history(azH100SP, "0", weeksAgo(14), "18.169536", now.Add(-2*24*time.Hour), "16.352582", now.Add(-24*time.Hour), "18.169536")...)
	in.Prices = prices
	d, err := digest.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	if d.Changed != 2 || d.Moved != 0 || len(d.Moves) != 0 {
		t.Fatalf("changed %d, moved %d, %d moves listed; want 2, 0, 0", d.Changed, d.Moved, len(d.Moves))
	}
	var text, md bytes.Buffer
	if err := WriteText(&text, d); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, d); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": strings.Join(strings.Fields(text.String()), " "), "markdown": strings.Join(strings.Fields(md.String()), " ")} {
		for _, want := range []string{"2 price changes recorded this week", "0 offers' prices differ from 7 days ago",
			"No watched price differs from 7 days ago: the week's 2 changes moved back"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s digest does not say %q:\n%s", name, want, out)
			}
		}
		if strings.Contains(out, "No watched price changed this week") {
			t.Errorf("%s digest says no price changed after counting 2 changes", name)
		}
	}
}

// Issue 20 item 15: the chart's legend covered the plot and did not name
// the cloud behind each line. It is drawn in a strip below the plot, and
// each entry names where the newest point is offered and every cloud whose
// offer was the cheapest in the weeks shown.
func TestChartLegendBelowThePlotNamesTheClouds(t *testing.T) {
	plotArea, legendArea := chartLayout(image.Rect(0, 0, ChartWidth, ChartHeight), 4, legendSize)
	if legendArea.Overlaps(plotArea) || !legendArea.In(image.Rect(0, 0, ChartWidth, ChartHeight)) || legendArea.Dy() < int(4*px(legendSize)) {
		t.Errorf("legend %v overlaps the plot %v or cannot hold 4 lines", legendArea, plotArea)
	}
	key := func(provider, region string) pricewatch.OfferKey {
		return pricewatch.OfferKey{Provider: provider, Region: region, InstanceType: "x", PriceType: pricewatch.OnDemand}
	}
	s := digest.ChartSeries{Label: "H100 on-demand", GPU: "H100", PriceType: pricewatch.OnDemand, Points: []analysis.CheapestPoint{
		{Key: key(pricewatch.Azure, "eastus"), PerGPUHour: dec("12.29"), Currency: "USD"},
		{Key: key(pricewatch.AWS, "us-east-1"), PerGPUHour: dec("9.8"), Currency: "USD"},
		{Key: key(pricewatch.Azure, "eastus"), PerGPUHour: dec("9.5"), Currency: "USD"},
	}}
	got := legendLabel(s)
	want := "H100 on-demand: now " + perGPU(dec("9.5")) + " USD at " + slack.ProviderName(pricewatch.Azure) + " eastus (cheapest in the weeks shown: " +
		slack.ProviderName(pricewatch.Azure) + ", " + slack.ProviderName(pricewatch.AWS) + ")"
	if got != want {
		t.Errorf("legend %q\nwant   %q", got, want)
	}
}

// TestBuilderInParts: the prices handed to digest.Builder one stored GPU
// model at a time (as the weekly digest reads a year) give the digest
// Build gives from all of them at once, text and JSON byte for byte; a
// watched family whose offers come in two parts is refused.
func TestBuilderInParts(t *testing.T) {
	render := func(d digest.Digest) string {
		t.Helper()
		var txt, js bytes.Buffer
		if err := WriteText(&txt, d); err != nil {
			t.Fatal(err)
		}
		if err := WriteJSON(&js, d); err != nil {
			t.Fatal(err)
		}
		return txt.String() + js.String()
	}
	whole, err := digest.Build(baseInput(t))
	if err != nil {
		t.Fatal(err)
	}
	want := render(whole)
	in := baseInput(t)
	byModel := map[string][]analysis.Interval{}
	var models []string
	for _, iv := range in.Prices {
		if byModel[iv.GPUModel] == nil {
			models = append(models, iv.GPUModel)
		}
		byModel[iv.GPUModel] = append(byModel[iv.GPUModel], iv)
	}
	if len(models) < 2 {
		t.Fatalf("one part only: %v", models)
	}
	b, err := digest.NewBuilder(in)
	if err != nil {
		t.Fatal(err)
	}
	// Backwards, so that the parts' order is not the models' own.
	for i := len(models) - 1; i >= 0; i-- {
		if err := b.Add(byModel[models[i]]); err != nil {
			t.Fatal(err)
		}
	}
	d, err := b.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if got := render(d); got != want {
		t.Errorf("in parts:\n%s\nat once:\n%s", got, want)
	}

	// One model's offers split over two parts.
	in = baseInput(t)
	var h100 []analysis.Interval
	for _, iv := range in.Prices {
		if iv.GPUModel == "H100" {
			h100 = append(h100, iv)
		}
	}
	b, err = digest.NewBuilder(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Add(h100[:1]); err != nil {
		t.Fatal(err)
	}
	if err := b.Add(h100[1:]); err == nil || !strings.Contains(err.Error(), "two parts") {
		t.Errorf("H100 in two parts: %v, want an error", err)
	}
}

// The chart's lines follow the clouds' own offers; a marketplace host that
// undercuts them is a line of its own, never the cheapest of the clouds'
// line (issue 31 item 1).
func TestChartMarketplaceLineApart(t *testing.T) {
	in := baseInput(t)
	// A Vast.ai single-H100 host at 1.80 per GPU-hour for the last 3
	// weeks (4 weekly points, now included): far below Azure's 12.29 on demand.
	vast := offerSpec{pricewatch.VastAI, "US", "", "1x H100 SXM", pricewatch.OnDemand, "", "", "USD", "H100", 1}
	in.Prices = append(in.Prices, history(vast, "0", weeksAgo(3), "1.80")...)
	d, err := digest.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	var cloud, market *digest.ChartSeries
	for i, s := range d.Chart.Series {
		labels = append(labels, s.Label)
		if s.GPU == "H100" && s.PriceType == pricewatch.OnDemand {
			switch s.Seller {
			case analysis.SellerCloud:
				cloud = &d.Chart.Series[i]
			case analysis.SellerMarketplace:
				market = &d.Chart.Series[i]
			}
		}
	}
	if cloud == nil || market == nil {
		t.Fatalf("series %q: want the H100 on-demand line of the clouds and one of marketplace hosts", labels)
	}
	if market.Label != "H100 on-demand, marketplace" {
		t.Errorf("marketplace line %q", market.Label)
	}
	last := cloud.Points[len(cloud.Points)-1]
	if last.Key.Provider != pricewatch.Azure || !last.PerGPUHour.Equal(dec("12.29")) {
		t.Errorf("clouds' line ends at %s %s, want Azure's 12.29", last.Key.Provider, last.PerGPUHour)
	}
	if len(market.Points) != 4 || market.Points[0].Key.Provider != pricewatch.VastAI || !market.Points[3].PerGPUHour.Equal(dec("1.8")) {
		t.Errorf("marketplace line %+v", market.Points)
	}
	// Without a marketplace price there is no marketplace line.
	plain, err := digest.Build(baseInput(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range plain.Chart.Series {
		if s.Seller != analysis.SellerCloud {
			t.Errorf("a %s line %q with no marketplace price", s.Seller, s.Label)
		}
	}
}
