package leader_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch/section"
)

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
