package aws

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/gpu"
)

// gpuFamily is what the price list does not say about a GPU family: the
// GPU model (the file has a count and sometimes a memory total, never a
// name), the marketed memory per GPU, and counts for sizes where the file's
// `gpu` attribute is missing (accelerators) or wrong (fractional GPUs).
type gpuFamily struct {
	Model string
	// MemoryGB is per GPU as marketed; 0 means take the file's gpuMemory
	// total divided by the count.
	MemoryGB float64
	// Sizes overrides count and memory for sizes that hold a share of a
	// GPU, or whose accelerators the file does not count.
	Sizes map[string]gpuSize
	// Accelerator families (Inferentia, Trainium) have no `gpu` attribute;
	// they are recognised by instanceFamily "Machine Learning ASIC
	// Instances" and a row here.
	Accelerator bool
	Source      string
}

type gpuSize struct {
	Count    float64
	MemoryGB float64 // per GPU or per slice; 0 keeps the family's
}

// docAC is AWS's specification table for every accelerated instance type
// (GPU model, count and memory by size).
const docAC = "https://docs.aws.amazon.com/ec2/latest/instancetypes/ac.html"

// gpuFamilies maps an instance family (the part of the type before the dot)
// to its accelerator. Known misreports it corrects: AWS gives L4 memory as
// about 22.4 GiB (22,888 MiB; Cyclenerd/aws-pricing#1, gpuhunt), and for
// p5en/p5e its own APIs name the GPU only "NVIDIA" (SkyPilot patches it to
// H200); here the model always comes from this table.
var gpuFamilies = map[string]gpuFamily{
	"p2":      {Model: "K80", MemoryGB: 12, Source: docAC},
	"p3":      {Model: "V100", MemoryGB: 16, Source: docAC + " (p3.8xlarge gpu=4 in the us-east-2 price file)"},
	"p3dn":    {Model: "V100-32GB", MemoryGB: 32, Source: docAC},
	"p4d":     {Model: "A100-40GB", MemoryGB: 40, Source: docAC + "; NVIDIA A100 datasheet (SXM4 40GB)"},
	"p4de":    {Model: "A100-80GB", MemoryGB: 80, Source: docAC + "; NVIDIA A100 datasheet (SXM4 80GB)"},
	"p5":      {Model: "H100", MemoryGB: 80, Source: docAC + "; p5.4xlarge holds 1 GPU, p5.48xlarge 8"},
	"p5e":     {Model: "H200", MemoryGB: 141, Source: docAC + "; NVIDIA H200 (141 GB HBM3e)"},
	"p5en":    {Model: "H200", MemoryGB: 141, Source: docAC + "; AWS names this GPU only \"NVIDIA\" (SkyPilot fetch_aws.py patch)"},
	"p6-b200": {Model: "B200", MemoryGB: 180, Source: docAC + " (1,440 GB HBM3e for 8 GPUs)"},
	// Blackwell Ultra: the usable memory per GPU AWS lists differs from
	// NVIDIA's marketed 288 GB, so it is taken from the price file.
	"p6-b300":   {Model: "B300", Source: docAC + " (8 × NVIDIA B300; memory taken from the price file)"},
	"p6e-gb200": {Model: "GB200", Source: docAC + " (memory taken from the price file)"},
	"g3":        {Model: "M60", MemoryGB: 8, Source: docAC},
	"g3s":       {Model: "M60", MemoryGB: 8, Source: docAC},
	"g4dn":      {Model: "T4", MemoryGB: 16, Source: docAC},
	"g4ad":      {Model: "V520", MemoryGB: 8, Source: docAC + " (AMD Radeon Pro V520)"},
	"g5":        {Model: "A10G", MemoryGB: 24, Source: docAC + "; g5.48xlarge GPU=8, GPU Memory=192 GB in the 2025-09-12 EC2 CSV"},
	"g5g":       {Model: "T4G", MemoryGB: 16, Source: docAC + " (NVIDIA T4G)"},
	"g6":        {Model: "L4", MemoryGB: 24, Source: docAC + "; AWS reports 22,888 MiB, NVIDIA markets 24 GB"},
	"gr6":       {Model: "L4", MemoryGB: 24, Source: docAC},
	"g6e":       {Model: "L40S", MemoryGB: 48, Source: docAC + "; NVIDIA L40S datasheet"},
	"g7e":       {Model: "RTX-PRO-6000", MemoryGB: 96, Source: docAC + " (NVIDIA RTX PRO 6000 Blackwell Server Edition, 96 GB GDDR7 per GPU)"},
	// g6f and gr6f sell a share of one L4: the file counts it as a whole GPU
	// (this broke gpuhunt, dstackai/gpuhunt#164).
	"g6f": {Model: "L4", MemoryGB: 24, Source: docAC + "; Karpenter docs: g6f.xlarge ~3 GB, 2xlarge ~6 GB, 4xlarge ~12 GB of GPU memory",
		Sizes: map[string]gpuSize{
			"large":   {Count: 0.125, MemoryGB: 3},
			"xlarge":  {Count: 0.125, MemoryGB: 3},
			"2xlarge": {Count: 0.25, MemoryGB: 6},
			"4xlarge": {Count: 0.5, MemoryGB: 12},
		}},
	"gr6f": {Model: "L4", MemoryGB: 24, Source: docAC,
		Sizes: map[string]gpuSize{"4xlarge": {Count: 0.5, MemoryGB: 12}}},
	"inf1": {Model: "Inferentia", Accelerator: true, Source: "https://aws.amazon.com/ec2/instance-types/inf1/",
		Sizes: map[string]gpuSize{"xlarge": {Count: 1}, "2xlarge": {Count: 1}, "6xlarge": {Count: 4}, "24xlarge": {Count: 16}}},
	"inf2": {Model: "Inferentia2", MemoryGB: 32, Accelerator: true, Source: "https://aws.amazon.com/ec2/instance-types/inf2/",
		Sizes: map[string]gpuSize{"xlarge": {Count: 1}, "8xlarge": {Count: 1}, "24xlarge": {Count: 6}, "48xlarge": {Count: 12}}},
	"trn1": {Model: "Trainium", MemoryGB: 32, Accelerator: true, Source: "https://aws.amazon.com/ec2/instance-types/trn1/",
		Sizes: map[string]gpuSize{"2xlarge": {Count: 1}, "32xlarge": {Count: 16}}},
	"trn1n": {Model: "Trainium", MemoryGB: 32, Accelerator: true, Source: "https://aws.amazon.com/ec2/instance-types/trn1/",
		Sizes: map[string]gpuSize{"32xlarge": {Count: 16}}},
	"trn2": {Model: "Trainium2", MemoryGB: 96, Accelerator: true, Source: "https://aws.amazon.com/ec2/instance-types/trn2/",
		Sizes: map[string]gpuSize{"48xlarge": {Count: 16}}},
}

