package section

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// Every check names the full key and the line the file gave it, and the
// shared provider checks refuse what config refused before they moved.
func TestCheckerNamesKeyAndLine(t *testing.T) {
	k := NewChecker("p.yaml", map[string]int{"providers.x.endpoint": 4, "providers.x.timeout": 6}).Under("providers.x")
	tests := []errCase{
		{"bad url", k.URL("endpoint", "example.com"), `p.yaml:line 4: providers.x.endpoint: "example.com" is not an http(s) URL`},
		{"good url", k.URL("endpoint", "https://example.com"), ""},
		{"bad cron", k.Schedule("schedule", "often"), `p.yaml: providers.x.schedule: "often" is not a cron spec`},
		{"every second", k.Schedule("schedule", "@every 10ms"), `"@every 10ms": @every needs an interval of at least 1s`},
		{"at least", k.AtLeast("concurrency", 0, 1), "providers.x.concurrency: must be at least 1"},
		{"at least met", k.AtLeast("concurrency", 1, 1), ""},
		{"negative", k.NotNegative("timeout", -time.Second), "p.yaml:line 6: providers.x.timeout: must not be negative"},
	}
	for _, tt := range tests {
		checkErr(t, tt)
		var ke *KeyError
		if tt.err != nil && !errors.As(tt.err, &ke) {
			t.Errorf("%s: %T is not a *KeyError", tt.name, tt.err)
		}
	}
}

// errCase is a check's error and the text it must hold ("" means no
// error).
type errCase struct {
	name string
	err  error
	want string
}

func checkErr(t *testing.T, tt errCase) {
	t.Helper()
	switch {
	case tt.want == "" && tt.err != nil:
		t.Errorf("%s: %v", tt.name, tt.err)
	case tt.want != "" && (tt.err == nil || !strings.Contains(tt.err.Error(), tt.want)):
		t.Errorf("%s: %v, want %q", tt.name, tt.err, tt.want)
	}
}

func TestCheckShared(t *testing.T) {
	k := NewChecker("", nil).Under("providers.x")
	c := Common{Regions: []string{"us-east-1", "bad region"}, Timeout: -1}
	got := errors.Join(CheckShared(k, c, Facts{NeedsEndpoint: true, RegionsUnused: "one price for all"})...).Error()
	for _, want := range []string{
		`providers.x.endpoint: "" is not an http(s) URL`,
		"providers.x.timeout: -1ns: want 10s to 24h0m0s",
		`providers.x.regions[1]: "bad region" is not a region code`,
		"providers.x.regions: is not used: one price for all",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	if errs := CheckShared(k, Common{Regions: []string{"cn-hangzhou"}, Timeout: time.Minute}, Facts{}); len(errs) != 0 {
		t.Errorf("a region-built provider without endpoint refused: %v", errs)
	}
}

// TestShortSecretsRefused: Issue 20 item 22: a secret of a few characters
// ("s") was masked as a substring of every message, garbling them and
// spelling it out. Inline ones are refused at load with key and line,
// ones from the environment or a file when they are read, naming where
// they came from and never the value.
func TestShortSecretsRefused(t *testing.T) {
	k := NewChecker("p.yaml", map[string]int{"slack.token": 3})
	tests := []errCase{
		{"one letter", k.Secret("slack.token", NewSecret("s")), "p.yaml:line 3: slack.token: is 1 characters long: a secret needs at least 8"},
		{"seven", k.Secret("slack.token", NewSecret("xoxb-12")), "is 7 characters long"},
		{"eight", k.Secret("slack.token", NewSecret("xoxb-123")), ""},
		{"unset", k.Secret("slack.token", Secret{}), ""},
	}
	for _, tt := range tests {
		checkErr(t, tt)
	}

	t.Setenv("PW_SHORT_SECRET", "abc")
	if _, err := ReadSecret("PW_SHORT_SECRET", Secret{}, ""); err == nil || !strings.Contains(err.Error(), "$PW_SHORT_SECRET is 3 characters long") {
		t.Errorf("short env secret: %v", err)
	}
	file := t.TempDir() + "/key"
	if err := os.WriteFile(file, []byte("s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSecret("", Secret{}, file); err == nil || !strings.Contains(err.Error(), "secret file "+file+" is 1 characters long") {
		t.Errorf("short file secret: %v", err)
	}
	if err := os.WriteFile(file, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := ReadSecret("", Secret{}, file); err != nil || !s.Empty() {
		t.Errorf("an empty file is the caller's to judge: %v, %v", s, err)
	}
}

// TestBounds: Issue 20 item 23: a run timeout of 0s and counts outside
// their sensible range are refused with the bound.
func TestBounds(t *testing.T) {
	k := NewChecker("", nil).Under("providers.x")
	if err := k.Between("concurrency", 100000, 1, MaxConcurrency); err == nil || !strings.Contains(err.Error(), "providers.x.concurrency: 100000: want 1 to 32") {
		t.Errorf("concurrency: %v", err)
	}
	if err := k.Between("max_price_calls", -1, 1, MaxPriceCalls); err == nil || !strings.Contains(err.Error(), "-1: want 1 to 100000") {
		t.Errorf("max_price_calls: %v", err)
	}
	if err := k.Between("concurrency", 4, 1, MaxConcurrency); err != nil {
		t.Errorf("4: %v", err)
	}
	for _, d := range []time.Duration{0, time.Second, 25 * time.Hour} {
		errs := CheckShared(k, Common{Timeout: d}, Facts{})
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), "providers.x.timeout: "+d.String()+": want 10s to 24h0m0s") {
			t.Errorf("timeout %s: %v", d, errs)
		}
	}
	if errs := CheckShared(k, Common{Timeout: 2 * time.Hour}, Facts{}); len(errs) != 0 {
		t.Errorf("2h: %v", errs)
	}
}
