package main

import (
	"strings"
	"testing"
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
