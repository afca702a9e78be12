package lambda

import (
	"strings"

	"github.com/pricewatch/pricewatch/gpu"
)

// gpuModel maps Lambda's GPU description ("H100 (80 GB SXM5)", "A100 (40 GB
// SXM4)") to the catalogue's model name through the shared resolver. A
// description it does not know ("GH200 (96 GB)") is resolved again by its
// chip name alone, so the stored name is "GH200", not the whole phrase.
func gpuModel(desc string) string {
	hint := gpu.Hint{MemoryGB: gpuMemory(desc)}
	id := gpu.Resolve(desc, hint)
	if chip, _, ok := strings.Cut(desc, "("); !id.Known && ok && strings.TrimSpace(chip) != "" {
		id = gpu.Resolve(strings.TrimSpace(chip), hint)
	}
	return id.Name()
}
