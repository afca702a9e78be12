package fetchers

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/section"
)

type fakeSection struct {
	section.Common `yaml:",inline"`
}

func (*fakeSection) Validate(section.Checker) error { return nil }

type fakeFetcher struct{}

func (fakeFetcher) Provider() string { return "fake" }
func (fakeFetcher) Fetch(context.Context, Previous) (*pricewatch.Snapshot, error) {
	return nil, errors.New("not used")
}

// New skips a provider without credentials (a fetcher that reports why
// on every run), fails on any other error, and refuses a section of
// another provider's type instead of panicking.
func TestProviderNew(t *testing.T) {
	build := func(err error) Provider {
		return Provider{Name: "fake", Section: func() section.Section { return &fakeSection{} },
			Build: Builder(func(*fakeSection, Env) (Fetcher, error) {
				if err != nil {
					return nil, err
				}
				return fakeFetcher{}, nil
			})}
	}
	f, err := build(nil).New(&fakeSection{}, Env{})
	if err != nil || f.Provider() != "fake" {
		t.Fatalf("built %v, %v", f, err)
	}
	noKey := fmt.Errorf("%w: set FAKE_KEY", ErrNoCredentials)
	f, err = build(noKey).New(&fakeSection{}, Env{})
	if err != nil || f == nil || f.Provider() != "fake" {
		t.Fatalf("no credentials: %v, %v; want a fetcher that reports it", f, err)
	}
	if _, err := f.Fetch(context.Background(), Previous{}); !errors.Is(err, ErrNoCredentials) || !strings.Contains(err.Error(), "FAKE_KEY") {
		t.Errorf("skipped provider's run: %v", err)
	}
	if f, err := build(errors.New("bad endpoint")).New(&fakeSection{}, Env{}); err == nil || f != nil {
		t.Errorf("a failing constructor gave %v, %v", f, err)
	}
	if _, err := build(nil).New(&section.Keyed{}, Env{}); err == nil {
		t.Error("a section of another type was accepted")
	}
}

// KeyedProvider reads the key, hands it to the redactor before building,
// and gives every config its own copy of the defaults.
func TestKeyedProvider(t *testing.T) {
	var handed []string
	var built KeyedConfig
	t.Setenv("FAKE_API_KEY", "")
	file := filepath.Join(t.TempDir(), "k")
	if err := os.WriteFile(file, []byte("key-from-k\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := KeyedProvider(Provider{Name: "fake"}, section.Keyed{Enabled: true, Endpoint: "https://api.example"},
		Key{Provider: "fake", What: "fake API key", Env: "FAKE_API_KEY", Required: true},
		func(cfg KeyedConfig, _ Env) (fakeFetcher, error) {
			built = cfg
			return fakeFetcher{}, nil
		})
	if !p.NeedsEndpoint {
		t.Error("a keyed API always calls its endpoint")
	}
	s := p.Section().(*section.Keyed)
	s.APIKeyFile = file
	if p.Section().(*section.Keyed).APIKeyFile != "" {
		t.Error("sections share the defaults")
	}
	env := Env{AddSecrets: func(s ...section.Secret) {
		for _, v := range s {
			handed = append(handed, v.Value())
		}
	}}
	if _, err := p.New(s, env); err != nil {
		t.Fatal(err)
	}
	if built.Endpoint != "https://api.example" || built.APIKey.Value() != "key-from-k" || len(handed) != 1 || handed[0] != "key-from-k" {
		t.Errorf("built %+v, redactor given %v", built, handed)
	}
}

func TestDistinct(t *testing.T) {
	refuseEmpty := func(i int, v string) error {
		if v == "" {
			return fmt.Errorf("entry %d is empty", i)
		}
		return nil
	}
	tests := []struct {
		list    []string
		want    []string
		wantErr string
	}{
		{nil, nil, ""},
		{[]string{" b", "a", "b ", "a"}, []string{"b", "a"}, ""},
		{[]string{"a", " ", "b"}, nil, "entry 1 is empty"},
	}
	for _, tt := range tests {
		got, err := Distinct(tt.list, strings.TrimSpace, refuseEmpty)
		errText := ""
		if err != nil {
			errText = err.Error()
		}
		if !slices.Equal(got, tt.want) || errText != tt.wantErr {
			t.Errorf("Distinct(%q) = %q, %v; want %q, %q", tt.list, got, err, tt.want, tt.wantErr)
		}
	}
}
