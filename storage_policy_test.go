package pricewatch_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestStorageDecidesNoAlertPolicy holds the seam of the alert policy in
// place. Issue 21 item 4: which moves are large, what becomes of a waiting
// move and when a missing type is withdrawn are decided by package
// alerting's Policy; storage only persists its rulings (through the
// storage.MovePolicy it declares). So storage's non-test code must neither
// link the configuration or alerting nor hold the numbers and arithmetic of
// those decisions: no confirm percentage or withdraw count, no percentage
// arithmetic on prices, no threshold on a count of missed runs.
func TestStorageDecidesNoAlertPolicy(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	for _, d := range goList(t, "-deps", "-f", "{{.ImportPath}}", "./storage") {
		for _, f := range []string{"config", "alerting"} {
			if d == module+"/"+f || strings.HasPrefix(d, module+"/"+f+"/") {
				t.Errorf("storage depends on %s: it declares the MovePolicy it consumes instead", d)
			}
		}
	}

	paths, err := filepath.Glob(filepath.Join("storage", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	// Names that would carry a policy's number or decision into storage.
	banned := []string{"confirmchangepct", "withdrawafter", "confirmpct", "pct", "percent", "islarge", "threshold"}
	// Decimal arithmetic: storage compares and stores prices, it never
	// scales them (a percentage of a move is the policy's).
	arithmetic := map[string]bool{"Mul": true, "Div": true, "DivRound": true, "Abs": true, "Pow": true, "Shift": true, "NewFromInt": true, "NewFromFloat": true}
	fset := token.NewFileSet()
	parsed := 0
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		parsed++
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Ident:
				name := strings.ToLower(n.Name)
				for _, b := range banned {
					if strings.Contains(name, b) {
						t.Errorf("%s: storage names %s: the alert policy's numbers belong to package alerting", fset.Position(n.Pos()), n.Name)
						return true
					}
				}
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && arithmetic[sel.Sel.Name] {
					t.Errorf("%s: storage calls %s: percentage arithmetic on moves is the alert policy's", fset.Position(n.Pos()), sel.Sel.Name)
				}
			case *ast.BinaryExpr:
				switch n.Op {
				case token.MUL, token.QUO:
					if isLiteral(n.X, "100") || isLiteral(n.Y, "100") {
						t.Errorf("%s: storage computes a percentage", fset.Position(n.Pos()))
					}
				case token.GTR, token.GEQ, token.LSS, token.LEQ:
					// Whether a pair is missing now is a stored fact
					// (missing_runs > 0); how many misses withdraw it is the
					// policy's.
					if (mentionsMissed(n.X) && !isLiteral(n.Y, "0")) || (mentionsMissed(n.Y) && !isLiteral(n.X, "0")) {
						t.Errorf("%s: storage compares a count of missed runs with a threshold", fset.Position(n.Pos()))
					}
				}
			}
			return true
		})
	}
	if parsed == 0 {
		t.Fatal("no non-test source files in storage")
	}
}

func isLiteral(e ast.Expr, value string) bool {
	lit, ok := e.(*ast.BasicLit)
	return ok && (lit.Value == value || lit.Value == value+".0")
}

func mentionsMissed(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			name := strings.ToLower(id.Name)
			found = found || strings.Contains(name, "missing") || strings.Contains(name, "missed")
		}
		return !found
	})
	return found
}
