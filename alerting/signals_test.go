package alerting_test

import (
	"strings"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/config"
)

func signalChange(kind pricewatch.ChangeKind, sk pricewatch.SignalKind, value, old string) pricewatch.Change {
	start := time.Date(2026, 12, 14, 11, 30, 0, 0, time.UTC)
	sg := pricewatch.Signal{Provider: "aws", Kind: sk, Region: "us-east-2", InstanceType: "p5.48xlarge", Value: value, Source: "test",
		Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8}}
	if sk == pricewatch.CapacityBlock {
		sg.Zone, sg.Unit, sg.Start, sg.End = "us-east-2b", "USD", start, start.Add(24*time.Hour)
		sg.Shape = pricewatch.ShapeOf("instance_count", "1", "duration_hours", "24")
	} else {
		sg.Unit, sg.Shape = "band", pricewatch.ShapeOf("os", "linux")
	}
	return pricewatch.Change{Kind: kind, At: start.Add(-240 * time.Hour), Place: sg.Place(), Hardware: sg.Hardware,
		Signal: &pricewatch.SignalChange{Signal: sg, OldValue: old}}
}

// windowsBand makes a band change the Windows band's.
func windowsBand(c pricewatch.Change) pricewatch.Change {
	sg := c.Signal.Signal
	sg.Shape = pricewatch.ShapeOf("os", "windows")
	c.Signal = &pricewatch.SignalChange{Signal: sg, OldValue: c.Signal.OldValue}
	return c
}

// Issue 23 item 6: a new block alerts capacity_block_available with its
// cost per GPU-hour; a moved band alerts interruption_band_changed; a first
// band (a baseline) alerts nothing; one event never takes another kind's
// change. The outbox document keeps the signal, so the message rendered
// at send time names the window.
func TestSignalEvents(t *testing.T) {
	rules := mustRules(t, config.Alerts{Rules: []config.Rule{
		{Name: "blocks", Events: []string{"capacity_block_available"}, GPUModels: []string{"H100"}},
		{Name: "bands", Events: []string{"interruption_band_changed"}},
	}})
	for _, c := range []struct {
		name   string
		change pricewatch.Change
		want   string // "rule/event", "" for nothing
	}{
		{"a block appears", signalChange(pricewatch.CapacityBlockAvailable, pricewatch.CapacityBlock, "755.136", ""), "blocks/capacity_block_available"},
		{"a band moves", signalChange(pricewatch.SignalChanged, pricewatch.InterruptionBand, ">20%", "<5%"), "bands/interruption_band_changed"},
		{"a first band is a baseline", signalChange(pricewatch.SignalNew, pricewatch.InterruptionBand, "<5%", ""), ""},
		{"a block's fee moving is no new block", signalChange(pricewatch.SignalChanged, pricewatch.CapacityBlock, "700", "755.136"), ""},
		// Windows bands are history, not alerts (as Windows prices).
		{"a Windows band moves", windowsBand(signalChange(pricewatch.SignalChanged, pricewatch.InterruptionBand, ">20%", "<5%")), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			groups := rules.Groups(alerting.Run{ID: 7, Provider: "aws", At: c.change.At, Changes: []pricewatch.Change{c.change}})
			var got []string
			for _, g := range groups {
				got = append(got, g.Rule+"/"+string(g.Event))
			}
			if (c.want == "" && len(got) != 0) || (c.want != "" && (len(got) != 1 || got[0] != c.want)) {
				t.Fatalf("groups %v, want %q", got, c.want)
			}
			if c.want == "" {
				return
			}
			msgs, err := rules.Messages(alerting.Run{ID: 7, Provider: "aws", At: c.change.At, Changes: []pricewatch.Change{c.change}})
			if err != nil {
				t.Fatal(err)
			}
			doc, err := alerting.DecodeDocument(msgs[0].Payload)
			if err != nil {
				t.Fatal(err)
			}
			it := doc.Alert.Items[0]
			if it.Change.Signal == nil || it.Change.Signal.Value != c.change.Signal.Value || !it.Change.Signal.Start.Equal(c.change.Signal.Start) {
				t.Fatalf("document lost the signal: %+v", it.Change.Signal)
			}
			summary := alerting.Summary(*doc.Alert)
			if c.change.Kind == pricewatch.CapacityBlockAvailable {
				// 755.136 / (24 h × 8 GPUs) = 3.933.
				if !it.NewPerGPU.Valid || it.NewPerGPU.Decimal.String() != "3.933" || !strings.Contains(summary, "us-east-2b") ||
					!strings.Contains(summary, "2026-12-14 11:30 → 2026-12-15 11:30") {
					t.Errorf("per GPU-hour %v, summary %q", it.NewPerGPU, summary)
				}
			} else if !strings.Contains(summary, "<5% → >20%") {
				t.Errorf("summary %q", summary)
			}
		})
	}
}

