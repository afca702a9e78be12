package cputime

import "testing"

// Work done shows as CPU time that only grows.
func TestSelfGrows(t *testing.T) {
	before := Self()
	x := 0
	for i := range 50_000_000 {
		x ^= i
	}
	if after := Self(); after <= before || before <= 0 {
		t.Errorf("CPU time %s then %s (x=%d)", before, after, x)
	}
}
