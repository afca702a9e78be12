package storage

import (
	"context"
	"fmt"
	"sort"

	"github.com/pricewatch/pricewatch"
)

// TypeHardware is one instance type currently stored (priced or offered)
// with the hardware it was stored with.
type TypeHardware struct {
	Provider     string
	InstanceType string
	pricewatch.Hardware
	// Regions is the number of regions where it is currently priced or
	// offered.
	Regions int
}

// CurrentHardware lists every instance type with a current price or an
// open availability interval, one row per provider and type. Hardware comes
// from the offers (which carry GPU memory and CPU) and, for types only
// seen as available, from the availability records.
func (db *DB) CurrentHardware(ctx context.Context) ([]TypeHardware, error) {
	type key struct{ provider, instanceType string }
	byType := map[key]*TypeHardware{}
	regions := map[key]map[string]bool{}
	add := func(q, what string) error {
		rows, err := db.read.QueryContext(ctx, q)
		if err != nil {
			return fmt.Errorf("reading stored hardware (%s): %w", what, err)
		}
		defer rows.Close()
		for rows.Next() {
			var t TypeHardware
			var region string
			if err := rows.Scan(&t.Provider, &t.InstanceType, &region, &t.GPUModel, &t.GPUCount, &t.GPUMemoryGB, &t.VCPUs, &t.MemoryGB, &t.Interconnect, &t.LocalStorage); err != nil {
				return fmt.Errorf("reading stored hardware (%s): %w", what, err)
			}
			k := key{t.Provider, t.InstanceType}
			if byType[k] == nil {
				byType[k] = &t
				regions[k] = map[string]bool{}
			}
			regions[k][region] = true
		}
		return rows.Err()
	}
	if err := add(`SELECT o.provider, o.instance_type, o.region, o.gpu_model, o.gpu_count, o.gpu_memory_gb, o.vcpus, o.memory_gb, o.interconnect, o.local_storage
		FROM offers o WHERE EXISTS (SELECT 1 FROM prices p WHERE p.offer_id = o.id AND p.valid_to IS NULL)
		ORDER BY o.provider, o.instance_type, o.id`, "offers"); err != nil {
		return nil, err
	}
	if err := add(`SELECT provider, instance_type, region, gpu_model, gpu_count, 0, 0, 0, '', ''
		FROM availability WHERE until IS NULL ORDER BY provider, instance_type, id`, "availability"); err != nil {
		return nil, err
	}
	out := make([]TypeHardware, 0, len(byType))
	for k, t := range byType {
		t.Regions = len(regions[k])
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Provider != out[j].Provider {
			return out[i].Provider < out[j].Provider
		}
		return out[i].InstanceType < out[j].InstanceType
	})
	return out, nil
}
