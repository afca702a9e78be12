package tencent

import "strings"

// gpuFamily is what Tencent publishes about one CVM GPU family.
//
// DescribeZoneInstanceConfigInfos gives each type's GPU count (Gpu, and
// GpuCount, which is fractional for vGPU slices) but not the GPU model or
// its memory, so those come from this table. Counts here are used only
// when a response lacks both count fields (older API versions).
type gpuFamily struct {
	Model    string  // normalised name, as in the analysis catalogue
	MemoryGB float64 // per whole GPU
	// Counts per instance type, where the family page lists them.
	Counts map[string]float64
	Source string
}

// Sources, cited per row.
const (
	srcNvidiaPage = "Tencent Cloud docs, CVM \"NVIDIA series GPU instances\" (product/213/11518 family list, ~2021), via shared/research/cloud-apis.md §4"
	srcObserved   = "third-party material citing the Tencent Cloud family page, via shared/research/cloud-apis.md §4 [observed]"
	srcUnverified = "shared/research/cloud-apis.md §4 [unverified: family name seen, GPU from secondary sources]"
)

// gpuFamilies is keyed by the family as CVM names it (InstanceFamily, or
// the instance type before the dot).
var gpuFamilies = map[string]gpuFamily{
	// GN7 includes vGPU slices (GN7.LARGE20 is a quarter of a T4 with 4 GB);
	// the API's GpuCount gives the fraction.
	"GN7": {Model: "T4", MemoryGB: 16, Source: srcNvidiaPage,
		Counts: map[string]float64{"GN7.LARGE20": 0.25, "GN7.2XLARGE32": 1}},
	"GN7vw": {Model: "T4", MemoryGB: 16, Source: srcNvidiaPage},
	"GI3X": {Model: "T4", MemoryGB: 16, Source: srcNvidiaPage,
		Counts: map[string]float64{"GI3X.8XLARGE64": 1, "GI3X.22XLARGE226": 2, "GI3X.45XLARGE452": 4}},
	"GN10X": {Model: "V100-32GB", MemoryGB: 32, Source: srcNvidiaPage,
		Counts: map[string]float64{"GN10X.2XLARGE40": 1, "GN10X.4XLARGE80": 2, "GN10X.9XLARGE160": 4, "GN10X.18XLARGE320": 8}},
	"GN10Xp": {Model: "V100-32GB", MemoryGB: 32, Source: srcNvidiaPage,
		Counts: map[string]float64{"GN10Xp.2XLARGE40": 1, "GN10Xp.5XLARGE80": 2, "GN10Xp.10XLARGE160": 4, "GN10Xp.20XLARGE320": 8}},
	"GT4": {Model: "A100-40GB", MemoryGB: 40, Source: srcNvidiaPage,
		Counts: map[string]float64{"GT4.4XLARGE96": 1, "GT4.8XLARGE192": 2, "GT4.20XLARGE474": 4, "GT4.41XLARGE948": 8}},
	"GN8": {Model: "P40", MemoryGB: 24, Source: srcNvidiaPage,
		Counts: map[string]float64{"GN8.LARGE56": 1, "GN8.3XLARGE112": 2, "GN8.7XLARGE224": 4, "GN8.14XLARGE448": 8}},
	// The family page names the GPU but not its memory; 8 GB is the
	// Tesla P4's only configuration (NVIDIA Tesla P4 datasheet).
	"GN6":  {Model: "P4", MemoryGB: 8, Source: srcNvidiaPage + "; memory: NVIDIA Tesla P4 datasheet"},
	"GN6S": {Model: "P4", MemoryGB: 8, Source: srcNvidiaPage + "; memory: NVIDIA Tesla P4 datasheet"},
	"PNV4": {Model: "A10", MemoryGB: 24, Source: srcObserved},
	// H800 and A800 are the export variants of H100 and A100 80GB: the same
	// memory, a slower interconnect, so they keep their own names.
	"HCCPNV5":  {Model: "H800", MemoryGB: 80, Source: srcObserved},
	"HCCPNV4h": {Model: "A800-80GB", MemoryGB: 80, Source: srcUnverified},
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
