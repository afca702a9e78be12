package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/cmd/internal/clitext"
	"github.com/pricewatch/pricewatch/report"
)

func TestTrendsGolden(t *testing.T) {
	now := "--now=" + analysisNow
	runGoldens(t, []goldenCase{
		{name: "trends_a100_7d.txt", args: []string{"trends", "--gpu", "A100", "--window", "7d", now}},
		{name: "trends_a100_7d.json", args: []string{"trends", "--gpu", "A100", "--window", "7d", "--format", "json", now}},
		{name: "trends_a100_7d.csv", args: []string{"trends", "--gpu", "A100", "--window", "7d", "--format", "csv", now}},
		{name: "trends_all_7d_cny.txt", args: []string{"trends", "--window", "7d", "--currency", "CNY", "--top", "3", now}},
		{name: "trends_a100_48h.txt", args: []string{"trends", "--gpu", "A100", "--window", "48h", now}},
		{name: "trends_missing_rate.txt", args: []string{"trends", "--gpu", "A100", "--window", "7d", now}, noRates: true},
	})
}

func TestTrendsMoversAndCheapestSeries(t *testing.T) {
	cfg := analysisConfig(t, true)
	// trends_a100_7d.json pins the JSON keys; the figures are checked here.
	var rep report.TrendsJSON
	out := cliJSON(t, &rep, "--config", cfg, "trends", "--gpu", "A100", "--window", "7d", "--format", "json", "--now="+analysisNow)
	// Over the week: Alibaba spot 46.40 → 41.76 CNY (−10%), Alibaba
	// on-demand 185.60 → 171.20 (−7.7586%), Tencent 214.80 → 199 (−7.3557%),
	// Azure ND96 spot 6.554 → 6.881 USD (+4.9893%), NC96 on-demand 14.69 →
	// 13.96 (−4.9694%). Prices that did not move are not movers.
	want := []string{
		"alibaba spot 46.4 → 41.76 (-10%)",
		"alibaba on_demand 185.6 → 171.2 (-7.7586%)",
		"tencent on_demand 214.8 → 199 (-7.3557%)",
		"azure spot 6.554 → 6.881 (4.9893%)",
		"azure on_demand 14.69 → 13.96 (-4.9694%)",
	}
	if rep.Window != "7d" || len(rep.Movers) != len(want) {
		t.Fatalf("window %q, %d movers, want 7d and %d:\n%s", rep.Window, len(rep.Movers), len(want), out)
	}
	for i, w := range want {
		m := rep.Movers[i]
		if got := fmt.Sprintf("%s %s %s → %s (%s%%)", m.Provider, m.PriceType, m.ThenEffectiveHourly, m.EffectiveHourly, m.ChangePct); got != w {
			t.Errorf("mover %d = %s, want %s", i, got, w)
		}
	}
	// Cheapest A100 GPU-hour, sampled daily at 09:00 from 07-08 to 07-15:
	// Azure's spot ND96 (6.554/8 = 0.81925 USD) until the 07-11 run, then
	// Alibaba's spot (41.76/8 = 5.22 CNY = 0.7790712975 USD).
	if len(rep.Cheapest) != 8 {
		t.Fatalf("%d points, want 8:\n%s", len(rep.Cheapest), out)
	}
	for _, p := range rep.Cheapest {
		wantProvider, wantPrice := "alibaba", "0.7790712975"
		if p.At < "2022-07-11T06" {
			wantProvider, wantPrice = "azure", "0.81925"
		}
		if p.Provider != wantProvider || p.PriceType != "spot" || p.PricePerGPUHour.String() != wantPrice {
			t.Errorf("point %s: %s %s %s, want %s spot %s", p.At, p.Provider, p.PriceType, p.PricePerGPUHour, wantProvider, wantPrice)
		}
		if p.Provider == "alibaba" && (p.NativeCurrency != "CNY" || p.NativePricePerGPUHour.String() != "5.22") {
			t.Errorf("point %s: native %s %s, want 5.22 CNY", p.At, p.NativePricePerGPUHour, p.NativeCurrency)
		}
	}
}

func TestTrendsWithoutRateLeavesCNYOutVisibly(t *testing.T) {
	cfg := analysisConfig(t, false)
	out, errOut, code := runCLI(t, "--config", cfg, "trends", "--gpu", "A100", "--window", "7d", "--now="+analysisNow)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "No rate for CNY→USD") || !strings.Contains(out, "Left out of the series where no rate into USD applied: alibaba") {
		t.Errorf("missing rate not shown:\n%s", out)
	}
	// The series (rows starting with a date) must not show a CNY price as if it were USD.
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "2022-") && (strings.Contains(l, "CNY") || strings.Contains(l, "alibaba") || strings.Contains(l, "tencent")) {
			t.Errorf("CNY offer priced in USD without a rate: %q", l)
		}
	}
}

func TestTrendsRejectsBadWindow(t *testing.T) {
	cfg := analysisConfig(t, true)
	for _, w := range []string{"", "30", "x7d", "-7d", "7y"} {
		if _, errOut, code := runCLI(t, "--config", cfg, "trends", "--window", w); code == 0 || !strings.Contains(errOut, "window") {
			t.Errorf("--window %q: exit %d, %q", w, code, errOut)
		}
	}
}

func TestRateNotesSummariseDailyRates(t *testing.T) {
	notes := clitext.NewRateNotes("USD", time.Date(2022, 7, 15, 9, 0, 0, 0, time.UTC), 7*24*time.Hour)
	for i, r := range []string{"0.1490", "0.1491", "0.1492", "0.1493", "0.1494"} {
		notes.Used("CNY", analysis.FXUsed{FXRate: decimal.RequireFromString(r), FXDate: fmt.Sprintf("2022-07-%02d", 4+i), FXSource: "ECB"})
	}
	notes.Used("EUR", analysis.FXUsed{FXRate: decimal.RequireFromString("1.0163"), FXDate: "2022-07-08", FXSource: "ECB"})
	notes.Used("USD", analysis.FXUsed{FXRate: decimal.NewFromInt(1), FXSource: "identity"})
	notes.Missing("HKD")
	want := []string{
		"Rates: 5 CNY rates used, each price at the rate of its own day; the first and the last:",
		"Rates: 1 CNY = 0.149 USD (ECB 2022-07-04)",
		"Rates: 1 CNY = 0.1494 USD (ECB 2022-07-08)",
		"Rates: 1 EUR = 1.0163 USD (ECB 2022-07-08)",
		"No rate for HKD→USD: set fx.fixed_rates or run `pricewatch fx update`; HKD prices are not converted.",
	}
	if got := notes.Lines(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