// mlASICFamily is the instanceFamily attribute of Inferentia and Trainium
// types, which carry no `gpu` attribute.
const mlASICFamily = "Machine Learning ASIC Instances"

// typeFacts is what the price file says about an instance type's
// hardware. It is remembered between runs (see catalogue) so that spot and
// savings-plan prices in regions whose price file was not downloaded still
// carry hardware.
type typeFacts struct {
	VCPUs    int     `json:"vcpu"`
	MemoryGB float64 `json:"mem"`
	// GPUs is the file's `gpu` attribute, or the table's count for
	// accelerators.
	GPUs float64 `json:"gpu,omitempty"`
	// GPUMemoryGB is the file's gpuMemory: a total for the instance.
	GPUMemoryGB float64 `json:"gpuMem,omitempty"`
	// Network and Storage are the file's networkPerformance ("3200
	// Gigabit", "4x 100 Gigabit", "Up to 25 Gigabit") and storage ("8 x
	// 3800 NVMe SSD", "EBS only") as written; empty in catalogues
	// remembered before they were read, until the next price file.
	Network string `json:"net,omitempty"`
	Storage string `json:"storage,omitempty"`
}

// acceleratedFacts decides from a product's own attributes whether it is a
// GPU or accelerator type, and returns its facts if so.
func acceleratedFacts(instanceType, instanceFamily, gpu, gpuMemory, vcpu, memory string) (typeFacts, bool) {
	f := typeFacts{
		VCPUs:       int(leadingNumber(vcpu)),
		MemoryGB:    leadingNumber(memory),
		GPUs:        leadingNumber(gpu),
		GPUMemoryGB: leadingNumber(gpuMemory),
	}
	if f.GPUs > 0 {
		return f, true
	}
	if instanceFamily != mlASICFamily {
		return typeFacts{}, false
	}
	fam, size, _ := strings.Cut(instanceType, ".")
	row, ok := gpuFamilies[fam]
	if !ok || !row.Accelerator {
		return typeFacts{}, false
	}
	f.GPUs = row.Sizes[size].Count
	return f, true
}

