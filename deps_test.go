package pricewatch_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/pricewatch/pricewatch"

// alibabaSDK and aliyunSDK are the module path prefixes of Alibaba
// Cloud's SDK, which only fetchers/alibaba needs; azureSDK is the Azure
// SDK's (azidentity, azcore, MSAL), which only fetchers/azure needs.
const (
	alibabaSDK = "github.com/alibabacloud-go"
	aliyunSDK  = "github.com/aliyun"
	azureSDK   = "github.com/Azure"
	// slackSDK and chartLib are what only the Slack renderer and the
	// digest's chart need.
	slackSDK = "github.com/slack-go"
	chartLib = "golang.org/x/image"
)

// TestDependencyRules holds the seams in place: consumers declare the
// interfaces they use instead of importing the concrete packages behind
// them. Each rule is checked on the package's whole dependency graph (go
// list -deps), so an indirect import breaks it too; test files are not
// counted (a test may use a real database).
func TestDependencyRules(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	rules := []struct {
		pkg       string
		forbidden []string
		why       string
	}{
		{"alerting", []string{"storage", "config", "fetchers"}, "the dispatcher declares its Outbox and Clock, the rules take RulesConfig; alerting/outboxstore and cmd join them; back-off and sleep come from retry"},
		// Issue 21 item 5: what only names a cloud reads package clouds'
		// table; the fetchers, their SDKs and the config
		// (which decodes into the fetchers' sections) stay with the
		// composition.
		{"alerting/slack", []string{"storage", "config", "fetchers", "providers", alibabaSDK, aliyunSDK, azureSDK}, "a notifier renders the outbox document it is given; secrets arrive as strings; clouds are named from package clouds"},
		{"alerting/webhook", []string{"storage", "config", "fetchers"}, "a notifier renders the outbox document it is given"},
		{"alerting/digest", []string{"storage", "config", "fetchers", "providers"}, "the digest's renderers read analysis/digest's data"},
		{"analysis", []string{"storage", "config", "fetchers", "providers"}, "the comparisons read offers and name marketplaces from package clouds"},
		{"analysis/digest", []string{"storage", "config", "alerting"}, "the digest's computation reads the domain's rows (pricewatch.Run, AvailabilityInterval), which report reads from storage"},
		{"guard", []string{"config", "fetchers", "providers", alibabaSDK, aliyunSDK, azureSDK}, "the guard takes guard.Config from the composition"},
		{"hardware", []string{"config", "fetchers", "providers", alibabaSDK, aliyunSDK, azureSDK}, "the overrides arrive as hardware.Override values"},
		{"report", []string{"config", "fetchers", "providers", alibabaSDK, aliyunSDK, azureSDK, slackSDK, chartLib}, "the reports take report.FX from the composition, name clouds from package clouds and are handed the alert summary"},
		{"web", []string{"config", "fetchers", "providers", alibabaSDK, aliyunSDK, azureSDK, slackSDK, chartLib}, "the server is handed the running fx settings and the alert summary, not the config or the renderers"},
		// Issue 32 item 2: the daemon runs on a snapshot of plain settings
		// and built services; the composition reads the config and builds
		// the fetchers.
		{"daemon/...", []string{"config", "providers", "fetchers/", alibabaSDK, aliyunSDK, azureSDK}, "daemon.Snapshot carries plain settings and built services, composed by compose"},
		{"fx", []string{"fetchers"}, "fx declares the Doer it uses"},
	}
	for _, r := range rules {
		deps := goList(t, "-deps", "-f", "{{.ImportPath}}", "./"+r.pkg)
		for _, f := range r.forbidden {
			if !strings.Contains(f, ".") { // a folder of this module
				f = module + "/" + f
			}
			// "fetchers/" forbids the packages under fetchers, not
			// fetchers itself.
			under, _ := strings.CutSuffix(f, "/")
			for _, d := range deps {
				if !strings.HasSuffix(f, "/") && d == f || strings.HasPrefix(d, under+"/") {
					t.Errorf("%s depends on %s (%s)", r.pkg, d, r.why)
				}
			}
		}
	}
	// The one-of-each helpers are leaves: anything may use them, because
	// they use nothing of pricewatch.
	for _, leaf := range []string{"retry", "secret", "origin", "buildinfo"} {
		for _, d := range goList(t, "-deps", "-f", "{{.ImportPath}}", "./"+leaf) {
			if strings.HasPrefix(d, module) && d != module+"/"+leaf {
				t.Errorf("%s depends on %s: a shared helper must be a leaf", leaf, d)
			}
		}
	}
	// The clouds' table is a leaf above the domain types: anything may
	// name a cloud without linking more of pricewatch.
	for _, d := range goList(t, "-deps", "-f", "{{.ImportPath}}", "./clouds") {
		if strings.HasPrefix(d, module) && d != module && d != module+"/clouds" {
			t.Errorf("clouds depends on %s: the table of the clouds must import only the domain types", d)
		}
	}
	// Nothing outside cmd/ imports the binary's packages: shared code lives
	// in packages of its own (cmd/internal holds what only the binary's
	// commands share).
	for _, line := range goList(t, "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...") {
		fields := strings.Fields(line)
		if strings.HasPrefix(fields[0], module+"/cmd/") {
			continue
		}
		for _, imp := range fields[1:] {
			if strings.HasPrefix(imp, module+"/cmd/") {
				t.Errorf("%s imports %s: no package outside cmd/ may import cmd", fields[0], imp)
			}
		}
	}
}

