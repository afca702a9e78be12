package alibaba

import (
	"fmt"
	"strings"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/gpu"
)

// familyGPU is what Alibaba's documentation says a GPU family carries. It
// fills in what DescribeInstanceTypes leaves out or masks: the API's own
// GPUSpec, GPUAmount and GPUMemorySize win wherever gpu.Resolve recognises
// them.
type familyGPU struct {
	Model    string  // a name gpu.Resolve maps to a catalogue row (with MemoryGB)
	MemoryGB float64 // per GPU
	// Sizes give count and memory per GPU (or per slice) for sizes the API
	// describes wrongly: ga1 shares one S7150 between small sizes but its
	// GPUAmount says 1 and it reports no memory.
	Sizes  map[string]familySize
	Source string
}

type familySize struct {
	Count    float64
	MemoryGB float64
}

// docFamilies is Alibaba Cloud's "GPU-accelerated compute-optimized
// instance families" page (2025–26 revision), as summarised in
// shared/research/cloud-apis.md §3. Bare-metal (ebm…) and SCC (scc…)
// families carry the same GPU as their virtualised namesakes.
const (
	docFamilies = "Alibaba Cloud docs, GPU-accelerated compute-optimized instance families"
	// docReseller is the English "Instance type families" page in the
	// AlibabaCloudDocs/ecs repository (reseller edition): the ga1 and gn4
	// tables with GPU share and memory per size.
	docReseller = "Alibaba Cloud docs, Instance type families (AlibabaCloudDocs/ecs, reseller.en-US)"
	// docNaming is the EGS naming page: "v" is V100 16 GB, "e" (6e) V100
	// 32 GB; vgn/sgn are GRID vGPU families (dedicated/shared).
	docNaming = "https://help.aliyun.com/en/egs/instance-naming-conventions"
)

