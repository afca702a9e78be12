// Package promtool finds Prometheus's promtool for the tests that check
// what pricewatch exports with it.
package promtool

import (
	"os"
	"os/exec"
	"testing"
)

// Path returns promtool's path. Where it is missing the test is skipped,
// unless PRICEWATCH_REQUIRE_PROMTOOL is set (CI installs promtool and
// sets it, so that the check cannot skip there).
func Path(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("PRICEWATCH_REQUIRE_PROMTOOL") != "" {
			t.Fatalf("promtool not found, and PRICEWATCH_REQUIRE_PROMTOOL is set: %v", err)
		}
		t.Skip("promtool not installed (Debian: apt-get install prometheus); CI runs this")
	}
	return p
}
