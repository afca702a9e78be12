package runpod

import "strings"

// gpuModel maps RunPod's GPU type id ("NVIDIA H100 80GB HBM3", "AMD
// Instinct MI300X OAM") to the catalogue's model name, using the display
// name ("H100 SXM") where the id alone is ambiguous. It is the one place
// GPU names are resolved in this package: once the shared resolver
// (package gpu) is on main, this body becomes a call to it.
func gpuModel(id, displayName string) string {
	if m, ok := gpuIDs[id]; ok {
		return m
	}
	// Unknown ids: the vendor prefix dropped, words joined as the
	// catalogue writes them ("NVIDIA GeForce RTX 5090" → "RTX-5090").
	s := strings.TrimSpace(id)
	for _, p := range []string{"NVIDIA GeForce ", "NVIDIA ", "AMD Instinct ", "AMD "} {
		s = strings.TrimPrefix(s, p)
	}
	if s == "" {
		s = displayName
	}
	return strings.Join(strings.Fields(s), "-")
}

// gpuIDs are RunPod's ids for the data-centre GPUs, as the API lists them
// (the 2026-08-25 capture and RunPod's GPU-type docs).
var gpuIDs = map[string]string{
	"NVIDIA H100 80GB HBM3":   "H100", // displayName "H100 SXM"
	"NVIDIA H100 PCIe":        "H100-PCIe",
	"NVIDIA H100 NVL":         "H100-NVL",
	"NVIDIA H200":             "H200", // displayName "H200 SXM"
	"NVIDIA H200 NVL":         "H200-NVL",
	"NVIDIA B200":             "B200",
	"NVIDIA B300 SXM6 AC":     "B300",
	"NVIDIA A100-SXM4-40GB":   "A100-40GB",
	"NVIDIA A100-SXM4-80GB":   "A100-80GB",
	"NVIDIA A100 80GB PCIe":   "A100-80GB-PCIe",
	"NVIDIA L40S":             "L40S",
	"NVIDIA L40":              "L40",
	"NVIDIA L4":               "L4",
	"NVIDIA A40":              "A40",
	"NVIDIA RTX A6000":        "RTX-A6000",
	"AMD Instinct MI300X OAM": "MI300X",
	"NVIDIA GeForce RTX 4090": "RTX-4090",
	"NVIDIA GeForce RTX 3070": "RTX-3070",
}
