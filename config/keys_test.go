package config

import (
	"reflect"
	"strings"
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
		case ft.Kind() == reflect.Struct && ft != reflect.TypeFor[Secret]():
			out = append(out, allKeys(ft, path)...)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			out = append(out, path)
			out = append(out, allKeys(ft.Elem(), path+"[0]")...)
		default:
			out = append(out, path)
		}
	}
	_ = strings.TrimSpace
	return out
}
