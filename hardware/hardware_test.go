package hardware

import (
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/config"
)

func snapshot() *pricewatch.Snapshot {
	return &pricewatch.Snapshot{
		Offers: []pricewatch.Offer{
			{Provider: "alibaba", Region: "cn-hangzhou", InstanceType: "ecs.gn8t-8x.32xlarge", Hardware: pricewatch.Hardware{GPUModel: "G49", GPUCount: 8, GPUMemoryGB: 24}},
			{Provider: "alibaba", Region: "cn-beijing", InstanceType: "ecs.gn8t-8x.32xlarge", Hardware: pricewatch.Hardware{GPUModel: "G49", GPUCount: 8, GPUMemoryGB: 24}},
			{Provider: "azure", Region: "eastus", InstanceType: "Standard_NC8ads_A10_v4", Hardware: pricewatch.Hardware{GPUModel: "A10"}},
			{Provider: "aws", Region: "us-east-1", InstanceType: "p5.48xlarge", Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8, GPUMemoryGB: 80}},
		},
		Availability: []pricewatch.Availability{
			{Provider: "alibaba", Region: "cn-hangzhou", InstanceType: "ecs.gn8t-8x.32xlarge", Hardware: pricewatch.Hardware{GPUModel: "G49", GPUCount: 8}},
			{Provider: "aws", Region: "us-east-1", InstanceType: "g9x.xlarge", Hardware: pricewatch.Hardware{GPUCount: 2}},
		},
	}
}

func TestUnknownTypesAndOverrides(t *testing.T) {
	snap := snapshot()
	// G49 (not in the catalogue), NC8ads_A10_v4 (count unknown) and
	// g9x.xlarge (no model); p5 is known.
	if n := UnknownTypes(snap); n != 3 {
		t.Errorf("%d unknown types, want 3", n)
	}
	o := NewOverrides([]Override{
		{InstanceType: "ecs.gn8t-*", GPUModel: "NVIDIA L20 48GB", GPUMemoryGB: 48}, // a glob; model in a vendor spelling
		{InstanceType: "ecs.gn8t-8x.32xlarge", GPUModel: "H100"},                   // never reached: the first match wins
		{InstanceType: "Standard_NC8ads_A10_v4", GPUCount: 1},                      // fills only the count
	})
	if n := o.Apply(snap); n != 2 {
		t.Errorf("overrides matched %d types, want 2", n)
	}
	for _, off := range snap.Offers[:2] {
		if off.Hardware != (pricewatch.Hardware{GPUModel: "L20", GPUCount: 8, GPUMemoryGB: 48}) {
			t.Errorf("%s: %+v", off.InstanceType, off.Hardware)
		}
	}
	if got := snap.Availability[0].Hardware; got.GPUModel != "L20" || got.GPUCount != 8 || got.GPUMemoryGB != 48 {
		t.Errorf("availability not overridden: %+v", got)
	}
	if got := snap.Offers[2].Hardware; got != (pricewatch.Hardware{GPUModel: "A10", GPUCount: 1}) {
		t.Errorf("count-only override: %+v", got)
	}
	if got := snap.Offers[3].Hardware; got.GPUModel != "H100" {
		t.Errorf("unmatched offer changed: %+v", got)
	}
	if n := UnknownTypes(snap); n != 1 {
		t.Errorf("%d unknown types after overrides, want 1 (g9x.xlarge)", n)
	}
	// Nothing is dropped.
	if len(snap.Offers) != 4 || len(snap.Availability) != 2 {
		t.Error("overrides dropped records")
	}
	if NewOverrides(nil).Apply(snap) != 0 || UnknownTypes(nil) != 0 {
		t.Error("no overrides must change nothing")
	}
}

// Each report entry carries an override that, pasted under
// hardware.overrides and completed, is a valid config.
func TestUnknownReport(t *testing.T) {
	stored := []Stored{
		{Provider: "aws", InstanceType: "p5.48xlarge", Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8, GPUMemoryGB: 80}, Regions: 3},
		{Provider: "alibaba", InstanceType: "ecs.gn8t-8x.32xlarge", Hardware: pricewatch.Hardware{GPUModel: "G49", GPUCount: 8, GPUMemoryGB: 24}, Regions: 2},
		{Provider: "azure", InstanceType: "Standard_NC8ads_A10_v4", Hardware: pricewatch.Hardware{GPUModel: "A10"}, Regions: 1},
		{Provider: "aws", InstanceType: "g9x.xlarge", Hardware: pricewatch.Hardware{GPUCount: 2, GPUMemoryGB: 48}, Regions: 1},
	}
	got := Unknown(stored)
	want := []struct{ provider, typ, problem string }{
		{"alibaba", "ecs.gn8t-8x.32xlarge", "GPU model not in the catalogue"},
		{"aws", "g9x.xlarge", "no GPU model"},
		{"azure", "Standard_NC8ads_A10_v4", "GPU count unknown"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].Provider != w.provider || got[i].InstanceType != w.typ || got[i].Problem != w.problem {
			t.Errorf("entry %d: %+v, want %v", i, got[i], w)
		}
	}
	var doc strings.Builder
	doc.WriteString("hardware:\n  overrides:\n")
	for _, e := range got {
		for _, line := range strings.Split(strings.TrimRight(e.Override, "\n"), "\n") {
			doc.WriteString("    " + line + "\n")
		}
	}
	cfg, err := config.Parse(strings.NewReader(doc.String()), "suggested.yaml")
	if err != nil {
		t.Fatalf("suggested overrides do not load: %v\n%s", err, doc.String())
	}
	if len(cfg.Hardware.Overrides) != 3 || cfg.Hardware.Overrides[0].InstanceType != "ecs.gn8t-8x.32xlarge" ||
		cfg.Hardware.Overrides[0].GPUCount != 8 || cfg.Hardware.Overrides[0].GPUMemoryGB != 24 || cfg.Hardware.Overrides[0].GPUModel != "G49" {
		t.Errorf("suggested overrides %+v", cfg.Hardware.Overrides)
	}
	// Issue 31 item 7: the hint for an uncatalogued model does not tell
	// the user to rename a real GPU; it says to report the missing entry.
	if o := got[0].Override; !strings.Contains(o, "if it is a real GPU, do not rename it: report the missing catalogue entry") ||
		strings.Contains(o, "replace with the GPU it is") {
		t.Errorf("uncatalogued model's hint: %q", o)
	}
	var y any
	if err := yaml.Unmarshal([]byte(got[1].Override), &y); err != nil {
		t.Errorf("override is not YAML: %v", err)
	}
	if !strings.Contains(got[1].Override, `gpu_model: ""  # fill in`) || !strings.Contains(got[2].Override, "gpu_count: 0  # fill in") {
		t.Errorf("missing values not marked:\n%s\n%s", got[1].Override, got[2].Override)
	}
}

// Issue 20 item 8: the override YAML the report suggests quotes a name
// that would otherwise carry control characters to the terminal (the run
// strips them from fetched names before they are stored: run's test).
func TestOverrideYAMLQuotesControlCharacters(t *testing.T) {
	hostile := "1x RTX 4090\x1b]0;pwned\x07"
	// The override YAML the report suggests quotes a name that would
	// otherwise carry control characters to the terminal.
	if y := overrideYAML(Stored{InstanceType: hostile}); !strings.Contains(y, `"1x RTX 4090\x1b]0;pwned\a"`) {
		t.Errorf("override YAML %q", y)
	}
}
