package web

import (
	"strings"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch"
)

// Issue 33: CoreWeave's Capacity Finder answers show on the company's
// dashboard marked confidential, once however many rows; other clouds'
// availability carries no mark.
func TestTimelineMarksConfidentialAvailability(t *testing.T) {
	from := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	to := from.Add(72 * time.Hour)
	row := func(provider, region string) pricewatch.AvailabilityInterval {
		return pricewatch.AvailabilityInterval{AvailabilityKey: pricewatch.AvailabilityKey{Provider: provider, Region: region, InstanceType: "b200-8x"},
			State: pricewatch.InStock, Since: from.Add(time.Hour)}
	}
	tl := availabilityTimeline([]pricewatch.AvailabilityInterval{row("coreweave", "US-EAST-04A"), row("coreweave", "US-WEST-04A")}, from, to, true)
	if len(tl.Confidential) != 1 || !strings.Contains(tl.Confidential[0], "CoreWeave Capacity Finder") {
		t.Errorf("CoreWeave rows marked %q, want one CoreWeave notice", tl.Confidential)
	}
	if tl := availabilityTimeline([]pricewatch.AvailabilityInterval{row("lambda", "us-east-1")}, from, to, true); len(tl.Confidential) != 0 {
		t.Errorf("Lambda rows marked %q", tl.Confidential)
	}
}
