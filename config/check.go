package config

import (
	"bytes"
	"encoding"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/pricewatch/pricewatch/providers"
)

// CheckSecrets reads every secret file the config names, as the daemon
// reads it when it uses the secret (a relative name in
// $CREDENTIALS_DIRECTORY first): Load only checks that a provider's files
// are there, and the top-level ones (slack.token_file, http.token_file,
// webhook.*_file, database.url_file) not at all, so a file the daemon
// cannot read, or an empty one, would only show at the first delivery or
// run. Each problem names its key and line, never the secret. A disabled
// provider's files are not read: it reads no secret.
func (c *Config) CheckSecrets() error {
	var errs []error
	failed := map[string]bool{}
	check := func(key, file string) {
		s, err := ReadSecret("", Secret{}, file)
		switch {
		case err != nil:
			errs = append(errs, c.keyErr(key, "%v", err))
		case s.Empty():
			errs = append(errs, c.keyErr(key, "secret file %s is empty", file))
		default:
			return
		}
		failed[key] = true
	}
	secretFiles(reflect.ValueOf(c).Elem(), "", check)
	for _, reg := range providers.All() {
		if sec := c.Providers.Section(reg.Name); sec.Shared().Enabled {
			secretFiles(reflect.ValueOf(sec).Elem(), "providers."+reg.Name, check)
		}
	}
	if c.Database.UsesPostgres() {
		// Beyond being readable, the URL must be PostgreSQL's.
		if _, err := c.DatabaseTarget(); err != nil && !failed["database.url_file"] {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// secretFiles calls each for every set key of v named *_file (the keys
// naming a secret's file), depth first in declaration order.
func secretFiles(v reflect.Value, path string, each func(key, file string)) {
	if v.Kind() != reflect.Struct || v.Type() == providersType {
		return
	}
	for _, key := range sortedKeys(structFields(v.Type())) {
		f := v.FieldByIndex(structFields(v.Type())[key])
		kp := join(path, key)
		if f.Kind() == reflect.String && strings.HasSuffix(key, "_file") && f.String() != "" {
			each(kp, f.String())
		}
		secretFiles(f, kp, each)
	}
}

// Effective is the config in force as YAML: every key with its value (the
// file's over the defaults), in the order config.example.yaml has them,
// secrets as "<secret>" and durations as 90s, 1h0m0s. `pricewatch config
// check` prints it, so that what the daemon will do can be read without
// reading the defaults.
func (c *Config) Effective() ([]byte, error) {
	n, err := encodeValue(reflect.ValueOf(c).Elem())
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2) // as config.example.yaml is written
	if err := enc.Encode(n); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

var textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()

func encodeValue(v reflect.Value) (*yaml.Node, error) {
	switch {
	case v.Type() == providersType:
		p := v.Interface().(Providers)
		m := &yaml.Node{Kind: yaml.MappingNode}
		for _, name := range providers.Names() {
			sec, err := encodeValue(reflect.ValueOf(p.Section(name)).Elem())
			if err != nil {
				return nil, err
			}
			m.Content = append(m.Content, scalar(name), sec)
		}
		return m, nil
	case v.Type() == durationType:
		return scalar(shortDuration(time.Duration(v.Int()))), nil
	case v.Type().Implements(textMarshaler):
		// Secret: "<secret>" when set, never the value.
		b, err := v.Interface().(encoding.TextMarshaler).MarshalText()
		return scalar(string(b)), err
	}
	switch v.Kind() {
	case reflect.Struct:
		m := &yaml.Node{Kind: yaml.MappingNode}
		fields := structFields(v.Type())
		for _, key := range sortedKeys(fields) {
			val, err := encodeValue(v.FieldByIndex(fields[key]))
			if err != nil {
				return nil, err
			}
			m.Content = append(m.Content, scalar(key), val)
		}
		return m, nil
	case reflect.Map:
		m := &yaml.Node{Kind: yaml.MappingNode}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		for _, k := range keys {
			val, err := encodeValue(v.MapIndex(k))
			if err != nil {
				return nil, err
			}
			m.Content = append(m.Content, scalar(fmt.Sprint(k)), val)
		}
		return m, nil
	case reflect.Slice:
		s := &yaml.Node{Kind: yaml.SequenceNode}
		if v.Len() == 0 || v.Type().Elem().Kind() != reflect.Struct {
			s.Style = yaml.FlowStyle // [a, b]: lists of names read best on one line
		}
		for i := range v.Len() {
			item, err := encodeValue(v.Index(i))
			if err != nil {
				return nil, err
			}
			s.Content = append(s.Content, item)
		}
		return s, nil
	case reflect.Pointer:
		if v.IsNil() {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
		}
		return encodeValue(v.Elem())
	}
	var n yaml.Node
	if err := n.Encode(v.Interface()); err != nil {
		return nil, fmt.Errorf("encoding %s: %w", v.Type(), err)
	}
	return &n, nil
}

// shortDuration writes d as the file would: 90d, 6h, 1h30m, 90s.
func shortDuration(d time.Duration) string {
	if d > 0 && d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// scalar is a string node, quoted when it would read as another type.
func scalar(s string) *yaml.Node {
	var n yaml.Node
	_ = n.Encode(s) // encoding a string cannot fail
	return &n
}
