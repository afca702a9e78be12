package leader_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/section"
)

func waitFor(t *testing.T, what string, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("timed out after %s waiting for %s", within, what)
}

// hostOf is the host:port a postgres:// URL names.
func hostOf(t *testing.T, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil || u.Host == "" {
		t.Fatal("the test DSN must be a postgres:// URL with a host")
	}
	if u.Port() == "" {
		return u.Host + ":5432"
	}
	return u.Host
}

func sectionChecker() section.Checker { return section.NewChecker("", nil) }

func contains(s, sub string) bool { return strings.Contains(s, sub) }
