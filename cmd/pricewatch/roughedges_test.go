package main

import (
	"strings"
	"testing"
)

// Issue 31 item 6: each rough edge of the CLI, reproduced on HEAD fefd512.

// runs, availability and trends fit $COLUMNS=80 (they were 104, 114 and
// 93 columns wide), saying what they left out.
func TestTablesFitEightyColumns(t *testing.T) {
	cfg := analysisConfig(t, true)
	t.Setenv("COLUMNS", "80")
	for _, args := range [][]string{{"runs"}, {"availability"}, {"trends", "--now=" + analysisNow}} {
		out, errOut, code := runCLI(t, append([]string{"--config", cfg}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		checkWidthAt(t, out, 80)
		if args[0] != "trends" && !strings.Contains(out, "Left out to fit 80 columns: ") {
			t.Errorf("%v does not say what it left out:\n%s", args, out)
		}
	}
	// --wide keeps every column.
	if out, _, _ := runCLI(t, "--config", cfg, "--wide", "runs"); !strings.Contains(out, "LAST SUCCESS") || strings.Contains(out, "Left out") {
		t.Errorf("runs --wide:\n%s", out)
	}
}

// Usage errors exit 2, things not stored 4.
func TestRoughEdgeExitCodes(t *testing.T) {
	cfg := analysisConfig(t, true)
	now := "--now=" + analysisNow
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		// docs/commands.md lists --count 0 as a usage error; it listed every count.
		{[]string{"compare", "--gpu", "A100", "--count", "0", now}, exitUsage, "--count 0"},
		{[]string{"compare", "--gpu", "A100", "--currency", "XYZ", now}, exitUsage, "--currency XYZ"},
		{[]string{"trends", "--currency", "xyz", now}, exitUsage, "--currency XYZ"},
		{[]string{"alerts", "retry", "abc"}, exitUsage, `"abc" is not an alert ID`},
		{[]string{"alerts", "retry"}, exitUsage, "name alert IDs or pass --failed"},
		{[]string{"alerts", "retry", "9999"}, exitNotFound, "no such outbox message"},
		// docs/api.md: compare's table needs the local database.
		{[]string{"compare", "--gpu", "A100", "--server", "http://127.0.0.1:1", "--format", "table"}, exitUsage, "--format json or --format csv"},
	} {
		out, errOut, code := runCLI(t, append([]string{"--config", cfg}, c.args...)...)
		if code != c.code || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d (want %d), stdout %q, stderr %q", c.args, code, c.code, out, errOut)
		}
	}
	// A currency a rate reaches still works, and the flag left out too.
	for _, args := range [][]string{{"compare", "--gpu", "A100", "--currency", "cny", now}, {"compare", "--gpu", "A100", "--count", "8", now}} {
		if _, errOut, code := runCLI(t, append([]string{"--config", cfg}, args...)...); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
}

// "Slack refused" only when Slack answered: a Slack that cannot be
// reached is said so.
func TestAlertsTestUnreachableSlack(t *testing.T) {
	cfg := alertsConfig(t, "http://127.0.0.1:1", "http://127.0.0.1:1", "")
	t.Setenv(envSlackToken, alertsToken)
	out, errOut, code := runCLI(t, "--config", cfg, "alerts", "test")
	if code != 1 || !strings.Contains(errOut, "could not reach Slack") || strings.Contains(errOut, "Slack refused") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
