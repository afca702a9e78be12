package config

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/pricewatch/pricewatch/providers"
	"github.com/pricewatch/pricewatch/section"
)

// KeyError is a configuration problem tied to one key and, when the value
// came from a file, the line it is on.
type KeyError = section.KeyError

// decoder walks a YAML node tree into a struct, refusing unknown keys and
// remembering the line of every key so that later validation can point at it.
type decoder struct {
	file  string
	lines map[string]int
	errs  []error
}

var durationType = reflect.TypeFor[time.Duration]()

func (d *decoder) fail(n *yaml.Node, path, format string, args ...any) {
	line := 0
	if n != nil {
		line = n.Line
	}
	d.errs = append(d.errs, &KeyError{File: d.file, Line: line, Key: path, Msg: fmt.Sprintf(format, args...)})
}

func (d *decoder) decode(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return
		}
		n = n.Content[0]
	}
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if path != "" {
		d.lines[path] = n.Line
	}
	// An explicit null leaves the default in place.
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return
	}
	if u, ok := v.Addr().Interface().(yaml.Unmarshaler); ok {
		if err := u.UnmarshalYAML(n); err != nil {
			d.fail(n, path, "%v", cleanYAMLError(err))
		}
		return
	}
	if v.Type() == providersType {
		d.decodeProviders(n, v.Addr().Interface().(*Providers), path)
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			d.fail(n, path, "want a mapping of keys, got %s", describe(n))
			return
		}
		fields := structFields(v.Type())
		d.decodeKeys(n, path, sortedKeys(fields), func(key string, val *yaml.Node, kp string) bool {
			idx, ok := fields[key]
			if ok {
				d.decode(val, v.FieldByIndex(idx), kp)
			}
			return ok
		})
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			d.fail(n, path, "want a mapping, got %s", describe(n))
			return
		}
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
		// A key given twice is refused: the later value would silently win.
		d.decodeKeys(n, path, nil, func(key string, val *yaml.Node, kp string) bool {
			elem := reflect.New(v.Type().Elem()).Elem()
			d.decode(val, elem, kp)
			v.SetMapIndex(reflect.ValueOf(key).Convert(v.Type().Key()), elem)
			return true
		})
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			d.fail(n, path, "want a list, got %s", describe(n))
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, item := range n.Content {
			d.decode(item, s.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
		v.Set(s)
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		d.decode(n, v.Elem(), path)
	default:
		if n.Kind != yaml.ScalarNode {
			d.fail(n, path, "want a single value, got %s", describe(n))
			return
		}
		if v.Type() == durationType {
			dur, err := parseDuration(n.Value)
			if err != nil {
				d.fail(n, path, "%q is not a duration (examples: 90s, 10m, 1h30m, 90d)", n.Value)
				return
			}
			v.SetInt(int64(dur))
			return
		}
		if err := n.Decode(v.Addr().Interface()); err != nil {
			d.fail(n, path, "%q is not a valid %s", n.Value, kindName(v.Kind()))
		}
	}
}

var providersType = reflect.TypeFor[Providers]()

// decodeProviders decodes providers.<name> into each registered provider's
// section, as strictly as a struct's keys: the registry's names are the
// known keys, in its order.
func (d *decoder) decodeProviders(n *yaml.Node, p *Providers, path string) {
	if n.Kind != yaml.MappingNode {
		d.fail(n, path, "want a mapping of keys, got %s", describe(n))
		return
	}
	d.decodeKeys(n, path, providers.Names(), func(name string, val *yaml.Node, kp string) bool {
		sec := p.Section(name)
		if sec != nil {
			d.decode(val, reflect.ValueOf(sec).Elem(), kp)
		}
		return sec != nil
	})
}

// decodeKeys walks a mapping's keys: each decodes one key's value and
// reports whether the key is known (a struct's fields, the registered
// providers; a map knows every key). A key given twice or not known is an
// error naming the known keys; every key's line is remembered.
func (d *decoder) decodeKeys(n *yaml.Node, path string, known []string, each func(key string, val *yaml.Node, kp string) bool) {
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		kp := join(path, k.Value)
		if seen[k.Value] {
			d.fail(k, kp, "key given twice")
			continue
		}
		seen[k.Value] = true
		d.lines[kp] = k.Line
		if !each(k.Value, val, kp) {
			d.fail(k, kp, "unknown key (known keys here: %s)", strings.Join(known, ", "))
			continue
		}
		// Decoding the value noted the value's line: the key's is the one
		// errors point at.
		d.lines[kp] = k.Line
	}
}

// structFields maps YAML key names to field index paths, flattening
// `yaml:",inline"` embedded structs.
func structFields(t reflect.Type) map[string][]int {
	out := map[string][]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if opts == "inline" && f.Type.Kind() == reflect.Struct {
			for k, idx := range structFields(f.Type) {
				out[k] = append([]int{i}, idx...)
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = []int{i}
	}
	return out
}

// sortedKeys lists keys in declaration order, which reads better than
// alphabetical order in an error message.
func sortedKeys(m map[string][]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool { return slices.Compare(m[keys[a]], m[keys[b]]) < 0 })
	return keys
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	default:
		return fmt.Sprintf("%q", n.Value)
	}
}

func kindName(k reflect.Kind) string {
	switch k {
	case reflect.Bool:
		return "boolean (true or false)"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "whole number"
	case reflect.Float64, reflect.Float32:
		return "number"
	case reflect.String:
		return "string"
	}
	return k.String()
}

func cleanYAMLError(err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		return te.Errors[0]
	}
	return err.Error()
}

// parseDuration is time.ParseDuration that also takes whole days ("90d"),
// which is how retention ages are written.
func parseDuration(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(strings.TrimSpace(s), "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("bad day count %q", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	return time.ParseDuration(s)
}
