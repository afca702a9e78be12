package lambda

import (
	"regexp"
	"strings"
)

// gpuModel maps Lambda's GPU description ("H100 (80 GB SXM5)", "GH200 (96
// GB)", "A100 (40 GB SXM4)") to the catalogue's model name. It is the one
// place GPU names are resolved in this package: once the shared resolver
// (package gpu) is on main, this body becomes a call to it.
func gpuModel(desc string) string {
	m := gpuDesc.FindStringSubmatch(strings.TrimSpace(desc))
	if m == nil {
		return strings.Join(strings.Fields(desc), "-")
	}
	chip, mem, form := strings.TrimSpace(m[1]), m[2], strings.ToUpper(m[3])
	for _, p := range []string{"NVIDIA ", "Tesla "} {
		chip = strings.TrimPrefix(chip, p)
	}
	switch strings.ToUpper(chip) {
	case "H100":
		switch {
		case strings.HasPrefix(form, "PCIE"):
			return "H100-PCIe"
		case strings.HasPrefix(form, "NVL"):
			return "H100-NVL"
		}
		return "H100"
	case "A100":
		switch {
		case mem == "40":
			return "A100-40GB"
		case strings.HasPrefix(form, "PCIE"):
			return "A100-80GB-PCIe"
		}
		return "A100-80GB"
	case "V100":
		if mem == "32" {
			return "V100-32GB"
		}
		return "V100"
	}
	return strings.Join(strings.Fields(chip), "-")
}

// gpuDesc splits "H100 (80 GB SXM5)" into chip, memory and form factor.
var gpuDesc = regexp.MustCompile(`^(.+?)\s*\(\s*(\d+(?:\.\d+)?)\s*GB\s*([^)]*)\)`)
