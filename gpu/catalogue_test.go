package gpu

import (
	"strings"
	"testing"
)

func TestCatalogueCoversFetcherNames(t *testing.T) {
	// The normalised names the fetchers emit (see fetchers/*/gpus.go and
	// the AWS and Azure instance tables in shared/research/cloud-apis.md).
	for _, name := range []string{"H100", "H100-NVL", "H100-PCIe", "H200", "B200", "GB200", "A100-40GB", "A100-80GB", "A100-80GB-PCIe",
		"A10", "A10G", "A30", "A800-80GB", "A800-40GB", "H800", "H20", "L4", "L20", "L40S", "T4", "V100", "V100-32GB", "P40", "P4", "P100", "MI300X",
		"B300", "RTX-PRO-6000", "RTX-5880-Ada", "MI308X", "MI325X", "MI355X", "V620", "MI25", "A100-40GB-PCIe", "V100-PCIe",
		// Issue 31 item 7: real GPUs that reached `hardware unknown`.
		"GH200", "GB300", "RTX-3070", "V100S", "Quadro-RTX-5000"} {
		g, ok := Lookup(name)
		if !ok {
			t.Errorf("%s is not in the catalogue", name)
			continue
		}
		if g.Model != name {
			t.Errorf("Lookup(%s) returned %s", name, g.Model)
		}
	}
}

func TestCatalogueRowsAreComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, g := range GPUs() {
		if seen[g.Model] {
			t.Errorf("%s listed twice", g.Model)
		}
		seen[g.Model] = true
		if g.Source == "" || g.Vendor == "" || g.FormFactor == "" || g.Interconnect == "" {
			t.Errorf("%s: source, vendor, form factor and interconnect are required", g.Model)
		}
		if g.MemoryGB <= 0 || g.BandwidthGBs <= 0 {
			t.Errorf("%s: memory and bandwidth must be known", g.Model)
		}
		if g.FP32TFLOPS <= 0 && !strings.Contains(g.Note, "no FP32 figure") {
			t.Errorf("%s: no FP32 figure and no note saying why", g.Model)
		}
		// Tensor formats come in order: where FP8 exists it runs at twice
		// the dense BF16 rate on every architecture listed.
		if g.FP8TFLOPS > 0 && (g.BF16TFLOPS <= 0 || g.FP8TFLOPS < 1.9*g.BF16TFLOPS || g.FP8TFLOPS > 2.1*g.BF16TFLOPS) {
			t.Errorf("%s: FP8 %v vs BF16 %v", g.Model, g.FP8TFLOPS, g.BF16TFLOPS)
		}
		if g.BF16TFLOPS > 0 && g.BF16TFLOPS != g.FP16TFLOPS {
			t.Errorf("%s: BF16 %v and FP16 %v tensor rates differ", g.Model, g.BF16TFLOPS, g.FP16TFLOPS)
		}
		if g.DenseTFLOPS() == 0 && g.Note == "" {
			t.Errorf("%s: no tensor figure and no note saying why", g.Model)
		}
	}
}

// The dense figure, never the sparse one vendors headline.
func TestCatalogueUsesDenseFigures(t *testing.T) {
	for model, dense := range map[string]float64{"H100": 989, "H100-PCIe": 756, "H200": 989, "A100-80GB": 312, "A100-40GB": 312,
		"L40S": 362, "L4": 121, "A10": 125, "MI300X": 1307.4, "B200": 2250, "V100": 125, "T4": 65} {
		g, _ := Lookup(model)
		if g.DenseTFLOPS() != dense {
			t.Errorf("%s dense tensor TFLOPS = %v, want %v", model, g.DenseTFLOPS(), dense)
		}
	}
	for model, want := range map[string][2]float64{"H100": {80, 3350}, "H100-NVL": {94, 3900}, "H200": {141, 4800}, "B200": {180, 7700},
		"A100-40GB": {40, 1555}, "A100-80GB": {80, 2039}, "L4": {24, 300}, "MI300X": {192, 5300}} {
		g, _ := Lookup(model)
		if g.MemoryGB != want[0] || g.BandwidthGBs != want[1] {
			t.Errorf("%s memory %v GB at %v GB/s, want %v", model, g.MemoryGB, g.BandwidthGBs, want)
		}
	}
	if g, _ := Lookup("V100"); g.BF16TFLOPS != 0 {
		t.Error("V100 has no BF16")
	}
}

