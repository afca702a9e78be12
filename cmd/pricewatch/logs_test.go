package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch/report"
)

// The CLI's stderr carries warnings and errors only, as plain text; a
// failed provider is reported once (its summary); -v adds info lines and
// --quiet keeps only errors; fetch prints its summary as JSON on request.
func TestFetchLogsAndSummaryFormats(t *testing.T) {
	az := newFakeAzure(t)
	// No log.level, so that the CLI's own default shows; an OCI that
	// cannot be reached.
	cfg := testConfig{noLogLevel: true, clouds: []cloud{azureCloud(az.URL, westus2), unreachableOCI}}.write(t, t.TempDir())

	out, errOut, code := runCLI(t, "--config", cfg, "fetch")
	if code != exitPartial {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	if strings.Contains(errOut, "{") || strings.Contains(errOut, "caller") || strings.Contains(errOut, "fetch started") {
		t.Errorf("stderr should hold no JSON and no info lines:\n%s", errOut)
	}
	if n := strings.Count(out+errOut, "connection refused"); n != 1 {
		t.Errorf("the OCI failure is reported %d times, want once:\n%s\n%s", n, out, errOut)
	}

	_, errOut, code = runCLI(t, "--config", cfg, "fetch", "-v", "--provider", "azure")
	if code != exitOK || !strings.Contains(errOut, "pricewatch: info: fetch stored (") || strings.Contains(errOut, "{") {
		t.Errorf("-v: exit %d, stderr %q", code, errOut)
	}
	_, errOut, _ = runCLI(t, "--config", cfg, "fetch", "--log-level", "debug", "--provider", "azure")
	if !strings.Contains(errOut, "pricewatch: info:") {
		t.Errorf("--log-level debug: stderr %q", errOut)
	}
	if _, _, code := runCLI(t, "--config", cfg, "fetch", "--log-level", "loud"); code != exitUsage {
		t.Errorf("--log-level loud: exit %d, want %d", code, exitUsage)
	}

	out, errOut, code = runCLI(t, "--config", cfg, "fetch", "--quiet", "--format", "json")
	if code != exitPartial {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("fetch --format json: %v\n%s", err, out)
	}
	if len(rows) != 2 || rows[0]["provider"] != "azure" || rows[0]["status"] != "ok" || rows[0]["error"] != nil ||
		rows[1]["provider"] != "oci" || rows[1]["status"] != "failed" || rows[1]["error"] == nil {
		t.Errorf("fetch JSON: %v", rows)
	}
	known := map[string]bool{}
	for _, f := range report.Vocabulary {
		known[f.Name] = true
	}
	for k := range rows[0] {
		if !known[k] {
			t.Errorf("fetch JSON key %q is not in report.Vocabulary", k)
		}
	}
}
