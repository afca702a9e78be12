package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A read command on a database that does not exist fails, names the path
// and the way out, and creates nothing (no file, no -wal, no -shm).
func TestReadCommandOnMissingDatabase(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, dir, "http://127.0.0.1:1")
	db := filepath.Join(dir, "pw.db")
	for _, args := range [][]string{
		{"history", "p5.48xlarge"},
		{"availability"},
		{"compare", "--gpu", "H100"},
		{"savings", "p5.48xlarge"},
		{"trends"},
		{"runs"},
		{"alerts", "list"},
		{"held"},
		{"fx", "show"},
		{"hardware", "unknown"},
		{"export"},
		{"digest"},
	} {
		out, errOut, code := runCLI(t, append([]string{"--config", cfg}, args...)...)
		if code != exitFailed || out != "" {
			t.Errorf("%v: exit %d, stdout %q", args, code, out)
		}
		if !strings.Contains(errOut, db) || !strings.Contains(errOut, "pricewatch fetch") || !strings.Contains(errOut, "--config") {
			t.Errorf("%v: the error should name %s, fetch and --config: %q", args, db, errOut)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Name() != "pricewatch.yaml" {
				t.Errorf("%v created %s", args, e.Name())
			}
		}
	}
}

// `config path` says which file was found and how, and which database it
// names; a config in the user's config directory is found from anywhere.
func TestConfigPath(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("PRICEWATCH_CONFIG", "")
	t.Chdir(t.TempDir())
	userDir := filepath.Join(home, ".config", "pricewatch")
	if err := os.MkdirAll(userDir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, userDir, "http://127.0.0.1:1")
	out, errOut, code := runCLI(t, "config", "path", "--format", "json")
	if code != 0 {
		t.Fatalf("config path: %d %s", code, errOut)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got["config"] != cfg || got["config_source"] != "user config directory" || got["database"] != filepath.Join(userDir, "pw.db") || got["database_exists"] != false {
		t.Errorf("config path: %v", got)
	}
	out, _, _ = runCLI(t, "config", "path")
	if !strings.Contains(out, cfg+" (from user config directory)") || !strings.Contains(out, "not created yet") {
		t.Errorf("config path table: %q", out)
	}
}
