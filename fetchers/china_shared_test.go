package fetchers

import (
	"testing"

	"github.com/pricewatch/pricewatch"
)

func TestAvailableResourceStatus(t *testing.T) {
	for status, want := range map[string]pricewatch.AvailabilityState{
		"Available": pricewatch.InStock,
		"SoldOut":   pricewatch.SoldOut,
		"":          "",
		"available": "",
		"Paused":    "",
	} {
		got, ok := AvailableResourceStatus(status)
		if got != want || ok != (want != "") {
			t.Errorf("%q: %q %v, want %q", status, got, ok, want)
		}
	}
}