func goList(t *testing.T, args ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("go list %v: %v\n%s", args, err, stderr)
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		t.Fatalf("go list %v listed nothing", args)
	}
	return lines
}

// TestLayout holds the run's home in place. Issue 21 items 1-3: one
// provider run (run) and the daemon (daemon) are packages of their own,
// which the binary calls; the config is composed into the packages' types
// in one place (compose), and the binary keeps only the command line.
func TestLayout(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	// run and daemon exist, and import neither the binary nor their own
	// callers: run is called by the daemon and composed by compose, the
	// daemon is composed by compose and called by cmd.
	callers := map[string][]string{
		"run":    {"cmd", "daemon", "compose"},
		"daemon": {"cmd", "compose"},
	}
	for pkg, forbidden := range callers {
		deps := goList(t, "-deps", "-f", "{{.ImportPath}}", "./"+pkg)
		if !slices.Contains(deps, module+"/"+pkg) {
			t.Errorf("package %s does not exist", pkg)
		}
		for _, d := range deps {
			for _, f := range forbidden {
				if d == module+"/"+f || strings.HasPrefix(d, module+"/"+f+"/") {
					t.Errorf("%s depends on %s, one of its callers", pkg, d)
				}
			}
		}
	}
	// Only the composition points import a cloud's fetcher package: the
	// provider registry and compose (the base package fetchers, with the
	// Fetcher interface and the HTTP client, is for everyone).
	for _, line := range goList(t, "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...") {
		fields := strings.Fields(line)
		pkg := fields[0]
		if pkg == module+"/providers" || pkg == module+"/compose" || strings.HasPrefix(pkg, module+"/fetchers/") {
			continue
		}
		for _, imp := range fields[1:] {
			if strings.HasPrefix(imp, module+"/fetchers/") {
				t.Errorf("%s imports %s: only providers and compose build fetchers", pkg, imp)
			}
		}
	}
	// The binary's own code is the command line: at most 4,000 lines.
	files := goList(t, "-f", `{{range .GoFiles}}{{$.Dir}}/{{.}}{{"\n"}}{{end}}`, "./cmd/pricewatch")
	lines := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines += bytes.Count(b, []byte("\n"))
	}
	if lines > 4000 {
		t.Errorf("cmd/pricewatch has %d lines of non-test code in %d files, want at most 4,000: move what is not the command line into a package", lines, len(files))
	}
}
