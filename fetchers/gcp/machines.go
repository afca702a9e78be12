package gcp

import (
	"slices"

	"github.com/pricewatch/pricewatch/gpu"
)

// machine is one GPU machine type: its shape and the SKUs that price it.
// The Catalog API has no per-machine SKU; a machine type costs its vCPUs
// × its family's core SKU + its memory × the family's RAM SKU + its GPUs
// × the GPU SKU, each of the same region and consumption model. Shapes
// come from Google's machine-type documentation (Source); the Compute API
// that lists them (machineTypes.list) needs a project and OAuth, which a
// price reader should not, so they are kept here.
type machine struct {
	Name string
	// Family is the word the core and RAM SKUs start with ("A3" in "A3
	// Instance Core running in Americas"); empty for a machine whose GPU
	// SKU prices the whole VM per GPU slice.
	Family    string
	VCPUs     int
	MemoryGiB int
	// Accelerator is Compute Engine's accelerator type id, what the GPU
	// model is resolved from; GPUMemoryGB is its memory per GPU.
	Accelerator string
	// ResolveAs, when set, is what the GPU is resolved from instead: A3
	// Mega's "nvidia-h100-mega-80gb" is the H100 SXM of A3 High, its
	// "mega" naming the machine's networking, not another GPU.
	ResolveAs   string
	GPUMemoryGB float64
	GPUs        int
	// GPUSKUs are the names (lower case, without " GPU" and the region
	// words) the GPU part is listed under; the first found is used, and a
	// region listing two of them differently priced prices nothing.
	GPUSKUs []string
	// Sold, when set, lists the only consumption models Google sells the
	// type in, and NotSold says why: the parts of the others exist in the
	// catalogue for other types, and adding them up would invent an
	// offer.
	Sold    []mode
	NotSold string
	// LocalSSD is the local SSD the type comes with, where the cited
	// source says so (LocalSSDSource); "" is unknown, never assumed from
	// the family.
	LocalSSD       string
	LocalSSDSource string
	// Source is where the shape was read.
	Source string
}

const (
	docA2 = "https://cloud.google.com/compute/docs/accelerator-optimized-machines#a2-vms (A2 Standard / A2 Ultra tables)"
	docA3 = "https://cloud.google.com/compute/docs/accelerator-optimized-machines#a3-vms (A3 High, Mega, Ultra tables)"
	docA4 = "https://cloud.google.com/compute/docs/accelerator-optimized-machines#a4-vms (A4 table)"
	docG2 = "https://cloud.google.com/compute/docs/accelerator-optimized-machines#g2-vms (G2 table: GPU counts are not linear in vCPUs)"
	// srcA2Capture: the real machineTypes item in testdata agrees (12
	// guestCpus, memoryMb 87040 = 85 GiB, one nvidia-tesla-a100).
	srcA2Capture = docA2 + "; agrees with the captured compute#machineType a2-highgpu-1g"

	// srcLocalSSD: the bundled local SSD of A2 Ultra (N GPUs, N × 375 GiB)
	// and of A3 High/Mega 8g (16 × 375 GiB), from the accelerator-optimized
	// machine tables, as shared/research/new-clouds.md records them
	// (checked against gpuhunt's GCP tables). Other shapes: not stated.
	srcLocalSSD = "shared/research/new-clouds.md (Local SSD bundled) after " + docA2 + " and " + docA3

	notSoldA3High = "A3 High with fewer than 8 GPUs is sold spot and flex-start only (Google's consumption-option table, as gpuhunt applies it)"
	notSoldUltra  = "A3 Ultra and A4 are sold spot, flex-start, calendar mode and reserved, not on demand (Google's consumption-option table, as gpuhunt applies it)"
)

var (
	soldA3High = []mode{spot, flex}
	soldUltra  = []mode{spot, commit1y, commit3y, flex, calendar}
)

var (
	skuA100     = []string{"nvidia tesla a100"}
	skuA100x80  = []string{"nvidia tesla a100 80gb"}
	skuH100     = []string{"nvidia h100 80gb"}
	skuH100Mega = []string{"nvidia h100 80gb plus", "nvidia h100 80gb mega", "nvidia h100 mega 80gb"}
	skuH200     = []string{"h200 141gb", "nvidia h200 141gb"}
	skuL4       = []string{"nvidia l4"}
	skuB200     = []string{"a4 nvidia b200 (1 gpu slice)"}
)

