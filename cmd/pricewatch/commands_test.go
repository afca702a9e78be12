package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// Commands are registered in one place (commands.go), never by init()
// appending to a global: the list a reader sees is the list that runs.
func TestCommandsRegisteredInOnePlace(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
				t.Errorf("func init at %s: register commands in commands.go", fset.Position(fn.Pos()))
			}
		}
	}
	a := newApp(io.Discard, io.Discard)
	root := a.rootCommand()
	listed := map[string]bool{}
	for _, c := range a.commands() {
		if listed[c.Name()] {
			t.Errorf("%s listed twice", c.Name())
		}
		listed[c.Name()] = true
	}
	for _, c := range root.Commands() {
		if !listed[c.Name()] && c.Name() != "help" && c.Name() != "completion" {
			t.Errorf("root command %q is not in commands()", c.Name())
		}
	}
}