// hardware combines the file's facts with the family table. A family the
// table lacks keeps the file's count and memory and an empty model (the
// fetch logs such families).
func hardware(instanceType string, f typeFacts) pricewatch.Hardware {
	hw := pricewatch.Hardware{VCPUs: f.VCPUs, MemoryGB: f.MemoryGB, GPUCount: f.GPUs,
		Interconnect: network(f.Network), LocalStorage: localStorage(f.Storage)}
	if f.GPUs > 0 && f.GPUMemoryGB > 0 {
		hw.GPUMemoryGB = f.GPUMemoryGB / f.GPUs
	}
	fam, size, _ := strings.Cut(instanceType, ".")
	row, ok := gpuFamilies[fam]
	if !ok {
		return hw
	}
	if row.MemoryGB > 0 {
		hw.GPUMemoryGB = row.MemoryGB
	}
	// The table's names go through the one resolver, so a row can never
	// drift from the catalogue's spelling; a name outside the catalogue
	// (K80, Inferentia) stays as written and shows as unknown hardware.
	hw.GPUModel = gpu.Resolve(row.Model, gpu.Hint{MemoryGB: hw.GPUMemoryGB}).Name()
	if o, ok := row.Sizes[size]; ok {
		hw.GPUCount = o.Count
		if o.MemoryGB > 0 {
			hw.GPUMemoryGB = o.MemoryGB
		}
	}
	return hw
}

// leadingNumber reads the number at the start of an attribute such as
// "244 GiB", "1,152 GiB", "192 GB" or "8"; "NA" and "" give 0.
func leadingNumber(s string) float64 {
	s = strings.TrimSpace(s)
	end := 0
	for end < len(s) && (s[end] >= '0' && s[end] <= '9' || s[end] == '.' || s[end] == ',') {
		end++
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(s[:end], ",", ""), 64)
	if err != nil || v < 0 {
		return 0
	}
	return v
}

// network is the file's networkPerformance as AWS writes it: on the GPU
// types it is the instance's network (EFA where the type supports it), the
// only interconnect figure the price file carries. "NA" and "" are unknown.
func network(attr string) string {
	attr = strings.TrimSpace(attr)
	if attr == "" || strings.EqualFold(attr, "NA") {
		return ""
	}
	return pricewatch.Printable(attr)
}

// localStorage reads the file's storage attribute. "8 x 3800 NVMe SSD" is
// devices x size in GB (the unit the price file leaves out: AWS's instance
// type tables give instance store volumes in GB) and becomes "8 x 3800 GB
// NVMe SSD"; "EBS only" is a type with no local disk, which is known, so it
// is kept as "none (EBS only)". Anything else is kept as written rather
// than guessed at; "NA" and "" are unknown.
func localStorage(attr string) string {
	attr = strings.Join(strings.Fields(attr), " ")
	switch {
	case attr == "" || strings.EqualFold(attr, "NA"):
		return ""
	case strings.EqualFold(attr, "EBS only"):
		return "none (EBS only)"
	}
	devices, rest, ok := strings.Cut(attr, " x ")
	if !ok {
		return pricewatch.Printable(attr)
	}
	size, media, ok := strings.Cut(rest, " ")
	n, errN := strconv.Atoi(devices)
	gb, errGB := strconv.ParseFloat(strings.ReplaceAll(size, ",", ""), 64)
	if !ok || errN != nil || errGB != nil || n <= 0 || gb <= 0 {
		return pricewatch.Printable(attr)
	}
	return pricewatch.Printable(fmt.Sprintf("%d x %s GB %s", n, strconv.FormatFloat(gb, 'f', -1, 64), media))
}
