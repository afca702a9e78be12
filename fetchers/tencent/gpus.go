package tencent

import "strings"

// gpuFamily is what Tencent publishes about one CVM GPU family.
//
// DescribeZoneInstanceConfigInfos gives each type's GPU count (Gpu, and
// GpuCount, which is fractional for vGPU slices) but not the GPU model or
// its memory, so those come from this table. Counts here are used only
// when a response lacks both count fields (older API versions).
type gpuFamily struct {
	Model    string  // a name gpu.Resolve maps to the catalogue
	MemoryGB float64 // per whole GPU
	// Counts per instance type, where the family page lists them.
	Counts map[string]float64
	Source string
}

// Sources, cited per row.
const (
	// srcSpecPages are the international site's GPU spec pages in
	// tencentyun/intlcloud-documents (commit b7e17ea6, 2023-06-30): "NVIDIA
	// series instances" and "Computing instances", with GPU, count (1/4,
	// 1/2 for vGPU) and memory per type (copies in testdata/).
	srcSpecPages  = "Tencent Cloud docs, GPU instance types: NVIDIA series and computing instances (intlcloud-documents b7e17ea6, 2023-06-30)"
	srcObserved   = "third-party material citing the Tencent Cloud family page, via shared/research/cloud-apis.md §4 [observed]"
	srcUnverified = "shared/research/cloud-apis.md §4 [unverified: family name seen, GPU from secondary sources]"
	// GN2 and GA2 appear only by name (DescribeInstanceFamilyConfigs:
	// "GPU计算型GN2", "GPU渲染型GA2"; two GN2 rows in Batch's example);
	// their GPUs are Tencent's 2017 launch parts, not re-verified.
	srcLegacy = "Tencent CVM 2017 GPU families (GN2: NVIDIA Tesla M40 24 GB; GA2: AMD FirePro S7150 8 GB) [unverified: no spec page in the shared docs]"
)

// gpuFamilies is keyed by the family as CVM names it (InstanceFamily, or
// the instance type before the dot). Models are names gpu.Resolve maps to
// a catalogue row; M40 and S7150 are not in the catalogue and stay visible
// as unknown hardware.
var gpuFamilies = map[string]gpuFamily{
	// GN7 includes vGPU slices (GN7.LARGE20 is a quarter of a T4 with 4 GB);
	// the API's GpuCount gives the fraction.
	"GN7": {Model: "T4", MemoryGB: 16, Source: srcSpecPages + ": GN7, Tesla T4",
		Counts: map[string]float64{"GN7.LARGE20": 0.25, "GN7.2XLARGE40": 0.5, "GN7.2XLARGE32": 1, "GN7.5XLARGE80": 1,
			"GN7.8XLARGE128": 1, "GN7.10XLARGE160": 2, "GN7.20XLARGE320": 4}},
	// GN7vi: GN7 with Tencent's video-enhancement stack, the same T4.
	"GN7vi": {Model: "T4", MemoryGB: 16, Source: srcSpecPages + ": GN7vi, Tesla T4",
		Counts: map[string]float64{"GN7vi.5XLARGE80": 1, "GN7vi.10XLARGE160": 2, "GN7vi.20XLARGE320": 4}},
	"GN7vw": {Model: "T4", MemoryGB: 16, Source: srcSpecPages + ": GN7vw (rendering), Tesla T4"},
	"GI3X": {Model: "T4", MemoryGB: 16, Source: srcSpecPages + ": GI3X, Tesla T4",
		Counts: map[string]float64{"GI3X.8XLARGE64": 1, "GI3X.22XLARGE226": 2, "GI3X.45XLARGE452": 4}},
	"GN10X": {Model: "V100-32GB", MemoryGB: 32, Source: srcSpecPages + ": GN10X, Tesla V100 NVLink 32GB (1/4 and 1/2 vGPU sizes)",
		Counts: map[string]float64{"GN10X.MEDIUM10": 0.25, "GN10X.LARGE20": 0.5, "GN10X.2XLARGE40": 1, "GN10X.4XLARGE80": 2,
			"GN10X.9XLARGE160": 4, "GN10X.18XLARGE320": 8}},
	"GN10Xp": {Model: "V100-32GB", MemoryGB: 32, Source: srcSpecPages + ": GN10Xp, Tesla V100 NVLink 32GB",
		Counts: map[string]float64{"GN10Xp.2XLARGE40": 1, "GN10Xp.5XLARGE80": 2, "GN10Xp.10XLARGE160": 4, "GN10Xp.20XLARGE320": 8}},
	"GT4": {Model: "A100-40GB", MemoryGB: 40, Source: srcSpecPages + ": GT4, NVIDIA A100 NVLink 40 GB",
		Counts: map[string]float64{"GT4.4XLARGE96": 1, "GT4.8XLARGE192": 2, "GT4.20XLARGE474": 4, "GT4.41XLARGE948": 8}},
	"GN8": {Model: "P40", MemoryGB: 24, Source: srcSpecPages + ": GN8, Tesla P40 (24 GB per GPU)",
		Counts: map[string]float64{"GN8.LARGE56": 1, "GN8.3XLARGE112": 2, "GN8.7XLARGE224": 4, "GN8.14XLARGE448": 8}},
	"GN6": {Model: "P4", MemoryGB: 8, Source: srcSpecPages + ": GN6, Tesla P4 (8 GB per GPU)",
		Counts: map[string]float64{"GN6.7XLARGE48": 1, "GN6.14XLARGE96": 2}},
	"GN6S": {Model: "P4", MemoryGB: 8, Source: srcSpecPages + ": GN6S, Tesla P4 (8 GB per GPU)",
		Counts: map[string]float64{"GN6S.LARGE20": 1, "GN6S.2XLARGE40": 2}},
	"PNV4": {Model: "A10", MemoryGB: 24, Source: srcSpecPages + ": PNV4, NVIDIA A10 24 GB",
		Counts: map[string]float64{"PNV4.7XLARGE116": 1, "PNV4.14XLARGE232": 2, "PNV4.28XLARGE466": 4, "PNV4.56XLARGE932": 8}},
	// H800 and A800 are the export variants of H100 and A100 80GB: the same
	// memory, a slower interconnect, so they keep their own names.
	"HCCPNV5":  {Model: "H800", MemoryGB: 80, Source: srcObserved},
	"HCCPNV4h": {Model: "A800-80GB", MemoryGB: 80, Source: srcUnverified},
	"GN2":      {Model: "M40", MemoryGB: 24, Source: srcLegacy},
	"GA2":      {Model: "S7150", MemoryGB: 8, Source: srcLegacy},
}

// familyOf returns the family of an instance type: CVM's own InstanceFamily
// when given, else the part of the type name before the dot.
func familyOf(instanceFamily, instanceType string) string {
	if instanceFamily != "" {
		return instanceFamily
	}
	f, _, _ := strings.Cut(instanceType, ".")
	return f
}

// lookupGPU finds the family row, matching the family name exactly and then
// case-insensitively (CVM spells GN10Xp with a lower-case p).
func lookupGPU(family string) (gpuFamily, bool) {
	if g, ok := gpuFamilies[family]; ok {
		return g, true
	}
	for k, g := range gpuFamilies {
		if strings.EqualFold(k, family) {
			return g, true
		}
	}
	return gpuFamily{}, false
}
