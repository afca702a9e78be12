package analysis

import (
	"sort"
	"strings"
	"sync"
)

// GPUSpec is what a buyer compares between GPU models. Throughput figures
// are vendor peak numbers for dense matrices: NVIDIA and AMD headline the
// 2:4 structured-sparsity figure, which is twice the dense one and is never
// what a dense training or inference job gets, so every sparse figure in a
// source was halved here and is named as such in Source.
type GPUSpec struct {
	// Model is the normalised name fetchers put in Hardware.GPUModel.
	Model        string
	Vendor       string
	Architecture string
	// FormFactor changes the numbers for one chip: SXM (HGX board, NVSwitch),
	// PCIe, NVL (PCIe card pairs with an NVLink bridge), OAM, superchip.
	FormFactor string
	// MemoryGB is the marketed memory per GPU. Clouds report less (AWS gives
	// L4 as 22,888 MiB; B200 shows ~179 GB usable); the catalogue keeps the
	// marketed size so that per-GB figures compare across clouds.
	MemoryGB     float64
	MemoryType   string
	BandwidthGBs float64 // memory bandwidth, GB/s
	// Dense tensor-core throughput in TFLOPS. Zero means the GPU has no such
	// format in its tensor cores (V100 and T4 lack BF16, only Hopper and
	// later have FP8, Pascal has no tensor cores at all).
	BF16TFLOPS float64
	FP16TFLOPS float64
	FP8TFLOPS  float64
	// FP32TFLOPS is the non-tensor single-precision peak.
	FP32TFLOPS float64
	// Interconnect between GPUs of one instance, and its bandwidth per GPU
	// (GB/s, bidirectional, as vendors quote it).
	Interconnect    string
	InterconnectGBs float64
	// Source is where the figures come from; Note flags figures not checked
	// against a primary page and other caveats.
	Source string
	Note   string
}

// DenseTFLOPS is the figure per-TFLOPS prices divide by: dense BF16, or
// dense FP16 where the GPU has no BF16. Zero when the GPU has no tensor
// cores, in which case a per-TFLOPS price is not shown.
func (g GPUSpec) DenseTFLOPS() float64 {
	if g.BF16TFLOPS > 0 {
		return g.BF16TFLOPS
	}
	return g.FP16TFLOPS
}

const (
	srcH100       = "https://www.nvidia.com/en-us/data-center/h100/ (spec table; sparse figures halved)"
	srcH200       = "https://www.nvidia.com/en-us/data-center/h200/ (spec table; sparse figures halved; same compute as H100 SXM)"
	srcA100       = "NVIDIA A100 datasheet, https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf (sparse figures halved)"
	srcB200       = "NVIDIA HGX B200 spec table, https://www.nvidia.com/en-us/data-center/hgx/ (8-GPU board figures ÷ 8, sparse halved)"
	srcGB200      = "https://www.nvidia.com/en-us/data-center/gb200-nvl72/ (NVL72 rack figures ÷ 72, sparse halved)"
	srcV100       = "NVIDIA V100 datasheet, https://images.nvidia.com/content/technologies/volta/pdf/tesla-volta-v100-datasheet-letter-fnl-web.pdf"
	srcT4         = "NVIDIA T4 datasheet, https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/tesla-t4/t4-tensor-core-datasheet-951643.pdf"
	srcA10        = "https://www.nvidia.com/en-us/data-center/products/a10-gpu/ (sparse figures halved)"
	srcA10G       = "AWS/NVIDIA A10G datasheet, https://d1.awsstatic.com/product-marketing/ec2/NVIDIA_AWS_A10G_DataSheet_FINAL_02_17_2022.pdf; A10 vs A10G: https://www.baseten.co/blog/nvidia-a10-vs-a10g-for-ml-model-inference/"
	srcA30        = "https://www.nvidia.com/en-us/data-center/products/a30-gpu/ (sparse figures halved)"
	srcL4         = "https://www.nvidia.com/en-us/data-center/l4/ (sparse figures halved)"
	srcL40S       = "NVIDIA L40S datasheet, https://www.nvidia.com/en-us/data-center/l40s/ (sparse figures halved)"
	srcMI300X     = "https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html (AMD lists dense and sparse separately)"
	srcPascal     = "NVIDIA Tesla P4/P40 datasheets, https://images.nvidia.com/content/pdf/tesla/184457-Tesla-P4-Datasheet-NV-Final-Letter-Web.pdf, https://images.nvidia.com/content/pdf/tesla/184427-Tesla-P40-Datasheet-NV-Final-Letter-Web.pdf"
	srcP100       = "NVIDIA Tesla P100 PCIe datasheet, https://images.nvidia.com/content/tesla/pdf/nvidia-tesla-p100-PCIe-datasheet.pdf"
	noteUnchecked = "not re-verified against a primary page"
)

