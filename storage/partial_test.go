package storage

import (
	"testing"

	"github.com/pricewatch/pricewatch"
)

// Issue 34 item 7: a stored run that could not read a region is recorded
// as partial: its status stays ok (it stored, and counts as a success:
// LastSuccess finds it), its error names the region and why, and it reads
// partial. A run that read everything reads ok, with no error.
func TestPartialRunRecorded(t *testing.T) { backends(t, testPartialRunRecorded) }

func testPartialRunRecorded(t *testing.T) {
	ctx, db, _ := openTestDB(t)
	mustSave(t, db, snapshot(offer("ND96isr_H100_v5", "eastus", pricewatch.OnDemand, "98.32")))
	snap := snapshot(offer("ND96isr_H100_v5", "eastus", pricewatch.OnDemand, "98.32"))
	snap.Coverage = []pricewatch.Scope{{Region: "eastus"}}
	snap.Unread = []pricewatch.Unread{{Region: "westus2", Reason: "price file cut off after 4096 bytes"}}
	mustSave(t, db, snap)
	runs, err := db.Runs(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	partial, whole := runs[0], runs[1]
	if partial.Status != pricewatch.RunOK || partial.Shown() != pricewatch.RunPartial || partial.Error != "not read: westus2 (price file cut off after 4096 bytes)" {
		t.Errorf("partial run recorded as %s/%s %q", partial.Status, partial.Shown(), partial.Error)
	}
	if whole.Shown() != pricewatch.RunOK || whole.Error != "" {
		t.Errorf("whole run recorded as %s %q", whole.Shown(), whole.Error)
	}
	last, err := db.LastSuccess(ctx, "azure")
	if err != nil || last == nil || last.ID != partial.ID {
		t.Errorf("last success %+v (%v), want the partial run, which stored", last, err)
	}
}
