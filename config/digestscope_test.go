package config

import (
	"slices"
	"strings"
	"testing"
)

// TestDigestScope: digest.providers and digest.sellers (issue 31) are read
// as given; an unknown cloud or seller is refused with its key and line.
func TestDigestScope(t *testing.T) {
	cfg, err := Parse(strings.NewReader("digest:\n  providers: [aws, lambda]\n  sellers: [cloud]\n"), "inline")
	if err != nil {
		t.Fatal(err)
	}
	if d := cfg.Digest; !slices.Equal(d.Providers, []string{"aws", "lambda"}) || !slices.Equal(d.Sellers, []string{"cloud"}) {
		t.Errorf("read %+v", d)
	}
	for _, c := range []struct{ yaml, want string }{
		{"digest:\n  providers: [nimbus]\n", `line 2: digest.providers[0]: "nimbus" is not a provider`},
		{"digest:\n  sellers: [cloud, resellers]\n", `line 2: digest.sellers[1]: "resellers": want cloud or marketplace`},
	} {
		_, err := Parse(strings.NewReader(c.yaml), "inline")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.yaml, err, c.want)
		}
	}
}
