package main

import (
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// --limit keeps the newest intervals, in the usual order; the table shows
// the last 90 days unless --since says otherwise.
func TestHistoryLimitAndDefaultSince(t *testing.T) {
	cfg := analysisConfig(t, true)
	const typ = "ecs.gn7-c13g1.26xlarge"
	all := decodeHistory(t, cfg, typ)
	if len(all) < 3 {
		t.Fatalf("fixture has %d intervals of %s, want several", len(all), typ)
	}
	newest := all[0]
	for _, r := range all {
		if r.ValidFrom > newest.ValidFrom {
			newest = r
		}
	}
	two := decodeHistory(t, cfg, typ, "--limit", "2")
	if len(two) != 2 || (two[0].ValidFrom != newest.ValidFrom && two[1].ValidFrom != newest.ValidFrom) {
		t.Errorf("--limit 2: %+v, want two including the newest (%s)", two, newest.ValidFrom)
	}
	// The fixture is from 2022: the table's default window holds only
	// what is still current, and says how to see the rest.
	out, errOut, code := runCLI(t, "--config", cfg, "history", typ)
	if code != 0 {
		t.Fatalf("history table exited %d: %s", code, errOut)
	}
	full, _, _ := runCLI(t, "--config", cfg, "history", typ, "--since", "all")
	if strings.Count(full, "\n") <= strings.Count(out, "\n") {
		t.Errorf("--since all shows no more than the default window:\n%s\n---\n%s", full, out)
	}
	out, errOut, _ = runCLI(t, "--config", cfg, "history", typ, "--since", "all", "--limit", "1")
	if !strings.Contains(errOut, "newest 1 intervals") || strings.Count(out, "current") > 1 {
		t.Errorf("--limit 1 table: %s\n%s", out, errOut)
	}
	if _, errOut, code := runCLI(t, "--config", cfg, "history", typ, "--limit", "-1"); code == 0 || !strings.Contains(errOut, "--limit") {
		t.Errorf("--limit -1: exit %d, %s", code, errOut)
	}
}

func decodeHistory(t *testing.T, cfg, typ string, extra ...string) []historyJSON {
	t.Helper()
	var rows []historyJSON
	out := cliJSON(t, &rows, append([]string{"--config", cfg, "history", typ, "--format", "json"}, extra...)...)
	checkRowKeys(t, out, historyKeys...)
	return rows
}

// Issue 20 item 16: the history table's group headings ran past $COLUMNS
// (87 wide at 80), and tables printed times in two layouts ("2006-01-02
// 15:04" in history, full RFC 3339 in runs). Every line fits, and every
// table time is RFC 3339 UTC to the minute.
func TestHistoryFitsColumnsAndPrintsRFC3339(t *testing.T) {
	cfg := analysisConfig(t, true)
	t.Setenv("COLUMNS", "60")
	timeCell := regexp.MustCompile(`\b\d{4}-\d\d-\d\d[ T]\d\d:\d\d\S*`)
	for _, typ := range []string{"ecs.gn7-c13g1.26xlarge", "Standard_ND96amsr_A100_v4"} {
		out, errOut, code := runCLI(t, "--config", cfg, "history", typ, "--since", "all")
		if code != 0 {
			t.Fatalf("history %s exited %d: %s", typ, code, errOut)
		}
		for _, line := range strings.Split(out, "\n") {
			if n := utf8.RuneCountInString(line); n > 60 {
				t.Errorf("line %d wide at 60 columns: %q", n, line)
			}
		}
		for _, cell := range timeCell.FindAllString(out, -1) {
			if _, err := time.Parse(tableTimeLayout, cell); err != nil {
				t.Errorf("time %q is not RFC 3339 UTC to the minute", cell)
			}
		}
	}
	out, _, _ := runCLI(t, "--config", cfg, "runs")
	for _, cell := range timeCell.FindAllString(out, -1) {
		if _, err := time.Parse(tableTimeLayout, cell); err != nil {
			t.Errorf("runs: time %q is not in the table layout", cell)
		}
	}
}
