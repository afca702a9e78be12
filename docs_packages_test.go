package pricewatch_test

import (
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// optionalInPackageTable are packages the architecture's table may leave
// out: test support (…test, internal/testing/…), which serves tests only.
func optionalInPackageTable(p string) bool {
	return strings.HasSuffix(p, "test") || strings.HasPrefix(p, "internal/testing")
}

// tableNames reads the first column of docs/architecture.md's package
// table: each `name` in backticks, "(root)" naming ".". A bare name after
// a name with a folder is that folder's sibling ("`fetchers/aws`,
// `azure`" names fetchers/azure).
func tableNames(md string) []string {
	start := strings.Index(md, "| package | holds |")
	if start < 0 {
		return nil
	}
	tick := regexp.MustCompile("`([^`]+)`")
	var out []string
	for _, line := range strings.Split(md[start:], "\n")[2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		cell := strings.Split(line, "|")[1]
		parent := ""
		for _, m := range tick.FindAllStringSubmatch(cell, -1) {
			name := m[1]
			switch {
			case name == "pricewatch" && strings.Contains(cell, "(root)"):
				name = "."
			case strings.Contains(name, "/"):
				parent = path.Dir(name)
			case parent != "":
				name = parent + "/" + name
			}
			out = append(out, name)
		}
	}
	return out
}

// Issue 32 item 5: docs/architecture.md's package table names every
// package `go list` finds (test support may be left out), and nothing
// that is neither a package nor a folder.
func TestDocsPackageTableMatchesGoList(t *testing.T) {
	md, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	named := tableNames(string(md))
	if len(named) < 10 {
		t.Fatalf("the package table names %d packages: %q", len(named), named)
	}
	var pkgs []string
	for _, p := range goList(t, "./...") {
		p = strings.TrimPrefix(strings.TrimPrefix(p, module), "/")
		if p == "" {
			p = "."
		}
		pkgs = append(pkgs, p)
	}
	for _, p := range pkgs {
		if !optionalInPackageTable(p) && !slices.Contains(named, p) {
			t.Errorf("package %s is not in docs/architecture.md's package table", p)
		}
	}
	for _, n := range named {
		if slices.Contains(pkgs, n) {
			continue
		}
		if fi, err := os.Stat(n); err != nil || !fi.IsDir() {
			t.Errorf("docs/architecture.md's package table names %s, which is neither a package nor a folder", n)
		}
	}
}

func TestTableNames(t *testing.T) {
	md := "| package | holds |\n|---|---|\n| `pricewatch` (root) | x |\n| `fetchers/aws`, `azure` | y |\n| `a`, `a/b` | z |\n\nafter\n| `not` | row |\n"
	want := []string{".", "fetchers/aws", "fetchers/azure", "a", "a/b"}
	if got := tableNames(md); !slices.Equal(got, want) {
		t.Errorf("tableNames = %q, want %q", got, want)
	}
}
