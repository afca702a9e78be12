package providers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// module is the import path this repository's packages live under.
const module = "github.com/pricewatch/pricewatch/"

// Issue 32: every registered provider's package runs the fetcher
// conformance suite (fetcherstest.Conformance) in its tests. The
// registry's entries are read from providers.go (pkg.Provider, in
// Names' order), each package's tests from its folder.
func TestEveryProviderRunsConformance(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "providers.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	imports := map[string]string{} // local name → import path
	for _, im := range f.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		imports[name] = path
	}
	var pkgs []string
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "registry" || len(vs.Values) != 1 {
			return true
		}
		for _, e := range vs.Values[0].(*ast.CompositeLit).Elts {
			sel, ok := e.(*ast.SelectorExpr)
			id, isIdent := sel.X.(*ast.Ident)
			if !ok || !isIdent || sel.Sel.Name != "Provider" {
				t.Fatalf("registry entry %s: want pkg.Provider", pos(fset, e))
			}
			pkgs = append(pkgs, imports[id.Name])
		}
		return false
	})
	names := Names()
	if len(pkgs) != len(names) {
		t.Fatalf("read %d registry entries from providers.go, Names() has %d", len(pkgs), len(names))
	}
	for i, name := range names {
		dir := filepath.Join("..", strings.TrimPrefix(pkgs[i], module))
		if !runsConformance(t, dir) {
			t.Errorf("provider %s is registered but no test in %s runs fetcherstest.Conformance: fill in its case (docs/testing.md)", name, dir)
		}
	}
}

// runsConformance reports whether a _test.go file in dir calls
// fetcherstest.Conformance.
func runsConformance(t *testing.T, dir string) bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return !found
			}
			fun := call.Fun
			if ix, ok := fun.(*ast.IndexExpr); ok { // Conformance[F](…)
				fun = ix.X
			}
			if sel, ok := fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Conformance" {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "fetcherstest" {
					found = true
				}
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

func pos(fset *token.FileSet, n ast.Node) string { return fset.Position(n.Pos()).String() }
