package aws

import (
	"context"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
)

// Issue 20 item 3: a spot feed listing one size twice at different prices
// failed the whole AWS run, on-demand prices included. Now
// neither of the two is kept for that size, a warning names it, and every
// other price of the run is stored. The feed is the real af-south-1
// excerpt with g4dn.xlarge listed a second time, in the (real, empty)
// generalPreviousGen group, at another price; the same size twice at the
// same price is no conflict.
func TestSpotSizeListedTwiceKeepsNeither(t *testing.T) {
	real := string(awstest.LoadSamples(t).SpotFeed)
	const group = `{"type":"generalPreviousGen","sizes":[]}`
	if !strings.Contains(real, group) || !strings.Contains(real, `{"size":"g4dn.xlarge","valueColumns":[{"name":"linux","prices":{"USD":"0.2452"}}`) {
		t.Fatal("test data: the real feed no longer has the group or the g4dn.xlarge price this test edits")
	}
	twice := func(price string) []byte {
		return []byte(strings.Replace(real, group, `{"type":"generalPreviousGen","sizes":[{"size":"g4dn.xlarge","valueColumns":[`+
			`{"name":"linux","prices":{"USD":"`+price+`"}},{"name":"mswin","prices":{"USD":"N/A*"}}]}]}`, 1))
	}
	tests := []struct {
		name     string
		price    string
		wantSpot string // g4dn.xlarge's spot price; "" for none
		warnings int
	}{
		{"different prices", "0.3124", "", 1},
		{"same price", "0.2452", "0.2452", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := awstest.NewBucket(t)
			tree{"af-south-1": {Version: v1, Types: g4dnTypes()}}.publish(t, b)
			b.Put(awstest.SpotPath, twice(tt.price))
			f := newFetcher(t, b, Config{Spot: true})
			core, logs := observer.New(zap.WarnLevel)
			f.log = zap.New(core)
			snap, err := f.Fetch(context.Background(), fetchers.Previous{})
			if err != nil {
				t.Fatalf("the whole run failed: %v", err)
			}
			idx := offerIndex(snap.Offers)
			if o, ok := idx["af-south-1/g4dn.xlarge/spot///"]; (tt.wantSpot == "") == ok || ok && o.Hourly.String() != tt.wantSpot {
				t.Errorf("g4dn.xlarge spot: %v %s, want %q", ok, o.Hourly, tt.wantSpot)
			}
			// The rest of the feed and every on-demand and reserved price stand.
			if o := idx["af-south-1/g4dn.2xlarge/spot///"]; o.Hourly.String() != "0.2708" {
				t.Errorf("g4dn.2xlarge spot %s, want 0.2708", o.Hourly)
			}
			// The real excerpt prices seven g4dn sizes in af-south-1.
			if n, want := len(offersOf(snap, pricewatch.Spot)), 6+boolInt(tt.wantSpot != ""); n != want {
				t.Errorf("%d spot offers, want %d", n, want)
			}
			if n := len(offersOf(snap, pricewatch.OnDemand)); n != len(g4dnTypes()) {
				t.Errorf("%d on-demand prices, want one per g4dn size (%d)", n, len(g4dnTypes()))
			}
			warned := logs.FilterMessageSnippet("twice at different prices").FilterField(zap.String("instance_type", "g4dn.xlarge"))
			if warned.Len() != tt.warnings || logs.Len() != tt.warnings {
				t.Errorf("warnings %v, want %d naming g4dn.xlarge", logs.All(), tt.warnings)
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