// catalogue is keyed by the normalised names the fetchers emit. The
// starting table and the traps it avoids are in shared/research/anchors.md §4.
var catalogue = []GPUSpec{
	{Model: "H100", Vendor: "NVIDIA", Architecture: "Hopper", FormFactor: "SXM5",
		MemoryGB: 80, MemoryType: "HBM3", BandwidthGBs: 3350, BF16TFLOPS: 989, FP16TFLOPS: 989, FP8TFLOPS: 1979, FP32TFLOPS: 67,
		Interconnect: "NVLink 4 via NVSwitch", InterconnectGBs: 900, Source: srcH100},
	{Model: "H100-PCIe", Vendor: "NVIDIA", Architecture: "Hopper", FormFactor: "PCIe",
		MemoryGB: 80, MemoryType: "HBM2e", BandwidthGBs: 2000, BF16TFLOPS: 756, FP16TFLOPS: 756, FP8TFLOPS: 1513, FP32TFLOPS: 51,
		Interconnect: "PCIe Gen5 (NVLink bridge 600 GB/s between pairs)", InterconnectGBs: 128, Source: srcH100},
	{Model: "H100-NVL", Vendor: "NVIDIA", Architecture: "Hopper", FormFactor: "NVL",
		MemoryGB: 94, MemoryType: "HBM3", BandwidthGBs: 3900, BF16TFLOPS: 835.5, FP16TFLOPS: 835.5, FP8TFLOPS: 1670.5, FP32TFLOPS: 60,
		Interconnect: "NVLink bridge between card pairs", InterconnectGBs: 600, Source: srcH100 + ", H100 NVL column",
		Note: "sold as Azure NC H100 v5; " + noteUnchecked},
	{Model: "H800", Vendor: "NVIDIA", Architecture: "Hopper", FormFactor: "SXM5",
		MemoryGB: 80, MemoryType: "HBM3", BandwidthGBs: 3350, BF16TFLOPS: 989, FP16TFLOPS: 989, FP8TFLOPS: 1979, FP32TFLOPS: 67,
		Interconnect: "NVLink 4 via NVSwitch (reduced)", InterconnectGBs: 400, Source: "NVIDIA H800 (China export variant of H100 SXM): H100 SXM compute, NVLink cut to 400 GB/s",
		Note: noteUnchecked},
	{Model: "H20", Vendor: "NVIDIA", Architecture: "Hopper", FormFactor: "SXM",
		MemoryGB: 96, MemoryType: "HBM3", BandwidthGBs: 4000, BF16TFLOPS: 148, FP16TFLOPS: 148, FP8TFLOPS: 296, FP32TFLOPS: 44,
		Interconnect: "NVLink 4 via NVSwitch", InterconnectGBs: 900, Source: "https://willitrunai.com/gpus/h20-96gb (NVIDIA publishes no public H20 datasheet)",
		Note: "third-party figures; " + noteUnchecked},
	{Model: "H200", Vendor: "NVIDIA", Architecture: "Hopper", FormFactor: "SXM5",
		MemoryGB: 141, MemoryType: "HBM3e", BandwidthGBs: 4800, BF16TFLOPS: 989, FP16TFLOPS: 989, FP8TFLOPS: 1979, FP32TFLOPS: 67,
		Interconnect: "NVLink 4 via NVSwitch", InterconnectGBs: 900, Source: srcH200, Note: noteUnchecked},
	{Model: "B200", Vendor: "NVIDIA", Architecture: "Blackwell", FormFactor: "SXM (HGX)",
		MemoryGB: 180, MemoryType: "HBM3e", BandwidthGBs: 7700, BF16TFLOPS: 2250, FP16TFLOPS: 2250, FP8TFLOPS: 4500, FP32TFLOPS: 75,
		Interconnect: "NVLink 5 via NVSwitch", InterconnectGBs: 1800, Source: srcB200,
		Note: "192 GB physical, ~179-180 GB visible"},
	{Model: "GB200", Vendor: "NVIDIA", Architecture: "Blackwell", FormFactor: "Superchip (NVL72)",
		MemoryGB: 186, MemoryType: "HBM3e", BandwidthGBs: 8000, BF16TFLOPS: 2500, FP16TFLOPS: 2500, FP8TFLOPS: 5000, FP32TFLOPS: 80,
		Interconnect: "NVLink 5, 72-GPU domain", InterconnectGBs: 1800, Source: srcGB200, Note: noteUnchecked},
	{Model: "A100-40GB", Vendor: "NVIDIA", Architecture: "Ampere", FormFactor: "SXM4",
		MemoryGB: 40, MemoryType: "HBM2", BandwidthGBs: 1555, BF16TFLOPS: 312, FP16TFLOPS: 312, FP32TFLOPS: 19.5,
		Interconnect: "NVLink 3 via NVSwitch", InterconnectGBs: 600, Source: srcA100},
	{Model: "A100-80GB", Vendor: "NVIDIA", Architecture: "Ampere", FormFactor: "SXM4",
		MemoryGB: 80, MemoryType: "HBM2e", BandwidthGBs: 2039, BF16TFLOPS: 312, FP16TFLOPS: 312, FP32TFLOPS: 19.5,
		Interconnect: "NVLink 3 via NVSwitch", InterconnectGBs: 600, Source: srcA100},
	{Model: "A100-80GB-PCIe", Vendor: "NVIDIA", Architecture: "Ampere", FormFactor: "PCIe",
		MemoryGB: 80, MemoryType: "HBM2e", BandwidthGBs: 1935, BF16TFLOPS: 312, FP16TFLOPS: 312, FP32TFLOPS: 19.5,
		Interconnect: "PCIe Gen4 (NVLink bridge 600 GB/s between pairs)", InterconnectGBs: 64, Source: srcA100,
		Note: "Azure NC A100 v4"},
	{Model: "A800", Vendor: "NVIDIA", Architecture: "Ampere", FormFactor: "SXM4",
		MemoryGB: 80, MemoryType: "HBM2e", BandwidthGBs: 2039, BF16TFLOPS: 312, FP16TFLOPS: 312, FP32TFLOPS: 19.5,
		Interconnect: "NVLink 3 via NVSwitch (reduced)", InterconnectGBs: 400, Source: "NVIDIA A800 80GB (China export variant of A100 80GB SXM): A100 compute, NVLink cut to 400 GB/s",
		Note: noteUnchecked},
	{Model: "A30", Vendor: "NVIDIA", Architecture: "Ampere", FormFactor: "PCIe",
		MemoryGB: 24, MemoryType: "HBM2", BandwidthGBs: 933, BF16TFLOPS: 165, FP16TFLOPS: 165, FP32TFLOPS: 10.3,
		Interconnect: "PCIe Gen4 (NVLink bridge 200 GB/s between pairs)", InterconnectGBs: 64, Source: srcA30, Note: noteUnchecked},
	{Model: "A10", Vendor: "NVIDIA", Architecture: "Ampere", FormFactor: "PCIe",
		MemoryGB: 24, MemoryType: "GDDR6", BandwidthGBs: 600, BF16TFLOPS: 125, FP16TFLOPS: 125, FP32TFLOPS: 31.2,
		Interconnect: "PCIe Gen4, no NVLink", InterconnectGBs: 64, Source: srcA10, Note: noteUnchecked},
	{Model: "A10G", Vendor: "NVIDIA", Architecture: "Ampere", FormFactor: "PCIe",
		MemoryGB: 24, MemoryType: "GDDR6", BandwidthGBs: 600, BF16TFLOPS: 70, FP16TFLOPS: 70, FP32TFLOPS: 35,
		Interconnect: "PCIe Gen4, no NVLink", InterconnectGBs: 64, Source: srcA10G,
		Note: "AWS-only variant; the datasheet does not say whether 70 TFLOPS is dense"},
	{Model: "L4", Vendor: "NVIDIA", Architecture: "Ada Lovelace", FormFactor: "PCIe",
		MemoryGB: 24, MemoryType: "GDDR6", BandwidthGBs: 300, BF16TFLOPS: 121, FP16TFLOPS: 121, FP8TFLOPS: 242, FP32TFLOPS: 30.3,
		Interconnect: "PCIe Gen4, no NVLink", InterconnectGBs: 64, Source: srcL4,
		Note: "AWS reports 22,888 MiB"},
	{Model: "L20", Vendor: "NVIDIA", Architecture: "Ada Lovelace", FormFactor: "PCIe",
		MemoryGB: 48, MemoryType: "GDDR6", BandwidthGBs: 864, BF16TFLOPS: 119.5, FP16TFLOPS: 119.5, FP8TFLOPS: 239, FP32TFLOPS: 59.8,
		Interconnect: "PCIe Gen4, no NVLink", InterconnectGBs: 64, Source: "NVIDIA L20 product brief (China market); memory and bandwidth per https://www.topcpu.net/en/gpu-c/a40-pcie-vs-l20",
		Note: "tensor figures " + noteUnchecked},
	{Model: "L40S", Vendor: "NVIDIA", Architecture: "Ada Lovelace", FormFactor: "PCIe",
		MemoryGB: 48, MemoryType: "GDDR6", BandwidthGBs: 864, BF16TFLOPS: 362, FP16TFLOPS: 362, FP8TFLOPS: 733, FP32TFLOPS: 91.6,
		Interconnect: "PCIe Gen4, no NVLink", InterconnectGBs: 64, Source: srcL40S},
	{Model: "T4", Vendor: "NVIDIA", Architecture: "Turing", FormFactor: "PCIe",
		MemoryGB: 16, MemoryType: "GDDR6", BandwidthGBs: 320, FP16TFLOPS: 65, FP32TFLOPS: 8.1,
		Interconnect: "PCIe Gen3", InterconnectGBs: 32, Source: srcT4, Note: "no BF16; FP16 is mixed precision"},
	{Model: "V100", Vendor: "NVIDIA", Architecture: "Volta", FormFactor: "SXM2",
		MemoryGB: 16, MemoryType: "HBM2", BandwidthGBs: 900, FP16TFLOPS: 125, FP32TFLOPS: 15.7,
		Interconnect: "NVLink 2", InterconnectGBs: 300, Source: srcV100, Note: "no BF16; PCIe V100 is 112 TFLOPS FP16"},
	{Model: "V100-32GB", Vendor: "NVIDIA", Architecture: "Volta", FormFactor: "SXM2",
		MemoryGB: 32, MemoryType: "HBM2", BandwidthGBs: 900, FP16TFLOPS: 125, FP32TFLOPS: 15.7,
		Interconnect: "NVLink 2", InterconnectGBs: 300, Source: srcV100, Note: "no BF16"},
	{Model: "P100", Vendor: "NVIDIA", Architecture: "Pascal", FormFactor: "PCIe",
		MemoryGB: 16, MemoryType: "HBM2", BandwidthGBs: 732, FP32TFLOPS: 9.3,
		Interconnect: "PCIe Gen3", InterconnectGBs: 32, Source: srcP100, Note: "no tensor cores: no per-TFLOPS figure"},
	{Model: "P40", Vendor: "NVIDIA", Architecture: "Pascal", FormFactor: "PCIe",
		MemoryGB: 24, MemoryType: "GDDR5", BandwidthGBs: 346, FP32TFLOPS: 12,
		Interconnect: "PCIe Gen3", InterconnectGBs: 32, Source: srcPascal, Note: "no tensor cores: no per-TFLOPS figure"},
	{Model: "P4", Vendor: "NVIDIA", Architecture: "Pascal", FormFactor: "PCIe",
		MemoryGB: 8, MemoryType: "GDDR5", BandwidthGBs: 192, FP32TFLOPS: 5.5,
		Interconnect: "PCIe Gen3", InterconnectGBs: 32, Source: srcPascal, Note: "no tensor cores: no per-TFLOPS figure"},
	{Model: "MI300X", Vendor: "AMD", Architecture: "CDNA 3", FormFactor: "OAM",
		MemoryGB: 192, MemoryType: "HBM3", BandwidthGBs: 5300, BF16TFLOPS: 1307.4, FP16TFLOPS: 1307.4, FP8TFLOPS: 2614.9, FP32TFLOPS: 163.4,
		Interconnect: "Infinity Fabric (7 × 128 GB/s)", InterconnectGBs: 896, Source: srcMI300X,
		Note: "some aggregators list the sparse 2,615 as dense FP16"},
}

