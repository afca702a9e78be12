package storage

import (
	"strings"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch"
)

func band(typ, region, value string) pricewatch.Signal {
	return pricewatch.Signal{Provider: "azure", Kind: pricewatch.InterruptionBand, Region: region, InstanceType: typ,
		Shape: pricewatch.ShapeOf("os", "linux"), Value: value, Unit: "band", Source: "test",
		Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8}}
}

func block(zone string, start time.Time, fee string) pricewatch.Signal {
	return pricewatch.Signal{Provider: "azure", Kind: pricewatch.CapacityBlock, Region: "us-east-2", Zone: zone, InstanceType: "p5.48xlarge",
		Shape: pricewatch.ShapeOf("instance_count", "1", "duration_hours", "24"), Start: start, End: start.Add(24 * time.Hour),
		Value: fee, Unit: "USD", Source: "test", Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8}}
}

func signalSnap(scopes []pricewatch.SignalScope, sigs ...pricewatch.Signal) *pricewatch.Snapshot {
	s := snapshot(offer("ND96", "eastus", pricewatch.OnDemand, "98.32"))
	s.Signals, s.SignalCoverage = sigs, scopes
	return s
}

func signalKinds(res *Result) []pricewatch.ChangeKind {
	var out []pricewatch.ChangeKind
	for _, c := range res.Changes {
		if c.Signal != nil {
			out = append(out, c.Kind)
		}
	}
	return out
}

