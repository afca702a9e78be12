// Package hardware makes unknown GPU hardware visible and fixable: it
// applies the config's hardware.overrides to a fetched snapshot before it is
// stored, counts the types whose GPU pricewatch still does not know, and
// builds the `pricewatch hardware unknown` report with the override that
// would fix each type.
//
// A type with an unknown GPU is always stored: its prices are real even if
// its GPU is not identified, and dropping it would hide capacity.
package hardware

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/gpu"
)

// Override is one entry of hardware.overrides: it sets the GPU of the
// instance types it matches; a field left zero keeps what the fetcher
// found.
type Override struct {
	// InstanceType is the cloud's type name, exactly, or a glob.
	InstanceType string
	// GPUModel is a catalogue model or any name the resolver understands.
	GPUModel string
	// GPUCount is the number of GPUs per instance (a fraction for a share
	// of one card).
	GPUCount float64
	// GPUMemoryGB is the memory of one GPU (of one slice for a fraction).
	GPUMemoryGB float64
}

// Overrides are the configured corrections, in file order.
type Overrides struct {
	rules []Override
}

// NewOverrides takes hardware.overrides as validated by the config
// package, in file order (the first match wins).
func NewOverrides(rules []Override) Overrides {
	return Overrides{rules: append([]Override(nil), rules...)}
}

// match returns the first entry whose instance_type matches the name
// exactly or as a glob.
func (o Overrides) match(instanceType string) (Override, bool) {
	for _, r := range o.rules {
		if r.InstanceType == instanceType {
			return r, true
		}
		if ok, _ := path.Match(r.InstanceType, instanceType); ok {
			return r, true
		}
	}
	return Override{}, false
}

// apply returns hw corrected by the first matching entry. A model is
// stored under the resolver's name, so "NVIDIA L4" becomes "L4".
func (o Overrides) apply(instanceType string, hw pricewatch.Hardware) (pricewatch.Hardware, bool) {
	r, ok := o.match(instanceType)
	if !ok {
		return hw, false
	}
	if m := strings.TrimSpace(r.GPUModel); m != "" {
		hw.GPUModel = gpu.Resolve(m, gpu.Hint{MemoryGB: r.GPUMemoryGB}).Name()
	}
	if r.GPUCount > 0 {
		hw.GPUCount = r.GPUCount
	}
	if r.GPUMemoryGB > 0 {
		hw.GPUMemoryGB = r.GPUMemoryGB
	}
	return hw, true
}

// Apply corrects every offer and availability record of the snapshot and
// returns how many distinct instance types an override matched.
func (o Overrides) Apply(snap *pricewatch.Snapshot) int {
	if snap == nil || len(o.rules) == 0 {
		return 0
	}
	matched := map[string]bool{}
	for i := range snap.Offers {
		if hw, ok := o.apply(snap.Offers[i].InstanceType, snap.Offers[i].Hardware); ok {
			snap.Offers[i].Hardware = hw
			matched[snap.Offers[i].InstanceType] = true
		}
	}
	for i := range snap.Availability {
		if hw, ok := o.apply(snap.Availability[i].InstanceType, snap.Availability[i].Hardware); ok {
			snap.Availability[i].Hardware = hw
			matched[snap.Availability[i].InstanceType] = true
		}
	}
	return len(matched)
}

// Problem says what is missing about a type's GPU; "" when nothing is.
func Problem(hw pricewatch.Hardware) string {
	switch {
	case strings.TrimSpace(hw.GPUModel) == "":
		return "no GPU model"
	case !known(hw.GPUModel):
		return "GPU model not in the catalogue"
	case hw.GPUCount <= 0:
		return "GPU count unknown"
	}
	return ""
}

func known(model string) bool {
	_, ok := gpu.Lookup(model)
	return ok
}

// UnknownTypes counts the distinct instance types in the snapshot whose
// GPU is unknown, not in the catalogue or uncounted (after overrides).
func UnknownTypes(snap *pricewatch.Snapshot) int {
	if snap == nil {
		return 0
	}
	seen := map[string]bool{}
	for _, o := range snap.Offers {
		if Problem(o.Hardware) != "" {
			seen[o.InstanceType] = true
		}
	}
	for _, a := range snap.Availability {
		if Problem(a.Hardware) != "" {
			seen[a.InstanceType] = true
		}
	}
	return len(seen)
}

