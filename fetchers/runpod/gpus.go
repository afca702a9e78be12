package runpod

import "github.com/pricewatch/pricewatch/gpu"

// gpuModel maps RunPod's GPU type id ("NVIDIA H100 80GB HBM3") to the
// catalogue's model name through the shared resolver, with the type's
// memory as evidence. Where the id is not one the resolver knows, the
// display name is tried ("AMD Instinct MI300X OAM" is shown as "MI300X");
// a GPU neither names stays visible as RunPod's id.
func gpuModel(id, displayName string, memoryGB float64) string {
	hint := gpu.Hint{MemoryGB: memoryGB}
	got := gpu.Resolve(id, hint)
	if !got.Known && displayName != "" {
		if byName := gpu.Resolve(displayName, hint); byName.Known {
			return byName.Name()
		}
	}
	return got.Name()
}
