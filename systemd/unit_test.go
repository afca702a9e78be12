package systemd

import (
	"bufio"
	"os"
	"slices"
	"strings"
	"testing"
)

type directive struct {
	line       int
	section    string
	key, value string
	commented  bool // a comment line comes right before it
}

func readUnit(t *testing.T) []directive {
	t.Helper()
	f, err := os.Open("pricewatch.service")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []directive
	section, prevComment := "", false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "":
			prevComment = false
		case strings.HasPrefix(line, "#"), strings.HasPrefix(line, ";"):
			prevComment = true
		case strings.HasPrefix(line, "["):
			section, prevComment = line, false
		default:
			key, value, ok := strings.Cut(line, "=")
			if !ok {
				t.Fatalf("line %d: not a directive: %q", n, line)
			}
			out = append(out, directive{n, section, key, value, prevComment})
			prevComment = false
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// The unit is read by people deciding whether to trust it: every directive
// says why on the line(s) above it. systemd has no trailing comments, so a
// "#" after a value would silently become part of the value.
func TestUnitEveryDirectiveCommented(t *testing.T) {
	ds := readUnit(t)
	if len(ds) < 40 {
		t.Fatalf("parsed only %d directives; is the file complete?", len(ds))
	}
	for _, d := range ds {
		if !d.commented {
			t.Errorf("line %d: %s= has no comment above it", d.line, d.key)
		}
		if strings.Contains(d.value, " #") || strings.Contains(d.value, "\t#") {
			t.Errorf("line %d: %s= value contains a comment, which systemd would read as part of the value", d.line, d.key)
		}
	}
}

// A LoadCredential= whose file is missing fails the unit's start; the
// matching SetCredential= turns a missing file into an empty credential.
// Every credential must have one, or a host without (say) Tencent keys
// could not start pricewatch at all.
func TestUnitCredentialsOptional(t *testing.T) {
	loaded := map[string]string{}
	fallback := map[string]string{}
	for _, d := range readUnit(t) {
		id, rest, _ := strings.Cut(d.value, ":")
		switch d.key {
		case "LoadCredential":
			loaded[id] = rest
		case "SetCredential":
			fallback[id] = rest
		}
	}
	want := []string{"slack-token", "alibaba-access-key-id", "alibaba-access-key-secret", "tencent-secret-id", "tencent-secret-key",
		"lambda-api-key", "runpod-api-key", "http-token", "webhook-url", "webhook-secret"}
	for _, id := range want {
		path, ok := loaded[id]
		if !ok {
			t.Errorf("no LoadCredential=%s", id)
			continue
		}
		if path != "/etc/pricewatch/credentials/"+id {
			t.Errorf("LoadCredential=%s reads %s, want /etc/pricewatch/credentials/%s (install.sh creates that directory)", id, path, id)
		}
		// systemd 252 rejects an empty value ("Invalid syntax"); a lone
		// newline reads back as empty once trimmed.
		if v, ok := fallback[id]; !ok || strings.TrimSpace(strings.ReplaceAll(v, `\n`, "\n")) != "" {
			t.Errorf("LoadCredential=%s lacks an empty SetCredential=%s: fallback (got %q)", id, id, v)
		}
	}
	if len(loaded) != len(want) {
		t.Errorf("unit loads %d credentials, test knows %d: keep the list, docs/operations.md and install.sh in step", len(loaded), len(want))
	}
}

// The load test runs the daemon with the unit's memory settings, each
// read from the unit as it is.
func TestMemoryEnvironment(t *testing.T) {
	env := MemoryEnvironment()
	want := map[string]string{}
	for _, d := range readUnit(t) {
		if k, v, _ := strings.Cut(d.value, "="); d.key == "Environment" && slices.Contains(memoryKeys, k) {
			want[k] = v
		}
	}
	if len(want) != len(memoryKeys) {
		t.Fatalf("the unit sets %v of %v", want, memoryKeys)
	}
	if len(env) != len(want) {
		t.Fatalf("MemoryEnvironment() = %q, want %v", env, want)
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if want[k] != v {
			t.Errorf("MemoryEnvironment() has %s=%s, the unit %s=%s", k, v, k, want[k])
		}
	}
}
