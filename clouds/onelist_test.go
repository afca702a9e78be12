package clouds

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The table is the only list of the clouds. Outside it, the clouds' own
// packages (fetchers/) and tests, no Go file spells more than one cloud's
// name (as a string or as the pricewatch.AWS-style constants), and no file
// but the registry (package providers, which composes the fetchers in the
// table's order) imports more than one cloud's fetcher package.
//
// Issue 21 item 5: the table moved here from package providers; the
// constants are checked too, which caught cmd's FOCUS provider names and
// analysis's marketplace names, two per-cloud lists kept beside it.
func TestNothingElseListsTheProviders(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	out, err := exec.Command("git", "-C", "..", "ls-files", "*.go").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	names := Names()
	consts := cloudConstants(t, names)
	fset := token.NewFileSet()
	for _, file := range strings.Fields(string(out)) {
		if strings.HasSuffix(file, "_test.go") || strings.HasPrefix(file, "fetchers/") || strings.HasPrefix(file, "clouds/") {
			continue
		}
		f, err := parser.ParseFile(fset, "../"+file, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		var imported []string
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if n, ok := strings.CutPrefix(p, "github.com/pricewatch/pricewatch/fetchers/"); ok && slices.Contains(names, n) {
				imported = append(imported, n)
			}
		}
		if len(imported) > 1 && !strings.HasPrefix(file, "providers/") {
			t.Errorf("%s imports the fetchers of %s: ask package providers instead", file, strings.Join(imported, ", "))
		}
		spelled := map[string]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ImportSpec:
				return false
			case *ast.BasicLit:
				if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && slices.Contains(names, s) {
					spelled[s] = true
				}
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && x.Name == "pricewatch" && consts[n.Sel.Name] != "" {
					spelled[consts[n.Sel.Name]] = true
				}
			}
			return true
		})
		if len(spelled) > 1 && !slices.Contains(allowedNameLists, file) {
			listed := make([]string, 0, len(spelled))
			for n := range spelled {
				listed = append(listed, n)
			}
			sort.Strings(listed)
			t.Errorf("%s names the clouds %s: take what it needs from package clouds", file, strings.Join(listed, ", "))
		}
	}
}

// allowedNameLists are the files that may name several clouds, with the
// reason.
var allowedNameLists = []string{
	"offer.go",                              // the name constants the fetchers, storage and this table share
	"internal/scalegen/scalegen.go",         // generates a synthetic catalogue shaped like two clouds'
	"alerting/alertingtest/alertingtest.go", // fixture offers of two clouds for the alerting tests
	// The FOCUS rules of each cloud's prices (its FOCUS names and service,
	// how its price ids are derived, which of its prices are
	// subscriptions): knowledge only the price sheet uses, kept beside the
	// FOCUS column rules it serves (docs/focus.md).
	"focus/focus.go",
}

// cloudConstants maps the root package's constants whose value is a
// cloud's name (pricewatch.AWS, …) to that name.
func cloudConstants(t *testing.T, names []string) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../offer.go", nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, v := range vs.Values {
				lit, ok := v.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				if s, _ := strconv.Unquote(lit.Value); slices.Contains(names, s) {
					consts[vs.Names[i].Name] = s
				}
			}
		}
	}
	if len(consts) != len(names) {
		t.Fatalf("offer.go has constants for %d of the %d clouds: %v", len(consts), len(names), consts)
	}
	return consts
}
