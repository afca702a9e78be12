package aws

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch/gpu"
)

// ec2instances.info's GPU records (vantage-sh's hand-curated gpu_data plus
// the offer files) for the 42 types of the shared reference subset: per
// type the GPU model, count and total GPU memory.
type ec2Record struct {
	InstanceType string  `json:"instance_type"`
	GPU          float64 `json:"GPU"`
	GPUModel     string  `json:"GPU_model"`
	GPUMemory    float64 `json:"GPU_memory"` // GiB, whole instance
	VCPU         int     `json:"vCPU"`
	Memory       float64 `json:"memory"`
	// NetworkPerformance is the price file's networkPerformance, copied;
	// Storage is its storage attribute split up (null: none listed).
	NetworkPerformance string `json:"network_performance"`
	Storage            *struct {
		Devices  int     `json:"devices"`
		Size     float64 `json:"size"`
		SizeUnit string  `json:"size_unit"`
		NVMeSSD  bool    `json:"nvme_ssd"`
	} `json:"storage"`
}

// modelByGPU is what each GPU_model of the reference is in the catalogue,
// read off the reference: its name plus memory per GPU (A100 at 320 GB for
// 8 is the 40 GB SXM part of p4d; at 640 GB the 80 GB one of p4de; the
// V100 at 256 GB for 8 is the 32 GB one of p3dn).
var modelByGPU = map[string]map[float64]string{
	"NVIDIA T4 Tensor Core": {16: "T4"},
	"NVIDIA A10G":           {24: "A10G"},
	"NVIDIA L4":             {24: "L4"},
	"NVIDIA L40S":           {48: "L40S"},
	"NVIDIA Tesla V100":     {16: "V100", 32: "V100-32GB"},
	"NVIDIA A100":           {40: "A100-40GB", 80: "A100-80GB"},
	"NVIDIA H100":           {80: "H100"},
	"NVIDIA H200":           {141: "H200"},
	"NVIDIA B200":           {180: "B200"},
}

// readEC2Records reads the shared reference subset of GPU types.
func readEC2Records(t *testing.T) []ec2Record {
	t.Helper()
	b, err := os.ReadFile("testdata/ec2instances-info-gpu-hardware-2025-11-30.json")
	if err != nil {
		t.Fatal(err)
	}
	var recs []ec2Record
	if err := json.Unmarshal(b, &recs); err != nil {
		t.Fatal(err)
	}
	return recs
}

// facts reads the record's type as the price file states it: gpu count,
// gpuMemory total, vcpu and memory.
func (r ec2Record) facts() (typeFacts, bool) {
	return acceleratedFacts(r.InstanceType, "GPU instance", strconv.FormatFloat(r.GPU, 'f', -1, 64),
		strconv.FormatFloat(r.GPUMemory, 'f', -1, 64)+" GB", strconv.Itoa(r.VCPU), strconv.FormatFloat(r.Memory, 'f', -1, 64)+" GiB")
}

func TestRealAWSTypes(t *testing.T) {
	recs := readEC2Records(t)
	if len(recs) != 42 {
		t.Fatalf("%d records, want the subset's 42", len(recs))
	}
	for _, r := range recs {
		perGPU := r.GPUMemory / r.GPU
		wantModel := modelByGPU[r.GPUModel][perGPU]
		if wantModel == "" {
			t.Errorf("%s: no expectation for %s at %v GB", r.InstanceType, r.GPUModel, perGPU)
			continue
		}
		f, ok := r.facts()
		if !ok {
			t.Errorf("%s: not recognised as a GPU type", r.InstanceType)
			continue
		}
		hw := hardware(r.InstanceType, f)
		if hw.GPUModel != wantModel || hw.GPUCount != r.GPU || math.Abs(hw.GPUMemoryGB-perGPU) > 1e-9 {
			t.Errorf("%s: %s × %v, %v GB; want %s × %v, %v GB", r.InstanceType, hw.GPUModel, hw.GPUCount, hw.GPUMemoryGB, wantModel, r.GPU, perGPU)
		}
		// vCPUs and memory, the offers table's columns (issue 25).
		if hw.VCPUs != r.VCPU || hw.MemoryGB != r.Memory {
			t.Errorf("%s: %d vCPUs, %v GiB; want %d, %v", r.InstanceType, hw.VCPUs, hw.MemoryGB, r.VCPU, r.Memory)
		}
		if _, known := gpu.Lookup(hw.GPUModel); !known {
			t.Errorf("%s: %s not in the catalogue", r.InstanceType, hw.GPUModel)
		}
	}
}

