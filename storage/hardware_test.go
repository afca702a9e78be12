package storage

import (
	"testing"

	"github.com/pricewatch/pricewatch"
)

// CurrentHardware lists each priced or offered type once, with the
// hardware it was last stored with and the regions it is in; a type whose
// prices were all closed is gone from it.
func TestCurrentHardware(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		unknown := offer("Standard_NC40ads_Z9_v7", "eastus", pricewatch.OnDemand, "7")
		unknown.Hardware = pricewatch.Hardware{VCPUs: 40}
		unknownWest := unknown
		unknownWest.Region = "westus2"
		gone := offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.OnDemand, "98")
		withdrawn := offer("Standard_NC24ads_A100_v4", "eastus", pricewatch.OnDemand, "3.67")
		snap := snapshot(unknown, unknownWest, gone, withdrawn, offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.Spot, "30"))
		snap.Availability = []pricewatch.Availability{{Provider: "azure", Region: "eastus", InstanceType: "Standard_NG8ads_V620_v1",
			State: pricewatch.Offered, Hardware: pricewatch.Hardware{GPUModel: "V620", GPUCount: 0.25}}}
		mustSave(t, db, snap)
		clk.tick()
		// The next run knows the unknown size (an override), no longer lists
		// the H100 on-demand price (its spot price stays) nor the A100 size.
		fixed := unknown
		fixed.Hardware = pricewatch.Hardware{GPUModel: "H100-NVL", GPUCount: 1, GPUMemoryGB: 94, VCPUs: 40}
		fixedWest := fixed
		fixedWest.Region = "westus2"
		snap = snapshot(fixed, fixedWest, offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.Spot, "30"))
		snap.Availability = []pricewatch.Availability{{Provider: "azure", Region: "eastus", InstanceType: "Standard_NG8ads_V620_v1",
			State: pricewatch.Offered, Hardware: pricewatch.Hardware{GPUModel: "V620", GPUCount: 0.25}}}
		mustSaveWith(t, db, snap, SaveOptions{MinOfferRatio: 0.1})
		got, err := db.CurrentHardware(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := []TypeHardware{
			{Provider: "azure", InstanceType: "Standard_NC40ads_Z9_v7", Hardware: pricewatch.Hardware{GPUModel: "H100-NVL", GPUCount: 1, GPUMemoryGB: 94, VCPUs: 40}, Regions: 2},
			{Provider: "azure", InstanceType: "Standard_ND96isr_H100_v5", Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8, GPUMemoryGB: 80, VCPUs: 96, MemoryGB: 1900}, Regions: 1},
			{Provider: "azure", InstanceType: "Standard_NG8ads_V620_v1", Hardware: pricewatch.Hardware{GPUModel: "V620", GPUCount: 0.25}, Regions: 1},
		}
		if len(got) != len(want) {
			t.Fatalf("got %+v\nwant %+v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("row %d: %+v, want %+v", i, got[i], want[i])
			}
		}
	})
}

// The interconnect and local storage a cloud states are stored with the
// offer and read back by every reader; a later run that learns them (or a
// corrected value) at an unchanged price refreshes the stored hardware
// without a new price interval, and one that stops stating them stores
// unknown again rather than keeping a stale value.
func TestOfferInterconnectAndStorage(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		o := offer("p5.48xlarge", "us-east-1", pricewatch.OnDemand, "55.04")
		o.Provider = "aws"
		o.Hardware = pricewatch.Hardware{GPUModel: "H100", GPUCount: 8, GPUMemoryGB: 80, VCPUs: 192, MemoryGB: 2048}
		snap := snapshot(o)
		snap.Provider = "aws"
		mustSave(t, db, snap)

		steps := []struct {
			name         string
			interconnect string
			storage      string
		}{
			{"learnt at an unchanged price", "3200 Gigabit", "8 x 3800 GB NVMe SSD"},
			{"corrected", "3200 Gigabit", "8 x 3840 GB NVMe SSD"},
			{"no longer stated", "", ""},
		}
		for _, st := range steps {
			clk.tick()
			o.Interconnect, o.LocalStorage = st.interconnect, st.storage
			snap := snapshot(o)
			snap.Provider = "aws"
			mustSave(t, db, snap)
			prices, err := db.Prices(ctx, PriceFilter{})
			if err != nil {
				t.Fatal(err)
			}
			if len(prices) != 1 {
				t.Fatalf("%s: %d price intervals, want the one unchanged price", st.name, len(prices))
			}
			if got := prices[0].Hardware; got != o.Hardware {
				t.Errorf("%s: Prices reads %+v, want %+v", st.name, got, o.Hardware)
			}
			hw, err := db.CurrentHardware(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(hw) != 1 || hw[0].Hardware != o.Hardware {
				t.Errorf("%s: CurrentHardware reads %+v, want %+v", st.name, hw, o.Hardware)
			}
		}
	})
}
