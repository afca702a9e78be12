package azure

import (
	"math"
	"strings"
	"testing"

	catalogue "github.com/pricewatch/pricewatch/gpu"
)

// TestGPUTable guards the hand-kept hardware table against typos: a wrong
// count or memory silently corrupts every per-GPU price.
func TestGPUTable(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range gpuSKUs {
		t.Run(s.name, func(t *testing.T) {
			if seen[strings.ToLower(s.name)] {
				t.Error("listed twice")
			}
			seen[strings.ToLower(s.name)] = true
			if !isGPUFamily(s.name) {
				t.Error("not an NC/ND/NG/NV name: the server filter would never return it")
			}
			if spec, ok := catalogue.Lookup(s.hw.GPUModel); !ok || spec.Model != s.hw.GPUModel {
				t.Errorf("GPU model %q is not a catalogue model", s.hw.GPUModel)
			} else if s.hw.GPUCount >= 1 && math.Abs(s.hw.GPUMemoryGB-spec.MemoryGB) > 0.05*spec.MemoryGB {
				t.Errorf("%v GB per GPU, the catalogue's %s has %v", s.hw.GPUMemoryGB, spec.Model, spec.MemoryGB)
			} else if s.hw.GPUCount < 1 && math.Abs(s.hw.GPUMemoryGB-spec.MemoryGB*s.hw.GPUCount) > 1e-9 {
				t.Errorf("a %v share with %v GB: the catalogue's %s has %v", s.hw.GPUCount, s.hw.GPUMemoryGB, spec.Model, spec.MemoryGB)
			}
			// RAM is 0 only where Microsoft does not document it.
			if s.hw.GPUCount <= 0 || s.hw.GPUMemoryGB <= 0 || s.hw.VCPUs <= 0 || (s.hw.MemoryGB <= 0 && !strings.Contains(s.source, "without InfiniBand")) {
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
