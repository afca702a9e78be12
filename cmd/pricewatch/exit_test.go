package main

import (
	"path/filepath"
	"testing"
)

// Each class of outcome has its own exit status (docs/commands.md "Exit codes").
func TestExitCodes(t *testing.T) {
	az := newFakeAzure(t)
	dir := t.TempDir()
	cfg := writeConfig(t, dir, az.URL)
	if _, errOut, code := runCLI(t, "--config", cfg, "fetch"); code != exitOK {
		t.Fatalf("fetch: %d %s", code, errOut)
	}
	// Two more configs on the same database: the same Azure fake and an
	// OCI that cannot be reached; and neither reachable.
	partial := filepath.Join(dir, "partial.yaml")
	writeFile(t, partial, testConfig{clouds: []cloud{azureCloud(az.URL, westus2), unreachableOCI}}.yaml(dir))
	// Issue 20 item 10: one provider failed and the other was skipped
	// (Lambda without a key): nothing stored anywhere is exit 1, not 3.
	t.Setenv("LAMBDA_API_KEY", "")
	failedAndSkipped := filepath.Join(dir, "failed-skipped.yaml")
	writeFile(t, failedAndSkipped, testConfig{clouds: []cloud{unreachableOCI, {name: "lambda"}}}.yaml(dir))
	down := filepath.Join(dir, "down.yaml")
	writeFile(t, down, testConfig{clouds: []cloud{azureCloud("http://127.0.0.1:1", westus2), unreachableOCI}}.yaml(dir))
	for _, c := range []struct {
		name string
		args []string
		want int
	}{
		{"success", []string{"history", "Standard_ND96amsr_A100_v4"}, exitOK},
		{"known type, empty filter", []string{"history", "Standard_ND96amsr_A100_v4", "--region", "nowhere-1", "--format", "json"}, exitOK},
		{"missing argument", []string{"history"}, exitUsage},
		{"extra argument", []string{"runs", "x"}, exitUsage},
		{"unknown flag", []string{"history", "x", "--bogus"}, exitUsage},
		{"unknown command", []string{"histroy"}, exitUsage},
		{"bad format", []string{"runs", "--format", "yaml"}, exitUsage},
		{"bad since", []string{"history", "Standard_ND96amsr_A100_v4", "--since", "3x"}, exitUsage},
		{"bad provider", []string{"fetch", "--provider", "nimbus"}, exitUsage},
		{"unknown type", []string{"history", "p5.48xlarg"}, exitNotFound},
		{"unknown GPU", []string{"compare", "--gpu", "B300"}, exitNotFound},
		// Issue 20 item 13: every bad flag value is a usage error (exit 2),
		// an unknown provider included; an unknown GPU is exit 4, as
		// compare says. Each of these exited 1 or 0 before.
		{"utilization above 1", []string{"savings", "Standard_ND96amsr_A100_v4", "--utilization", "1.5"}, exitUsage},
		{"recommend utilization above 1", []string{"recommend", "--gpu", "A100", "--utilization", "1.5"}, exitUsage},
		{"bad window", []string{"trends", "--window", "30x"}, exitUsage},
		{"zero count", []string{"recommend", "--gpu", "A100", "--count", "0"}, exitUsage},
		{"bad horizon", []string{"recommend", "--gpu", "A100", "--horizon", "3q"}, exitUsage},
		{"compare without gpu", []string{"compare"}, exitUsage},
		{"recommend without gpu", []string{"recommend"}, exitUsage},
		{"export unknown provider", []string{"export", "--provider", "awz"}, exitUsage},
		{"compare unknown provider", []string{"compare", "--gpu", "A100", "--provider", "awz"}, exitUsage},
		{"history unknown provider", []string{"history", "Standard_ND96amsr_A100_v4", "--provider", "awz"}, exitUsage},
		{"availability unknown provider", []string{"availability", "--provider", "awz"}, exitUsage},
		{"held unknown provider", []string{"held", "--provider", "awz"}, exitUsage},
		{"export unknown GPU", []string{"export", "--gpu", "FOO"}, exitNotFound},
		{"alerts list both filters", []string{"alerts", "list", "--pending", "--failed"}, exitUsage},
		{"partly failed fetch", []string{"--config", partial, "fetch"}, exitPartial},
		{"failed fetch", []string{"--config", down, "fetch"}, exitFailed},
		{"failed and skipped fetch", []string{"--config", failedAndSkipped, "fetch"}, exitFailed},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := c.args
			if args[0] != "--config" {
				args = append([]string{"--config", cfg}, args...)
			}
			out, errOut, code := runCLI(t, args...)
			if code != c.want {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, c.want, out, errOut)
			}
		})
	}
}