var gpuFamilies = map[string]familyGPU{
	"gn6v":     {Model: "V100", MemoryGB: 16, Source: docFamilies + ": gn6v, NVIDIA V100 SXM2 16 GB"},
	"gn6e":     {Model: "V100-32GB", MemoryGB: 32, Source: docFamilies + ": gn6e, NVIDIA V100 SXM2 32 GB"},
	"sccgn6":   {Model: "V100", MemoryGB: 16, Source: docNaming + " (gn6: V100; DescribeInstanceTypes gives no memory)"},
	"sccgn6e":  {Model: "V100-32GB", MemoryGB: 32, Source: docNaming + " (6e: V100 32 GB; DescribeInstanceTypes gives no memory)"},
	"gn6i":     {Model: "T4", MemoryGB: 16, Source: docFamilies + ": gn6i, NVIDIA T4 16 GB"},
	"gn7i":     {Model: "A10", MemoryGB: 24, Source: docFamilies + ": gn7i, NVIDIA A10 24 GB"},
	"gn7s":     {Model: "A30", MemoryGB: 24, Source: docFamilies + ": gn7s, NVIDIA A30 24 GB (DescribeInstanceTypes gives no memory for most sizes)"},
	"gn7":      {Model: "A100-40GB", MemoryGB: 40, Source: docFamilies + ": gn7, NVIDIA A100 40 GB HBM2 (GPU计算型实例概述.md)"},
	"gn7e":     {Model: "A100-80GB", MemoryGB: 80, Source: docFamilies + ": gn7e, A100 80 GB"},
	"ebmgn7e":  {Model: "A100-80GB", MemoryGB: 80, Source: docFamilies + ": ebmgn7e, A100 80 GB"},
	"gn8is":    {Model: "L20", MemoryGB: 48, Source: docFamilies + ": gn8is, NVIDIA L20 48 GB"},
	"ebmgn8is": {Model: "L20", MemoryGB: 48, Source: docFamilies + ": ebmgn8is, NVIDIA L20 48 GB"},
	// The docs name no GPU for gn8v/ebmgn8v, only "96 GB HBM3, 4 TB/s,
	// NVLink 900 GB/s" per GPU, and the API masks it as "NVIDIA GPU H".
	// Of NVIDIA's parts only the H20 has that memory, bandwidth and link
	// (gpu.Resolve applies the same evidence to the masked name).
	"gn8v":    {Model: "H20", MemoryGB: 96, Source: docFamilies + ": gn8v, 96 GB HBM3 per GPU (GPU not named; H20 inferred from memory, bandwidth and NVLink)"},
	"ebmgn8v": {Model: "H20", MemoryGB: 96, Source: docFamilies + ": ebmgn8v, 8 × 96 GB HBM3 (GPU not named; H20 inferred as for gn8v)"},
	"gn4":     {Model: "M40", MemoryGB: 12, Source: docReseller + ": gn4, NVIDIA M40, 12 GB per GPU (DescribeInstanceTypes gives no memory)"},
	"ga1": {Model: "S7150", MemoryGB: 8, Source: docReseller + ": ga1, AMD S7150 8 GB; xlarge 0.25 GPU / 2 GB, 2xlarge 0.5 / 4 GB, 4xlarge 1, 8xlarge 2, 14xlarge 4",
		Sizes: map[string]familySize{
			"xlarge": {0.25, 2}, "2xlarge": {0.5, 4}, "4xlarge": {1, 8}, "8xlarge": {2, 8}, "14xlarge": {4, 8},
		}},
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

// sliced reports whether a family sells shares of a card: vgn (GRID vGPU,
// dedicated) and sgn (GRID vGPU, shared) per the EGS naming page. In them a
// GPUMemorySize below the card's is the share (vgn6i-m4: "T4 × 1/4, 16 GB ×
// 1/4" in the spec table, GPUMemorySize 4).
func sliced(fam string) bool {
	return strings.HasPrefix(fam, "vgn") || strings.HasPrefix(fam, "sgn")
}

// hardware describes an instance type. kind is what its accelerator is:
// the caller keeps only gpu.KindGPU (FPGAs, NPUs and transcoders share
// GPUAmount/GPUSpec with GPUs but are no GPU offers).
func hardware(it instanceTypeJSON) (pricewatch.Hardware, gpu.Kind, error) {
	var hw pricewatch.Hardware
	amount, err := it.GPUAmount.float()
	if err != nil {
		return hw, "", fmt.Errorf("%s: GPUAmount: %w", it.InstanceTypeID, err)
	}
	// GPUMemorySize is per card on multi-GPU types and the whole on single
	// or fractional ones, i.e. always per GPU or per slice; some types send
	// it as 40.0, others as 24, and gn4/ga1/gn5t/gn7s omit it.
	mem, err := it.GPUMemorySize.float()
	if err != nil {
		return hw, "", fmt.Errorf("%s: GPUMemorySize: %w", it.InstanceTypeID, err)
	}
	if hw.VCPUs, err = it.CPUCoreCount.int(); err != nil {
		return hw, "", fmt.Errorf("%s: CpuCoreCount: %w", it.InstanceTypeID, err)
	}
	if hw.MemoryGB, err = it.MemorySize.float(); err != nil {
		return hw, "", fmt.Errorf("%s: MemorySize: %w", it.InstanceTypeID, err)
	}
	hw.LocalStorage = localStorage(it)
	fam := gpu.BaseFamily(familyOf(it))
	row, known := gpuFamilies[fam]
	hint := gpu.Hint{MemoryGB: mem, Sliced: sliced(fam)}
	if hint.MemoryGB <= 0 && known {
		hint.MemoryGB = row.MemoryGB
	}
	id := gpu.Resolve(it.GPUSpec, hint)
	if id.Kind != gpu.KindGPU {
		return hw, id.Kind, nil
	}
	if !id.Known && known {
		// The docs name the family's GPU where the API uses a code name
		// ("GX20" on gn8is) or nothing at all.
		fromDoc := gpu.Resolve(row.Model, hint)
		if fromDoc.Known || strings.TrimSpace(it.GPUSpec) == "" {
			fromDoc.Fraction = id.Fraction * fromDoc.Fraction
			id = fromDoc
		}
	}
	hw.GPUModel = id.Name()
	hw.GPUCount = amount * id.Fraction
	hw.GPUMemoryGB = id.MemoryGB
	if hw.GPUMemoryGB <= 0 && hint.MemoryGB > 0 {
		hw.GPUMemoryGB = hint.MemoryGB * id.Fraction
	}
	if known {
		_, size, _ := strings.Cut(strings.TrimPrefix(it.InstanceTypeID, "ecs."), ".")
		if s, ok := row.Sizes[size]; ok {
			hw.GPUCount, hw.GPUMemoryGB = s.Count, s.MemoryGB
		}
	}
	return hw, gpu.KindGPU, nil
}

// localStorage is DescribeInstanceTypes' local disks as "2 x 3576 GiB
// local_nvme_ssd" (LocalStorageCapacity is per disk, in GiB). A type
// without them, or with values that do not read as whole numbers, is
// unknown: the API leaves these fields out for types with cloud disks only,
// so their absence does not say "none", and an odd value never fails the
// type's prices.
func localStorage(it instanceTypeJSON) string {
	n, errN := it.LocalStorageAmount.int()
	gib, errG := it.LocalStorageCapacity.int()
	if errN != nil || errG != nil || n <= 0 || gib <= 0 {
		return ""
	}
	s := fmt.Sprintf("%d x %d GiB", n, gib)
	if c := strings.TrimSpace(it.LocalStorageCategory); c != "" {
		s += " " + c
	}
	return pricewatch.Printable(s)
}
