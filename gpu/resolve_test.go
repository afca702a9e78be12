package gpu

import "testing"

func TestResolve(t *testing.T) {
	cases := []struct {
		name     string
		hint     Hint
		model    string // "" = unknown
		fraction float64
		memGB    float64
		kind     Kind
		stored   string // Identity.Name()
	}{
		// Vendor strings and aliases.
		{"NVIDIA H100 80GB HBM3", Hint{}, "H100", 1, 80, KindGPU, "H100"},
		{"H100 SXM", Hint{}, "H100", 1, 80, KindGPU, "H100"},
		{"H100 (80 GB SXM5)", Hint{}, "H100", 1, 80, KindGPU, "H100"},
		{"H100 PCIe", Hint{}, "H100-PCIe", 1, 80, KindGPU, "H100-PCIe"},
		{"H100 NVL", Hint{}, "H100-NVL", 1, 94, KindGPU, "H100-NVL"},
		{"B300 SXM6 AC", Hint{}, "B300", 1, 288, KindGPU, "B300"},
		{"NVidia A10", Hint{MemoryGB: 24}, "A10", 1, 24, KindGPU, "A10"},
		{"Tesla T4", Hint{}, "T4", 1, 16, KindGPU, "T4"},
		{"Tesla V100-SXM2-32GB", Hint{}, "V100-32GB", 1, 32, KindGPU, "V100-32GB"},
		{"NVIDIA A10*1", Hint{MemoryGB: 24}, "A10", 1, 24, KindGPU, "A10"},
		{"AMD Instinct MI300X", Hint{}, "MI300X", 1, 192, KindGPU, "MI300X"},
		{"MI-308X", Hint{MemoryGB: 192}, "MI308X", 1, 192, KindGPU, "MI308X"},
		{"NVIDIA RTX 5880", Hint{MemoryGB: 48}, "RTX-5880-Ada", 1, 48, KindGPU, "RTX-5880-Ada"},
		{"RTX PRO 6000 Blackwell Server Edition", Hint{}, "RTX-PRO-6000", 1, 96, KindGPU, "RTX-PRO-6000"},
		// Form factors and memory variants from evidence.
		{"NVIDIA A100", Hint{MemoryGB: 40}, "A100-40GB", 1, 40, KindGPU, "A100-40GB"},
		{"NVIDIA A100", Hint{MemoryGB: 80}, "A100-80GB", 1, 80, KindGPU, "A100-80GB"},
		{"A100", Hint{MemoryGB: 80, FormFactor: "PCIe"}, "A100-80GB-PCIe", 1, 80, KindGPU, "A100-80GB-PCIe"},
		{"A100", Hint{}, "", 1, 0, KindGPU, "A100"},
		{"NVIDIA V100", Hint{MemoryGB: 16}, "V100", 1, 16, KindGPU, "V100"},
		{"V100", Hint{MemoryGB: 16, FormFactor: "PCIe"}, "V100-PCIe", 1, 16, KindGPU, "V100-PCIe"},
		{"Tesla V100-PCIE-32GB", Hint{}, "V100-32GB-PCIe", 1, 32, KindGPU, "V100-32GB-PCIe"},
		{"H100 80GB PCIe", Hint{}, "H100-PCIe", 1, 80, KindGPU, "H100-PCIe"},
		{"A100-PCIE-40GB", Hint{}, "A100-40GB-PCIe", 1, 40, KindGPU, "A100-40GB-PCIe"},
		{"NVIDIA A100-SXM4-80GB", Hint{}, "A100-80GB", 1, 80, KindGPU, "A100-80GB"},
		{"NVIDIA A800", Hint{MemoryGB: 40}, "A800-40GB", 1, 40, KindGPU, "A800-40GB"},
		{"NVIDIA A800", Hint{MemoryGB: 80}, "A800-80GB", 1, 80, KindGPU, "A800-80GB"},
		{"NVIDIA A800", Hint{}, "", 1, 0, KindGPU, "A800"},
		// Fractions written in the name: memory per slice.
		{"NVIDIA T4/4", Hint{MemoryGB: 4}, "T4", 0.25, 4, KindGPU, "T4"},
		{"NVIDIA T4/4", Hint{}, "T4", 0.25, 4, KindGPU, "T4"},
		{"NVIDIA P4*1/8", Hint{MemoryGB: 1}, "P4", 0.125, 1, KindGPU, "P4"},
		{"NVIDIA A10 * 1/3", Hint{MemoryGB: 8}, "A10", 1.0 / 3, 8, KindGPU, "A10"},
		{"AMD S7150/4", Hint{}, "", 0.25, 0, KindGPU, "S7150"},
		// Fractions from memory only where the family sells slices.
		{"NVIDIA A10", Hint{MemoryGB: 2, Sliced: true}, "A10", 2.0 / 24, 2, KindGPU, "A10"},
		{"NVIDIA A10", Hint{MemoryGB: 24, Sliced: true}, "A10", 1, 24, KindGPU, "A10"},
		// Masked names: memory evidence or an explicit unknown.
		{"NVIDIA GPU H", Hint{MemoryGB: 96}, "H20", 1, 96, KindGPU, "H20"},
		{"NVIDIA GPU H", Hint{}, "", 1, 0, KindGPU, "GPU H"},
		{"NVIDIA GPU H-e", Hint{MemoryGB: 141}, "", 1, 141, KindGPU, "GPU H-e"},
		{"NVIDIA G49", Hint{MemoryGB: 24}, "", 1, 24, KindGPU, "G49"},
		{"NVIDIA L20N 48G", Hint{MemoryGB: 48}, "", 1, 48, KindGPU, "L20N 48G"},
		{"NVIDIA vGPU8-16G", Hint{MemoryGB: 16}, "", 1, 16, KindGPU, "vGPU8-16G"},
		{"NVIDIA L20N 48G", Hint{}, "", 1, 48, KindGPU, "L20N 48G"},
		{"NVIDIA H20-virt1", Hint{}, "", 1, 0, KindGPU, "H20-virt1"},
		// Not GPUs.
		{"INTEL ARRIA 10 GX 1150", Hint{MemoryGB: 16}, "", 1, 0, KindFPGA, "INTEL ARRIA 10 GX 1150"},
		{"Xilinx VU9p", Hint{}, "", 1, 0, KindFPGA, "Xilinx VU9p"},
		{"ALINPU", Hint{}, "", 1, 0, KindNPU, "ALINPU"},
		{"HUAWEI A910Z", Hint{}, "", 1, 0, KindNPU, "HUAWEI A910Z"},
		{"PPU 810", Hint{}, "", 1, 0, KindNPU, "PPU 810"},
		{"NETINT T408", Hint{}, "", 1, 0, KindOther, "NETINT T408"},
	}
	for _, tc := range cases {
		id := Resolve(tc.name, tc.hint)
		if id.Model != canonicalModel(tc.model) || id.Known != (tc.model != "") || id.Kind != tc.kind ||
			!close(id.Fraction, tc.fraction) || !close(id.MemoryGB, tc.memGB) || id.Name() != tc.stored {
			t.Errorf("Resolve(%q, %+v) = %+v (name %q), want model %q fraction %v mem %v kind %s name %q",
				tc.name, tc.hint, id, id.Name(), tc.model, tc.fraction, tc.memGB, tc.kind, tc.stored)
		}
	}
}

