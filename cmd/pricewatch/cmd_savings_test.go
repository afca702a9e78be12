package main

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch/report"
)

func TestSavingsGolden(t *testing.T) {
	now := "--now=" + analysisNow
	runGoldens(t, []goldenCase{
		{name: "savings_azure_u70.txt", args: []string{"savings", "Standard_ND96amsr_A100_v4", "--utilization", "0.7", now}},
		{name: "savings_azure_u70.json", args: []string{"savings", "Standard_ND96amsr_A100_v4", "--utilization", "0.7", "--format", "json", now}},
		{name: "savings_azure_u70.csv", args: []string{"savings", "Standard_ND96amsr_A100_v4", "--utilization", "70%", "--format", "csv", now}},
		{name: "savings_alibaba_usd.txt", args: []string{"savings", "ecs.gn7-c13g1.26xlarge", "--region", "cn-hangzhou", "--utilization", "0.6", now}},
		{name: "savings_alibaba_cny.txt", args: []string{"savings", "ecs.gn7-c13g1.26xlarge", "--currency", "CNY", "--utilization", "0.25", now}},
		{name: "savings_missing_rate.txt", args: []string{"savings", "ecs.gn7-c13g1.26xlarge", "--utilization", "0.6", now}, noRates: true},
		{name: "savings_no_commitments.txt", args: []string{"savings", "Standard_NC96ads_A100_v4", now}},
		{name: "savings_unknown.json", args: []string{"savings", "nope.large", "--format", "json", now}, code: exitNotFound},
	})
}

func TestSavingsJSONHandComputed(t *testing.T) {
	cfg := analysisConfig(t, true)
	// savings_azure_u70.json pins the JSON keys; the figures are checked here.
	var rows []report.SavingsRow
	out := cliJSON(t, &rows, "--config", cfg, "savings", "Standard_ND96amsr_A100_v4", "--utilization", "0.7", "--format", "json", "--now="+analysisNow)
	d := decimal.RequireFromString
	od := d("32.77")
	// On demand for 70% of a term's hours costs 32.77 × hours × 0.7; a
	// commitment costs its upfront plus hourly × hours, used or not.
	type want struct {
		termCost decimal.Decimal
		hours    int64
	}
	wants := map[string]want{
		"reserved/3y/all_upfront":    {d("340156"), 26280},
		"reserved/1y/all_upfront":    {d("176234"), 8760},
		"savings_plan/3y/no_upfront": {d("22.939").Mul(d("26280")), 26280},
		"savings_plan/1y/no_upfront": {d("27.5268").Mul(d("8760")), 8760},
	}
	if len(rows) != len(wants) {
		t.Fatalf("%d rows, want %d:\n%s", len(rows), len(wants), out)
	}
	for i, r := range rows {
		k := string(r.PriceType) + "/" + r.Term + "/" + r.Payment
		w, ok := wants[k]
		if !ok {
			t.Errorf("unexpected row %s", k)
			continue
		}
		h := decimal.NewFromInt(w.hours)
		odCost := od.Mul(h).Mul(d("0.7"))
		pct := decimal.NewFromInt(1).Sub(w.termCost.DivRound(odCost, 20)).Mul(decimal.NewFromInt(100)).Round(4)
		be := w.termCost.DivRound(od.Mul(h), 6)
		checks := []struct {
			name string
			got  report.Decimal
			want decimal.Decimal
		}{
			{"term_cost", r.TermCost, w.termCost},
			{"on_demand_term_cost", r.OnDemandTermCost, odCost},
			{"savings_pct", r.SavingsPct, pct},
			{"break_even_utilization", r.BreakEvenUtilization, be},
			{"on_demand_hourly", r.OnDemandHourly, od},
			{"effective_hourly", r.EffectiveHourly, w.termCost.DivRound(h, 10)},
		}
		for _, c := range checks {
			if !decimal.Decimal(c.got).Equal(c.want) {
				t.Errorf("%s %s = %s, want %s", k, c.name, c.got, c.want)
			}
		}
		// Only the 3-year reservation beats on-demand by most at 70%; it is first and marked.
		if r.Best != (i == 0) || (i == 0 && k != "reserved/3y/all_upfront") {
			t.Errorf("row %d %s best=%v", i, k, r.Best)
		}
		if r.Currency != "USD" || r.Provider != "azure" || r.Region != "westus2" {
			t.Errorf("row %+v", r)
		}
	}
	// Every row names its offering class, as a string (never null).
	if n := strings.Count(out, `"offering_class": "`); n != len(rows) {
		t.Errorf("%d rows carry an offering_class string, want all %d:\n%s", n, len(rows), out)
	}
	// The percentages are 0–100, the break-even a 0–1 share.
	if !strings.Contains(out, `"savings_pct": 43.5741,`) || !strings.Contains(out, `"break_even_utilization": 0.394981,`) {
		t.Errorf("3-year reservation figures not as hand-computed (43.5741%%, 0.394981):\n%s", out)
	}
}

