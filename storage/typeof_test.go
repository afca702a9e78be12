package storage

import (
	"testing"

	"github.com/pricewatch/pricewatch"
)

// InstanceTypeStoredBy finds a provider's offers of a type, in any case
// of its letters, and its availability records of a type it has no price
// of; never another provider's.
func TestInstanceTypeStoredBy(t *testing.T) {
	backends(t, func(t *testing.T) { instanceTypeStoredBy(t) })
}

func instanceTypeStoredBy(t *testing.T) {
	db, _ := openTest(t)
	mustSave(t, db, snapshot(offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.OnDemand, "98.32")))
	lambda := &pricewatch.Snapshot{Provider: "lambda", Coverage: []pricewatch.Scope{{Region: pricewatch.AllRegions, Availability: true}},
		Availability: []pricewatch.Availability{{Provider: "lambda", Region: "us-east-1", InstanceType: "gpu_1x_gh200", State: pricewatch.Offered,
			Hardware: pricewatch.Hardware{GPUModel: "GH200", GPUCount: 1}}}}
	mustSave(t, db, lambda)
	for _, c := range []struct {
		typ       string
		providers []string
		want      bool
	}{
		{"Standard_ND96isr_H100_v5", []string{"azure"}, true},
		{"standard_nd96isr_h100_v5", []string{"lambda", "azure"}, true},
		{"Standard_ND96isr_H100_v5", []string{"lambda"}, false},
		{"Standard_ND96isr_H100_v5", nil, false},
		{"gpu_1x_gh200", []string{"lambda"}, true}, // availability alone
		{"gpu_1x_gh200", []string{"azure", "ovhcloud"}, false},
	} {
		got, err := db.InstanceTypeStoredBy(t.Context(), c.typ, c.providers)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("InstanceTypeStoredBy(%q, %q) = %v, want %v", c.typ, c.providers, got, c.want)
		}
	}
}
