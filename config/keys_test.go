package config

import (
	"reflect"
	"slices"
	"testing"

	"github.com/pricewatch/pricewatch/providers"
)

// allKeys lists the dotted paths of every leaf key (lists and maps count as
// leaves; rule fields are checked under alerts.rules[0]).
func allKeys(t reflect.Type, prefix string) []string {
	var out []string
	for name, idx := range structFields(t) {
		f := t.FieldByIndex(idx)
		path := name
		if prefix != "" {
			path = prefix + "." + name
		}
		ft := f.Type
		switch {
		case ft == providersType:
			// Each registered provider's section, as its package defines it.
			for _, p := range providers.All() {
				out = append(out, allKeys(reflect.TypeOf(p.Section()).Elem(), path+"."+p.Name)...)
			}
		case ft.Kind() == reflect.Struct && ft != reflect.TypeFor[Secret]():
			out = append(out, allKeys(ft, path)...)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			out = append(out, path)
			out = append(out, allKeys(ft.Elem(), path+"[0]")...)
		default:
			out = append(out, path)
		}
	}
	return out
}

// allKeys reaches into every provider's section (a check that lists no
// provider key would pass vacuously).
func TestAllKeysCoversProviderSections(t *testing.T) {
	keys := allKeys(reflectValue(Default()).Type(), "")
	for _, want := range []string{"providers.aws.spot_endpoint", "providers.lambda.api_key_file", "providers.oci.schedule", "providers.vastai.gpu_models"} {
		if !slices.Contains(keys, want) {
			t.Errorf("allKeys lacks %s: %v", want, keys)
		}
	}
}
