package config

import (
	"fmt"
	"path"
	"strings"
)

// Hardware corrects what a cloud says (or does not say) about an instance
// type's GPUs. pricewatch applies it to every fetched offer and
// availability record before storing them (see package hardware).
type Hardware struct {
	Overrides []HardwareOverride `yaml:"overrides"`
}

// HardwareOverride sets the GPU of the instance types it matches. The first
// matching entry wins; a field left out (zero) keeps what the fetcher found.
// The composition converts each to hardware.Override, which has the same
// fields.
type HardwareOverride struct {
	// InstanceType is the cloud's type name, exactly, or a glob
	// ("ecs.gn8t-*", "Standard_NC*_RTXPRO6000BSE_v6").
	InstanceType string `yaml:"instance_type"`
	// GPUModel is a catalogue model ("H100", "RTX-PRO-6000") or any name
	// the resolver understands ("NVIDIA L20 48GB").
	GPUModel string `yaml:"gpu_model"`
	// GPUCount is the number of GPUs per instance; a share of one card is
	// a fraction (0.25).
	GPUCount float64 `yaml:"gpu_count"`
	// GPUMemoryGB is the memory of one GPU (of one slice for a fraction).
	GPUMemoryGB float64 `yaml:"gpu_memory_gb"`
}

// validateHardware checks hardware.overrides.
func (c *Config) validateHardware() []error {
	var errs []error
	for i, o := range c.Hardware.Overrides {
		prefix := fmt.Sprintf("hardware.overrides[%d]", i)
		if strings.TrimSpace(o.InstanceType) == "" {
			errs = append(errs, c.keyErr(prefix+".instance_type", "must name an instance type or a glob such as ecs.gn8t-*"))
		} else if _, err := path.Match(o.InstanceType, ""); err != nil {
			errs = append(errs, c.keyErr(prefix+".instance_type", "%q is not a valid glob", o.InstanceType))
		}
		if strings.TrimSpace(o.GPUModel) == "" && o.GPUCount == 0 && o.GPUMemoryGB == 0 {
			errs = append(errs, c.keyErr(prefix, "sets nothing: give gpu_model, gpu_count or gpu_memory_gb"))
		}
		if o.GPUCount < 0 || o.GPUCount > 64 {
			errs = append(errs, c.keyErr(prefix+".gpu_count", "%v: want a count between 0 and 64 (a fraction such as 0.25 for a share of one GPU)", o.GPUCount))
		}
		if o.GPUMemoryGB < 0 || o.GPUMemoryGB > 4096 {
			errs = append(errs, c.keyErr(prefix+".gpu_memory_gb", "%v: want the memory of one GPU in GB", o.GPUMemoryGB))
		}
	}
	return errs
}
