package runpod

import (
	"errors"
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/runpod/runpodtest"
)

// Issue 21 item 8: the GraphQL answer decoder and the snapshot built from
// it. A refused answer is incomplete and yields nothing; an answer the
// decoder accepts holds both lists, non-empty; and what build makes of it
// is either an error with no snapshot or a snapshot Validate accepts (Fetch
// refuses anything else as "built an invalid snapshot": a hostile price
// must be refused where it is read, with its field named).
func FuzzDecode(f *testing.F) {
	f.Add(runpodtest.Sample())
	f.Add([]byte(`{"data": {"gpuTypes": [], "dataCenters": []}}`))
	f.Add([]byte(`{"errors": [{"message": "rate limited"}], "data": null}`))
	f.Add([]byte(`{"data": {"gpuTypes": [{"id": "NVIDIA H100 80GB HBM3", "displayName": "H100 SXM", "memoryInGb": 80, "securePrice": 2.99, "secureCloud": true, "lowestPrice": {"stockStatus": "High"}}], "dataCenters": [{"id": "US-TX-3", "listed": true, "gpuAvailability": [{"gpuTypeId": "NVIDIA H100 80GB HBM3", "available": true, "stockStatus": "Low"}]}]}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		d, err := decode(body)
		if err != nil {
			if d != nil {
				t.Fatalf("decode failed (%v) but returned data", err)
			}
			if !errors.Is(err, fetchers.ErrIncomplete) {
				t.Fatalf("a refused answer is not an incomplete one: %v", err)
			}
			return
		}
		if !d.hasGPUTypes || !d.hasDataCenters || len(d.GPUTypes) == 0 || len(d.DataCenters) == 0 {
			t.Fatal("an accepted answer lacks a list")
		}
		snap, _, _, err := build(d)
		if err != nil {
			if snap != nil {
				t.Fatalf("build failed (%v) but returned a snapshot", err)
			}
			if !errors.Is(err, fetchers.ErrIncomplete) {
				t.Fatalf("build refused the answer, but not as incomplete: %v", err)
			}
			return
		}
		if err := snap.Validate(); err != nil {
			t.Fatalf("build made a snapshot Fetch would refuse: %v", err)
		}
		if snap.Provider != pricewatch.RunPod || len(snap.Offers) == 0 {
			t.Fatalf("a built snapshot of %q with %d offers", snap.Provider, len(snap.Offers))
		}
		for i, o := range snap.Offers {
			if !o.Hourly.IsPositive() || o.Region != Region || o.GPUCount != 1 {
				t.Fatalf("offer %d: %s per GPU-hour in %q for %v GPUs: RunPod quotes one positive price per GPU in global", i, o.Hourly, o.Region, o.GPUCount)
			}
		}
	})
}
