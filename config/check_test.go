package config

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The config in effect reads back as the same config: every key it
// prints is one Load knows, with a value Load takes.
func TestEffectiveRoundTrips(t *testing.T) {
	cfg := loadExample(t)
	first, err := cfg.Effective()
	if err != nil {
		t.Fatal(err)
	}
	again, err := Parse(bytes.NewReader(first), "effective.yaml")
	if err != nil {
		t.Fatalf("the effective config does not load: %v\n%s", err, first)
	}
	second, err := again.Effective()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, second) {
		t.Errorf("effective config changed on reload:\n%s\n---\n%s", first, second)
	}
}

// A disabled provider's secret files are not read; an enabled one's are,
// and a file that is there but empty is named with its key and line.
func TestCheckSecrets(t *testing.T) {
	t.Setenv("CREDENTIALS_DIRECTORY", "")
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	src := "providers:\n  lambda:\n    enabled: false\n    api_key_file: " + filepath.Join(dir, "gone") +
		"\n  runpod:\n    enabled: true\n    api_key_file: " + empty + "\n"
	// Load stats the enabled provider's file (there) and skips the disabled one's.
	cfg, err := Parse(strings.NewReader(src), "pw.yaml")
	if err != nil {
		t.Fatal(err)
	}
	err = cfg.CheckSecrets()
	if err == nil || err.Error() != "pw.yaml:line 7: providers.runpod.api_key_file: secret file "+empty+" is empty" {
		t.Errorf("CheckSecrets: %v", err)
	}
}
