package pricewatch_test

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// floors orders the module's top-level folders from the bottom up: a
// package may import packages of its own folder and of folders on lower
// floors only, never of a folder on its own floor or above. "." is the
// module root (the domain types and money). A folder listed that does not
// exist (yet) is skipped; a folder that exists but is not listed fails
// the test, so that every new folder is given its place.
var floors = [][]string{
	// Leaves: the domain types, one-of-each helpers, the config's
	// building blocks.
	{".", "buildinfo", "gpu", "origin", "retry", "secret", "section", "systemd", "internal/table", "internal/golden", "internal/heappeak", "internal/cmalloc",
		// The tests' shared helpers (issue 32 item 4).
		"internal/testing"},
	// Small tables and services over the domain types.
	// The leader election (issue 24 item 3) owns the ha: section.
	{"clouds", "fx", "logging", "leader"},
	{"storage"},
	// What a run does to a snapshot, and the pure computations.
	{"fetchers", "analysis", "guard", "hardware"},
	{"alerting"},
	// The scale benchmark's simulated deployment, built through storage's
	// API with the alert policy (internal/ holds packages of several
	// floors, so each of its folders has its own).
	{"internal/scalegen"},
	// The load generator (issue 30 item 5) serves the simulated
	// deployment with the binary and sends it requests over HTTP only.
	{"internal/loadgen"},
	{"report"},
	// The FOCUS price sheet's rows and their validator, then the export's
	// sheets over storage's intervals.
	{"focus"},
	{"pricesheet"},
	{"web"},
	// The MCP server asks the API's handler; it imports no web.
	{"mcpserver"},
	// The --server client reads the API's rows and errors.
	{"apiclient"},
	// One provider run (issue 21 item 1): storage, the fetchers' base,
	// guard, hardware and the alert policy; never config or the
	// registry, which link every fetcher.
	{"run"},
	// The composition: the registry of fetchers, the config decoded into
	// their sections, and what turns the config into the packages' own
	// types (issue 21 item 3; named compose).
	{"providers"},
	{"config"},
	// The scheduler and HTTP server (issue 21 item 2), then the binary.
	{"daemon"},
	// compose builds the daemon's snapshots from a config.
	{"compose"},
	{"cmd"},
}

// Issue 21 (must show): no import runs back up between top-level folders.
// Each package's own imports are checked (test files may reach further: a
// test may use the real config or database).
func TestLayering(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	imports := map[string][]string{}
	for _, line := range goList(t, "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...") {
		fields := strings.Fields(line)
		imports[fields[0]] = fields[1:]
	}
	for _, v := range layerViolations(module, floors, imports) {
		t.Error(v)
	}
}

// layerViolations lists every import of a package of module that does not
// go down the floors, and every package whose folder has no floor.
func layerViolations(module string, floors [][]string, imports map[string][]string) []string {
	floor := map[string]int{}
	for i, fl := range floors {
		for _, f := range fl {
			floor[f] = i
		}
	}
	folder := func(pkg string) (string, bool) {
		if pkg == module {
			return ".", true
		}
		rest, ok := strings.CutPrefix(pkg, module+"/")
		if !ok {
			return "", false // not this module's
		}
		top, sub, _ := strings.Cut(rest, "/")
		if top == "internal" && sub != "" {
			// internal/ is a folder of independent helpers, each with
			// a floor of its own.
			sub, _, _ = strings.Cut(sub, "/")
			return top + "/" + sub, true
		}
		return top, true
	}
	var out []string
	pkgs := make([]string, 0, len(imports))
	for p := range imports {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	for _, p := range pkgs {
		from, ok := folder(p)
		if !ok {
			continue
		}
		fromFloor, ok := floor[from]
		if !ok {
			out = append(out, fmt.Sprintf("%s: folder %s has no floor in layering_test.go's floors", p, from))
			continue
		}
		for _, imp := range imports[p] {
			to, ok := folder(imp)
			if !ok || to == from {
				continue
			}
			toFloor, ok := floor[to]
			switch {
			case !ok:
				// Reported when the imported package itself is checked.
			case toFloor >= fromFloor:
				out = append(out, fmt.Sprintf("%s (%s, floor %d) imports %s (%s, floor %d): imports must go down the floors",
					p, from, fromFloor, imp, to, toFloor))
			}
		}
	}
	return out
}

// The check itself, on made-up import graphs: it catches an import up and
// one between folders of the same floor, keeps quiet about imports down,
// within a folder and of other modules, tolerates a listed folder that
// does not exist and names a folder without a floor.
func TestLayerViolations(t *testing.T) {
	const m = "example.com/m"
	fl := [][]string{{".", "leaf"}, {"storage"}, {"report"}, {"daemon"}, {"cmd"}}
	tests := []struct {
		name    string
		imports map[string][]string
		want    []string
	}{
		{"down, within a folder, other modules", map[string][]string{
			m + "/storage":           {m, m + "/leaf", "github.com/mattn/go-sqlite3"},
			m + "/report":            {m + "/storage", m + "/leaf"},
			m + "/report/sub":        {m + "/report", m + "/storage"},
			m + "/cmd/pricewatch":    {m + "/report", m + "/cmd/internal/text"},
			m + "/cmd/internal/text": {m + "/report"},
		}, nil},
		{"an import up (daemon is listed but does not exist)", map[string][]string{
			m + "/storage": {m + "/report"},
			m + "/report":  {m + "/storage"},
		}, []string{m + "/storage (storage, floor 1) imports " + m + "/report (report, floor 2): imports must go down the floors"}},
		{"the root importing a folder", map[string][]string{
			m:           {m + "/leaf"},
			m + "/leaf": nil,
		}, []string{m + " (., floor 0) imports " + m + "/leaf (leaf, floor 0): imports must go down the floors"}},
		{"a folder without a floor", map[string][]string{
			m + "/extra/x": {m + "/leaf"},
			m + "/report":  {m + "/extra/x"},
		}, []string{m + "/extra/x: folder extra has no floor in layering_test.go's floors"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := layerViolations(m, fl, tt.imports)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// Issue 32 (must show): the binary's tests are about the binary. Packages
// whose tests live beside them are reached through the CLI, the daemon's
// HTTP answers or the binary's own functions, never imported by a test of
// cmd/pricewatch.
var binaryTestsMayNotImport = []string{module + "/daemon/metrics", module + "/run"}

func TestLayeringOfBinaryTests(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	lines := goList(t, "-f", `{{join .TestImports " "}} {{join .XTestImports " "}}`, "./cmd/pricewatch")
	imports := strings.Fields(strings.Join(lines, " "))
	if !slices.Contains(imports, "testing") {
		t.Fatalf("go list named no test imports of cmd/pricewatch: %q", lines)
	}
	for _, p := range binaryTestsMayNotImport {
		if slices.Contains(imports, p) {
			t.Errorf("a test of cmd/pricewatch imports %s: test it beside its code, or through the binary", p)
		}
	}
}