// canonicalModel returns the catalogue's own spelling, failing loudly in
// the test above when a want names no row.
func canonicalModel(m string) string {
	if m == "" {
		return ""
	}
	if s, ok := byName[key(m)]; ok {
		return s.Model
	}
	return "not in catalogue: " + m
}

func close(a, b float64) bool {
	d := a - b
	return d < 1e-9 && d > -1e-9
}

// Every catalogue row resolves to itself: stored names round-trip.
func TestCatalogueNamesResolveToThemselves(t *testing.T) {
	for _, g := range GPUs() {
		if id := Resolve(g.Model, Hint{}); id.Model != g.Model || id.Fraction != 1 {
			t.Errorf("Resolve(%q) = %+v", g.Model, id)
		}
	}
}

func TestBaseFamily(t *testing.T) {
	for in, want := range map[string]string{
		"gn8v-tee": "gn8v", "gn8v-tdx": "gn8v", "ecs.gn8v-tdx": "gn8v", "gn8v": "gn8v", "vgn6i-vws": "vgn6i",
		"ebmgn9ge-1.5t": "ebmgn9ge", "sgn8ga-wy": "sgn8ga", "ebmgn7ix-ant": "ebmgn7ix", "": "",
	} {
		if got := BaseFamily(in); got != want {
			t.Errorf("BaseFamily(%q) = %q, want %q", in, got, want)
		}
	}
}

// Compare and the digest match tens of thousands of offers against a few
// filters: a match of names seen before must not resolve them again.
func BenchmarkMatches(b *testing.B) {
	models := []string{"H100", "A100-80GB", "A100-80GB-PCIe", "L40S", "T4", "MI300X"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Matches("A100", models[i%len(models)])
	}
}