// scoreChange is a placement score or eviction band change of p5.48xlarge
// in us-east-2 (a zone score when zone is set).
func scoreChange(kind pricewatch.ChangeKind, sk pricewatch.SignalKind, zone, value, old string) pricewatch.Change {
	at := time.Date(2026, 12, 14, 11, 30, 0, 0, time.UTC)
	sg := pricewatch.Signal{Provider: "aws", Kind: sk, Region: "us-east-2", Zone: zone, InstanceType: "p5.48xlarge", Value: value, Source: "test",
		Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8}}
	if sk == pricewatch.PlacementScore {
		sg.Unit = "score"
		sg.Shape = pricewatch.ShapeOf("instance_types", "p4d.24xlarge+p5.48xlarge+p5en.48xlarge", "target_capacity", "1",
			"target_capacity_unit", "units", "single_availability_zone", "false")
	} else {
		sg.Provider, sg.Region, sg.InstanceType, sg.Unit = "azure", "eastus", "Standard_ND96isr_H100_v5", "band"
	}
	return pricewatch.Change{Kind: kind, At: at, Place: sg.Place(), Hardware: sg.Hardware, Signal: &pricewatch.SignalChange{Signal: sg, OldValue: old}}
}

// Issue 23 item 6: placement_score_changed alerts a known score that
// crosses an edge of alerts.placement_score_thresholds (default 3 and 7),
// not every point of jitter; words (High/Medium/Low) alert on any move;
// eviction_band_changed alerts a moved eviction band. A first value is a
// baseline, and neither event takes another kind's change.
func TestPlacementAndEvictionEvents(t *testing.T) {
	rules := func(edges []int) *alerting.Rules {
		return mustRules(t, config.Alerts{PlacementScoreThresholds: edges, Rules: []config.Rule{
			{Name: "scores", Events: []string{"placement_score_changed"}, GPUModels: []string{"H100"}},
			{Name: "evictions", Events: []string{"eviction_band_changed"}},
		}})
	}
	ps, eb, ib := pricewatch.PlacementScore, pricewatch.EvictionBand, pricewatch.InterruptionBand
	changed, first := pricewatch.SignalChanged, pricewatch.SignalNew
	for _, c := range []struct {
		name   string
		edges  []int
		change pricewatch.Change
		want   string // "rule/event", "" for nothing
		text   string // in the summary when alerted
	}{
		{"8 → 2 crosses both edges", nil, scoreChange(changed, ps, "", "2", "8"), "scores/placement_score_changed", "spot placement score 8 → 2"},
		{"7 → 6 crosses 7", nil, scoreChange(changed, ps, "", "6", "7"), "scores/placement_score_changed", "7 → 6"},
		{"2 → 3 crosses 3 upwards", nil, scoreChange(changed, ps, "", "3", "2"), "scores/placement_score_changed", "2 → 3"},
		{"8 → 7 stays high", nil, scoreChange(changed, ps, "", "7", "8"), "", ""},
		{"6 → 3 stays medium", nil, scoreChange(changed, ps, "", "3", "6"), "", ""},
		{"1 → 2 stays low", nil, scoreChange(changed, ps, "", "2", "1"), "", ""},
		{"a zone score crossing", nil, scoreChange(changed, ps, "use2-az1", "9", "4"), "scores/placement_score_changed", "use2-az1"},
		{"edges configured: 8 → 7 crosses 8", []int{8}, scoreChange(changed, ps, "", "7", "8"), "scores/placement_score_changed", "8 → 7"},
		{"edges configured: 8 → 2 crosses none", []int{9}, scoreChange(changed, ps, "", "2", "8"), "", ""},
		{"words: Medium → Low", nil, scoreChange(changed, ps, "", "Low", "Medium"), "scores/placement_score_changed", "Medium → Low"},
		{"a number against a word is not comparable", nil, scoreChange(changed, ps, "", "Low", "8"), "", ""},
		{"a first score is a baseline", nil, scoreChange(first, ps, "", "2", ""), "", ""},
		{"an interruption band is no placement score", nil, scoreChange(changed, ib, "", "2", "8"), "", ""},
		{"an eviction band moves", nil, scoreChange(changed, eb, "", "10-15", "0-5"), "evictions/eviction_band_changed", "eviction band 0-5 → 10-15"},
		{"a first eviction band is a baseline", nil, scoreChange(first, eb, "", "0-5", ""), "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			rs := rules(c.edges)
			run := alerting.Run{ID: 9, Provider: c.change.Place.Provider, At: c.change.At, Changes: []pricewatch.Change{c.change}}
			var got []string
			for _, g := range rs.Groups(run) {
				got = append(got, g.Rule+"/"+string(g.Event))
			}
			if (c.want == "" && len(got) != 0) || (c.want != "" && (len(got) != 1 || got[0] != c.want)) {
				t.Fatalf("groups %v, want %q", got, c.want)
			}
			if c.want == "" {
				return
			}
			msgs, err := rs.Messages(run)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := alerting.DecodeDocument(msgs[0].Payload)
			if err != nil {
				t.Fatal(err)
			}
			if s := doc.Alert.Items[0].Change.Signal; s == nil || s.Value != c.change.Signal.Value || s.OldValue != c.change.Signal.OldValue || s.Shape != c.change.Signal.Shape {
				t.Fatalf("document lost the signal: %+v", s)
			}
			if summary := alerting.Summary(*doc.Alert); !strings.Contains(summary, c.text) {
				t.Errorf("summary %q does not say %q", summary, c.text)
			}
		})
	}
	for _, edges := range [][]int{{1}, {11}, {7, 3}, {3, 3}} {
		if _, err := alerting.NewRules(alerting.RulesConfig{PlacementScoreThresholds: edges}); err == nil || !strings.Contains(err.Error(), "alerts.placement_score_thresholds") {
			t.Errorf("thresholds %v: %v", edges, err)
		}
	}
}
