package digest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Issue 21 item 6: one digest vocabulary. The renderers use analysis/
// digest's types and values under their own names; this package declares
// no alias, constant, variable or one-line wrapper that hands them out
// again (there were 22 aliases and 4 wrappers), so callers import the
// data package directly.
func TestNoReexports(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	const data = "github.com/pricewatch/pricewatch/analysis/digest"
	fset := token.NewFileSet()
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		local := "" // the data package's name in this file
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == data {
				local = "digest"
				if imp.Name != nil {
					local = imp.Name.Name
				}
			}
		}
		if local == "" {
			continue
		}
		fromData := func(x ast.Expr) bool {
			sel, ok := x.(*ast.SelectorExpr)
			if !ok {
				return false
			}
			id, ok := sel.X.(*ast.Ident)
			return ok && id.Name == local
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Assign.IsValid() && fromData(s.Type) {
							t.Errorf("%s: type %s re-exports analysis/digest's", fset.Position(s.Pos()), s.Name.Name)
						}
					case *ast.ValueSpec:
						for i, v := range s.Values {
							if fromData(v) && s.Names[i].IsExported() {
								t.Errorf("%s: %s re-exports analysis/digest's", fset.Position(s.Pos()), s.Names[i].Name)
							}
						}
					}
				}
			case *ast.FuncDecl:
				// A wrapper: one return of a call into the data package.
				if d.Recv != nil || !d.Name.IsExported() || d.Body == nil || len(d.Body.List) != 1 {
					continue
				}
				if r, ok := d.Body.List[0].(*ast.ReturnStmt); ok && len(r.Results) == 1 {
					if c, ok := r.Results[0].(*ast.CallExpr); ok && fromData(c.Fun) {
						t.Errorf("%s: %s only calls analysis/digest's", fset.Position(d.Pos()), d.Name.Name)
					}
				}
			}
		}
	}
}
