package config

import (
	"reflect"
	"strings"
	"testing"
)

// normalRules makes empty and missing lists compare equal.
func normalRules(rs []Rule) []Rule {
	out := make([]Rule, len(rs))
	for i, r := range rs {
		for _, l := range []*[]string{&r.Events, &r.GPUModels, &r.Providers, &r.Regions, &r.PriceTypes} {
			if len(*l) == 0 {
				*l = nil
			}
		}
		out[i] = r
	}
	return out
}

// TestExampleShowsTheDefaults: config.example.yaml says every key shows its
// default, so loading it gives the built-in alert rules, guard and
// confirmation threshold exactly.
func TestExampleShowsTheDefaults(t *testing.T) {
	cfg := loadExample(t)
	def := Default()
	if got, want := normalRules(cfg.Alerts.Rules), normalRules(def.Alerts.Rules); !reflect.DeepEqual(got, want) {
		t.Errorf("example rules %+v\nbuilt-in rules %+v", got, want)
	}
	if !reflect.DeepEqual(cfg.Guard, def.Guard) {
		t.Errorf("example guard %+v, built-in %+v", cfg.Guard, def.Guard)
	}
	if cfg.Alerts.ConfirmChangePct != def.Alerts.ConfirmChangePct || def.Alerts.ConfirmChangePct != 50 {
		t.Errorf("confirm_change_pct: example %v, built-in %v, want 50", cfg.Alerts.ConfirmChangePct, def.Alerts.ConfirmChangePct)
	}
}

func TestAlertRulesDefaultAndOff(t *testing.T) {
	tests := []struct {
		name, yaml string
		rules      int
	}{
		{"no alerts section", "slack:\n  channel: C1\n", len(DefaultRules())},
		{"alerts section without rules", "alerts:\n  flap_window: 1h\n", len(DefaultRules())},
		{"rules: []", "alerts:\n  rules: []\n", 0},
		{"own rule", "alerts:\n  rules:\n    - events: [price_new]\n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse(strings.NewReader(tt.yaml), "t.yaml")
			if err != nil {
				t.Fatal(err)
			}
			if len(cfg.Alerts.Rules) != tt.rules {
				t.Errorf("%d rules, want %d", len(cfg.Alerts.Rules), tt.rules)
			}
		})
	}
	// The fourth, capacity blocks of frontier GPUs, came with issue 23.
	if len(DefaultRules()) != 4 {
		t.Errorf("built-in rules: %d, want 4", len(DefaultRules()))
	}
}

func TestGuardValidation(t *testing.T) {
	for _, bad := range []string{
		"guard:\n  accept_after_runs: 0\n",
		"guard:\n  implausible_ratio: 0.5\n",
		"guard:\n  floor_per_gpu_hour:\n    usd: 0.05\n",
		"guard:\n  floor_per_gpu_hour:\n    USD: -1\n",
		"alerts:\n  confirm_change_pct: -5\n",
		// Issue 20 item 6: a fraction of on-demand, below 1.
		"guard:\n  commitment_min_fraction: -0.1\n",
		"guard:\n  commitment_min_fraction: 1\n",
	} {
		if _, err := Parse(strings.NewReader(bad), "t.yaml"); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

// alerts.placement_score_thresholds: [3, 7] built in and in the example;
// an edge outside 2 to 10 or out of order is refused naming the key and
// its line.
func TestPlacementScoreThresholds(t *testing.T) {
	cfg := loadExample(t)
	if def := Default(); !reflect.DeepEqual(def.Alerts.PlacementScoreThresholds, []int{3, 7}) ||
		!reflect.DeepEqual(cfg.Alerts.PlacementScoreThresholds, def.Alerts.PlacementScoreThresholds) {
		t.Errorf("example %v, built-in %v, want [3 7]", cfg.Alerts.PlacementScoreThresholds, def.Alerts.PlacementScoreThresholds)
	}
	own, err := Parse(strings.NewReader("alerts:\n  placement_score_thresholds: [5]\n  rules:\n    - events: [placement_score_changed, eviction_band_changed]\n"), "t.yaml")
	if err != nil || !reflect.DeepEqual(own.Alerts.PlacementScoreThresholds, []int{5}) {
		t.Errorf("own edges: %v, %v", own, err)
	}
	for _, bad := range []string{"[1]", "[11]", "[7, 3]", "[4, 4]"} {
		_, err := Parse(strings.NewReader("alerts:\n  confirm_change_pct: 50\n  placement_score_thresholds: "+bad+"\n"), "t.yaml")
		if err == nil || !strings.Contains(err.Error(), "t.yaml:line 3") || !strings.Contains(err.Error(), "alerts.placement_score_thresholds") {
			t.Errorf("%s: %v, want an error naming the key and line 3", bad, err)
		}
	}
}
