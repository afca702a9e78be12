package tencent

import (
	"math"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"go.uber.org/zap"
)

// specWant is what the official spec pages say of each GPU type: model,
// GPUs (the pages write vGPU shares as 1/4, 1/2) and memory per GPU or
// slice. Read off the two pages in testdata/intlcloud-documents.
var specWant = map[string]struct {
	model string
	count float64
	memGB float64
}{
	// GN10X/GN10Xp: Tesla V100 NVLink 32GB; MEDIUM10 and LARGE20 are vGPU.
	"GN10X.2XLARGE40": {"V100-32GB", 1, 32}, "GN10X.4XLARGE80": {"V100-32GB", 2, 32}, "GN10X.9XLARGE160": {"V100-32GB", 4, 32},
	"GN10X.18XLARGE320": {"V100-32GB", 8, 32}, "GN10X.MEDIUM10": {"V100-32GB", 0.25, 8}, "GN10X.LARGE20": {"V100-32GB", 0.5, 16},
	"GN10Xp.2XLARGE40": {"V100-32GB", 1, 32}, "GN10Xp.5XLARGE80": {"V100-32GB", 2, 32}, "GN10Xp.10XLARGE160": {"V100-32GB", 4, 32},
	"GN10Xp.20XLARGE320": {"V100-32GB", 8, 32},
	// GN8: Tesla P40, 24 GB each (the page gives the total: 48 GB for 2).
	"GN8.LARGE56": {"P40", 1, 24}, "GN8.3XLARGE112": {"P40", 2, 24}, "GN8.7XLARGE224": {"P40", 4, 24}, "GN8.14XLARGE448": {"P40", 8, 24},
	// GN7 / GN7vi / GI3X: Tesla T4; GN7.LARGE20 and 2XLARGE40 are vGPU.
	"GN7.LARGE20": {"T4", 0.25, 4}, "GN7.2XLARGE40": {"T4", 0.5, 8}, "GN7.2XLARGE32": {"T4", 1, 16}, "GN7.5XLARGE80": {"T4", 1, 16},
	"GN7.8XLARGE128": {"T4", 1, 16}, "GN7.10XLARGE160": {"T4", 2, 16}, "GN7.20XLARGE320": {"T4", 4, 16},
	"GN7vi.5XLARGE80": {"T4", 1, 16}, "GN7vi.10XLARGE160": {"T4", 2, 16}, "GN7vi.20XLARGE320": {"T4", 4, 16},
	"GI3X.8XLARGE64": {"T4", 1, 16}, "GI3X.22XLARGE226": {"T4", 2, 16}, "GI3X.45XLARGE452": {"T4", 4, 16},
	// GN6/GN6S: Tesla P4, 8 GB each.
	"GN6.7XLARGE48": {"P4", 1, 8}, "GN6.14XLARGE96": {"P4", 2, 8}, "GN6S.LARGE20": {"P4", 1, 8}, "GN6S.2XLARGE40": {"P4", 2, 8},
	// PNV4: NVIDIA A10 24 GB; GT4: A100 NVLink 40 GB.
	"PNV4.7XLARGE116": {"A10", 1, 24}, "PNV4.14XLARGE232": {"A10", 2, 24}, "PNV4.28XLARGE466": {"A10", 4, 24}, "PNV4.56XLARGE932": {"A10", 8, 24},
	"GT4.4XLARGE96": {"A100-40GB", 1, 40}, "GT4.8XLARGE192": {"A100-40GB", 2, 40}, "GT4.20XLARGE474": {"A100-40GB", 4, 40},
	"GT4.41XLARGE948": {"A100-40GB", 8, 40},
}

var (
	specRowRe = regexp.MustCompile(`(?s)<tr>\s*<td[^>]*>([A-Z][A-Za-z0-9]*\.[A-Z0-9]+)</td>\s*<td[^>]*>([0-9/]+)</td>`)
	fracRe    = regexp.MustCompile(`^(\d+)/(\d+)$`)
)

// Each type on the pages becomes the DescribeZoneInstanceConfigInfos row
// CVM returns for it: GpuCount is the share for a vGPU (0.25), else the
// count. Every type must come out with the page's model, count and memory.
func TestSpecPagesTypes(t *testing.T) {
	f := &Fetcher{log: zap.NewNop()}
	seen := map[string]bool{}
	for _, page := range []string{"GPU_云服务器__实例类型__NVIDIA_系列实例_intl_en.md", "GPU_云服务器__实例类型__计算型实例_intl_en.md"} {
		b, err := os.ReadFile("testdata/intlcloud-documents/" + page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range specRowRe.FindAllStringSubmatch(string(b), -1) {
			typ, countText := m[1], m[2]
			seen[typ] = true
			count, err := decimal.NewFromString(countText)
			if fm := fracRe.FindStringSubmatch(countText); fm != nil {
				n, _ := decimal.NewFromString(fm[1])
				d, _ := decimal.NewFromString(fm[2])
				count, err = n.Div(d), nil
			}
			if err != nil {
				t.Fatalf("%s: count %q", typ, countText)
			}
			w, ok := specWant[typ]
			if !ok {
				t.Errorf("%s (%s): no expectation", typ, page)
				continue
			}
			fam, _, _ := strings.Cut(typ, ".")
			hw, ok := f.hardware(quotaItem{InstanceType: typ, InstanceFamily: fam, GpuCount: number{Dec: count, Set: true}})
			if !ok || hw.GPUModel != w.model || math.Abs(hw.GPUCount-w.count) > 1e-9 || math.Abs(hw.GPUMemoryGB-w.memGB) > 1e-9 {
				t.Errorf("%s: %s × %v, %v GB (%v); want %s × %v, %v GB", typ, hw.GPUModel, hw.GPUCount, hw.GPUMemoryGB, ok, w.model, w.count, w.memGB)
			}
			// The table's counts (used when a response lacks both count
			// fields) agree with the pages.
			if c := gpuFamilies[fam].Counts[typ]; math.Abs(c-w.count) > 1e-9 {
				t.Errorf("%s: table count %v, page %v", typ, c, w.count)
			}
		}
	}
	if len(seen) != len(specWant) {
		t.Errorf("%d types on the pages, %d expected", len(seen), len(specWant))
	}
}

// Families seen only by name (GN2, GA2 in the CLI examples) resolve to
// named, uncatalogued GPUs rather than to nothing. GN2.7XLARGE56 is from
// the Batch example; GA2.2XLARGE16 is a constructed size name.
func TestLegacyFamiliesNamed(t *testing.T) {
	f := &Fetcher{log: zap.NewNop()}
	for typ, want := range map[string]string{"GN2.7XLARGE56": "M40", "GA2.2XLARGE16": "S7150"} {
		fam, _, _ := strings.Cut(typ, ".")
		hw, ok := f.hardware(quotaItem{InstanceType: typ, InstanceFamily: fam, GpuCount: number{Dec: decimal.NewFromInt(1), Set: true}})
		if !ok || hw.GPUModel != want {
			t.Errorf("%s: %+v, want %s", typ, hw, want)
		}
	}
}
