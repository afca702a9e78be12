package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch/report"
)

// TestVocabulary: every key of every command's JSON and every CSV header
// is a name of report.Vocabulary, and each CSV header is its JSON rows'
// keys (in order; trends adds its kind column to tell movers from the
// cheapest points).
func TestVocabulary(t *testing.T) {
	t.Setenv(envSlackToken, alertsToken)
	now := "--now=" + analysisNow
	cfg := analysisConfig(t, true)
	digestCfg := digestConfig(t, digestSetup{rates: true, chart: true})
	known := map[string]bool{}
	for _, f := range report.Vocabulary {
		known[f.Name] = true
	}
	cases := []struct {
		name string
		cfg  string
		args []string
		// rows picks the JSON row objects the CSV flattens ("" = the
		// top-level array); csvExtra are CSV columns before them.
		rows     []string
		csvExtra []string
		noCSV    bool
	}{
		{name: "history", args: []string{"history", "Standard_ND96amsr_A100_v4"}},
		{name: "availability", args: []string{"availability", "--all"}},
		{name: "compare", args: []string{"compare", "--gpu", "A100", "--price-type", "any", now}},
		{name: "compare by machine", args: []string{"compare", "--gpu", "A100", "--by", "machine", "--per", "month", now}},
		{name: "savings", args: []string{"savings", "Standard_ND96amsr_A100_v4", "--utilization", "0.7", now}},
		{name: "trends", args: []string{"trends", "--gpu", "A100", "--window", "7d", now}, rows: []string{"movers", "cheapest"}, csvExtra: []string{"kind"}},
		{name: "recommend", args: append(append([]string{}, seedQuestion...), now), rows: []string{"options"}},
		{name: "runs", args: []string{"runs"}},
		{name: "changes", args: []string{"changes", "--since", "2020-01-01"}},
		{name: "held", args: []string{"held"}},
		{name: "alerts list", args: []string{"alerts", "list"}},
		{name: "alerts rules", args: []string{"alerts", "rules"}, noCSV: true},
		{name: "hardware unknown", args: []string{"hardware", "unknown"}},
		{name: "fx show", args: []string{"fx", "show"}},
		{name: "config path", args: []string{"config", "path"}},
		{name: "db stats", args: []string{"db", "stats"}, noCSV: true},
		{name: "digest", cfg: digestCfg, args: []string{"digest", "--now=" + digestNow}, noCSV: true},
	}
	unknown := map[string][]string{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			conf := c.cfg
			if conf == "" {
				conf = cfg
			}
			out, errOut, code := runCLI(t, append([]string{"--config", conf}, append(c.args, "--format", "json")...)...)
			if code != 0 {
				t.Fatalf("json: exit %d: %s", code, errOut)
			}
			v, err := decodeOrdered(out)
			if err != nil {
				t.Fatalf("json: %v\n%s", err, out)
			}
			for _, k := range jsonKeysOf(v) {
				if !known[k] {
					unknown[k] = append(unknown[k], c.name)
				}
			}
			if c.noCSV {
				return
			}
			var records [][]string
			out, errOut, code = runCLI(t, append([]string{"--config", conf}, append(c.args, "--format", "csv")...)...)
			if code != 0 {
				t.Fatalf("csv: exit %d: %s", code, errOut)
			}
			records, err = csv.NewReader(strings.NewReader(out)).ReadAll()
			if err != nil || len(records) == 0 {
				t.Fatalf("csv: %v\n%s", err, out)
			}
			header := records[0]
			for _, k := range header {
				if !known[k] {
					unknown[k] = append(unknown[k], c.name+" csv")
				}
			}
			want := append([]string{}, c.csvExtra...)
			paths := c.rows
			if len(paths) == 0 {
				paths = []string{""}
			}
			for _, p := range paths {
				for _, k := range jsonRowKeys(v, p) {
					if !slices.Contains(want, k) {
						want = append(want, k)
					}
				}
			}
			if len(records) > 1 && !slices.Equal(header, want) {
				t.Errorf("CSV header is not the JSON keys:\ncsv:  %v\njson: %v", header, want)
			}
		})
	}
	if len(unknown) > 0 {
		keys := make([]string, 0, len(unknown))
		for k := range unknown {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			t.Errorf("%q (in %s) is not in report.Vocabulary", k, strings.Join(slices.Compact(unknown[k]), ", "))
		}
	}
}

// checkRowKeys wants the first JSON row of out (a top-level array) to
// carry exactly these keys, in this order. A test that decodes into the
// command's own row type pins the JSON contract with it.
func checkRowKeys(t *testing.T, out string, want ...string) {
	t.Helper()
	v, err := decodeOrdered(out)
	if err != nil {
		t.Fatalf("JSON: %v\n%s", err, out)
	}
	if got := jsonRowKeys(v, ""); got != nil && !slices.Equal(got, want) {
		t.Errorf("JSON row keys %v, want %v", got, want)
	}
}

// object is a decoded JSON object with its key order.
type object struct {
	keys []string
	vals map[string]any
}

// decodeOrdered decodes JSON keeping the order of object keys.
func decodeOrdered(data string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	var value func() (any, error)
	value = func() (any, error) {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		switch tok {
		case json.Delim('{'):
			o := &object{vals: map[string]any{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k := kt.(string)
				v, err := value()
				if err != nil {
					return nil, err
				}
				o.keys = append(o.keys, k)
				o.vals[k] = v
			}
			_, err := dec.Token()
			return o, err
		case json.Delim('['):
			var a []any
			for dec.More() {
				v, err := value()
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token()
			return a, err
		}
		return tok, nil
	}
	return value()
}

// jsonKeysOf lists every object key anywhere in v, except below keys whose
// object is keyed by data (currencies of a rate table, GPU models).
func jsonKeysOf(v any) []string {
	var keys []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case *object:
			for _, k := range x.keys {
				keys = append(keys, k)
				if !report.DataKeyed(k) {
					walk(x.vals[k])
				}
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return keys
}

// jsonRowKeys is the keys, in order, of the first object at the dotted path
// ("" the top-level array; "cheapest.points" the points of every cheapest
// series).
func jsonRowKeys(v any, path string) []string {
	objs := []any{v}
	if path != "" {
		for _, step := range strings.Split(path, ".") {
			var next []any
			for _, o := range objs {
				for _, e := range flatten(o) {
					if m, ok := e.(*object); ok {
						next = append(next, m.vals[step])
					}
				}
			}
			objs = next
		}
	}
	for _, o := range objs {
		for _, e := range flatten(o) {
			if m, ok := e.(*object); ok {
				return m.keys
			}
		}
	}
	return nil
}

func flatten(v any) []any {
	if a, ok := v.([]any); ok {
		return a
	}
	return []any{v}
}

// docs/fields.md (the field-name table, moved out of the README in issue 21
// item 7) lists every name of the vocabulary.
func TestVocabularyDocumented(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "fields.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range report.Vocabulary {
		if !strings.Contains(string(raw), "| `"+f.Name+"` | ") {
			t.Errorf("docs/fields.md's field table lacks %q", f.Name)
		}
	}
}
