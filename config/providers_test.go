package config

import (
	"reflect"
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
