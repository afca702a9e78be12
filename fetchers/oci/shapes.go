package oci

import "github.com/pricewatch/pricewatch/gpu"

// shape is one OCI compute shape billed by a GPU part number.
type shape struct {
	name string
	gpus int
}

// part is what one "Compute - GPU" price-list row bills: the GPU model and
// the shapes it prices (instance price = the row's per-GPU-hour value × the
// shape's GPU count).
type part struct {
	gpu    string // OCI's GPU name, mapped through resolveGPU
	memGB  float64
	shapes []shape
	source string
}

const (
	srcShapes = "OCI Compute shapes, GPU shapes table: https://docs.oracle.com/en-us/iaas/Content/Compute/References/computeshapes.htm#bm-gpu"
	srcPrice  = "OCI price list: https://www.oracle.com/cloud/compute/pricing/ (GPU rows, per GPU per hour)"
)

// parts is keyed by part number: display names drift ("OCI- Compute",
// "Compute  - GPU", double spaces) and Cloud@Customer twins share a display
// name, so the part number is the only stable key. A "Compute - GPU" row
// whose part number is not here is logged and left out: without its shape
// its price cannot be turned into an instance price.
var parts = map[string]part{
	"B98415":  {gpu: "H100", shapes: []shape{{"BM.GPU.H100.8", 8}}, source: srcShapes},
	"B110519": {gpu: "H200", shapes: []shape{{"BM.GPU.H200.8", 8}}, source: srcShapes},
	"B110978": {gpu: "B200", shapes: []shape{{"BM.GPU.B200.8", 8}}, source: srcShapes},
	// Sold per GB200 NVL72 rack slice of four GPUs (two superchips).
	"B110979": {gpu: "GB200", shapes: []shape{{"BM.GPU.GB200.4", 4}}, source: srcShapes},
	"B112237": {gpu: "B300", shapes: []shape{{"BM.GPU.B300.8", 8}}, source: srcShapes},
	"B112140": {gpu: "GB300", memGB: 288, shapes: []shape{{"BM.GPU.GB300.4", 4}}, source: srcShapes},
	"B109485": {gpu: "MI300X", shapes: []shape{{"BM.GPU.MI300X.8", 8}}, source: srcShapes},
	"B111758": {gpu: "MI355X", shapes: []shape{{"BM.GPU.MI355X.8", 8}}, source: srcShapes},
	// "A100 - v2" is the 80 GB A100 of BM.GPU.A100-v2.8.
	"B95907": {gpu: "A100 80GB", shapes: []shape{{"BM.GPU.A100-v2.8", 8}}, source: srcShapes},
	// "GPU - E3" bills BM.GPU4.8 (A100 40 GB on the AMD E3 generation host)
	// at the A100 40 GB list price, 3.05; matched by price and host
	// generation, not stated on one primary page. "GPU - E4" (also 3.05) is
	// left unmapped until its shape is confirmed.
	"B92740":  {gpu: "A100 40GB", shapes: []shape{{"BM.GPU4.8", 8}}, source: srcShapes + "; " + srcPrice},
	"B95909":  {gpu: "A10", shapes: []shape{{"VM.GPU.A10.1", 1}, {"VM.GPU.A10.2", 2}, {"BM.GPU.A10.4", 4}}, source: srcShapes},
	"B109479": {gpu: "L40S", shapes: []shape{{"BM.GPU.L40S.4", 4}}, source: srcShapes},
	// "GPU Standard - V2" is the V100 of the GPU3 shapes.
	"B89734": {gpu: "V100", memGB: 16, shapes: []shape{{"VM.GPU3.1", 1}, {"VM.GPU3.2", 2}, {"VM.GPU3.4", 4}, {"BM.GPU3.8", 8}}, source: srcShapes},
	// The X7 generation's P100: one part for bare metal, one for VMs.
	"B88517":  {gpu: "P100", memGB: 16, shapes: []shape{{"BM.GPU2.2", 2}}, source: srcShapes},
	"B88518":  {gpu: "P100", memGB: 16, shapes: []shape{{"VM.GPU2.1", 1}}, source: srcShapes},
	"B112613": {gpu: "RTX PRO 6000", shapes: []shape{{"BM.GPU.RTXPRO.8", 8}}, source: srcShapes},
}

// resolveGPU maps OCI's GPU name to pricewatch's model and memory per GPU
// in GB through the shared resolver; memGB is the per-GPU memory OCI's shape
// table gives, for a model the catalogue does not hold yet.
func resolveGPU(name string, memGB float64) (model string, memoryGB float64) {
	id := gpu.Resolve(name, gpu.Hint{MemoryGB: memGB})
	if spec, ok := gpu.Lookup(id.Name()); ok && spec.MemoryGB > 0 {
		return id.Name(), spec.MemoryGB
	}
	return id.Name(), id.MemoryGB
}