// machines is every GPU machine type priced. N1 machines with attachable
// T4/V100/P100/P4 GPUs are left out: their CPU and RAM are the buyer's
// choice, so there is no one price to claim for them.
var machines = []machine{
	{Name: "a2-highgpu-1g", Family: "A2", VCPUs: 12, MemoryGiB: 85, Accelerator: "nvidia-tesla-a100", GPUMemoryGB: 40, GPUs: 1, GPUSKUs: skuA100, Source: srcA2Capture},
	{Name: "a2-highgpu-2g", Family: "A2", VCPUs: 24, MemoryGiB: 170, Accelerator: "nvidia-tesla-a100", GPUMemoryGB: 40, GPUs: 2, GPUSKUs: skuA100, Source: docA2},
	{Name: "a2-highgpu-4g", Family: "A2", VCPUs: 48, MemoryGiB: 340, Accelerator: "nvidia-tesla-a100", GPUMemoryGB: 40, GPUs: 4, GPUSKUs: skuA100, Source: docA2},
	{Name: "a2-highgpu-8g", Family: "A2", VCPUs: 96, MemoryGiB: 680, Accelerator: "nvidia-tesla-a100", GPUMemoryGB: 40, GPUs: 8, GPUSKUs: skuA100, Source: docA2},
	{Name: "a2-megagpu-16g", Family: "A2", VCPUs: 96, MemoryGiB: 1360, Accelerator: "nvidia-tesla-a100", GPUMemoryGB: 40, GPUs: 16, GPUSKUs: skuA100, Source: docA2},
	// A2 Ultra bills its cores and RAM on the A2 SKUs; its bundled local
	// SSD is billed on the local-SSD SKU and is not part of the price.
	{Name: "a2-ultragpu-1g", Family: "A2", VCPUs: 12, MemoryGiB: 170, Accelerator: "nvidia-a100-80gb", GPUMemoryGB: 80, GPUs: 1, GPUSKUs: skuA100x80, LocalSSD: "1 x 375 GiB local SSD", LocalSSDSource: srcLocalSSD, Source: docA2},
	{Name: "a2-ultragpu-2g", Family: "A2", VCPUs: 24, MemoryGiB: 340, Accelerator: "nvidia-a100-80gb", GPUMemoryGB: 80, GPUs: 2, GPUSKUs: skuA100x80, LocalSSD: "2 x 375 GiB local SSD", LocalSSDSource: srcLocalSSD, Source: docA2},
	{Name: "a2-ultragpu-4g", Family: "A2", VCPUs: 48, MemoryGiB: 680, Accelerator: "nvidia-a100-80gb", GPUMemoryGB: 80, GPUs: 4, GPUSKUs: skuA100x80, LocalSSD: "4 x 375 GiB local SSD", LocalSSDSource: srcLocalSSD, Source: docA2},
	{Name: "a2-ultragpu-8g", Family: "A2", VCPUs: 96, MemoryGiB: 1360, Accelerator: "nvidia-a100-80gb", GPUMemoryGB: 80, GPUs: 8, GPUSKUs: skuA100x80, LocalSSD: "8 x 375 GiB local SSD", LocalSSDSource: srcLocalSSD, Source: docA2},
	{Name: "a3-highgpu-1g", Family: "A3", VCPUs: 26, MemoryGiB: 234, Accelerator: "nvidia-h100-80gb", GPUMemoryGB: 80, GPUs: 1, GPUSKUs: skuH100, Sold: soldA3High, NotSold: notSoldA3High, Source: docA3},
	{Name: "a3-highgpu-2g", Family: "A3", VCPUs: 52, MemoryGiB: 468, Accelerator: "nvidia-h100-80gb", GPUMemoryGB: 80, GPUs: 2, GPUSKUs: skuH100, Sold: soldA3High, NotSold: notSoldA3High, Source: docA3},
	{Name: "a3-highgpu-4g", Family: "A3", VCPUs: 104, MemoryGiB: 936, Accelerator: "nvidia-h100-80gb", GPUMemoryGB: 80, GPUs: 4, GPUSKUs: skuH100, Sold: soldA3High, NotSold: notSoldA3High, Source: docA3},
	{Name: "a3-highgpu-8g", Family: "A3", VCPUs: 208, MemoryGiB: 1872, Accelerator: "nvidia-h100-80gb", GPUMemoryGB: 80, GPUs: 8, GPUSKUs: skuH100, LocalSSD: "16 x 375 GiB local SSD", LocalSSDSource: srcLocalSSD, Source: docA3},
	// A3 Mega's cores and RAM are the "A3Plus Instance" SKUs and its GPU
	// is listed as "H100 80GB Plus" in some regions, "Mega" in others.
	{Name: "a3-megagpu-8g", Family: "A3Plus", VCPUs: 208, MemoryGiB: 1872, Accelerator: "nvidia-h100-mega-80gb", ResolveAs: "nvidia-h100-80gb", GPUMemoryGB: 80, GPUs: 8, GPUSKUs: skuH100Mega, LocalSSD: "16 x 375 GiB local SSD", LocalSSDSource: srcLocalSSD, Source: docA3},
	// "A3Ultra Instance Core/Ram" is the wording third-party matchers use;
	// no capture of it was found, and without it no a3-ultragpu offer is
	// built.
	{Name: "a3-ultragpu-8g", Family: "A3Ultra", VCPUs: 224, MemoryGiB: 2952, Accelerator: "nvidia-h200-141gb", GPUMemoryGB: 141, GPUs: 8, GPUSKUs: skuH200, Sold: soldUltra, NotSold: notSoldUltra, Source: docA3},
	// A4 has no core or RAM SKUs: each "(1 gpu slice)" carries an eighth
	// of the whole VM.
	{Name: "a4-highgpu-8g", VCPUs: 224, MemoryGiB: 3968, Accelerator: "nvidia-b200", GPUMemoryGB: 180, GPUs: 8, GPUSKUs: skuB200, Sold: soldUltra, NotSold: notSoldUltra, Source: docA4},
	{Name: "g2-standard-4", Family: "G2", VCPUs: 4, MemoryGiB: 16, Accelerator: "nvidia-l4", GPUMemoryGB: 24, GPUs: 1, GPUSKUs: skuL4, Source: docG2},
	{Name: "g2-standard-8", Family: "G2", VCPUs: 8, MemoryGiB: 32, Accelerator: "nvidia-l4", GPUMemoryGB: 24, GPUs: 1, GPUSKUs: skuL4, Source: docG2},
	{Name: "g2-standard-12", Family: "G2", VCPUs: 12, MemoryGiB: 48, Accelerator: "nvidia-l4", GPUMemoryGB: 24, GPUs: 1, GPUSKUs: skuL4, Source: docG2},
	{Name: "g2-standard-16", Family: "G2", VCPUs: 16, MemoryGiB: 64, Accelerator: "nvidia-l4", GPUMemoryGB: 24, GPUs: 1, GPUSKUs: skuL4, Source: docG2},
	{Name: "g2-standard-24", Family: "G2", VCPUs: 24, MemoryGiB: 96, Accelerator: "nvidia-l4", GPUMemoryGB: 24, GPUs: 2, GPUSKUs: skuL4, Source: docG2},
	{Name: "g2-standard-32", Family: "G2", VCPUs: 32, MemoryGiB: 128, Accelerator: "nvidia-l4", GPUMemoryGB: 24, GPUs: 1, GPUSKUs: skuL4, Source: docG2},
	{Name: "g2-standard-48", Family: "G2", VCPUs: 48, MemoryGiB: 192, Accelerator: "nvidia-l4", GPUMemoryGB: 24, GPUs: 4, GPUSKUs: skuL4, Source: docG2},
	{Name: "g2-standard-96", Family: "G2", VCPUs: 96, MemoryGiB: 384, Accelerator: "nvidia-l4", GPUMemoryGB: 24, GPUs: 8, GPUSKUs: skuL4, Source: docG2},
}

// sells reports whether Google sells the machine bought as m.
func (m machine) sells(md mode) bool {
	return m.Sold == nil || slices.Contains(m.Sold, md)
}

// gpu is the machine's GPU in package gpu's catalogue.
func (m machine) gpu() gpu.Identity {
	name := m.Accelerator
	if m.ResolveAs != "" {
		name = m.ResolveAs
	}
	return gpu.Resolve(name, gpu.Hint{MemoryGB: m.GPUMemoryGB})
}

// wanted is every part some machine is priced from: the SKUs worth
// keeping while the pages stream by.
func wanted() map[part]bool {
	w := map[part]bool{}
	for _, m := range machines {
		if m.Family != "" {
			w[part{kind: partCore, name: lower(m.Family)}] = true
			w[part{kind: partRAM, name: lower(m.Family)}] = true
		}
		for _, g := range m.GPUSKUs {
			w[part{kind: partGPU, name: g}] = true
		}
	}
	return w
}
