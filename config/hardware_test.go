package config

import (
	"strings"
	"testing"
)

func TestHardwareOverrides(t *testing.T) {
	good := `hardware:
  overrides:
    - instance_type: "ecs.gn8t-*"
      gpu_model: L4
      gpu_count: 8
      gpu_memory_gb: 24
    - instance_type: Standard_NV4as_v4
      gpu_count: 0.125
`
	cfg, err := Parse(strings.NewReader(good), "hw.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := []HardwareOverride{{"ecs.gn8t-*", "L4", 8, 24}, {"Standard_NV4as_v4", "", 0.125, 0}}
	if len(cfg.Hardware.Overrides) != 2 || cfg.Hardware.Overrides[0] != want[0] || cfg.Hardware.Overrides[1] != want[1] {
		t.Errorf("overrides %+v, want %+v", cfg.Hardware.Overrides, want)
	}
	if len(Default().Hardware.Overrides) != 0 {
		t.Error("the built-in defaults override hardware")
	}

	bad := `hardware:
  overrides:
    - instance_type: "ecs.[gn8t"
      gpu_model: L4
    - instance_type: ""
      gpu_count: -1
    - instance_type: p5.48xlarge
    - instance_type: g9.xlarge
      gpu_memory_gb: 99999
      gpu_modle: L4
`
	_, err = Parse(strings.NewReader(bad), "hw.yaml")
	if err == nil {
		t.Fatal("bad overrides accepted")
	}
	for _, w := range []string{
		`hw.yaml:line 3: hardware.overrides[0].instance_type: "ecs.[gn8t" is not a valid glob`,
		`hw.yaml:line 5: hardware.overrides[1].instance_type: must name an instance type`,
		`hw.yaml:line 6: hardware.overrides[1].gpu_count: -1: want a count between 0 and 64`,
		`hw.yaml:line 7: hardware.overrides[2]: sets nothing`,
		`hw.yaml:line 9: hardware.overrides[3].gpu_memory_gb: 99999`,
		`hw.yaml:line 10: hardware.overrides[3].gpu_modle: unknown key`,
	} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error does not contain %q:\n%v", w, err)
		}
	}
}