func TestLookupIsForgiving(t *testing.T) {
	for in, want := range map[string]string{
		"h100": "H100", " H100 ": "H100", "NVIDIA H100": "H100", "H100 SXM5": "H100", "h100_sxm": "H100", "H100-80GB": "H100",
		"h100-pcie": "H100-PCIe", "H100 NVL": "H100-NVL", "a100-80gb": "A100-80GB", "A100-SXM4-40GB": "A100-40GB",
		"NVIDIA A10G": "A10G", "Tesla T4": "T4", "AMD Instinct MI300X": "MI300X", "v100-32gb": "V100-32GB",
	} {
		g, ok := Lookup(in)
		if !ok || g.Model != want {
			t.Errorf("Lookup(%q) = %q %v, want %q", in, g.Model, ok, want)
		}
	}
	for _, in := range []string{"", "A100", "H", "RTX4090"} {
		if g, ok := Lookup(in); ok {
			t.Errorf("Lookup(%q) = %s, want not found", in, g.Model)
		}
	}
}

func TestMatches(t *testing.T) {
	cases := []struct {
		query, model string
		want         bool
	}{
		{"A100", "A100-40GB", true},
		{"A100", "A100-80GB", true},
		{"A100", "A100-80GB-PCIe", true},
		{"a100-80gb", "A100-80GB", true},
		{"A100-40GB", "A100-80GB", false},
		{"H100", "H100", true},
		{"H100", "H100-NVL", true},
		{"H100", "H100-PCIe", true},
		{"H100-NVL", "H100", false},
		{"H100 SXM", "H100", true},
		{"H100", "H200", false},
		{"H100", "H800", false},
		{"A10", "A10", true},
		{"A10", "A100-40GB", false},
		{"A10", "A10G", false},
		{"V100", "V100-32GB", true},
		{"L4", "L40S", false},
		{"", "H100", false},
		{"H100", "", false},
		// Vendor spellings in a filter mean the catalogue model: an alert
		// rule's gpu_models: [A100-SXM4-80GB] must match stored A100-80GB.
		{"A100-SXM4-80GB", "A100-80GB", true},
		// A model name covers the names that extend it, as "H100" covers
		// H100-NVL: A100-80GB (in any spelling) covers A100-80GB-PCIe.
		{"A100-SXM4-80GB", "A100-80GB-PCIe", true},
		{"A100-SXM4-40GB", "A100-80GB", false},
		{"NVIDIA H100 80GB HBM3", "H100", true},
		{"A800", "A800-40GB", true},
		{"A800", "A800-80GB", true},
		{"V100", "V100-PCIe", true},
		{"RTX PRO 6000", "RTX-PRO-6000", true},
		{"B300", "B200", false},
		{"MI300X", "MI308X", false},
		// Unknown names match themselves only.
		{"G49", "G49", true},
		{"G49", "G49E", false},
	}
	for _, tc := range cases {
		if got := Matches(tc.query, tc.model); got != tc.want {
			t.Errorf("Matches(%q, %q) = %v, want %v", tc.query, tc.model, got, tc.want)
		}
	}
}

// The names clouds give the GPUs added for issue 31 resolve to them, and
// near names do not: the RTX 5000 Ada is not the Quadro RTX 5000, the
// V100 not the V100S, the GH200 not an H100.
func TestIssue31GPUsResolve(t *testing.T) {
	for name, want := range map[string]string{
		"GH200 (96 GB)": "GH200", "NVIDIA GH200 480GB": "GH200", "GB300": "GB300", "NVIDIA GB300": "GB300",
		"NVIDIA GeForce RTX 3070": "RTX-3070", "RTX 3070": "RTX-3070", "V100S": "V100S", "Tesla V100S-PCIE-32GB": "V100S",
		"Quadro RTX 5000": "Quadro-RTX-5000", "NVIDIA Quadro RTX 5000": "Quadro-RTX-5000",
		"RTX 5000 Ada": "", "V100": "V100", "H100": "H100",
	} {
		id := Resolve(name, Hint{})
		if id.Model != want {
			t.Errorf("Resolve(%q) = %q, want %q", name, id.Model, want)
		}
	}
	for filter, model := range map[string]string{"V100": "V100S", "H100": "GH200", "GB200": "GB300"} {
		if Matches(filter, model) {
			t.Errorf("--gpu %s matches %s", filter, model)
		}
	}
	for model, want := range map[string][2]float64{"GH200": {96, 4000}, "GB300": {288, 8000}, "RTX-3070": {8, 448}, "V100S": {32, 1134}, "Quadro-RTX-5000": {16, 448}} {
		g, _ := Lookup(model)
		if g.MemoryGB != want[0] || g.BandwidthGBs != want[1] {
			t.Errorf("%s: %v GB at %v GB/s, want %v", model, g.MemoryGB, g.BandwidthGBs, want)
		}
	}
}
