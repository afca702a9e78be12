package alibaba

import (
	"fmt"
	"strings"

	"github.com/pricewatch/pricewatch"
)

// familyGPU is what Alibaba's documentation says a GPU family carries. It
// fills in what DescribeInstanceTypes leaves out: the API's own GPUSpec,
// GPUAmount and GPUMemorySize win wherever they are present and recognised.
type familyGPU struct {
	Model    string  // normalised name, as in pricewatch.Hardware.GPUModel
	MemoryGB float64 // per GPU
	Source   string
}

// docFamilies is Alibaba Cloud's "GPU-accelerated compute-optimized
// instance families" page (2025–26 revision), as summarised in
// shared/research/cloud-apis.md §3. Bare-metal (ebm…) families carry the
// same GPU as their virtualised namesakes.
const docFamilies = "Alibaba Cloud docs, GPU-accelerated compute-optimized instance families"

var gpuFamilies = map[string]familyGPU{
	"gn6v":     {"V100", 16, docFamilies + ": gn6v, NVIDIA V100 SXM2 16 GB"},
	"gn6e":     {"V100-32GB", 32, docFamilies + ": gn6e, NVIDIA V100 SXM2 32 GB"},
	"gn6i":     {"T4", 16, docFamilies + ": gn6i, NVIDIA T4 16 GB"},
	"gn7i":     {"A10", 24, docFamilies + ": gn7i, NVIDIA A10 24 GB"},
	"gn7s":     {"A30", 24, docFamilies + ": gn7s, NVIDIA A30 24 GB"},
	"gn7":      {"A100-40GB", 40, docFamilies + ": gn7, 40 GB per GPU; the page does not name the GPU, A100 40 GB per third-party listings"},
	"gn7e":     {"A100-80GB", 80, docFamilies + ": gn7e, A100 80 GB"},
	"ebmgn7e":  {"A100-80GB", 80, docFamilies + ": ebmgn7e, A100 80 GB"},
	"gn8is":    {"L20", 48, docFamilies + ": gn8is, NVIDIA L20 48 GB"},
	"ebmgn8is": {"L20", 48, docFamilies + ": ebmgn8is, NVIDIA L20 48 GB"},
	// The docs name no GPU for gn8v/ebmgn8v, only "96 GB HBM3, 4 TB/s,
	// NVLink 900 GB/s" per GPU. Of NVIDIA's data-centre parts only the H20
	// has exactly that memory, bandwidth and link; third parties also say
	// H20 (one says H800, whose 80 GB rules it out). Stored as H20 so that
	// it compares with other clouds' H20 offers.
	"gn8v":    {"H20", 96, docFamilies + ": gn8v, 96 GB HBM3 per GPU (GPU not named; H20 inferred from memory, bandwidth and NVLink)"},
	"ebmgn8v": {"H20", 96, docFamilies + ": ebmgn8v, 8 × 96 GB HBM3 (GPU not named; H20 inferred as for gn8v)"},
}

// specModels maps the model token of the API's GPUSpec ("NVIDIA A10") to a
// normalised name. V100 and A100 come in two memory sizes and are resolved
// with GPUMemorySize.
var specModels = map[string]string{
	"T4": "T4", "A10": "A10", "A10G": "A10G", "A30": "A30", "L20": "L20", "L40S": "L40S",
	"H20": "H20", "H100": "H100", "H800": "H800", "H200": "H200", "A800": "A800",
	"P100": "P100", "P4": "P4",
}

// modelFromSpec normalises the API's GPUSpec. ok is false when the spec is
// empty, unknown (Alibaba also uses internal code names) or ambiguous
// without a memory size.
func modelFromSpec(spec string, memGB float64) (string, bool) {
	var token string
	for _, f := range strings.Fields(strings.ToUpper(spec)) {
		if f == "NVIDIA" || f == "TESLA" || f == "GPU" {
			continue
		}
		token = f
		break
	}
	switch {
	case token == "":
		return "", false
	case strings.HasPrefix(token, "V100"):
		if memGB >= 32 {
			return "V100-32GB", true
		}
		if memGB > 0 {
			return "V100", true
		}
		return "", false
	case strings.HasPrefix(token, "A100"):
		if memGB >= 80 {
			return "A100-80GB", true
		}
		if memGB > 0 {
			return "A100-40GB", true
		}
		return "", false
	}
	m, ok := specModels[token]
	return m, ok
}

// familyOf returns the family name without the "ecs." prefix, from the
// API's InstanceTypeFamily or, failing that, from the type name
// ("ecs.gn7i-c8g1.2xlarge" → "gn7i").
func familyOf(it instanceTypeJSON) string {
	if f := strings.TrimPrefix(it.InstanceTypeFamily, "ecs."); f != "" {
		return f
	}
	name := strings.TrimPrefix(it.InstanceTypeID, "ecs.")
	if i := strings.IndexAny(name, "-."); i > 0 {
		return name[:i]
	}
	return name
}

// hardware describes a GPU instance type. The API's fields come first;
// the family table fills the GPU model and memory where the API is silent
// or uses a name pricewatch does not know.
func hardware(it instanceTypeJSON) (pricewatch.Hardware, error) {
	var hw pricewatch.Hardware
	var err error
	if hw.GPUCount, err = it.GPUAmount.float(); err != nil {
		return hw, fmt.Errorf("%s: GPUAmount: %w", it.InstanceTypeID, err)
	}
	if hw.GPUMemoryGB, err = it.GPUMemorySize.float(); err != nil {
		return hw, fmt.Errorf("%s: GPUMemorySize: %w", it.InstanceTypeID, err)
	}
	if hw.VCPUs, err = it.CPUCoreCount.int(); err != nil {
		return hw, fmt.Errorf("%s: CpuCoreCount: %w", it.InstanceTypeID, err)
	}
	if hw.MemoryGB, err = it.MemorySize.float(); err != nil {
		return hw, fmt.Errorf("%s: MemorySize: %w", it.InstanceTypeID, err)
	}
	fam, known := gpuFamilies[familyOf(it)]
	if hw.GPUMemoryGB <= 0 && known {
		hw.GPUMemoryGB = fam.MemoryGB
	}
	if m, ok := modelFromSpec(it.GPUSpec, hw.GPUMemoryGB); ok {
		hw.GPUModel = m
	} else if known {
		hw.GPUModel = fam.Model
	} else {
		// Neither the API nor the table knows it: keep the cloud's own
		// words rather than drop the type.
		hw.GPUModel = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(it.GPUSpec), "NVIDIA"))
	}
	return hw, nil
}