// Families newer than the reference: their rows name catalogue models.
func TestNewAWSFamilies(t *testing.T) {
	for typ, want := range map[string]string{"p6-b300.48xlarge": "B300", "g7e.48xlarge": "RTX-PRO-6000", "p6-b200.48xlarge": "B200"} {
		hw := hardware(typ, typeFacts{GPUs: 8, GPUMemoryGB: 8 * 96})
		if hw.GPUModel != want || hw.GPUCount != 8 {
			t.Errorf("%s: %+v, want 8 × %s", typ, hw, want)
		}
		if _, ok := gpu.Lookup(hw.GPUModel); !ok {
			t.Errorf("%s: %s not in the catalogue", typ, hw.GPUModel)
		}
	}
	// p6-b300 memory comes from the file (a constructed value: no real
	// p6-b300 row is in the shared data).
	if hw := hardware("p6-b300.48xlarge", typeFacts{GPUs: 8, GPUMemoryGB: 2144}); hw.GPUMemoryGB != 268 {
		t.Errorf("p6-b300 memory %v, want the file's 2144/8", hw.GPUMemoryGB)
	}
}

// TestRealAWSNetworkAndStorage: the network and local storage of every
// reference type, stated as the price file states them, are stored as the
// reference reads them. Types the reference lists without storage are
// EBS-only in the file (p3) or not described by it (p5e, whose local disks
// the reference lacks): only p3's are checked as "none".
func TestRealAWSNetworkAndStorage(t *testing.T) {
	recs := readEC2Records(t)
	checked := 0
	for _, r := range recs {
		if r.NetworkPerformance == "" {
			t.Errorf("%s: the reference has no network_performance", r.InstanceType)
			continue
		}
		f, ok := r.facts()
		if !ok {
			t.Errorf("%s: not recognised as a GPU type", r.InstanceType)
			continue
		}
		f.Network = r.NetworkPerformance
		var wantStorage string
		switch {
		case r.Storage != nil:
			if r.Storage.SizeUnit != "GB" || !r.Storage.NVMeSSD {
				t.Errorf("%s: storage %+v is not in the file's NVMe SSD GB form", r.InstanceType, *r.Storage)
				continue
			}
			f.Storage = fmt.Sprintf("%d x %s NVMe SSD", r.Storage.Devices, strconv.FormatFloat(r.Storage.Size, 'f', -1, 64))
			wantStorage = fmt.Sprintf("%d x %s GB NVMe SSD", r.Storage.Devices, strconv.FormatFloat(r.Storage.Size, 'f', -1, 64))
		case strings.HasPrefix(r.InstanceType, "p3."):
			f.Storage, wantStorage = "EBS only", "none (EBS only)"
		}
		hw := hardware(r.InstanceType, f)
		if hw.Interconnect != r.NetworkPerformance || hw.LocalStorage != wantStorage {
			t.Errorf("%s: interconnect %q, local storage %q; want %q, %q", r.InstanceType, hw.Interconnect, hw.LocalStorage, r.NetworkPerformance, wantStorage)
		}
		checked++
	}
	if checked != 42 {
		t.Errorf("%d types checked, want all 42", checked)
	}
	// Spot checks read off the reference: p5.48xlarge's EFA network and
	// eight 3.8 TB disks, p4d's four 100 Gigabit adapters.
	for typ, want := range map[string][2]string{
		"p5.48xlarge":  {"3200 Gigabit", "8 x 3800 GB NVMe SSD"},
		"p4d.24xlarge": {"4x 100 Gigabit", "8 x 1000 GB NVMe SSD"},
		"g6.48xlarge":  {"100 Gigabit", "8 x 940 GB NVMe SSD"},
	} {
		for _, r := range recs {
			if r.InstanceType != typ {
				continue
			}
			f := typeFacts{GPUs: r.GPU, Network: r.NetworkPerformance,
				Storage: fmt.Sprintf("%d x %v NVMe SSD", r.Storage.Devices, r.Storage.Size)}
			if hw := hardware(typ, f); hw.Interconnect != want[0] || hw.LocalStorage != want[1] {
				t.Errorf("%s: %q, %q; want %q, %q", typ, hw.Interconnect, hw.LocalStorage, want[0], want[1])
			}
		}
	}
}

// The storage attribute's other forms: what the parser cannot read is kept
// as written, "NA" is unknown, never a guess.
func TestLocalStorageForms(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"1 x 300 NVMe SSD", "1 x 300 GB NVMe SSD"}, // pricing-GetProducts-PriceList-item-c5ad.json
		{"EBS only", "none (EBS only)"},
		{"2 x 1,900 NVMe SSD", "2 x 1900 GB NVMe SSD"},
		{"24 x 2000 HDD", "24 x 2000 GB HDD"},
		{"NA", ""},
		{"", ""},
		{"some new wording", "some new wording"},
		{"x x 3 SSD", "x x 3 SSD"},
	} {
		if got := localStorage(c.in); got != c.want {
			t.Errorf("localStorage(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{{"Up to 25 Gigabit", "Up to 25 Gigabit"}, {"NA", ""}, {" ", ""}} {
		if got := network(c.in); got != c.want {
			t.Errorf("network(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
