package config

import (
	"reflect"
	"slices"
	"testing"

	"github.com/pricewatch/pricewatch/providers"
)

// The providers section has exactly one section per registered provider,
// under its name, and Commons covers each.
func TestProviderSectionsMatchTheRegistry(t *testing.T) {
	var keys []string
	for k := range structFields(reflect.TypeFor[Providers]()) {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	names := providers.Names()
	slices.Sort(names)
	if !slices.Equal(keys, names) {
		t.Errorf("providers sections %v, registry %v", keys, names)
	}
	commons := Default().Providers.Commons()
	for _, n := range names {
		if _, ok := commons[n]; !ok {
			t.Errorf("Commons has no %s", n)
		}
	}
	if len(commons) != len(names) {
		t.Errorf("Commons has %d providers, the registry %d", len(commons), len(names))
	}
}
