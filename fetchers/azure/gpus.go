package azure

import (
	"strings"

	"github.com/pricewatch/pricewatch"
)

// sku is one GPU VM size as Microsoft documents it. The Retail Prices API
// names a size but says nothing of its hardware, so the hardware comes from
// the Microsoft Learn size-series pages; each row names its page.
type sku struct {
	name string // ARM SKU name exactly as Azure spells it
	hw   pricewatch.Hardware
	// source is the Microsoft Learn page the row was taken from
	// (https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/<source>).
	source string
}

func gpu(model string, count, memGB float64, vcpus int, ramGB float64) pricewatch.Hardware {
	return pricewatch.Hardware{GPUModel: model, GPUCount: count, GPUMemoryGB: memGB, VCPUs: vcpus, MemoryGB: ramGB}
}

// gpuSKUs lists the GPU sizes pricewatch tracks. GPUMemoryGB is per GPU (per
// slice for the fractional NVadsA10 v5 sizes), as the pricewatch.Hardware
// type defines it; the Learn pages give the total, divided here.
//
// Sizes that are priced under NC/ND/NV but missing here (NCads_A10_v4, whose
// GPU partitioning no Microsoft page documents; retired NC/NCv2/ND/NV/NVv3/
// NVv4 sizes; new series) are kept with the GPU model their name gives and
// the count and memory unknown, and logged once per run.
var gpuSKUs = []sku{
	// ND H100 v5: 8 × H100 SXM 80 GB (the Learn spec table says "PCIe", but
	// the series is the NVLink/SXM HGX board; the model name is what matters).
	{"Standard_ND96isr_H100_v5", gpu("H100", 8, 80, 96, 1900), "ndh100v5-series (8 GPUs, 640 GB accelerator memory)"},
	// ND H200 v5: 8 × H200 141 GB.
	{"Standard_ND96isr_H200_v5", gpu("H200", 8, 141, 96, 1850), "nd-h200-v5-series (8 GPUs, 1128 GB; spec include: H200 141GB)"},
	// ND MI300X v5: 8 × AMD Instinct MI300X 192 GB.
	{"Standard_ND96isr_MI300X_v5", gpu("MI300X", 8, 192, 96, 1850), "ndmi300xv5-series (8 GPUs; spec include: MI300X 192GB)"},
	// ND GB200 v6: 4 Blackwell GPUs of the GB200 superchip, 192 GiB each.
	{"Standard_ND128isr_NDR_GB200_v6", gpu("GB200", 4, 192, 128, 900), "nd-gb200-v6-series (spec include: 4 GPUs, 192 GiB each, 900 GiB memory)"},
	// ND A100 v4: 8 × A100 SXM 40 GB. The Learn page spells the size
	// Standard_ND96asr_A100_v4; prices and ARM use Standard_ND96asr_v4.
	{"Standard_ND96asr_v4", gpu("A100-40GB", 8, 40, 96, 900), "ndasra100v4-series (8 GPUs, 320 GB accelerator memory)"},
	{"Standard_ND96asr_A100_v4", gpu("A100-40GB", 8, 40, 96, 900), "ndasra100v4-series (the page's spelling of the same size)"},
	// NDm A100 v4: 8 × A100 SXM 80 GB.
	{"Standard_ND96amsr_A100_v4", gpu("A100-80GB", 8, 80, 96, 1900), "ndma100v4-series (8 GPUs, 80 GB each)"},
	// NC A100 v4: the PCIe A100 80 GB (the Learn page: "NVIDIA A100 PCIe
	// GPUs"), whose bandwidth differs from the SXM part; gpu.Matches still
	// answers "A100-80GB" with it.
	{"Standard_NC24ads_A100_v4", gpu("A100-80GB-PCIe", 1, 80, 24, 220), "nca100v4-series (1 GPU, 80 GB)"},
	{"Standard_NC48ads_A100_v4", gpu("A100-80GB-PCIe", 2, 80, 48, 440), "nca100v4-series (2 GPUs, 160 GB)"},
	{"Standard_NC96ads_A100_v4", gpu("A100-80GB-PCIe", 4, 80, 96, 880), "nca100v4-series (4 GPUs, 320 GB)"},
	// NCads H100 v5: H100 NVL 94 GB (PCIe).
	{"Standard_NC40ads_H100_v5", gpu("H100-NVL", 1, 94, 40, 320), "ncadsh100v5-series (1 GPU, 94 GB)"},
	{"Standard_NC80adis_H100_v5", gpu("H100-NVL", 2, 94, 80, 640), "ncadsh100v5-series (2 GPUs, 188 GB)"},
	// NCCads H100 v5 (confidential computing): the same H100 94 GB.
	{"Standard_NCC40ads_H100_v5", gpu("H100-NVL", 1, 94, 40, 320), "nccadsh100v5-series (spec include: 1 GPU, H100 94GB, 320 GiB)"},
	// NCasT4 v3: T4 16 GB.
	{"Standard_NC4as_T4_v3", gpu("T4", 1, 16, 4, 28), "ncast4v3-series (1 GPU, 16 GB)"},
	{"Standard_NC8as_T4_v3", gpu("T4", 1, 16, 8, 56), "ncast4v3-series (1 GPU, 16 GB)"},
	{"Standard_NC16as_T4_v3", gpu("T4", 1, 16, 16, 110), "ncast4v3-series (1 GPU, 16 GB)"},
	{"Standard_NC64as_T4_v3", gpu("T4", 4, 16, 64, 440), "ncast4v3-series (4 GPUs, 64 GB)"},
	// NCv3: V100 16 GB, the PCIe card ("NVIDIA Tesla V100 PCIe").
	{"Standard_NC6s_v3", gpu("V100-PCIe", 1, 16, 6, 112), "ncv3-series (1 GPU, 16 GB)"},
	{"Standard_NC12s_v3", gpu("V100-PCIe", 2, 16, 12, 224), "ncv3-series (2 GPUs, 32 GB)"},
	{"Standard_NC24s_v3", gpu("V100-PCIe", 4, 16, 24, 448), "ncv3-series (4 GPUs, 64 GB)"},
	{"Standard_NC24rs_v3", gpu("V100-PCIe", 4, 16, 24, 448), "ncv3-series (4 GPUs, 64 GB)"},
	// NDv2: 8 × V100 32 GB.
	{"Standard_ND40rs_v2", gpu("V100-32GB", 8, 32, 40, 672), "ndv2-series (8 GPUs, 256 GB)"},
	// NVadsA10 v5: partitions of one A10 24 GB; the page gives the share
	// ("1/6") and the slice's memory.
	{"Standard_NV6ads_A10_v5", gpu("A10", 1.0/6, 4, 6, 55), "nvadsa10v5-series (1/6 GPU, 4 GB)"},
	{"Standard_NV12ads_A10_v5", gpu("A10", 1.0/3, 8, 12, 110), "nvadsa10v5-series (1/3 GPU, 8 GB)"},
	{"Standard_NV18ads_A10_v5", gpu("A10", 0.5, 12, 18, 220), "nvadsa10v5-series (1/2 GPU, 12 GB)"},
	{"Standard_NV36ads_A10_v5", gpu("A10", 1, 24, 36, 440), "nvadsa10v5-series (1 GPU, 24 GB)"},
	{"Standard_NV36adms_A10_v5", gpu("A10", 1, 24, 36, 880), "nvadsa10v5-series (1 GPU, 24 GB)"},
	{"Standard_NV72ads_A10_v5", gpu("A10", 2, 24, 72, 880), "nvadsa10v5-series (2 GPUs, 48 GB)"},
	// Sizes without the "r" (no InfiniBand) of the ND A100/H100/MI300X
	// boards, seen in real price rows (ND96ams_A100_v4, 2025–26) and named
	// in Microsoft's AKS fabric-manager size list beside their "r"
	// siblings; same GPUs, RAM not documented (0).
	{"Standard_ND96ams_A100_v4", gpu("A100-80GB", 8, 80, 96, 0), "ndma100v4-series (the size without InfiniBand; 8 × A100 80 GB as ND96amsr_A100_v4)"},
	{"Standard_ND96is_H100_v5", gpu("H100", 8, 80, 96, 0), "ndh100v5-series (the size without InfiniBand; 8 × H100 80 GB as ND96isr_H100_v5)"},
	{"Standard_ND96is_MI300X_v5", gpu("MI300X", 8, 192, 96, 0), "ndmi300xv5-series (the size without InfiniBand; 8 × MI300X 192 GB as ND96isr_MI300X_v5)"},
	// NVv4: shares of one AMD Radeon Instinct MI25 (16 GB).
	{"Standard_NV4as_v4", gpu("MI25", 1.0/8, 2, 4, 14), "nvv4-series (1/8 GPU, 2 GiB)"},
	{"Standard_NV8as_v4", gpu("MI25", 1.0/4, 4, 8, 28), "nvv4-series (1/4 GPU, 4 GiB)"},
	{"Standard_NV16as_v4", gpu("MI25", 1.0/2, 8, 16, 56), "nvv4-series (1/2 GPU, 8 GiB)"},
	{"Standard_NV32as_v4", gpu("MI25", 1, 16, 32, 112), "nvv4-series (1 GPU, 16 GiB)"},
	// NGads V620: shares of one AMD Radeon PRO V620 (32 GB). The series is
	// NG, outside the NC/ND/NV prefixes the fetcher used to ask for.
	{"Standard_NG8ads_V620_v1", gpu("V620", 1.0/4, 8, 8, 16), "ngadsv620-series (1/4 GPU, 8 GiB)"},
	{"Standard_NG16ads_V620_v1", gpu("V620", 1.0/2, 16, 16, 32), "ngadsv620-series (1/2 GPU, 16 GiB)"},
	{"Standard_NG32ads_V620_v1", gpu("V620", 1, 32, 32, 64), "ngadsv620-series (1 GPU, 32 GiB)"},
	{"Standard_NG32adms_V620_v1", gpu("V620", 1, 32, 32, 176), "ngadsv620-series (1 GPU, 32 GiB)"},
	// NC RTX PRO 6000 BSE v6 (preview sizes, 2025-12): the Learn page's
	// accelerator tab gives 1 GPU / 96 GB for the 128-vCPU sizes and 2 /
	// 192 GB for the 256- and 320-vCPU ones (ds: general purpose, lds:
	// compute optimised).
	{"Standard_NC128ds_xl_RTXPRO6000BSE_v6", gpu("RTX-PRO-6000", 1, 96, 128, 512), "nc-rtxpro6000-bse-v6-series (1 GPU, 96 GB)"},
	{"Standard_NC256ds_xl_RTXPRO6000BSE_v6", gpu("RTX-PRO-6000", 2, 96, 256, 1024), "nc-rtxpro6000-bse-v6-series (2 GPUs, 192 GB)"},
	{"Standard_NC320ds_xl_RTXPRO6000BSE_v6", gpu("RTX-PRO-6000", 2, 96, 320, 1280), "nc-rtxpro6000-bse-v6-series (2 GPUs, 192 GB)"},
	{"Standard_NC128lds_xl_RTXPRO6000BSE_v6", gpu("RTX-PRO-6000", 1, 96, 128, 256), "nc-rtxpro6000-bse-v6-series (1 GPU, 96 GB)"},
	{"Standard_NC256lds_xl_RTXPRO6000BSE_v6", gpu("RTX-PRO-6000", 2, 96, 256, 512), "nc-rtxpro6000-bse-v6-series (2 GPUs, 192 GB)"},
	{"Standard_NC320lds_xl_RTXPRO6000BSE_v6", gpu("RTX-PRO-6000", 2, 96, 320, 640), "nc-rtxpro6000-bse-v6-series (2 GPUs, 192 GB)"},
	// The GA sizes that replaced them, per Microsoft's AKS node size list
	// (Aspire AksNodeVmSizes: vCPUs, RAM, GPUs); 96 GB per GPU as above.
	{"Standard_NC24lds_xl_RTXPRO6000BSE_v6", gpu("RTX-PRO-6000", 1, 96, 24, 72), "nc-rtxpro6000-bse-v6-series GA (1 GPU)"},
	{"Standard_NC144ds_xl_RTXPRO6000BSE_v6", gpu("RTX-PRO-6000", 1, 96, 144, 516), "nc-rtxpro6000-bse-v6-series GA (1 GPU)"},
	{"Standard_NC144lds_xl_RTXPRO6000BSE_v6", gpu("RTX-PRO-6000", 1, 96, 144, 264), "nc-rtxpro6000-bse-v6-series GA (1 GPU)"},
	{"Standard_NC288ds_xl_RTXPRO6000BSE_v6", gpu("RTX-PRO-6000", 2, 96, 288, 1032), "nc-rtxpro6000-bse-v6-series GA (2 GPUs)"},
	{"Standard_NC288lds_xl_RTXPRO6000BSE_v6", gpu("RTX-PRO-6000", 2, 96, 288, 516), "nc-rtxpro6000-bse-v6-series GA (2 GPUs)"},
}

