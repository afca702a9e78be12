package azure

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch"
)

// Every GPU size in the real Retail Prices rows (two snapshots of the
// babajide-azure-prices series that together hold all nine sizes seen in
// 2025-03 … 2026-08) has its hardware, as the Microsoft Learn size pages
// give it: model, GPUs (a share for NVv4), memory per GPU or slice.
func TestRealAzureSizes(t *testing.T) {
	want := map[string]pricewatch.Hardware{
		// nca100v4-series: "NVIDIA A100 PCIe", 2 GPUs, 160 GB.
		"Standard_NC48ads_A100_v4": {GPUModel: "A100-80GB-PCIe", GPUCount: 2, GPUMemoryGB: 80},
		// ncast4v3-series: 4 × T4, 64 GB.
		"Standard_NC64as_T4_v3": {GPUModel: "T4", GPUCount: 4, GPUMemoryGB: 16},
		// ncadsh100v5-series: 2 × H100 NVL, 188 GB.
		"Standard_NC80adis_H100_v5": {GPUModel: "H100-NVL", GPUCount: 2, GPUMemoryGB: 94},
		// NDm A100 v4 without InfiniBand: 8 × A100 80 GB.
		"Standard_ND96ams_A100_v4": {GPUModel: "A100-80GB", GPUCount: 8, GPUMemoryGB: 80},
		// nd-h200-v5-series: 8 × H200 141 GB.
		"Standard_ND96isr_H200_v5": {GPUModel: "H200", GPUCount: 8, GPUMemoryGB: 141},
		// nvv4-series: 1/8 of an MI25, 2 GiB.
		"Standard_NV4as_v4": {GPUModel: "MI25", GPUCount: 0.125, GPUMemoryGB: 2},
		// nvadsa10v5-series: 2 × A10, 48 GB.
		"Standard_NV72ads_A10_v5": {GPUModel: "A10", GPUCount: 2, GPUMemoryGB: 24},
		// nc-rtxpro6000-bse-v6-series accelerator tab: 2 GPUs, 192 GB.
		"Standard_NC320ds_xl_RTXPRO6000BSE_v6":  {GPUModel: "RTX-PRO-6000", GPUCount: 2, GPUMemoryGB: 96},
		"Standard_NC320lds_xl_RTXPRO6000BSE_v6": {GPUModel: "RTX-PRO-6000", GPUCount: 2, GPUMemoryGB: 96},
	}
	files, _ := filepath.Glob("testdata/realrows/*.json")
	seen := map[string]bool{}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var items []struct {
			ArmSkuName string `json:"armSkuName"`
		}
		if err := json.Unmarshal(b, &items); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, it := range items {
			seen[it.ArmSkuName] = true
		}
	}
	for name := range seen {
		w, ok := want[name]
		if !ok {
			t.Errorf("%s: a real GPU size with no expectation", name)
			continue
		}
		s, ok := lookupSKU(name)
		if !ok {
			t.Errorf("%s: not in the hardware table", name)
			continue
		}
		if s.hw.GPUModel != w.GPUModel || math.Abs(s.hw.GPUCount-w.GPUCount) > 1e-9 || s.hw.GPUMemoryGB != w.GPUMemoryGB {
			t.Errorf("%s: %s × %v, %v GB; want %s × %v, %v GB", name, s.hw.GPUModel, s.hw.GPUCount, s.hw.GPUMemoryGB, w.GPUModel, w.GPUCount, w.GPUMemoryGB)
		}
	}
	if len(seen) != len(want) {
		t.Errorf("%d sizes in the real rows, %d expected", len(seen), len(want))
	}
	// The NG series (V620) is asked for: the prefix list feeds the filter.
	if !isGPUFamily("Standard_NG32ads_V620_v1") || !strings.Contains(filter(""), "startswith(armSkuName,'Standard_NG')") {
		t.Error("NG sizes are not part of the GPU filter")
	}
}
