package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch/hardware"
)

// A size Azure prices but pricewatch does not know is stored anyway, the
// fetch line counts it, `hardware unknown` lists it with the override that
// fixes it, and with that override in the config the next run stores the
// right GPU.
func TestUnknownHardwareVisibleAndFixable(t *testing.T) {
	fake := newFakeAzure(t)
	for _, p := range []string{"1", "2"} {
		if strings.Contains(string(fake.pages[p]), `"Standard_NC40ads_H100_v5"`) {
			// A new series: the name says nothing the fetcher knows.
			fake.setPrice(t, p, `"Standard_NC40ads_H100_v5"`, `"Standard_NC40ads_Z9_v7"`)
		}
	}
	dir := t.TempDir()
	cfg := writeConfig(t, dir, fake.URL)
	out, errOut, code := runCLI(t, "--config", cfg, "fetch")
	if code != 0 {
		t.Fatalf("fetch exited %d: %s", code, errOut)
	}
	if !strings.Contains(out, "; 1 type(s) with unknown GPU hardware (pricewatch hardware unknown)") {
		t.Errorf("fetch line does not count the unknown type:\n%s", out)
	}
	if rows := history(t, cfg, "Standard_NC40ads_Z9_v7"); len(rows) == 0 {
		t.Fatal("the unknown size's prices were not stored")
	}

	out, errOut, code = runCLI(t, "--config", cfg, "hardware", "unknown", "--format", "json")
	if code != 0 {
		t.Fatalf("hardware unknown exited %d: %s", code, errOut)
	}
	var entries []hardware.Entry
	if err := json.Unmarshal([]byte(out), &entries); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	checkRowKeys(t, out, "provider", "instance_type", "gpu_model", "gpu_count", "gpu_memory_gb", "regions", "problem", "override")
	if len(entries) != 1 || entries[0].Provider != "azure" || entries[0].InstanceType != "Standard_NC40ads_Z9_v7" ||
		entries[0].Problem != "no GPU model" || entries[0].Regions != 1 ||
		!strings.HasPrefix(entries[0].Override, "- instance_type: Standard_NC40ads_Z9_v7\n") {
		t.Fatalf("entries %+v", entries)
	}
	table, _, _ := runCLI(t, "--config", cfg, "hardware", "unknown")
	checkContains(t, "table", table, "Standard_NC40ads_Z9_v7", "no GPU model", "hardware:\n  overrides:\n    - instance_type: Standard_NC40ads_Z9_v7")
	csvOut, _, code := runCLI(t, "--config", cfg, "hardware", "unknown", "--format", "csv")
	if code != 0 || !strings.HasPrefix(csvOut, "provider,instance_type,gpu_model,gpu_count,gpu_memory_gb,regions,problem,override\n") {
		t.Errorf("csv:\n%s", csvOut)
	}

	// The user completes the suggested entry.
	cfg = writeConfig(t, dir, fake.URL, `hardware:
  overrides:
    - instance_type: "Standard_NC40ads_Z9_*"
      gpu_model: H100 NVL
      gpu_count: 1
      gpu_memory_gb: 94
`)
	out, errOut, code = runCLI(t, "--config", cfg, "fetch")
	if code != 0 {
		t.Fatalf("fetch with override exited %d: %s", code, errOut)
	}
	if strings.Contains(out, "unknown GPU hardware") {
		t.Errorf("fetch still counts unknown hardware:\n%s", out)
	}
	for _, r := range history(t, cfg, "Standard_NC40ads_Z9_v7") {
		if r.GPUModel != "H100-NVL" || r.GPUCount != 1 || r.GPUMemoryGB != 94 {
			t.Errorf("stored %s × %v, %v GB; want the override's H100-NVL × 1, 94 GB", r.GPUModel, r.GPUCount, r.GPUMemoryGB)
		}
	}
	out, _, _ = runCLI(t, "--config", cfg, "hardware", "unknown", "--format", "json")
	if strings.TrimSpace(out) != "[]" {
		t.Errorf("after the override: %s", out)
	}
}
