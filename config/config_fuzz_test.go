package config

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Issue 21 item 8: the strict decoder, from bytes. Whatever the file, Parse
// returns a config or an error, never both and never neither; an error
// names the file; an accepted config is valid and decodes the same every
// time; and a comment line put in front changes nothing but moves every
// recorded key line down by one (the lines errors point at are the file's).
func FuzzParse(f *testing.F) {
	seeds, err := filepath.Glob(filepath.Join("testdata", "*.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	seeds = append(seeds, filepath.Join("..", "config.example.yaml"))
	for _, path := range seeds {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"", "---\n", "database:\n  path: x.db\n---\nlog: {}\n", "providers:\n  azure:\n    endpont: x\n",
		"http:\n  listen: 0.0.0.0:9108\n", "alerts:\n  rules: []\n", "fetch:\n  lease_wait: -1s\n",
		"a: &x [*x]\n", "storage:\n  retention:\n    changes_max_age: 3d\n", "digest:\n  schedule: \"@every -3s\"\n",
	} {
		f.Add([]byte(s))
	}
	const name = "fuzz.yaml"
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(bytes.NewReader(data), name)
		if (cfg == nil) == (err == nil) {
			t.Fatalf("Parse returned config %v and error %v: want exactly one", cfg != nil, err)
		}
		if err != nil {
			if !strings.Contains(err.Error(), name) {
				t.Fatalf("error does not name the file: %v", err)
			}
		} else {
			if verr := cfg.Validate(); verr != nil {
				t.Fatalf("an accepted config does not validate: %v", verr)
			}
			again, err := Parse(bytes.NewReader(data), name)
			if err != nil || !reflect.DeepEqual(cfg, again) {
				t.Fatalf("the same bytes decoded twice differ (second error %v)", err)
			}
		}
		// A byte-order mark (UTF-8's, or UTF-16's, which switches the
		// decoder's encoding) or a directive must stay first; elsewhere a
		// leading comment is a no-op.
		if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) || bytes.HasPrefix(data, []byte("\xfe\xff")) || bytes.HasPrefix(data, []byte("\xff\xfe")) || bytes.HasPrefix(data, []byte("%")) || bytes.ContainsAny(data, "\x00\ufeff") {
			return
		}
		shifted, serr := Parse(bytes.NewReader(append([]byte("# a comment\n"), data...)), name)
		if (err == nil) != (serr == nil) {
			t.Fatalf("a leading comment changed the verdict: %v, then %v", err, serr)
		}
		if err != nil {
			return
		}
		for key, line := range cfg.lines {
			if shifted.lines[key] != line+1 {
				t.Fatalf("key %s: line %d, with a comment in front %d (want %d)", key, line, shifted.lines[key], line+1)
			}
		}
		if len(shifted.lines) != len(cfg.lines) {
			t.Fatalf("a leading comment changed the keys seen: %d, then %d", len(cfg.lines), len(shifted.lines))
		}
		shifted.lines = cfg.lines
		if !reflect.DeepEqual(cfg, shifted) {
			t.Fatal("a leading comment changed the decoded config")
		}
	})
}
