package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch/storage/storagetest"
)

// TestDBCopyToPostgresAndBack: a history built by `fetch` runs, copied by
// `db copy --to postgres://…`, answers compare, history and runs alike
// through database.url; copied back to a new SQLite file, alike again, and
// a second copy into the same PostgreSQL schema copies nothing new.
func TestDBCopyToPostgresAndBack(t *testing.T) {
	dsn := storagetest.PostgresDSN(t)
	az := newFakeAzure(t)
	dir := t.TempDir()
	cfg := writeConfig(t, dir, az.URL)
	for i, step := range [][2]string{{}, {`"retailPrice": 6.98,`, `"retailPrice": 6.5,`}, {`"unitPrice": 6.98,`, `"unitPrice": 6.5,`}} {
		if step[0] != "" {
			az.setPrice(t, "2", step[0], step[1])
		}
		if out, errOut, code := runCLI(t, "--config", cfg, "fetch"); code != 0 {
			t.Fatalf("fetch %d exited %d: %s%s", i, code, out, errOut)
		}
	}
	out, errOut, code := runCLI(t, "--config", cfg, "db", "copy", "--to", dsn)
	if code != 0 {
		t.Fatalf("db copy exited %d: %s%s", code, out, errOut)
	}
	if !strings.Contains(out, "prices ") || !strings.Contains(errOut, "verified prices:") {
		t.Errorf("db copy output:\n%s\nprogress:\n%s", out, errOut)
	}
	pgCfg := withDatabase(t, cfg, "url: "+dsn)
	commands := [][]string{
		{"compare", "--gpu", "A100", "--now", "2026-12-01T00:00:00Z"},
		{"history", "Standard_ND96amsr_A100_v4", "--since", "all"},
		{"history", "Standard_ND96amsr_A100_v4", "--format", "json"},
		{"runs"},
		{"db", "stats", "--format", "json"},
	}
	same := func(a, b string) {
		t.Helper()
		for _, args := range commands {
			outA, errA, codeA := runCLI(t, append([]string{"--config", a}, args...)...)
			outB, errB, codeB := runCLI(t, append([]string{"--config", b}, args...)...)
			if args[0] == "db" {
				// Sizes differ by backend; the counts must not.
				outA, outB = statsCounts(t, outA), statsCounts(t, outB)
			}
			if codeA != 0 || codeB != 0 || outA != outB {
				t.Errorf("%v differs between backends (exit %d, %d):\n%s%s\n---\n%s%s", args, codeA, codeB, outA, errA, outB, errB)
			}
		}
	}
	same(cfg, pgCfg)

	// Again into the same schema: everything is there already.
	out, errOut, code = runCLI(t, "--config", cfg, "db", "copy", "--to", dsn)
	if code != 0 || strings.Contains(out, "copied now)") && !strings.Contains(out, "(0 copied now)") {
		t.Errorf("second db copy exited %d:\n%s%s", code, out, errOut)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(line, "prices ") && !strings.Contains(line, "(0 copied now)") {
			t.Errorf("second copy copied prices again: %s", line)
		}
	}

	// The reverse: PostgreSQL to a new SQLite file, for a backup.
	backup := filepath.Join(t.TempDir(), "backup.db")
	if out, errOut, code := runCLI(t, "--config", pgCfg, "db", "copy", "--to", backup); code != 0 {
		t.Fatalf("db copy back exited %d: %s%s", code, out, errOut)
	}
	same(pgCfg, withDatabase(t, cfg, "path: "+backup))
}

// withDatabase writes a copy of config file cfg whose database section's
// path line is replaced by line.
func withDatabase(t *testing.T, cfg, line string) string {
	t.Helper()
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "  path: ") {
			lines[i] = "  " + line
			break
		}
	}
	path := filepath.Join(t.TempDir(), "pricewatch.yaml")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// statsCounts keeps the lines of `db stats --format json` that count rows
// and intervals, dropping sizes and the path.
func statsCounts(t *testing.T, out string) string {
	t.Helper()
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		for _, k := range []string{`"rows"`, `"name"`, `"price_intervals"`, `"current_prices"`, `"offers"`, `"availability_intervals"`, `"runs"`, `"oldest_`, `"newest_`} {
			if strings.Contains(l, k) {
				keep = append(keep, strings.TrimSpace(l))
			}
		}
	}
	return strings.Join(keep, "\n")
}
