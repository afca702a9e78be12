package vastai

import (
	"math"

	"github.com/pricewatch/pricewatch/gpu"
)

// resolveGPU maps a Vast.ai gpu_name (and the offer's per-GPU memory in MiB)
// to pricewatch's GPU model and memory per GPU in GB, through the shared
// resolver. Vast.ai sells A100s of both sizes under one name, so the
// reported memory tells them apart (81,559 MiB is an 80 GB card). A known
// model gets the catalogue's nominal memory (what buyers compare; hosts
// report a little less), an unknown one keeps Vast.ai's name and the
// memory the offer reports.
func resolveGPU(name string, ramMiB float64) (model string, memoryGB float64) {
	reported := math.Round(ramMiB / 1024)
	id := gpu.Resolve(name, gpu.Hint{MemoryGB: reported})
	if spec, ok := gpu.Lookup(id.Name()); ok && spec.MemoryGB > 0 {
		return id.Name(), spec.MemoryGB
	}
	return id.Name(), id.MemoryGB
}
