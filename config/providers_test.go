package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch/providers"
	"github.com/pricewatch/pricewatch/section"
)

// sectionOf is the named provider's section as its package's type.
func sectionOf[S section.Section](t *testing.T, c *Config, name string) S {
	t.Helper()
	s, ok := c.Providers.Section(name).(S)
	if !ok {
		t.Fatalf("providers.%s is a %T", name, c.Providers.Section(name))
	}
	return s
}

// The providers section has exactly one section per registered provider,
// under its name, each a struct the decoder can walk, and the example file
// documents every one of them.
func TestProviderSectionsMatchTheRegistry(t *testing.T) {
	def := Default()
	commons := def.Providers.Commons()
	if len(commons) != len(providers.Names()) {
		t.Errorf("the defaults have %d provider sections, the registry %d providers", len(commons), len(providers.Names()))
	}
	example, err := Load("../config.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range providers.All() {
		sec := def.Providers.Section(p.Name)
		if sec == nil {
			t.Errorf("%s has no section in the defaults", p.Name)
			continue
		}
		if typ := reflect.TypeOf(sec); typ.Kind() != reflect.Pointer || typ.Elem().Kind() != reflect.Struct {
			t.Errorf("%s's section is a %s, want a pointer to a struct", p.Name, typ)
		}
		if p.Section() == sec {
			t.Errorf("%s's Section returns the same value twice: configs would share it", p.Name)
		}
		if example.Line("providers."+p.Name) == 0 {
			t.Errorf("config.example.yaml has no providers.%s section", p.Name)
		}
		if p.Build == nil {
			t.Errorf("%s registers no constructor", p.Name)
		}
	}
}

// Provider values that loaded although wrong, or were refused without the
// file, the line or the full key (issue 34 item 11): each is refused at
// load naming all three, and the right value beside it loads.
func TestProviderValuesRefusedWithKeyAndLine(t *testing.T) {
	creds := t.TempDir()
	if err := os.WriteFile(filepath.Join(creds, "present-key"), []byte("key-long-enough\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CREDENTIALS_DIRECTORY", creds)
	missing := filepath.Join(creds, "no-such-key")
	tests := []struct {
		name, yaml, want, good string
	}{
		{"capacity block of 0 days", "providers:\n  aws:\n    capacity_blocks:\n      duration_days: [0]\n",
			"cfg.yaml:line 4: providers.aws.capacity_blocks.duration_days[0]: 0 is not 1 to 14, or a multiple of 7 up to 182",
			"providers:\n  aws:\n    capacity_blocks:\n      duration_days: [1, 14, 182]\n"},
		{"negative capacity block count", "providers:\n  aws:\n    capacity_blocks:\n      instance_counts:\n        - 1\n        - -2\n",
			"cfg.yaml:line 6: providers.aws.capacity_blocks.instance_counts[1]: -2 is outside 1 to 64",
			"providers:\n  aws:\n    capacity_blocks:\n      instance_counts: [1, 64]\n"},
		{"a global region in aws-cn", "providers:\n  aws-cn:\n    regions: [us-east-1]\n",
			`cfg.yaml:line 3: providers.aws-cn.regions[0]: "us-east-1" is not an AWS China region`,
			"providers:\n  aws-cn:\n    regions: [cn-north-1, cn-northwest-1]\n"},
		{"huawei ecs_endpoint without {region}", "providers:\n  huawei:\n    ecs_endpoint: https://ecs.cn-north-4.myhuaweicloud.com\n",
			`cfg.yaml:line 3: providers.huawei.ecs_endpoint: "https://ecs.cn-north-4.myhuaweicloud.com" has no {region}`,
			"providers:\n  huawei:\n    ecs_endpoint: https://ecs.{region}.myhuaweicloud.com\n"},
		{"unknown OVHcloud subsidiary", "providers:\n  ovhcloud:\n    subsidiary: XX\n",
			`cfg.yaml:line 3: providers.ovhcloud.subsidiary: "XX" is not an OVHcloud subsidiary`,
			"providers:\n  ovhcloud:\n    subsidiary: GB\n"},
		{"azure tenant with a space", "providers:\n  azure:\n    tenant_id: \"x y\"\n    placement_scores:\n      enabled: true\n",
			`cfg.yaml:line 3: providers.azure.tenant_id: "x y": want a GUID`,
			"providers:\n  azure:\n    tenant_id: 72f988bf-86f1-41af-91ab-2d7cd011db47\n    placement_scores:\n      enabled: true\n"},
		{"aws placement target capacity 0", "providers:\n  aws:\n    placement_scores:\n      enabled: true\n      target_capacity: 0\n",
			"cfg.yaml:line 5: providers.aws.placement_scores.target_capacity: 0: want 1 to 2000000000",
			"providers:\n  aws:\n    placement_scores:\n      enabled: true\n      target_capacity: 8\n"},
		{"missing api_key_file", "providers:\n  lambda:\n    enabled: true\n    api_key_file: " + missing + "\n",
			"cfg.yaml:line 4: providers.lambda.api_key_file: secret file " + missing + ": no such file or directory",
			"providers:\n  lambda:\n    enabled: true\n    api_key_file: present-key\n"},
		{"missing ak_file", "providers:\n  huawei:\n    ak_file: no-such-key\n",
			"cfg.yaml:line 3: providers.huawei.ak_file: secret file " + missing + ": no such file or directory",
			"providers:\n  huawei:\n    ak_file: present-key\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.yaml), "cfg.yaml")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
			if _, err := Parse(strings.NewReader(tt.good), "cfg.yaml"); err != nil {
				t.Errorf("the right value is refused: %v", err)
			}
		})
	}
	// A disabled provider reads no secret: its file may be gone.
	if _, err := Parse(strings.NewReader("providers:\n  runpod:\n    enabled: false\n    api_key_file: no-such-key\n"), "cfg.yaml"); err != nil {
		t.Errorf("a disabled provider's missing key file is refused: %v", err)
	}
}
