// Package alibabatest is a local Alibaba Cloud ECS endpoint for tests: it
// verifies every request's signature as ECS does, answers in ECS's error
// shape, and builds every answer from the real published responses in
// samples/ with only the values replaced. A test describes what the fake
// cloud holds as a World, in Go or loaded from a directory of real-format
// responses (LoadScenario), and can change stock, prices and failures
// between runs.
package alibabatest

import (
	"embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
)

// APIVersion is the ECS API version every request must name.
const APIVersion = "2014-05-26"

// The samples are embedded so that the fake works from any package's test
// directory.
//
//go:embed samples/*.json
var sampleFS embed.FS

var (
	parsedOnce sync.Once
	parsed     map[string]map[string]any
	parseErr   error
)

func loadSamples() error {
	parsedOnce.Do(func() {
		parsed = map[string]map[string]any{}
		entries, err := sampleFS.ReadDir("samples")
		if err != nil {
			parseErr = err
			return
		}
		for _, e := range entries {
			b, err := sampleFS.ReadFile("samples/" + e.Name())
			if err != nil {
				parseErr = err
				return
			}
			v, err := decode(b)
			if err != nil {
				parseErr = fmt.Errorf("samples/%s: %w", e.Name(), err)
				return
			}
			parsed[e.Name()] = v
		}
	})
	return parseErr
}

// decode reads one whole JSON object keeping numbers exactly as written.
func decode(b []byte) (map[string]any, error) {
	var v map[string]any
	if err := fetchers.DecodeWhole(b, "a JSON object", &v); err != nil {
		return nil, err
	}
	return v, nil
}

// SampleBytes returns a real published response (or the signature test
// vectors) from samples/ as stored.
func SampleBytes(t testing.TB, name string) []byte {
	t.Helper()
	return fetcherstest.Sample(t, sampleFS, "samples/"+name)
}

// Sample returns a fresh copy of a real response from samples/ as a generic
// value, numbers kept as written (json.Number).
func Sample(t testing.TB, name string) map[string]any {
	t.Helper()
	s, err := sample(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func sample(name string) (map[string]any, error) {
	if err := loadSamples(); err != nil {
		return nil, err
	}
	v, ok := parsed[name]
	if !ok {
		return nil, fmt.Errorf("no sample %s", name)
	}
	return clone(v), nil
}

// Path walks a response to a nested object.
func Path(v any, keys ...string) map[string]any {
	for _, k := range keys {
		v = v.(map[string]any)[k]
	}
	return v.(map[string]any)
}

// First returns a copy of the first element of a response's list (the last
// key names the list), the row every built row starts from.
func First(v any, keys ...string) map[string]any {
	m := Path(v, keys[:len(keys)-1]...)
	list := m[keys[len(keys)-1]].([]any)
	return clone(list[0].(map[string]any))
}

// Keys lists an object's field names, sorted, for format checks.
func Keys(m map[string]any) []string {
	return slices.Sorted(maps.Keys(m))
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = cloneValue(v)
	}
	return out
}

func cloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return clone(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneValue(e)
		}
		return out
	}
	return v
}

// number writes a value as a JSON number (asString false) or a string,
// keeping its text exactly.
func number(text string, asString bool) any {
	if asString {
		return text
	}
	return json.Number(text)
}
