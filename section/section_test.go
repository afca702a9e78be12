package section

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// Every check names the full key and the line the file gave it, and the
// shared provider checks refuse what config refused before they moved.
func TestCheckerNamesKeyAndLine(t *testing.T) {
	k := NewChecker("p.yaml", map[string]int{"providers.x.endpoint": 4, "providers.x.timeout": 6}).Under("providers.x")
	tests := []struct {
		name string
		err  error
		want string // "" means no error
	}{
		{"bad url", k.URL("endpoint", "example.com"), `p.yaml:line 4: providers.x.endpoint: "example.com" is not an http(s) URL`},
		{"good url", k.URL("endpoint", "https://example.com"), ""},
		{"bad cron", k.Schedule("schedule", "often"), `p.yaml: providers.x.schedule: "often" is not a cron spec`},
		{"every second", k.Schedule("schedule", "@every 10ms"), `"@every 10ms": @every needs an interval of at least 1s`},
		{"at least", k.AtLeast("concurrency", 0, 1), "providers.x.concurrency: must be at least 1"},
		{"at least met", k.AtLeast("concurrency", 1, 1), ""},
		{"negative", k.NotNegative("timeout", -time.Second), "p.yaml:line 6: providers.x.timeout: must not be negative"},
	}
	for _, tt := range tests {
		switch {
		case tt.want == "" && tt.err != nil:
			t.Errorf("%s: %v", tt.name, tt.err)
		case tt.want != "" && (tt.err == nil || !strings.Contains(tt.err.Error(), tt.want)):
			t.Errorf("%s: %v, want %q", tt.name, tt.err, tt.want)
		}
		var ke *KeyError
		if tt.err != nil && !errors.As(tt.err, &ke) {
			t.Errorf("%s: %T is not a *KeyError", tt.name, tt.err)
		}
	}
}

func TestCheckShared(t *testing.T) {
	k := NewChecker("", nil).Under("providers.x")
	c := Common{Regions: []string{"us-east-1", "bad region"}, Timeout: -1}
	got := errors.Join(CheckShared(k, c, Facts{NeedsEndpoint: true, RegionsUnused: "one price for all"})...).Error()
	for _, want := range []string{
		`providers.x.endpoint: "" is not an http(s) URL`,
		"providers.x.timeout: must not be negative",
		`providers.x.regions[1]: "bad region" is not a region code`,
		"providers.x.regions: is not used: one price for all",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	if errs := CheckShared(k, Common{Regions: []string{"cn-hangzhou"}}, Facts{}); len(errs) != 0 {
		t.Errorf("a region-built provider without endpoint refused: %v", errs)
	}
}
