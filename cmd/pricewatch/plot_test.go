package main

import (
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func TestHistoryPlotGolden(t *testing.T) {
	runGoldens(t, []goldenCase{
		{name: "history_plot_azure.txt", args: []string{"history", "Standard_ND96amsr_A100_v4", "--plot"}},
		{name: "history_plot_alibaba.txt", args: []string{"history", "ecs.gn7-c13g1.26xlarge", "--plot"}},
		{name: "history_plot_none.txt", args: []string{"history", "nope.large", "--plot"}, code: exitNotFound},
		{name: "history_plot_case.txt", args: []string{"history", "STANDARD_ND96AMSR_A100_V4", "--plot"}},
	})
}

func TestHistoryPlotNeedsTable(t *testing.T) {
	cfg := analysisConfig(t, true)
	if _, errOut, code := runCLI(t, "--config", cfg, "history", "Standard_ND96amsr_A100_v4", "--plot", "--format", "json"); code == 0 || !strings.Contains(errOut, "--plot") {
		t.Errorf("--plot with JSON: exit %d, %q", code, errOut)
	}
}

func TestPlotDrawsStepsAndLabels(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	d := decimal.RequireFromString
	series := []plotSeries{
		// 10 until day 5, then 20.
		{Label: "rising", Steps: []plotStep{{From: t0, To: t0.Add(5 * 24 * time.Hour), Value: d("10")}, {From: t0.Add(5 * 24 * time.Hour), Value: d("20")}}},
		// Flat at 10 from day 2: overlaps "rising" until day 5.
		{Label: "flat", Steps: []plotStep{{From: t0.Add(2 * 24 * time.Hour), Value: d("10")}}},
	}
	var b strings.Builder
	if err := writePlot(&b, "title", series, t0, t0.Add(10*24*time.Hour), 60); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(out, "\n")
	checkWidth(t, out)
	for _, l := range lines {
		if len([]rune(l)) > 60 {
			t.Errorf("line wider than 60: %q", l)
		}
	}
	// Rows: title, then plotHeight rows from 20 (top) to 10 (bottom).
	top, bottom := lines[1], lines[plotHeight]
	if !strings.HasPrefix(top, "20.00 ┤") || !strings.HasPrefix(bottom, "10.00 ┤") {
		t.Errorf("axis labels: top %q bottom %q", top, bottom)
	}
	// "rising" starts at the bottom left and ends top right; where the flat
	// line shares its cells the chart shows "*".
	body := strings.Join(lines[1:plotHeight+1], "\n")
	if !strings.Contains(bottom, "A*") || !strings.HasSuffix(top, "A") || !strings.Contains(body, "B") {
		t.Errorf("lines not where expected:\n%s", out)
	}
	// The step is drawn as a vertical run of A in one column.
	col := strings.Index(lines[plotHeight/2], "A")
	if col < 0 {
		t.Errorf("no vertical step in the middle row:\n%s", out)
	}
	if !strings.Contains(out, "2026-01-01") || !strings.Contains(out, "2026-01-11") || !strings.Contains(out, "*  more than one series") {
		t.Errorf("x labels or legend missing:\n%s", out)
	}
}

func TestPlotFlatSeries(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var b strings.Builder
	err := writePlot(&b, "flat", []plotSeries{{Label: "x", Steps: []plotStep{{From: t0, Value: decimal.RequireFromString("3.5")}}}}, t0, t0.Add(time.Hour), 100)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "3.50 ┤AAAA") || !strings.Contains(b.String(), "01-01 00:00") {
		t.Errorf("flat chart:\n%s", b.String())
	}
}
