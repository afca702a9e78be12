package main

import (
	"strings"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/hardware"
)

// Issue 20 item 8: names stored with control characters (by a version
// before ingest stripped them, or written to the database by anything
// else) are escaped by `availability --all` and `hardware unknown`: no
// ESC, BEL or C1 byte reaches the terminal, the text stays readable.
func TestTablesEscapeControlCharacters(t *testing.T) {
	hostile := "1x RTX 4090\x1b]0;pwned\x07\x1b[2J"
	since := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	var avail strings.Builder
	err := writeAvailability(&avail, formatTable, []pricewatch.AvailabilityInterval{{
		AvailabilityKey: pricewatch.AvailabilityKey{Provider: pricewatch.VastAI, Region: "US\u009b", InstanceType: hostile},
		GPUModel:        "RTX 4090\x1b[5m", GPUCount: 1, State: pricewatch.InStock, Since: since,
	}})
	if err != nil {
		t.Fatal(err)
	}
	var unknown strings.Builder
	if err := writeUnknownHardware(&unknown, formatTable, hardware.Unknown([]hardware.Stored{{
		Provider: pricewatch.VastAI, InstanceType: hostile, Hardware: pricewatch.Hardware{GPUModel: "GTX 1080\x1b[8m", GPUCount: 1}, Regions: 1,
	}})); err != nil {
		t.Fatal(err)
	}
	for what, out := range map[string]string{"availability": avail.String(), "hardware unknown": unknown.String()} {
		if i := strings.IndexFunc(out, func(r rune) bool { return r != '\n' && (r < 0x20 || (r >= 0x7f && r < 0xa0)) }); i >= 0 {
			t.Errorf("%s prints a control character at %d: %q", what, i, out)
		}
		if !strings.Contains(out, `1x RTX 4090\x1b]0;pwned\x07\x1b[2J`) {
			t.Errorf("%s does not show the escaped name:\n%s", what, out)
		}
	}
}
