// Package promtool finds Prometheus's promtool for the tests that check
// what pricewatch exports with it.
package promtool

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

// Path returns promtool's path. Where it is missing the test is skipped,
// unless PRICEWATCH_REQUIRE_PROMTOOL is set (CI installs promtool and
// sets it, so that the check cannot skip there).
func Path(t testing.TB) string {
	t.Helper()
	p, ok := Find(t)
	if !ok {
		t.Skip("promtool not installed (Debian: apt-get install prometheus); CI runs this")
	}
	return p
}

// Find returns promtool's path and whether it is installed, for a test
// whose promtool check is one check among others: where promtool is
// missing the test goes on without it, unless PRICEWATCH_REQUIRE_PROMTOOL
// is set, which fails it.
func Find(t testing.TB) (string, bool) {
	t.Helper()
	p, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("PRICEWATCH_REQUIRE_PROMTOOL") != "" {
			t.Fatalf("promtool not found, and PRICEWATCH_REQUIRE_PROMTOOL is set: %v", err)
		}
		return "", false
	}
	return p, true
}

// CheckMetrics runs `promtool check metrics` (promtool at path) on a
// /metrics body and wants it to pass without a word.
func CheckMetrics(t testing.TB, path string, body []byte) {
	t.Helper()
	cmd := exec.Command(path, "check", "metrics")
	cmd.Stdin = bytes.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) != 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}
