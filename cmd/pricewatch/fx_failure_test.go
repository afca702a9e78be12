package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 20 item 10: a failed exchange-rate update was printed twice (a
// warning and the fx line) and said "stored rates still apply" on a
// database that had none. It is said once, with what the reports fall
// back on.
func TestFXFailureSaidOnceAndTruly(t *testing.T) {
	az := newFakeAzure(t)
	dir := t.TempDir()
	yaml := testConfig{clouds: []cloud{azureCloud(az.URL, westus2)}, logLevel: "warn"}.yaml(dir)
	yaml = strings.Replace(yaml, "fx:\n  enabled: false\n", "fx:\n  enabled: true\n  endpoint: http://127.0.0.1:1/eurofxref-daily.xml\n", 1)
	cfg := filepath.Join(dir, "pricewatch.yaml")
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "--config", cfg, "fetch")
	if code != exitOK {
		t.Fatalf("fetch exited %d: %s %s", code, out, errOut)
	}
	if n := strings.Count(out+errOut, "eurofxref-daily.xml"); n != 1 {
		t.Errorf("the fx failure is reported %d times, want once:\nstdout: %s\nstderr: %s", n, out, errOut)
	}
	if strings.Contains(out, "stored rates still apply") || strings.Contains(out, "rates stored earlier") || !strings.Contains(out, "no rates are stored yet") {
		t.Errorf("fx line does not say that no rates are stored:\n%s", out)
	}
}
