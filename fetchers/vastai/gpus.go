package vastai

import (
	"math"
	"strings"
)

// DefaultGPUModels are the Vast.ai gpu_name values queried when
// providers.vastai.gpu_models is empty: the frontier training and inference
// GPUs pricewatch's users compare. Names are Vast.ai's own, exactly as its
// offers spell them ("H100 SXM", not "H100").
var DefaultGPUModels = []string{
	"H100 SXM", "H100 PCIE", "H100 NVL",
	"H200", "H200 NVL",
	"B200", "B300",
	"A100 SXM4", "A100 PCIE",
	"L40S",
}

// resolveGPU maps a Vast.ai gpu_name (and the offer's per-GPU memory in MiB)
// to pricewatch's GPU model and nominal memory per GPU in GB. It is the one
// place the fetcher names GPUs, so that it can hand over to the shared GPU
// resolver in one line.
//
// Vast.ai sells A100s of both memory sizes under one name, so the reported
// memory tells them apart (40 GB cards report ~40,960 MiB, 80 GB cards
// ~81,920). A name not in the table keeps Vast.ai's spelling with hyphens
// and the memory the offer reports.
func resolveGPU(name string, ramMiB float64) (model string, memoryGB float64) {
	big := ramMiB > 60*1024
	switch strings.ToUpper(strings.TrimSpace(name)) {
	case "H100 SXM":
		return "H100", 80
	case "H100 PCIE":
		return "H100-PCIe", 80
	case "H100 NVL":
		return "H100-NVL", 94
	case "H200":
		return "H200", 141
	case "H200 NVL":
		return "H200-NVL", 141
	case "B200":
		return "B200", 180
	case "B300":
		return "B300", 288
	case "A100 SXM4":
		if big {
			return "A100-80GB", 80
		}
		return "A100-40GB", 40
	case "A100 PCIE":
		if big {
			return "A100-80GB-PCIe", 80
		}
		return "A100-40GB-PCIe", 40
	case "L40S":
		return "L40S", 48
	case "L40":
		return "L40", 48
	case "A10":
		return "A10", 24
	case "L4":
		return "L4", 24
	}
	model = strings.Join(strings.Fields(name), "-")
	if ramMiB > 0 {
		memoryGB = math.Round(ramMiB / 1024)
	}
	return model, memoryGB
}
