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
