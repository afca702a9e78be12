package azure

import (
	"strings"
	"testing"
)

// TestGPUTable guards the hand-kept hardware table against typos: a wrong
// count or memory silently corrupts every per-GPU price.
func TestGPUTable(t *testing.T) {
	models := map[string]bool{"H100": true, "H100-NVL": true, "H200": true, "GB200": true, "MI300X": true,
		"A100-40GB": true, "A100-80GB": true, "T4": true, "V100": true, "V100-32GB": true, "A10": true}
	seen := map[string]bool{}
	for _, s := range gpuSKUs {
		t.Run(s.name, func(t *testing.T) {
			if seen[strings.ToLower(s.name)] {
				t.Error("listed twice")
			}
			seen[strings.ToLower(s.name)] = true
			if !isGPUFamily(s.name) {
				t.Error("not an NC/ND/NV name: the server filter would never return it")
			}
			if !models[s.hw.GPUModel] {
				t.Errorf("GPU model %q is not one of the normalised names", s.hw.GPUModel)
			}
			if s.hw.GPUCount <= 0 || s.hw.GPUMemoryGB <= 0 || s.hw.VCPUs <= 0 || s.hw.MemoryGB <= 0 {
				t.Errorf("hardware %+v has a zero field", s.hw)
			}
			if s.hw.GPUCount > 8 || s.hw.GPUMemoryGB > 192 {
				t.Errorf("hardware %+v: count above 8 or memory above 192 GB per GPU; memory is per GPU", s.hw)
			}
			if s.source == "" {
				t.Error("no source")
			}
			got, ok := lookupSKU(strings.ToUpper(s.name))
			if !ok || got.name != s.name {
				t.Errorf("case-insensitive lookup returned %q %t", got.name, ok)
			}
		})
	}
	for _, name := range []string{"Standard_ND96isr_H100_v5", "Standard_ND96isr_H200_v5", "Standard_ND96isr_MI300X_v5",
		"Standard_ND96asr_v4", "Standard_ND96amsr_A100_v4", "Standard_NC24ads_A100_v4", "Standard_NC40ads_H100_v5",
		"Standard_NC80adis_H100_v5", "Standard_NC4as_T4_v3", "Standard_NC64as_T4_v3", "Standard_NC6s_v3", "Standard_NC24rs_v3",
		"Standard_ND40rs_v2", "Standard_NV6ads_A10_v5", "Standard_NV72ads_A10_v5"} {
		if _, ok := lookupSKU(name); !ok {
			t.Errorf("%s missing from the table", name)
		}
	}
	if _, ok := lookupSKU("Standard_D8_v4"); ok {
		t.Error("a non-GPU size is in the table")
	}
}