// Signals are intervals: an unchanged value writes nothing, another value
// closes one interval and opens the next, a signal missing from a covered
// answer ends quietly, and one outside every scope is left alone.
func TestSignalIntervals(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		all := []pricewatch.SignalScope{{Kind: pricewatch.InterruptionBand, Region: pricewatch.AllRegions}, {Kind: pricewatch.CapacityBlock, Region: "us-east-2"}}
		start := time.Date(2026, 12, 14, 11, 30, 0, 0, time.UTC)
		steps := []struct {
			name   string
			snap   *pricewatch.Snapshot
			want   []pricewatch.ChangeKind
			rows   int // stored intervals after the step
			active int // current ones
		}{
			{"baseline", signalSnap(all, band("p5.48xlarge", "us-east-1", "<5%")), []pricewatch.ChangeKind{pricewatch.SignalNew}, 1, 1},
			{"same band writes nothing", signalSnap(all, band("p5.48xlarge", "us-east-1", "<5%")), nil, 1, 1},
			{"band moves", signalSnap(all, band("p5.48xlarge", "us-east-1", "10-15%")), []pricewatch.ChangeKind{pricewatch.SignalChanged}, 2, 1},
			{"a block appears", signalSnap(all, band("p5.48xlarge", "us-east-1", "10-15%"), block("us-east-2b", start, "31464.00")),
				[]pricewatch.ChangeKind{pricewatch.CapacityBlockAvailable}, 3, 2},
			{"an unchanged source lists nothing and covers nothing", signalSnap(nil), nil, 3, 2},
			{"the block is gone from a complete answer: ends, no change", signalSnap(all, band("p5.48xlarge", "us-east-1", "10-15%")), nil, 3, 1},
			{"a band outside every scope stays", signalSnap([]pricewatch.SignalScope{{Kind: pricewatch.CapacityBlock, Region: "us-east-2"}}), nil, 3, 1},
		}
		for _, st := range steps {
			clk.tick()
			res := mustSave(t, db, st.snap)
			if got := signalKinds(res); len(got) != len(st.want) || (len(got) > 0 && got[0] != st.want[0]) {
				t.Errorf("%s: signal changes %v, want %v", st.name, got, st.want)
			}
			rows, err := db.Signals(ctx, SignalFilter{})
			if err != nil {
				t.Fatal(err)
			}
			current, err := db.Signals(ctx, SignalFilter{CurrentOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != st.rows || len(current) != st.active {
				t.Errorf("%s: %d intervals (%d current), want %d (%d)", st.name, len(rows), len(current), st.rows, st.active)
			}
		}
		blocks, err := db.Signals(ctx, SignalFilter{Kinds: []pricewatch.SignalKind{pricewatch.CapacityBlock}, Regions: []string{"us-east-2b"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(blocks) != 1 || !blocks[0].EndedMissing || blocks[0].Until == nil || !blocks[0].Start.Equal(start) || blocks[0].Value != "31464.00" {
			t.Fatalf("block interval = %+v", blocks)
		}
		if per, ok := blocks[0].BlockPerGPUHour(); !ok || per.String() != "163.875" {
			t.Errorf("per GPU-hour = %v %v, want 163.875 (31464 / (24 h × 8 GPUs))", per, ok)
		}
	})
}

// Retention deletes ended signal intervals older than the age, never a
// current one.
func TestSignalRetention(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		scope := []pricewatch.SignalScope{{Kind: pricewatch.InterruptionBand, Region: pricewatch.AllRegions}}
		mustSave(t, db, signalSnap(scope, band("p5.48xlarge", "us-east-1", "<5%")))
		clk.tick()
		mustSave(t, db, signalSnap(scope, band("p5.48xlarge", "us-east-1", ">20%")))
		clk.t = clk.t.Add(30 * 24 * time.Hour)
		res, err := db.Maintain(ctx, Retention{SignalsMaxAge: 7 * 24 * time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		left, err := db.Signals(ctx, SignalFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if res.SignalsPruned != 1 || len(left) != 1 || left[0].Value != ">20%" || left[0].Until != nil {
			t.Fatalf("pruned %d, left %+v; want the ended <5%% interval gone and the current one kept", res.SignalsPruned, left)
		}
	})
}

// A snapshot with a bad signal is refused whole, like a bad offer.
func TestSignalValidation(t *testing.T) {
	backends(t, func(t *testing.T) {
		_, db, _ := openTestDB(t)
		start := time.Date(2026, 12, 14, 0, 0, 0, 0, time.UTC)
		for name, sg := range map[string]pricewatch.Signal{
			"empty value":          band("p5.48xlarge", "us-east-1", ""),
			"block without fee":    block("us-east-2b", start, "0"),
			"block with no window": func() pricewatch.Signal { b := block("us-east-2b", start, "10"); b.End = b.Start; return b }(),
			"band with a window":   func() pricewatch.Signal { b := band("p5.48xlarge", "us-east-1", "<5%"); b.Start = start; return b }(),
		} {
			if _, err := save(t, db, signalSnap(nil, sg), SaveOptions{}); err == nil {
				t.Errorf("%s: stored", name)
			}
		}
		twice := signalSnap(nil, band("p5.48xlarge", "us-east-1", "<5%"), band("p5.48xlarge", "us-east-1", "5-10%"))
		if _, err := save(t, db, twice, SaveOptions{}); err == nil {
			t.Error("a signal listed twice was stored")
		}
	})
}

// score is a placement score of p5.48xlarge in us-east-2 (under the test
// snapshot's provider, as band and block are) for a request of
// target capacity n.
func score(n, value string) pricewatch.Signal {
	return pricewatch.Signal{Provider: "azure", Kind: pricewatch.PlacementScore, Region: "us-east-2", InstanceType: "p5.48xlarge",
		Shape: pricewatch.ShapeOf("instance_types", "p4d.24xlarge+p5.48xlarge", "target_capacity", n, "target_capacity_unit", "units",
			"single_availability_zone", "false"),
		Value: value, Unit: "score", Source: "test", Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8}}
}

// Issue 23 item 6: a placement score is compared only with the score of
// the same request: a score for another target capacity is a signal of
// its own (a baseline), not a move; an unchanged score writes nothing; a
// score missing from a covered answer ends without a change.
func TestPlacementScoreIntervals(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		cover := []pricewatch.SignalScope{{Kind: pricewatch.PlacementScore, Region: "us-east-2"}}
		steps := []struct {
			name   string
			snap   *pricewatch.Snapshot
			want   []string // "kind old→new"
			rows   int
			active int
		}{
			{"baseline", signalSnap(cover, score("1", "8")), []string{"signal_new →8"}, 1, 1},
			{"same score writes nothing", signalSnap(cover, score("1", "8")), nil, 1, 1},
			{"another request is no move", signalSnap(cover, score("1", "8"), score("10", "3")), []string{"signal_new →3"}, 2, 2},
			{"the first request's score moves", signalSnap(cover, score("1", "2"), score("10", "3")), []string{"signal_changed 8→2"}, 3, 2},
			{"missing from a covered answer: ends quietly", signalSnap(cover, score("1", "2")), nil, 3, 1},
		}
		for _, st := range steps {
			clk.tick()
			res := mustSave(t, db, st.snap)
			var got []string
			for _, c := range res.Changes {
				if c.Signal != nil {
					got = append(got, string(c.Kind)+" "+c.Signal.OldValue+"→"+c.Signal.Value)
				}
			}
			if strings.Join(got, ";") != strings.Join(st.want, ";") {
				t.Errorf("%s: changes %v, want %v", st.name, got, st.want)
			}
			rows, err := db.Signals(ctx, SignalFilter{Kinds: []pricewatch.SignalKind{pricewatch.PlacementScore}})
			if err != nil {
				t.Fatal(err)
			}
			current, err := db.Signals(ctx, SignalFilter{Kinds: []pricewatch.SignalKind{pricewatch.PlacementScore}, CurrentOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != st.rows || len(current) != st.active {
				t.Errorf("%s: %d intervals (%d current), want %d (%d)", st.name, len(rows), len(current), st.rows, st.active)
			}
		}
	})
}