// aliases map other spellings seen in cloud APIs and user input to the
// catalogue's names. Names are compared after normalise.
var aliases = map[string]string{
	"H100-SXM": "H100", "H100-SXM5": "H100", "H100-80GB": "H100", "H100-SXM5-80GB": "H100",
	"H100-PCIE-80GB": "H100-PCIe",
	"H200-SXM":       "H200", "H200-141GB": "H200",
	"A100-SXM4-40GB": "A100-40GB", "A100-40GB-SXM": "A100-40GB", "A100-SXM-40GB": "A100-40GB",
	"A100-SXM4-80GB": "A100-80GB", "A100-80GB-SXM": "A100-80GB", "A100-SXM-80GB": "A100-80GB",
	"A100-PCIE-80GB": "A100-80GB-PCIe",
	"V100-16GB":      "V100", "V100-SXM2-16GB": "V100", "V100-SXM2-32GB": "V100-32GB",
	"MI300": "MI300X",
}

var byName = func() map[string]GPUSpec {
	m := make(map[string]GPUSpec, len(catalogue))
	for _, g := range catalogue {
		m[normalise(g.Model)] = g
	}
	return m
}()

var hyphens = strings.NewReplacer(" ", "-", "_", "-")

// canonicalNames memoises canonical: a comparison or a digest matches tens
// of thousands of offers against a handful of queries, and the stored
// model names are few.
var canonicalNames sync.Map // string → string

