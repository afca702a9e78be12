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
		{"partly failed fetch", []string{"--config", partial, "fetch"}, exitPartial},
		{"failed fetch", []string{"--config", down, "fetch"}, exitFailed},
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
