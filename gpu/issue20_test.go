package gpu

import "testing"

// Issue 20 item 8: variants with figures of their own resolve to their own
// rows, not to the SXM part the name starts with. "H200 NVL" resolved to
// the SXM H200 (989 dense TFLOPS, 700 W) and "H800 PCIe 80GB" to the SXM
// H800 before. The names are the clouds' own spellings: Vast.ai's gpu_name
// "H200 NVL", RunPod/NVIDIA's "NVIDIA H200 NVL", Alibaba-style "H800 PCIe 80GB".
func TestVariantsHaveTheirOwnRows(t *testing.T) {
	cases := []struct {
		name      string
		hint      Hint
		model     string
		memGB     float64
		denseBF16 float64
	}{
		{"NVIDIA H200 NVL", Hint{}, "H200-NVL", 141, 835.5},
		{"H200 NVL", Hint{MemoryGB: 140}, "H200-NVL", 140, 835.5},
		{"H200", Hint{FormFactor: "NVL"}, "H200-NVL", 141, 835.5},
		{"NVIDIA H200", Hint{}, "H200", 141, 989},
		{"H800 PCIe 80GB", Hint{}, "H800-PCIe", 80, 756.5},
		{"NVIDIA H800 PCIe", Hint{MemoryGB: 80}, "H800-PCIe", 80, 756.5},
		{"NVIDIA H800", Hint{}, "H800", 80, 989},
		// Rows that must not move: a form factor without a row of its own.
		{"H100 PCIe", Hint{}, "H100-PCIe", 80, 756},
		{"NVIDIA A10 PCIe", Hint{}, "A10", 24, 125},
		{"B200 SXM", Hint{}, "B200", 180, 2250},
	}
	for _, tc := range cases {
		id := Resolve(tc.name, tc.hint)
		spec, ok := Lookup(id.Name())
		if !id.Known || id.Model != tc.model || id.MemoryGB != tc.memGB || !ok || spec.DenseTFLOPS() != tc.denseBF16 {
			t.Errorf("Resolve(%q, %+v) = %+v, dense %v; want %s, %v GB, %v dense TFLOPS", tc.name, tc.hint, id, spec.DenseTFLOPS(), tc.model, tc.memGB, tc.denseBF16)
		}
	}
	nvl, _ := Lookup("H200-NVL")
	sxm, _ := Lookup("H200")
	if nvl.FP32TFLOPS == sxm.FP32TFLOPS || nvl.FormFactor == sxm.FormFactor {
		t.Errorf("H200 NVL carries the SXM H200's figures: %+v", nvl)
	}
	if !Matches("H200", "H200-NVL") || Matches("H200-NVL", "H200") || !Matches("H800", "H800-PCIe") {
		t.Error("a family filter must cover its variants, and a variant filter only itself")
	}
}

// Issue 20 item 7: the gpu_name values Vast.ai's marketplace uses (a
// public list of them, with underscores for spaces: "RTX_6000Ada",
// "Tesla_V100", …) resolve to catalogue rows. gpu_ram is MiB per GPU as
// the offers report it (a 4090 reports 24564).
func TestVastAINamesResolve(t *testing.T) {
	for name, want := range map[string]string{
		"RTX 4090": "RTX-4090", "RTX 5090": "RTX-5090", "RTX 5080": "RTX-5080", "RTX 4080": "RTX-4080", "RTX 4070": "RTX-4070",
		"RTX 3090": "RTX-3090", "RTX A6000": "RTX-A6000", "RTX A5000": "RTX-A5000", "RTX A4000": "RTX-A4000",
		"RTX 6000Ada": "RTX-6000-Ada", "RTX 4000Ada": "RTX-4000-Ada", "RTX 5880Ada": "RTX-5880-Ada",
		"L4": "L4", "L40": "L40", "L40S": "L40S", "A40": "A40", "A10": "A10", "Tesla T4": "T4", "Tesla P100": "P100",
		"Tesla P40": "P40", "Tesla P4": "P4", "H100 SXM": "H100", "H100 PCIE": "H100-PCIe", "H100 NVL": "H100-NVL",
		"H200": "H200", "H200 NVL": "H200-NVL", "B200": "B200", "B300": "B300",
		// Workstation names from other clouds keep resolving.
		"NVIDIA RTX 6000 Ada Generation": "RTX-6000-Ada", "NVIDIA RTX A6000": "RTX-A6000", "NVIDIA GeForce RTX 4090": "RTX-4090",
	} {
		if id := Resolve(name, Hint{}); !id.Known || id.Model != want {
			t.Errorf("Resolve(%q) = %+v, want %s", name, id, want)
		}
	}
	// The Quadro RTX 6000 (Turing, Vast.ai "Q RTX 6000") is not the RTX 6000 Ada.
	if id := Resolve("Q RTX 6000", Hint{}); id.Model == "RTX-6000-Ada" {
		t.Errorf("Q RTX 6000 resolved to %s", id.Model)
	}
}
