package metrics

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/run"
	"github.com/pricewatch/pricewatch/storage"
)

// Issue 34 item 7: a partial run is counted under result="partial", not
// "success"; its changes were stored and are counted.
func TestObservePartial(t *testing.T) {
	m := New(nil, "test")
	m.Observe(run.Summary{Provider: "aws", Status: run.StatusPartial, Result: &storage.Result{Changes: []pricewatch.Change{{Kind: pricewatch.PriceChanged}}},
		Unread: []pricewatch.Unread{{Region: "us-west-2", Reason: "price file cut off"}}})
	m.Observe(run.Summary{Provider: "aws", Status: run.StatusOK, Result: &storage.Result{}})
	for result, want := range map[string]float64{"partial": 1, "success": 1, "": 0} {
		if got := testutil.ToFloat64(m.fetchRuns.WithLabelValues("aws", result)); got != want {
			t.Errorf("runs with result %q: %v, want %v", result, got, want)
		}
	}
	if got := testutil.ToFloat64(m.changes.WithLabelValues("aws", string(pricewatch.PriceChanged))); got != 1 {
		t.Errorf("changes of the partial run counted %v, want 1", got)
	}
}
