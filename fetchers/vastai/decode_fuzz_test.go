package vastai

import (
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
)

// Issue 21 item 8: the decoder of one page of Vast.ai's offer search. A
// page it refuses is an incomplete page and yields nothing (no partial
// offers); a page it accepts holds only offers with every field pricewatch
// relies on, of the GPU asked for, priced within the magnitudes the one
// amount parser allows, in dph_total order, with raw the prices as text;
// and the accepted offers, encoded again as a page, decode to the same.
func FuzzDecodePage(f *testing.F) {
	for _, c := range []struct{ file, gpu string }{{h100Capture, "H100 SXM"}, {b300Capture, "B300"}} {
		b, err := os.ReadFile(c.file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, c.gpu)
	}
	f.Add([]byte(`{"offers": []}`), "H200")
	f.Add([]byte(`{"offers": [{"id": 1, "gpu_name": "H200", "num_gpus": 8, "dph_total": "2.5", "min_bid": 0.39999999999999997, "rentable": true, "geolocation": "Japan, JP"}]}`), "H200")
	f.Fuzz(func(t *testing.T, body []byte, gpuName string) {
		offers, raw, _, err := decodePage(body, gpuName, "fuzz", skips{})
		if err != nil {
			if offers != nil || raw != nil {
				t.Fatalf("decodePage failed (%v) but returned %d offers, %d prices", err, len(offers), len(raw))
			}
			if !errors.Is(err, fetchers.ErrIncomplete) {
				t.Fatalf("a refused page is not an incomplete page: %v", err)
			}
			return
		}
		if len(offers) != len(raw) {
			t.Fatalf("%d offers but %d raw prices", len(offers), len(raw))
		}
		for i, o := range offers {
			if o.ID == nil || o.GPUName == nil || o.NumGPUs == nil || o.DPHTotal == nil || o.Rentable == nil {
				t.Fatalf("offer %d lacks a required field: %+v", i, o)
			}
			// An answer for "" is the unfiltered search (every GPU model
			// on the marketplace, the default since issue 20 item 7).
			if *o.NumGPUs < 1 || (gpuName != "" && *o.GPUName != gpuName) {
				t.Fatalf("offer %d: %d× %q in an answer for %q", i, *o.NumGPUs, *o.GPUName, gpuName)
			}
			if o.DPHTotal.IsNegative() || (o.MinBid != nil && o.MinBid.IsNegative()) {
				t.Fatalf("offer %d: a negative price was accepted", i)
			}
			if err := pricewatch.CheckMagnitude(*o.DPHTotal); err != nil {
				t.Fatalf("offer %d: dph_total accepted although %v", i, err)
			}
			if o.MinBid != nil {
				if err := pricewatch.CheckMagnitude(*o.MinBid); err != nil {
					t.Fatalf("offer %d: min_bid accepted although %v", i, err)
				}
			}
			if i > 0 && o.DPHTotal.LessThan(*offers[i-1].DPHTotal) {
				t.Fatalf("offer %d is cheaper than offer %d: the page is out of order", i, i-1)
			}
			if raw[i] != o.DPHTotal.String() {
				t.Fatalf("raw price %d is %q, the offer's %s", i, raw[i], o.DPHTotal)
			}
		}
		// The accepted offers, as a page again, decode to the same offers.
		items := make([]json.RawMessage, len(offers))
		for i, o := range offers {
			b, err := json.Marshal(o)
			if err != nil {
				t.Fatalf("encoding offer %d: %v", i, err)
			}
			items[i] = b
		}
		again, err := json.Marshal(map[string][]json.RawMessage{"offers": items})
		if err != nil {
			t.Fatal(err)
		}
		back, _, _, err := decodePage(again, gpuName, "fuzz again", skips{})
		if err != nil {
			t.Fatalf("the accepted offers, encoded again, are refused: %v", err)
		}
		if len(back) != len(offers) {
			t.Fatalf("%d offers, then %d", len(offers), len(back))
		}
		for i := range back {
			a, b := offers[i], back[i]
			switch {
			case *a.ID != *b.ID, *a.NumGPUs != *b.NumGPUs, *a.GPUName != *b.GPUName, *a.Rentable != *b.Rentable,
				!a.DPHTotal.Equal(*b.DPHTotal), (a.MinBid == nil) != (b.MinBid == nil), a.MinBid != nil && !a.MinBid.Equal(*b.MinBid),
				(a.Geolocation == nil) != (b.Geolocation == nil), a.Geolocation != nil && *a.Geolocation != *b.Geolocation,
				(a.Rented == nil) != (b.Rented == nil), a.Rented != nil && *a.Rented != *b.Rented, a.GPURAM != b.GPURAM:
				t.Fatalf("offer %d changed in the round trip: %+v, then %+v", i, a, b)
			}
		}
	})
}
