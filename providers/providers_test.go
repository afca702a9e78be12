package providers

import (
	"slices"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch/clouds"
)

// Issue 21 item 5: the registry composes package clouds' table with the
// fetchers; it lists the same clouds in the same order (the order a cycle
// runs them), each with a config section and a constructor, and no cloud
// is registered twice.
func TestRegistryFollowsClouds(t *testing.T) {
	if got, want := strings.Join(Names(), ","), strings.Join(clouds.Names(), ","); got != want {
		t.Errorf("providers.Names() = %s, clouds.Names() = %s: the registry must follow the table", got, want)
	}
	seen := map[string]bool{}
	for _, p := range All() {
		if seen[p.Name] {
			t.Errorf("%s registered twice", p.Name)
		}
		seen[p.Name] = true
		if _, ok := clouds.Lookup(p.Name); !ok {
			t.Errorf("%s is not in package clouds' table", p.Name)
		}
		if p.Section == nil || p.Build == nil {
			t.Errorf("%s registers no config section or constructor", p.Name)
		}
		if got, ok := Lookup(p.Name); !ok || got.Name != p.Name {
			t.Errorf("Lookup(%q) = %q, %v", p.Name, got.Name, ok)
		}
	}
	if _, ok := Lookup("nimbus"); ok {
		t.Error("Lookup found a provider nobody registered")
	}
	if all := All(); len(all) > 0 {
		all[0].Name = "changed"
		if slices.Contains(Names(), "changed") {
			t.Error("All hands out the registry itself")
		}
	}
}
