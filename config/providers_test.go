package config

import (
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch/providers"
	"github.com/pricewatch/pricewatch/section"
)

// sectionOf is the named provider's section as its package's type.
func sectionOf[S section.Section](t *testing.T, c *Config, name string) S {
	t.Helper()
	s, ok := c.Providers.Section(name).(S)
	if !ok {
		t.Fatalf("providers.%s is a %T", name, c.Providers.Section(name))
	}
	return s
}

// The providers section has exactly one section per registered provider,
// under its name, each a struct the decoder can walk, and the example file
// documents every one of them.
func TestProviderSectionsMatchTheRegistry(t *testing.T) {
	def := Default()
	commons := def.Providers.Commons()
	if len(commons) != len(providers.Names()) {
		t.Errorf("the defaults have %d provider sections, the registry %d providers", len(commons), len(providers.Names()))
	}
	example, err := Load("../config.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range providers.All() {
		sec := def.Providers.Section(p.Name)
		if sec == nil {
			t.Errorf("%s has no section in the defaults", p.Name)
			continue
		}
		if typ := reflect.TypeOf(sec); typ.Kind() != reflect.Pointer || typ.Elem().Kind() != reflect.Struct {
			t.Errorf("%s's section is a %s, want a pointer to a struct", p.Name, typ)
		}
		if p.Section() == sec {
			t.Errorf("%s's Section returns the same value twice: configs would share it", p.Name)
		}
		if example.Line("providers."+p.Name) == 0 {
			t.Errorf("config.example.yaml has no providers.%s section", p.Name)
		}
		if p.Display == "" || p.Build == nil {
			t.Errorf("%s registers no display name or constructor", p.Name)
		}
	}
}

// The registry is the only list of providers: outside the cloud's own
// package, the registry and its tests, no Go file spells a provider's
// name as a string literal, and no non-test file lists the providers'
// packages but the registry.
func TestNothingElseListsTheProviders(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	out, err := exec.Command("git", "-C", "..", "ls-files", "*.go").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	names := providers.Names()
	for _, file := range strings.Fields(string(out)) {
		if strings.HasSuffix(file, "_test.go") || strings.HasPrefix(file, "fetchers/") || strings.HasPrefix(file, "providers/") {
			continue
		}
		b, err := os.ReadFile("../" + file)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		var imported []string
		for _, n := range names {
			if strings.Contains(text, `"github.com/pricewatch/pricewatch/fetchers/`+n+`"`) {
				imported = append(imported, n)
			}
		}
		if len(imported) > 1 {
			t.Errorf("%s imports the fetchers of %s: ask package providers instead", file, strings.Join(imported, ", "))
		}
		var listed []string
		for _, n := range names {
			if strings.Contains(text, `"`+n+`"`) {
				listed = append(listed, n)
			}
		}
		if len(listed) > 1 && !slices.Contains(allowedNameLists, file) {
			t.Errorf("%s spells the provider names %s: take them from package providers", file, strings.Join(listed, ", "))
		}
	}
}

// allowedNameLists are the files that may name several providers as
// strings, with the reason.
var allowedNameLists = []string{
	"offer.go", // the provider name constants the fetchers and storage share
}
