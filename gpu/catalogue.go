package gpu

// Spec is what a buyer compares between GPU models. Throughput figures
// are vendor peak numbers for dense matrices: NVIDIA and AMD headline the
// 2:4 structured-sparsity figure, which is twice the dense one and is never
// what a dense training or inference job gets, so every sparse figure in a
// source was halved here and is named as such in Source.
type Spec struct {
	// Model is the normalised name stored in Hardware.GPUModel.
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
func (g Spec) DenseTFLOPS() float64 {
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
	srcB300       = "NVIDIA HGX B300 spec table, https://www.nvidia.com/en-us/data-center/hgx/ (8-GPU board: 288 GB HBM3e per GPU, 2.3 TB total, FP16/BF16 36 PF and FP8 72 PF sparse; ÷ 8, sparse halved), as reproduced by acecloud.ai/blog/nvidia-hgx-b300 and fibermall.com"
	srcRTXPro6000 = "NVIDIA RTX PRO 6000 Blackwell Server Edition, https://www.nvidia.com/en-us/data-center/rtx-pro-6000-blackwell-server-edition/ (96 GB GDDR7, 1,597 GB/s, FP32 ~120 TFLOPS)"
	srcRTX5880    = "NVIDIA RTX 5880 Ada Generation datasheet, https://www.nvidia.com/en-us/design-visualization/rtx-5880/ (48 GB GDDR6, 960 GB/s, FP32 69.3 TFLOPS)"
	srcMI325X     = "https://www.amd.com/en/products/accelerators/instinct/mi300/mi325x.html (256 GB HBM3E, 6 TB/s; dense FP16 1,307.4, FP8 2,614.9)"
	srcMI355X     = "https://www.amd.com/en/products/accelerators/instinct/mi350/mi355x.html (288 GB HBM3E, 8 TB/s)"
	srcH200NVL    = "https://www.nvidia.com/en-us/data-center/h200/ (spec table, H200 NVL column: 141 GB HBM3e, 4.8 TB/s, FP32 60, BF16/FP16 1,671 and FP8 3,341 TFLOPS sparse, halved; max TDP up to 600 W; 2- or 4-way NVLink bridge 900 GB/s, PCIe Gen5 128 GB/s)"
	srcH800PCIe   = "NVIDIA H800 PCIe 80GB datasheet (China export variant of H100 PCIe): 80 GB HBM2e, 2 TB/s, FP32 51, BF16/FP16 1,513 and FP8 3,026 TFLOPS sparse, halved; TDP 350 W; NVLink bridge 400 GB/s"
	srcA40        = "NVIDIA A40 datasheet, https://images.nvidia.com/content/Solutions/data-center/a40/nvidia-a40-datasheet.pdf (48 GB GDDR6, 696 GB/s, FP32 37.4, BF16/FP16 149.7 dense / 299.4 sparse TFLOPS; NVLink 112.5 GB/s; 300 W)"
	srcL40        = "NVIDIA L40 datasheet, https://www.nvidia.com/en-us/data-center/l40/ (48 GB GDDR6, 864 GB/s, FP32 90.5, BF16/FP16 181.05 dense / 362.1 sparse, FP8 362 dense / 724 sparse TFLOPS; 300 W)"
	srcRTXA       = "NVIDIA RTX A-series datasheets, https://www.nvidia.com/en-us/design-visualization/desktop-graphics/ (RTX A6000 48 GB GDDR6 768 GB/s FP32 38.7; A5000 24 GB 768 GB/s 27.8; A4000 16 GB 448 GB/s 19.2)"
	srcRTXAda     = "NVIDIA RTX Ada Generation datasheets, https://www.nvidia.com/en-us/design-visualization/desktop-graphics/ (RTX 6000 Ada 48 GB GDDR6 960 GB/s FP32 91.1; RTX 4000 Ada 20 GB GDDR6 360 GB/s FP32 26.7)"
	srcGeForce40  = "NVIDIA Ada Lovelace architecture whitepaper, GeForce RTX 4090/4080/4070 spec tables (4090: 24 GB GDDR6X, 1,008 GB/s, FP32 82.6; 4080: 16 GB GDDR6X, 716.8 GB/s, 48.7; 4070: 12 GB GDDR6X, 504 GB/s, 29.1)"
	srcGeForce30  = "NVIDIA Ampere GA102 whitepaper, GeForce RTX 3090 spec table (24 GB GDDR6X, 936 GB/s, FP32 35.6)"
	srcGH200      = "https://www.nvidia.com/en-us/data-center/grace-hopper-superchip/ (GH200: the H100's Hopper GPU with 96 GB HBM3 at 4 TB/s, or 144 GB HBM3e at 4.9 TB/s, NVLink-C2C 900 GB/s to the Grace CPU); compute as the H100 SXM, sparse halved"
	srcGB300      = "https://www.nvidia.com/en-us/data-center/gb300-nvl72/ (GB300 NVL72: 72 Blackwell Ultra GPUs, 288 GB HBM3e and 8 TB/s each; rack FP16/BF16 360 PF and FP8 720 PF sparse, FP32 6 PF: ÷ 72, sparse halved)"
	srcV100S      = "NVIDIA V100S PCIe datasheet, https://www.nvidia.com/en-us/data-center/v100/ (V100S PCIe column: 32 GB HBM2, 1,134 GB/s, FP32 16.4, tensor FP16 130 TFLOPS)"
	srcQuadroRTX  = "NVIDIA Quadro RTX 5000 datasheet, https://www.nvidia.com/content/dam/en-zz/Solutions/design-visualization/quadro-product-literature/quadro-rtx-5000-data-sheet-us-nvidia-704120-r4-web.pdf (Turing TU104, 16 GB GDDR6, 448 GB/s, FP32 11.2 TFLOPS, 2-way NVLink 50 GB/s)"
	srcGeForce30x = "NVIDIA GeForce RTX 3070 spec table, https://www.nvidia.com/en-us/geforce/graphics-cards/30-series/rtx-3070-3070ti/ (Ampere GA104, 8 GB GDDR6, 256-bit at 14 Gbps: 448 GB/s, 5,888 CUDA cores, FP32 20.3)"
	srcGeForce50  = "NVIDIA RTX Blackwell GPU architecture whitepaper, GeForce RTX 5090/5080 spec tables (5090: 32 GB GDDR7, 1,792 GB/s, FP32 104.8; 5080: 16 GB GDDR7, 960 GB/s, FP32 56.3)"
	noteGeForce   = "consumer card sold on marketplaces (Vast.ai); " + noteNoTensor
	noteUnchecked = "not re-verified against a primary page"
	noteNoTensor  = "tensor figures not sourced: no per-TFLOPS figure"
)

// catalogue is keyed by the normalised names the fetchers emit. The
// starting table and the traps it avoids are in shared/research/anchors.md §4.
var catalogue = []Spec{
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
	// The PCIe H800 is the H100 PCIe's chip with the H800's cut NVLink; it
	// is not the SXM H800 (issue 20 item 8).
	{Model: "H800-PCIe", Vendor: "NVIDIA", Architecture: "Hopper", FormFactor: "PCIe",
		MemoryGB: 80, MemoryType: "HBM2e", BandwidthGBs: 2000, BF16TFLOPS: 756.5, FP16TFLOPS: 756.5, FP8TFLOPS: 1513, FP32TFLOPS: 51,
		Interconnect: "PCIe Gen5 (NVLink bridge 400 GB/s between pairs)", InterconnectGBs: 128, Source: srcH800PCIe,
		Note: noteUnchecked},
	{Model: "H20", Vendor: "NVIDIA", Architecture: "Hopper", FormFactor: "SXM",
		MemoryGB: 96, MemoryType: "HBM3", BandwidthGBs: 4000, BF16TFLOPS: 148, FP16TFLOPS: 148, FP8TFLOPS: 296, FP32TFLOPS: 44,
		Interconnect: "NVLink 4 via NVSwitch", InterconnectGBs: 900, Source: "https://willitrunai.com/gpus/h20-96gb (NVIDIA publishes no public H20 datasheet)",
		Note: "third-party figures; " + noteUnchecked},
	{Model: "H200", Vendor: "NVIDIA", Architecture: "Hopper", FormFactor: "SXM5",
		MemoryGB: 141, MemoryType: "HBM3e", BandwidthGBs: 4800, BF16TFLOPS: 989, FP16TFLOPS: 989, FP8TFLOPS: 1979, FP32TFLOPS: 67,
		Interconnect: "NVLink 4 via NVSwitch", InterconnectGBs: 900, Source: srcH200, Note: noteUnchecked},
	// H200 NVL: the PCIe card of the H200, with less power and compute
	// than the SXM part (issue 20 item 8).
	{Model: "H200-NVL", Vendor: "NVIDIA", Architecture: "Hopper", FormFactor: "NVL",
		MemoryGB: 141, MemoryType: "HBM3e", BandwidthGBs: 4800, BF16TFLOPS: 835.5, FP16TFLOPS: 835.5, FP8TFLOPS: 1670.5, FP32TFLOPS: 60,
		Interconnect: "NVLink bridge between 2 or 4 cards", InterconnectGBs: 900, Source: srcH200NVL,
		Note: "PCIe card, up to 600 W (the SXM H200 is up to 700 W); " + noteUnchecked},
	{Model: "B200", Vendor: "NVIDIA", Architecture: "Blackwell", FormFactor: "SXM (HGX)",
		MemoryGB: 180, MemoryType: "HBM3e", BandwidthGBs: 7700, BF16TFLOPS: 2250, FP16TFLOPS: 2250, FP8TFLOPS: 4500, FP32TFLOPS: 75,
		Interconnect: "NVLink 5 via NVSwitch", InterconnectGBs: 1800, Source: srcB200,
		Note: "192 GB physical, ~179-180 GB visible"},
	{Model: "GB200", Vendor: "NVIDIA", Architecture: "Blackwell", FormFactor: "Superchip (NVL72)",
		MemoryGB: 186, MemoryType: "HBM3e", BandwidthGBs: 8000, BF16TFLOPS: 2500, FP16TFLOPS: 2500, FP8TFLOPS: 5000, FP32TFLOPS: 80,
		Interconnect: "NVLink 5, 72-GPU domain", InterconnectGBs: 1800, Source: srcGB200, Note: noteUnchecked},
	// GB300 (Blackwell Ultra superchip: OCI BM.GPU.GB300.4, Azure ND GB300
	// v6, CoreWeave) was "hardware unknown" (issue 31 item 7).
	{Model: "GB300", Vendor: "NVIDIA", Architecture: "Blackwell Ultra", FormFactor: "Superchip (NVL72)",
		MemoryGB: 288, MemoryType: "HBM3e", BandwidthGBs: 8000, BF16TFLOPS: 2500, FP16TFLOPS: 2500, FP8TFLOPS: 5000, FP32TFLOPS: 83.3,
		Interconnect: "NVLink 5, 72-GPU domain", InterconnectGBs: 1800, Source: srcGB300,
		Note: "clouds show ~277-279 GB usable; " + noteUnchecked},
	// GH200 (Lambda gpu_1x_gh200, CoreWeave): one Hopper GPU per superchip,
	// the H100's compute with more, faster memory.
	{Model: "GH200", Vendor: "NVIDIA", Architecture: "Hopper", FormFactor: "Superchip (Grace Hopper)",
		MemoryGB: 96, MemoryType: "HBM3", BandwidthGBs: 4000, BF16TFLOPS: 989, FP16TFLOPS: 989, FP8TFLOPS: 1979, FP32TFLOPS: 67,
		Interconnect: "NVLink-C2C to its Grace CPU; NVLink 4 between superchips in NVL32 systems", InterconnectGBs: 900, Source: srcGH200,
		Note: "the 144 GB HBM3e version (4.9 TB/s) is the same model here: the memory a cloud reports is stored per offer; " + noteUnchecked},
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
	{Model: "A100-40GB-PCIe", Vendor: "NVIDIA", Architecture: "Ampere", FormFactor: "PCIe",
		MemoryGB: 40, MemoryType: "HBM2", BandwidthGBs: 1555, BF16TFLOPS: 312, FP16TFLOPS: 312, FP32TFLOPS: 19.5,
		Interconnect: "PCIe Gen4 (NVLink bridge 600 GB/s between pairs)", InterconnectGBs: 64, Source: srcA100},
	{Model: "A800-80GB", Vendor: "NVIDIA", Architecture: "Ampere", FormFactor: "SXM4",
		MemoryGB: 80, MemoryType: "HBM2e", BandwidthGBs: 2039, BF16TFLOPS: 312, FP16TFLOPS: 312, FP32TFLOPS: 19.5,
		Interconnect: "NVLink 3 via NVSwitch (reduced)", InterconnectGBs: 400, Source: "NVIDIA A800 80GB (China export variant of A100 80GB SXM): A100 compute, NVLink cut to 400 GB/s",
		Note: noteUnchecked},
	// The 40 GB A800 is the one Alibaba's ebmgn7v carries (8 × 40 GB in
	// DescribeInstanceTypes); ebmgn7vx carries the 80 GB part.
	{Model: "A800-40GB", Vendor: "NVIDIA", Architecture: "Ampere", FormFactor: "PCIe",
		MemoryGB: 40, MemoryType: "HBM2", BandwidthGBs: 1555, BF16TFLOPS: 312, FP16TFLOPS: 312, FP32TFLOPS: 19.5,
		Interconnect: "PCIe Gen4 (NVLink bridge 400 GB/s between pairs)", InterconnectGBs: 64,
		Source: "NVIDIA A800 40GB PCIe (China export variant of A100 40GB PCIe): A100 40GB compute and memory, NVLink cut to 400 GB/s",
		Note:   "NVIDIA sold the 40 GB A800 as a PCIe card; " + noteUnchecked},
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
	{Model: "L40", Vendor: "NVIDIA", Architecture: "Ada Lovelace", FormFactor: "PCIe",
		MemoryGB: 48, MemoryType: "GDDR6", BandwidthGBs: 864, BF16TFLOPS: 181.05, FP16TFLOPS: 181.05, FP8TFLOPS: 362, FP32TFLOPS: 90.5,
		Interconnect: "PCIe Gen4, no NVLink", InterconnectGBs: 64, Source: srcL40, Note: noteUnchecked},
	{Model: "A40", Vendor: "NVIDIA", Architecture: "Ampere", FormFactor: "PCIe",
		MemoryGB: 48, MemoryType: "GDDR6", BandwidthGBs: 696, BF16TFLOPS: 149.7, FP16TFLOPS: 149.7, FP32TFLOPS: 37.4,
		Interconnect: "PCIe Gen4 (NVLink bridge 112.5 GB/s between pairs)", InterconnectGBs: 64, Source: srcA40, Note: noteUnchecked},
	{Model: "T4", Vendor: "NVIDIA", Architecture: "Turing", FormFactor: "PCIe",
		MemoryGB: 16, MemoryType: "GDDR6", BandwidthGBs: 320, FP16TFLOPS: 65, FP32TFLOPS: 8.1,
		Interconnect: "PCIe Gen3", InterconnectGBs: 32, Source: srcT4, Note: "no BF16; FP16 is mixed precision"},
	{Model: "V100", Vendor: "NVIDIA", Architecture: "Volta", FormFactor: "SXM2",
		MemoryGB: 16, MemoryType: "HBM2", BandwidthGBs: 900, FP16TFLOPS: 125, FP32TFLOPS: 15.7,
		Interconnect: "NVLink 2", InterconnectGBs: 300, Source: srcV100, Note: "no BF16; PCIe V100 is 112 TFLOPS FP16"},
	{Model: "V100-32GB", Vendor: "NVIDIA", Architecture: "Volta", FormFactor: "SXM2",
		MemoryGB: 32, MemoryType: "HBM2", BandwidthGBs: 900, FP16TFLOPS: 125, FP32TFLOPS: 15.7,
		Interconnect: "NVLink 2", InterconnectGBs: 300, Source: srcV100, Note: "no BF16"},
	// Azure NCv3 is the PCIe V100 (the Learn page: "NVIDIA Tesla V100 PCIe").
	{Model: "V100-PCIe", Vendor: "NVIDIA", Architecture: "Volta", FormFactor: "PCIe",
		MemoryGB: 16, MemoryType: "HBM2", BandwidthGBs: 900, FP16TFLOPS: 112, FP32TFLOPS: 14,
		Interconnect: "PCIe Gen3", InterconnectGBs: 32, Source: srcV100, Note: "no BF16"},
	{Model: "V100-32GB-PCIe", Vendor: "NVIDIA", Architecture: "Volta", FormFactor: "PCIe",
		MemoryGB: 32, MemoryType: "HBM2", BandwidthGBs: 900, FP16TFLOPS: 112, FP32TFLOPS: 14,
		Interconnect: "PCIe Gen3", InterconnectGBs: 32, Source: srcV100, Note: "no BF16"},
	// V100S (OVHcloud t2-*): the PCIe V100 with faster memory and clocks.
	{Model: "V100S", Vendor: "NVIDIA", Architecture: "Volta", FormFactor: "PCIe",
		MemoryGB: 32, MemoryType: "HBM2", BandwidthGBs: 1134, FP16TFLOPS: 130, FP32TFLOPS: 16.4,
		Interconnect: "PCIe Gen3", InterconnectGBs: 32, Source: srcV100S, Note: "no BF16; " + noteUnchecked},
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
	// Older parts still sold on AWS (p2, g3, g4ad, g5g). Per GPU: the K80
	// and M60 boards carry two GPUs, and AWS counts GPUs.
	{Model: "T4G", Vendor: "NVIDIA", Architecture: "Turing", FormFactor: "PCIe",
		MemoryGB: 16, MemoryType: "GDDR6", BandwidthGBs: 320, FP16TFLOPS: 65, FP32TFLOPS: 8.1,
		Interconnect: "PCIe Gen3", InterconnectGBs: 32, Source: "https://aws.amazon.com/ec2/instance-types/g5g/ (NVIDIA T4G: the T4 for Arm hosts); figures as " + srcT4,
		Note: "no BF16; FP16 is mixed precision; " + noteUnchecked},
	{Model: "V520", Vendor: "AMD", Architecture: "RDNA (Navi 12)", FormFactor: "PCIe",
		MemoryGB: 8, MemoryType: "HBM2", BandwidthGBs: 512, FP32TFLOPS: 7.4,
		Interconnect: "PCIe Gen4", InterconnectGBs: 64, Source: "https://aws.amazon.com/ec2/instance-types/g4/ (AMD Radeon Pro V520, 8 GB)",
		Note: "no matrix cores: no per-TFLOPS figure; " + noteUnchecked},
	{Model: "M60", Vendor: "NVIDIA", Architecture: "Maxwell", FormFactor: "PCIe (2 GPUs per board)",
		MemoryGB: 8, MemoryType: "GDDR5", BandwidthGBs: 160, FP32TFLOPS: 4.8,
		Interconnect: "PCIe Gen3", InterconnectGBs: 32, Source: "NVIDIA Tesla M60 datasheet (board: 2 GPUs, 16 GB, 320 GB/s, 9.6 TFLOPS FP32; halved per GPU)",
		Note: "no tensor cores: no per-TFLOPS figure; " + noteUnchecked},
	{Model: "K80", Vendor: "NVIDIA", Architecture: "Kepler", FormFactor: "PCIe (2 GPUs per board)",
		MemoryGB: 12, MemoryType: "GDDR5", BandwidthGBs: 240, FP32TFLOPS: 4.4,
		Interconnect: "PCIe Gen3", InterconnectGBs: 32, Source: "NVIDIA Tesla K80 datasheet (board: 2 GPUs, 24 GB, 480 GB/s, 8.7 TFLOPS FP32 boost; halved per GPU)",
		Note: "no tensor cores: no per-TFLOPS figure; " + noteUnchecked},
	// Newer families. Figures a vendor page did not give are left at zero
	// and the Note says so (noteNoTensor): a made-up TFLOPS figure would
	// rank offers wrongly, a missing one only hides a per-TFLOPS column.
	{Model: "B300", Vendor: "NVIDIA", Architecture: "Blackwell Ultra", FormFactor: "SXM (HGX)",
		MemoryGB: 288, MemoryType: "HBM3e", BandwidthGBs: 8000, BF16TFLOPS: 2250, FP16TFLOPS: 2250, FP8TFLOPS: 4500, FP32TFLOPS: 75,
		Interconnect: "NVLink 5 via NVSwitch", InterconnectGBs: 1800, Source: srcB300,
		Note: "dense FP16/FP8 as for B200 (the HGX table gives the same 8-GPU totals); clouds show ~268-270 GB usable; " + noteUnchecked},
	{Model: "RTX-PRO-6000", Vendor: "NVIDIA", Architecture: "Blackwell", FormFactor: "PCIe (Server Edition)",
		MemoryGB: 96, MemoryType: "GDDR7", BandwidthGBs: 1597, FP32TFLOPS: 120,
		Interconnect: "PCIe Gen5, no NVLink", InterconnectGBs: 128, Source: srcRTXPro6000,
		Note: "RTX PRO 6000 Blackwell Server Edition (Azure NC RTXPRO6000BSE v6, AWS g7e); " + noteNoTensor + "; " + noteUnchecked},
	{Model: "RTX-5880-Ada", Vendor: "NVIDIA", Architecture: "Ada Lovelace", FormFactor: "PCIe",
		MemoryGB: 48, MemoryType: "GDDR6", BandwidthGBs: 960, FP32TFLOPS: 69.3,
		Interconnect: "PCIe Gen4, no NVLink", InterconnectGBs: 64, Source: srcRTX5880,
		Note: "Alibaba gn8ga/ebmgn8ga; " + noteNoTensor + "; " + noteUnchecked},
	// Workstation and consumer cards: the GPUs most rented on marketplaces
	// (Vast.ai lists every GPU its hosts have). Memory, bandwidth and FP32
	// are the vendor's; their tensor figures are quoted sparse or for
	// mixed accumulate modes only, so they are left at zero (noteNoTensor).
	{Model: "RTX-A6000", Vendor: "NVIDIA", Architecture: "Ampere", FormFactor: "PCIe (workstation)",
		MemoryGB: 48, MemoryType: "GDDR6", BandwidthGBs: 768, FP32TFLOPS: 38.7,
		Interconnect: "PCIe Gen4 (NVLink bridge 112.5 GB/s between pairs)", InterconnectGBs: 64, Source: srcRTXA, Note: noteNoTensor + "; " + noteUnchecked},
	{Model: "RTX-A5000", Vendor: "NVIDIA", Architecture: "Ampere", FormFactor: "PCIe (workstation)",
		MemoryGB: 24, MemoryType: "GDDR6", BandwidthGBs: 768, FP32TFLOPS: 27.8,
		Interconnect: "PCIe Gen4 (NVLink bridge 112.5 GB/s between pairs)", InterconnectGBs: 64, Source: srcRTXA, Note: noteNoTensor + "; " + noteUnchecked},
	{Model: "RTX-A4000", Vendor: "NVIDIA", Architecture: "Ampere", FormFactor: "PCIe (workstation)",
		MemoryGB: 16, MemoryType: "GDDR6", BandwidthGBs: 448, FP32TFLOPS: 19.2,
		Interconnect: "PCIe Gen4, no NVLink", InterconnectGBs: 64, Source: srcRTXA, Note: noteNoTensor + "; " + noteUnchecked},
	{Model: "RTX-6000-Ada", Vendor: "NVIDIA", Architecture: "Ada Lovelace", FormFactor: "PCIe (workstation)",
		MemoryGB: 48, MemoryType: "GDDR6", BandwidthGBs: 960, FP32TFLOPS: 91.1,
		Interconnect: "PCIe Gen4, no NVLink", InterconnectGBs: 64, Source: srcRTXAda, Note: noteNoTensor + "; " + noteUnchecked},
	{Model: "RTX-4000-Ada", Vendor: "NVIDIA", Architecture: "Ada Lovelace", FormFactor: "PCIe (workstation)",
		MemoryGB: 20, MemoryType: "GDDR6", BandwidthGBs: 360, FP32TFLOPS: 26.7,
		Interconnect: "PCIe Gen4, no NVLink", InterconnectGBs: 64, Source: srcRTXAda, Note: noteNoTensor + "; " + noteUnchecked},
	{Model: "Quadro-RTX-5000", Vendor: "NVIDIA", Architecture: "Turing", FormFactor: "PCIe (workstation)",
		MemoryGB: 16, MemoryType: "GDDR6", BandwidthGBs: 448, FP32TFLOPS: 11.2,
		Interconnect: "PCIe Gen3 (NVLink bridge 50 GB/s between pairs)", InterconnectGBs: 32, Source: srcQuadroRTX,
		Note: "not the RTX 5000 Ada; " + noteNoTensor + "; " + noteUnchecked},
	{Model: "RTX-5090", Vendor: "NVIDIA", Architecture: "Blackwell", FormFactor: "PCIe (consumer)",
		MemoryGB: 32, MemoryType: "GDDR7", BandwidthGBs: 1792, FP32TFLOPS: 104.8,
		Interconnect: "PCIe Gen5, no NVLink", InterconnectGBs: 128, Source: srcGeForce50, Note: noteGeForce + "; " + noteUnchecked},
	{Model: "RTX-5080", Vendor: "NVIDIA", Architecture: "Blackwell", FormFactor: "PCIe (consumer)",
		MemoryGB: 16, MemoryType: "GDDR7", BandwidthGBs: 960, FP32TFLOPS: 56.3,
		Interconnect: "PCIe Gen5, no NVLink", InterconnectGBs: 128, Source: srcGeForce50, Note: noteGeForce + "; " + noteUnchecked},
	{Model: "RTX-4090", Vendor: "NVIDIA", Architecture: "Ada Lovelace", FormFactor: "PCIe (consumer)",
		MemoryGB: 24, MemoryType: "GDDR6X", BandwidthGBs: 1008, FP32TFLOPS: 82.6,
		Interconnect: "PCIe Gen4, no NVLink", InterconnectGBs: 64, Source: srcGeForce40, Note: noteGeForce + "; " + noteUnchecked},
	{Model: "RTX-4080", Vendor: "NVIDIA", Architecture: "Ada Lovelace", FormFactor: "PCIe (consumer)",
		MemoryGB: 16, MemoryType: "GDDR6X", BandwidthGBs: 716.8, FP32TFLOPS: 48.7,
		Interconnect: "PCIe Gen4, no NVLink", InterconnectGBs: 64, Source: srcGeForce40, Note: noteGeForce + "; " + noteUnchecked},
	{Model: "RTX-4070", Vendor: "NVIDIA", Architecture: "Ada Lovelace", FormFactor: "PCIe (consumer)",
		MemoryGB: 12, MemoryType: "GDDR6X", BandwidthGBs: 504, FP32TFLOPS: 29.1,
		Interconnect: "PCIe Gen4, no NVLink", InterconnectGBs: 64, Source: srcGeForce40, Note: noteGeForce + "; " + noteUnchecked},
	{Model: "RTX-3090", Vendor: "NVIDIA", Architecture: "Ampere", FormFactor: "PCIe (consumer)",
		MemoryGB: 24, MemoryType: "GDDR6X", BandwidthGBs: 936, FP32TFLOPS: 35.6,
		Interconnect: "PCIe Gen4 (NVLink bridge between pairs)", InterconnectGBs: 64, Source: srcGeForce30, Note: noteGeForce + "; " + noteUnchecked},
	{Model: "RTX-3070", Vendor: "NVIDIA", Architecture: "Ampere", FormFactor: "PCIe (consumer)",
		MemoryGB: 8, MemoryType: "GDDR6", BandwidthGBs: 448, FP32TFLOPS: 20.3,
		Interconnect: "PCIe Gen4, no NVLink", InterconnectGBs: 64, Source: srcGeForce30x, Note: noteGeForce + "; " + noteUnchecked},
	{Model: "MI308X", Vendor: "AMD", Architecture: "CDNA 3", FormFactor: "OAM",
		MemoryGB: 192, MemoryType: "HBM3", BandwidthGBs: 5300,
		Interconnect: "Infinity Fabric", InterconnectGBs: 896, Source: "China-market variant of the MI300X (memory as MI300X, " + srcMI300X + "); Alibaba ebmga8 reports 8 × 192 GB",
		Note: "AMD publishes no MI308X spec page; its compute is cut from the MI300X's: " + noteNoTensor + " and no FP32 figure"},
	{Model: "MI325X", Vendor: "AMD", Architecture: "CDNA 3", FormFactor: "OAM",
		MemoryGB: 256, MemoryType: "HBM3e", BandwidthGBs: 6000, BF16TFLOPS: 1307.4, FP16TFLOPS: 1307.4, FP8TFLOPS: 2614.9, FP32TFLOPS: 163.4,
		Interconnect: "Infinity Fabric (7 × 128 GB/s)", InterconnectGBs: 896, Source: srcMI325X,
		Note: "MI300X compute with more memory; " + noteUnchecked},
	{Model: "MI355X", Vendor: "AMD", Architecture: "CDNA 4", FormFactor: "OAM",
		MemoryGB: 288, MemoryType: "HBM3e", BandwidthGBs: 8000, BF16TFLOPS: 2516.6, FP16TFLOPS: 2516.6, FP8TFLOPS: 5033.2, FP32TFLOPS: 157.3,
		Interconnect: "Infinity Fabric", InterconnectGBs: 1075, Source: srcMI355X, Note: noteUnchecked},
	{Model: "V620", Vendor: "AMD", Architecture: "RDNA 2", FormFactor: "PCIe",
		MemoryGB: 32, MemoryType: "GDDR6", BandwidthGBs: 512, FP32TFLOPS: 40.55,
		Interconnect: "PCIe Gen4", InterconnectGBs: 64, Source: "https://www.amd.com/en/products/accelerators/radeon-pro/amd-radeon-pro-v620.html",
		Note: "Azure NGads V620; no matrix cores: no per-TFLOPS figure; " + noteUnchecked},
	{Model: "MI25", Vendor: "AMD", Architecture: "Vega (GCN 5)", FormFactor: "PCIe",
		MemoryGB: 16, MemoryType: "HBM2", BandwidthGBs: 484, FP32TFLOPS: 12.3,
		Interconnect: "PCIe Gen3", InterconnectGBs: 32, Source: "https://www.amd.com/en/products/professional-graphics/instinct-mi25",
		Note: "Azure NVv4 sells 1/8 to 1 of it; no matrix cores: no per-TFLOPS figure; " + noteUnchecked},
}
