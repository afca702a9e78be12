package main

import "testing"

func TestMachineGolden(t *testing.T) {
	now := "--now=" + analysisNow
	runGoldens(t, []goldenCase{
		{name: "compare_machine_a100_month.txt", args: []string{"compare", "--gpu", "A100", "--by", "machine", "--per", "month", now}},
		{name: "compare_machine_a100_month.json", args: []string{"compare", "--gpu", "A100", "--by", "machine", "--per", "month", "--format", "json", now}},
		{name: "compare_machine_a100_month.csv", args: []string{"compare", "--gpu", "A100", "--by", "machine", "--per", "month", "--format", "csv", now}},
		{name: "compare_machine_a100_month_wide.txt", args: []string{"compare", "--gpu", "A100", "--by", "machine", "--per", "month", "--wide", now}},
		{name: "compare_machine_a100_hour_cny.txt", args: []string{"compare", "--gpu", "A100", "--by", "machine", "--currency", "CNY", now}},
		{name: "compare_machine_missing_rate.txt", args: []string{"compare", "--gpu", "A100", "--by", "machine", "--per", "year", now}, noRates: true},
		{name: "compare_machine_per_without_by.txt", args: []string{"compare", "--gpu", "A100", "--per", "month", now}, code: exitUsage},
		{name: "compare_machine_bad_per.txt", args: []string{"compare", "--gpu", "A100", "--by", "machine", "--per", "week", now}, code: exitUsage},
	})
}
