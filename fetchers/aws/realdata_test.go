package aws

import (
	"encoding/json"
	"math"
	"os"
	"strconv"
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

func TestRealAWSTypes(t *testing.T) {
	b, err := os.ReadFile("testdata/ec2instances-info-gpu-hardware-2025-11-30.json")
	if err != nil {
		t.Fatal(err)
	}
	var recs []ec2Record
	if err := json.Unmarshal(b, &recs); err != nil {
		t.Fatal(err)
	}
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
		// As the price file states it: gpu count, gpuMemory total.
		f, ok := acceleratedFacts(r.InstanceType, "GPU instance", strconv.FormatFloat(r.GPU, 'f', -1, 64),
			strconv.FormatFloat(r.GPUMemory, 'f', -1, 64)+" GB", strconv.Itoa(r.VCPU), strconv.FormatFloat(r.Memory, 'f', -1, 64)+" GiB")
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