// skuIndex finds a size case-insensitively: the API has been seen to vary
// the case of names, and one size must not split into two offers.
var skuIndex = func() map[string]sku {
	m := make(map[string]sku, len(gpuSKUs))
	for _, s := range gpuSKUs {
		m[strings.ToLower(s.name)] = s
	}
	return m
}()

// lookupSKU returns the tracked size for an armSkuName.
func lookupSKU(armSkuName string) (sku, bool) {
	s, ok := skuIndex[strings.ToLower(strings.TrimSpace(armSkuName))]
	return s, ok
}

// gpuFamilyPrefixes are the ARM name prefixes of the NVIDIA/AMD GPU
// families, used for the server-side filter (azure.go builds it from this
// list) and to tell an untracked GPU size (worth a debug line) from any
// other row. NG (NGads V620) is a GPU family outside NC/ND/NV.
var gpuFamilyPrefixes = []string{"Standard_NC", "Standard_ND", "Standard_NG", "Standard_NV"}

func isGPUFamily(armSkuName string) bool {
	for _, p := range gpuFamilyPrefixes {
		if strings.HasPrefix(strings.ToLower(armSkuName), strings.ToLower(p)) {
			return true
		}
	}
	return false
}

// nameModels maps a GPU named inside an ARM size name to the normalised
// model, most specific first (A100 before A10).
var nameModels = []struct{ token, model string }{
	{"GB300", "GB300"}, {"GB200", "GB200"}, {"H200", "H200"}, {"H100", "H100"}, {"MI300X", "MI300X"}, {"MI200", "MI250X"},
	{"A100", "A100"}, {"A10", "A10"}, {"L40S", "L40S"}, {"L4", "L4"}, {"T4", "T4"}, {"V100", "V100"}, {"V710", "V710"},
	{"V620", "V620"}, {"RTXPRO6000BSE", "RTX-PRO-6000"},
}

// modelFromName guesses the GPU of a size missing from the table from its
// name ("Standard_NC8ads_A10_v4" → A10); "" when the name does not say.
func modelFromName(armSkuName string) string {
	for _, part := range strings.Split(strings.ToUpper(armSkuName), "_") {
		for _, nm := range nameModels {
			if part == nm.token {
				return nm.model
			}
		}
	}
	return ""
}
