package oci

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
	"B112140": {gpu: "GB300", shapes: []shape{{"BM.GPU.GB300.4", 4}}, source: srcShapes},
	"B109485": {gpu: "MI300X", shapes: []shape{{"BM.GPU.MI300X.8", 8}}, source: srcShapes},
	"B111758": {gpu: "MI355X", shapes: []shape{{"BM.GPU.MI355X.8", 8}}, source: srcShapes},
	// "A100 - v2" is the 80 GB A100 of BM.GPU.A100-v2.8.
	"B95907": {gpu: "A100-80GB", shapes: []shape{{"BM.GPU.A100-v2.8", 8}}, source: srcShapes},
	// "GPU - E3" bills BM.GPU4.8 (A100 40 GB on the AMD E3 generation host)
	// at the A100 40 GB list price, 3.05; matched by price and host
	// generation, not stated on one primary page. "GPU - E4" (also 3.05) is
	// left unmapped until its shape is confirmed.
	"B92740":  {gpu: "A100-40GB", shapes: []shape{{"BM.GPU4.8", 8}}, source: srcShapes + "; " + srcPrice},
	"B95909":  {gpu: "A10", shapes: []shape{{"VM.GPU.A10.1", 1}, {"VM.GPU.A10.2", 2}, {"BM.GPU.A10.4", 4}}, source: srcShapes},
	"B109479": {gpu: "L40S", shapes: []shape{{"BM.GPU.L40S.4", 4}}, source: srcShapes},
	// "GPU Standard - V2" is the V100 of the GPU3 shapes.
	"B89734": {gpu: "V100", shapes: []shape{{"VM.GPU3.1", 1}, {"VM.GPU3.2", 2}, {"VM.GPU3.4", 4}, {"BM.GPU3.8", 8}}, source: srcShapes},
	// The X7 generation's P100: one part for bare metal, one for VMs.
	"B88517":  {gpu: "P100", shapes: []shape{{"BM.GPU2.2", 2}}, source: srcShapes},
	"B88518":  {gpu: "P100", shapes: []shape{{"VM.GPU2.1", 1}}, source: srcShapes},
	"B112613": {gpu: "RTX PRO 6000", shapes: []shape{{"BM.GPU.RTXPRO.8", 8}}, source: srcShapes},
}

// resolveGPU maps OCI's GPU name to pricewatch's model and nominal memory
// per GPU in GB. It is the one place the fetcher names GPUs, so that it can
// hand over to the shared GPU resolver in one line.
func resolveGPU(name string) (model string, memoryGB float64) {
	switch name {
	case "H100":
		return "H100", 80
	case "H200":
		return "H200", 141
	case "B200":
		return "B200", 180
	case "GB200":
		return "GB200", 186
	case "B300":
		return "B300", 288
	case "GB300":
		return "GB300", 288
	case "MI300X":
		return "MI300X", 192
	case "MI355X":
		return "MI355X", 288
	case "A100-80GB":
		return "A100-80GB", 80
	case "A100-40GB":
		return "A100-40GB", 40
	case "A10":
		return "A10", 24
	case "L40S":
		return "L40S", 48
	case "V100":
		return "V100", 16
	case "P100":
		return "P100", 16
	case "RTX PRO 6000":
		return "RTX-PRO-6000", 96
	}
	return name, 0
}