// normalise makes names comparable: upper case, spaces and underscores as
// hyphens, vendor prefixes dropped ("NVIDIA H100 SXM" → "H100-SXM").
func normalise(s string) string {
	s = strings.ToUpper(strings.TrimSpace(s))
	for _, p := range []string{"NVIDIA ", "NVIDIA-", "AMD INSTINCT ", "AMD ", "TESLA "} {
		s = strings.TrimPrefix(s, p)
	}
	s = hyphens.Replace(s)
	for strings.Contains(s, "--") {
		s = strings.ReplaceAll(s, "--", "-")
	}
	return strings.Trim(s, "-")
}

// canonical returns the catalogue name for s, or s normalised when unknown.
func canonical(s string) string {
	if c, ok := canonicalNames.Load(s); ok {
		return c.(string)
	}
	n := normalise(s)
	if a, ok := aliases[n]; ok {
		n = normalise(a)
	}
	canonicalNames.Store(s, n)
	return n
}

// LookupGPU returns the catalogue entry for a model name, forgiving about
// case, spacing, vendor prefixes and common alternative spellings.
func LookupGPU(model string) (GPUSpec, bool) {
	g, ok := byName[canonical(model)]
	return g, ok
}

// GPUs returns the whole catalogue, sorted by model name.
func GPUs() []GPUSpec {
	out := append([]GPUSpec(nil), catalogue...)
	sort.Slice(out, func(i, j int) bool { return out[i].Model < out[j].Model })
	return out
}

// MatchGPU reports whether an offer's GPU model answers a user's --gpu
// query. A query names a model ("H100-NVL", "a100-80gb") or a family: "A100"
// matches A100-40GB, A100-80GB and A100-80GB-PCIe, and "H100" matches H100,
// H100-PCIe and H100-NVL (the variant is shown beside every result because
// its TFLOPS differ). "A10" does not match "A100" or "A10G".
func MatchGPU(query, model string) bool {
	q, m := canonical(query), canonical(model)
	if q == "" || m == "" {
		return false
	}
	return m == q || strings.HasPrefix(m, q+"-")
}
