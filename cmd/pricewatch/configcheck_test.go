package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch/internal/golden"
)

// `config check` on the example config exits 0 and prints the config in
// effect, secrets masked.
func TestConfigCheckExample(t *testing.T) {
	t.Setenv("CREDENTIALS_DIRECTORY", "")
	t.Setenv(envSlackToken, "")
	example, err := filepath.Abs("../../config.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "config", "check", example)
	if code != exitOK || errOut != "" {
		t.Fatalf("config check %s: exit %d, stderr %q", example, code, errOut)
	}
	for _, want := range []string{"# " + example + ": valid", "\ndatabase:\n  path: ", "  busy_timeout: 5s\n", "changes_max_age: 90d\n", "lease_wait: 1m\n", "schedule: 0 9 * * 1\n", "  aws:\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// A secret set inline is printed masked; a secret file's contents never.
func TestConfigCheckMasksSecrets(t *testing.T) {
	t.Setenv("CREDENTIALS_DIRECTORY", "")
	t.Setenv(envSlackToken, "")
	dir := t.TempDir()
	token := filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte("tok-filesecret-123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "pw.yaml")
	body := "slack:\n  channel: C0GPUALERTS\n  token_file: " + token + "\nwebhook:\n  url: https://hooks.example/inline-secret-456\n"
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "--config", cfg, "config", "check")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(out, "inline-secret-456") || strings.Contains(out, "filesecret") {
		t.Errorf("a secret is printed:\n%s", out)
	}
	if !strings.Contains(out, "  url: <secret>\n") || !strings.Contains(out, "# "+cfg+" (from --config): valid") {
		t.Errorf("want the webhook URL masked and the file named:\n%s", out)
	}
}

// Each broken config exits 1 and names the key and its line
// (testdata/configcheck/NAME.stderr is the whole of stderr).
func TestConfigCheckBroken(t *testing.T) {
	t.Setenv("CREDENTIALS_DIRECTORY", "")
	t.Setenv(envSlackToken, "")
	dir, err := filepath.Abs("testdata/configcheck")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) < 10 {
		t.Fatalf("want at least 10 broken configs, have %d (%v)", len(files), err)
	}
	t.Chdir(dir) // file names in the messages, relative and the same everywhere
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		t.Run(name, func(t *testing.T) {
			out, errOut, code := runCLI(t, "config", "check", name+".yaml")
			if code != exitFailed || out != "" {
				t.Errorf("exit %d (want 1), stdout %q", code, out)
			}
			if !strings.Contains(errOut, name+".yaml:line ") {
				t.Errorf("stderr names no line of %s.yaml: %q", name, errOut)
			}
			golden.Check(t, filepath.Join(dir, name+".stderr"), []byte(errOut))
		})
	}
}

// A subcommand a group does not have is a usage error, as a top-level
// typo is.
func TestUnknownSubcommand(t *testing.T) {
	for _, args := range [][]string{{"config", "nosuch"}, {"db", "nosuch"}, {"alerts", "nosuch"}, {"fx", "nosuch"}, {"hardware", "nosuch"}} {
		out, errOut, code := runCLI(t, append([]string{"--config", writeConfig(t, t.TempDir(), "http://127.0.0.1:1")}, args...)...)
		if code != exitUsage || out != "" || !strings.Contains(errOut, `unknown command "nosuch" for "pricewatch `+args[0]+`"`) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
	// The group alone still shows its help.
	if out, _, code := runCLI(t, "--config", writeConfig(t, t.TempDir(), "http://127.0.0.1:1"), "config"); code != exitOK || !strings.Contains(out, "check") {
		t.Errorf("config: exit %d, %q", code, out)
	}
}
