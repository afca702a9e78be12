package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch/internal/table"
)

// The tables and charts fit $COLUMNS (60, 80, 100, 200), dropping columns
// in their stated order; --wide keeps every column.
func TestWidthGolden(t *testing.T) {
	now := "--now=" + analysisNow
	var cases []goldenCase
	for _, cols := range []int{60, 80, 100, 200} {
		cases = append(cases,
			goldenCase{name: fmt.Sprintf("width_compare_%d.txt", cols), args: []string{"compare", "--gpu", "A100", "--price-type", "any", now}, columns: cols},
			goldenCase{name: fmt.Sprintf("width_savings_%d.txt", cols), args: []string{"savings", "Standard_ND96amsr_A100_v4", "--utilization", "0.7", now}, columns: cols},
			goldenCase{name: fmt.Sprintf("width_plot_%d.txt", cols), args: []string{"history", "Standard_ND96amsr_A100_v4", "--plot", "--price-type", "on_demand,spot"}, columns: cols},
			goldenCase{name: fmt.Sprintf("width_recommend_%d.txt", cols), args: append(append([]string{}, seedQuestion...), now), columns: cols},
		)
	}
	cases = append(cases, goldenCase{name: "width_compare_60_wide.txt", args: []string{"compare", "--gpu", "A100", "--price-type", "any", "--wide", now}, columns: 60})
	runGoldens(t, cases)
}

// Off a terminal with no $COLUMNS a table keeps every column.
func TestWidthOffTerminal(t *testing.T) {
	t.Setenv("COLUMNS", "")
	cfg := analysisConfig(t, true)
	out, errOut, code := runCLI(t, "--config", cfg, "compare", "--gpu", "A100", "--price-type", "any", "--now="+analysisNow)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(out, "Left out to fit") || !strings.Contains(out, "/TFLOPS") {
		t.Errorf("off a terminal every column stays:\n%s", out)
	}
}

// A plain table (alerts list, runs, held, history) wider than the terminal
// cuts its last, free-text column to fit; off a terminal it stays whole.
func TestTableCutsLastColumn(t *testing.T) {
	long := strings.TrimSpace(strings.Repeat("a long summary of forty price drops ", 5))
	render := func() string {
		tb := table.New(">ID", "STATUS", "SUMMARY")
		tb.Add("1", "pending", long)
		var b strings.Builder
		if err := writeTable(&b, tb); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	for _, cols := range []int{60, 80} {
		width.Store(int64(cols))
		out := render()
		checkWidthAt(t, out, cols)
		if !strings.Contains(out, "…") {
			t.Errorf("%d columns: not cut:\n%s", cols, out)
		}
	}
	width.Store(0)
	if out := render(); !strings.Contains(out, long) {
		t.Errorf("no limit: cut:\n%s", out)
	}
}