func TestSavingsConvertsWithTheRateShown(t *testing.T) {
	cfg := analysisConfig(t, true)
	usd, errOut, code := runCLI(t, "--config", cfg, "savings", "ecs.gn7-c13g1.26xlarge", "--utilization", "0.6", "--format", "json", "--now="+analysisNow)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	cny, errOut, code := runCLI(t, "--config", cfg, "savings", "ecs.gn7-c13g1.26xlarge", "--utilization", "0.6", "--currency", "CNY", "--format", "json", "--now="+analysisNow)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var inUSD, inCNY []report.SavingsRow
	decodeJSON(t, usd, &inUSD)
	decodeJSON(t, cny, &inCNY)
	if len(inUSD) != 3 || len(inUSD) != len(inCNY) {
		t.Fatalf("rows: %d in USD, %d in CNY", len(inUSD), len(inCNY))
	}
	rate := decimal.RequireFromString("1.0163").Div(decimal.RequireFromString("6.8095"))
	for i := range inUSD {
		u, c := inUSD[i], inCNY[i]
		if u.Currency != "USD" || c.Currency != "CNY" {
			t.Errorf("currencies %s, %s", u.Currency, c.Currency)
		}
		// Shares and percentages do not depend on the currency.
		if u.SavingsPct.String() != c.SavingsPct.String() || u.BreakEvenUtilization.String() != c.BreakEvenUtilization.String() || u.Best != c.Best {
			t.Errorf("row %d: %s/%s vs %s/%s", i, u.SavingsPct, u.BreakEvenUtilization, c.SavingsPct, c.BreakEvenUtilization)
		}
		gotUSD := decimal.Decimal(u.TermCost)
		wantUSD := decimal.Decimal(c.TermCost).Mul(rate)
		if gotUSD.Sub(wantUSD).Abs().GreaterThan(decimal.New(1, -6)) {
			t.Errorf("row %d: term cost %s USD, want %s (= %s CNY at the ECB rate)", i, gotUSD, wantUSD, c.TermCost)
		}
	}
}

func TestSavingsWithoutRateSaysWhy(t *testing.T) {
	cfg := analysisConfig(t, false)
	out, errOut, code := runCLI(t, "--config", cfg, "savings", "ecs.gn7-c13g1.26xlarge", "--format", "json", "--now="+analysisNow)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.TrimSpace(out) != "[]" {
		t.Errorf("rows without a rate must not be printed as USD:\n%s", out)
	}
	if !strings.Contains(errOut, "No rate for CNY→USD") || !strings.Contains(errOut, "not compared") {
		t.Errorf("stderr: %q", errOut)
	}
}

func TestSavingsRejectsBadUtilization(t *testing.T) {
	cfg := analysisConfig(t, true)
	for _, u := range []string{"0", "1.5", "-0.2", "lots", "120%"} {
		if _, errOut, code := runCLI(t, "--config", cfg, "savings", "Standard_ND96amsr_A100_v4", "--utilization", u); code == 0 || !strings.Contains(errOut, "utilisation") {
			t.Errorf("--utilization %s: exit %d, %q", u, code, errOut)
		}
	}
}