// Stored is one stored instance type with the hardware it was stored with.
type Stored struct {
	Provider     string
	InstanceType string
	pricewatch.Hardware
	Regions int // regions where it is currently priced or offered
}

// Entry is one line of the unknown-hardware report.
type Entry struct {
	Provider     string  `json:"provider"`
	InstanceType string  `json:"instance_type"`
	GPUModel     string  `json:"gpu_model"`
	GPUCount     float64 `json:"gpu_count"`
	GPUMemoryGB  float64 `json:"gpu_memory_gb"`
	Regions      int     `json:"regions"`
	Problem      string  `json:"problem"`
	// Override is the hardware.overrides entry (YAML) that would fix the
	// type, with the values known so far filled in and the missing ones
	// marked for the user to complete.
	Override string `json:"override"`
}

// Unknown returns the report entries for the stored types whose GPU has a
// problem, sorted by provider and type.
func Unknown(types []Stored) []Entry {
	out := []Entry{}
	for _, s := range types {
		p := Problem(s.Hardware)
		if p == "" {
			continue
		}
		out = append(out, Entry{Provider: s.Provider, InstanceType: s.InstanceType, GPUModel: s.GPUModel,
			GPUCount: s.GPUCount, GPUMemoryGB: s.GPUMemoryGB, Regions: s.Regions, Problem: p, Override: overrideYAML(s)})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Provider != out[j].Provider {
			return out[i].Provider < out[j].Provider
		}
		return out[i].InstanceType < out[j].InstanceType
	})
	return out
}

// overrideYAML renders the list item to add under hardware.overrides. The
// model is the one thing pricewatch cannot guess: an uncatalogued name is
// kept as a starting point, and a comment says to replace it with the
// catalogue model when the cloud misnamed one, or to report the missing
// entry when the GPU is real: renaming a real GPU to another would give it
// that GPU's figures.
func overrideYAML(s Stored) string {
	var b strings.Builder
	fmt.Fprintf(&b, "- instance_type: %s\n", yamlString(s.InstanceType))
	switch {
	case s.GPUModel == "":
		b.WriteString("  gpu_model: \"\"  # fill in: the GPU this type carries (e.g. H100, L40S)\n")
	case !known(s.GPUModel):
		// A real GPU the catalogue lacks must not be renamed to another
		// (its per-GPU figures would be that GPU's): report the gap.
		fmt.Fprintf(&b, "  gpu_model: %s  # not in the catalogue: if the cloud misnames a catalogue GPU, write that model (e.g. L40S); "+
			"if it is a real GPU, do not rename it: report the missing catalogue entry (gpu/catalogue.go) to pricewatch's maintainers\n", yamlString(s.GPUModel))
	default:
		fmt.Fprintf(&b, "  gpu_model: %s\n", yamlString(s.GPUModel))
	}
	if s.GPUCount > 0 {
		fmt.Fprintf(&b, "  gpu_count: %s\n", num(s.GPUCount))
	} else {
		b.WriteString("  gpu_count: 0  # fill in: GPUs per instance (0.25 for a quarter of one)\n")
	}
	if s.GPUMemoryGB > 0 {
		fmt.Fprintf(&b, "  gpu_memory_gb: %s\n", num(s.GPUMemoryGB))
	} else {
		b.WriteString("  gpu_memory_gb: 0  # fill in: GB per GPU\n")
	}
	return b.String()
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// yamlString quotes a value when YAML would read it as something else.
func yamlString(s string) string {
	if s == "" || strings.ContainsAny(s, ":#*?[]{},&!|>'\"%@`") || strings.TrimSpace(s) != s || pricewatch.Printable(s) != s {
		// strconv.Quote also escapes what a terminal would run.
		return strconv.Quote(s)
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return strconv.Quote(s)
	}
	return s
}
