package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers/lambda"
	"github.com/pricewatch/pricewatch/fetchers/runpod"
)

// loadExample loads config.example.yaml, which every test of it reads.
func loadExample(t *testing.T) *Config {
	t.Helper()
	cfg, err := Load("../config.example.yaml")
	if err != nil {
		t.Fatalf("config.example.yaml: %v", err)
	}
	return cfg
}

func TestExampleConfigLoads(t *testing.T) {
	cfg := loadExample(t)
	// The example documents the defaults: loading it must give the same
	// values as no file at all, except where the example says otherwise.
	def := Default()
	if got, want := cfg.Providers.Section("azure").Shared(), def.Providers.Section("azure").Shared(); got.Endpoint != want.Endpoint || cfg.Database.Path != def.Database.Path {
		t.Errorf("example and defaults disagree: %+v vs %+v", got, want)
	}
	if len(cfg.Alerts.Rules) == 0 {
		t.Error("example has no alert rules")
	}
}

func TestExampleDocumentsEveryKey(t *testing.T) {
	cfg := loadExample(t)
	var missing []string
	for _, key := range allKeys(reflectValue(Default()).Type(), "") {
		if cfg.Line(key) == 0 {
			missing = append(missing, key)
		}
	}
	if len(missing) > 0 {
		t.Errorf("config.example.yaml does not document: %s", strings.Join(missing, ", "))
	}
}

func TestBadConfigsNameKeyAndLine(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"testdata/bad-unknown-key.yaml", []string{
			"testdata/bad-unknown-key.yaml:line 6: providers.azure.endpont: unknown key",
		}},
		{"testdata/bad-values.yaml", []string{
			"line 2: log.level: \"loud\": want debug, info, warn or error",
			"line 5: providers.aws.timeout: \"forever\" is not a duration",
			"line 10: providers.tencent.enabled: \"maybe\" is not a valid boolean",
			"line 7: providers.azure.endpoint: \"prices.azure.com\" is not an http(s) URL",
			"line 8: providers.azure.schedule: \"every hour\" is not a cron spec",
			"line 14: alerts.rules[0].events[0]: \"price_plunge\": want one of",
		}},
		{"testdata/bad-webhook.yaml", []string{
			"line 3: webhook.url_file: set webhook.url or webhook.url_file, not both",
			"line 8: alerts.rules[0].channel: \"webhook\" is the webhook's outbox channel",
		}},
		// Issue 20 items 22 and 23: values that loaded but should not,
		// each refused with its key, line and bound.
		{"testdata/bad-bounds.yaml", []string{
			`line 2: slack.channel: "<script>" is not a Slack channel`,
			"line 3: slack.token: is 1 characters long: a secret needs at least 8",
			"line 6: providers.alibaba.max_price_calls: -1: want 1 to 100000",
			"line 7: providers.alibaba.concurrency: 100000: want 1 to 32",
			"line 9: providers.tencent.max_price_calls: -1: want 0 to 100000",
			"line 10: providers.tencent.concurrency: 0: want 1 to 32",
			"line 12: providers.azure.timeout: 0s: want 10s to 24h0m0s",
			"line 14: providers.aws.timeout: 1000h0m0s: want 10s to 24h0m0s",
			`line 21: alerts.rules[0].channel: "#gpu alerts" is not a Slack channel`,
			`line 23: digest.channel: "C0<b>" is not a Slack channel`,
		}},
		// Issue 23: the Azure capacity signals' keys.
		{"testdata/bad-azure-signals.yaml", []string{
			`line 4: providers.azure.authority_host: "http://login.example.com/": Entra ID is reached over https only`,
			`line 5: providers.azure.arm_endpoint: "management.azure.com" is not an http(s) URL`,
			`line 8: providers.azure.placement_scores.sizes: "ND96 H100" is not an ARM size name`,
			`line 9: providers.azure.placement_scores.desired_count: 0: want 1 to 1000`,
			`line 10: providers.azure.placement_scores.locations: "east us" is not an Azure region code`,
		}},
		{"testdata/bad-webhook-rule.yaml", []string{
			"line 7: alerts.rules[0].webhook: the rule sends to the webhook, but webhook.url and webhook.url_file are empty",
			"line 2: webhook.secret_file: is set but webhook.url and webhook.url_file are empty",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, err := Load(tt.file)
			if err == nil {
				t.Fatal("loaded without error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not contain %q:\n%v", w, err)
				}
			}
		})
	}
}

func TestSecretsNeverPrinted(t *testing.T) {
	cfg, err := Parse(strings.NewReader("slack:\n  token: xoxb-123-secret\n  webhook_url: https://hooks.slack.com/services/T0/B0/sekrit\n"), "inline")
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"%v", "%+v", "%#v", "%s"} {
		out := fmt.Sprintf(format, cfg.Slack)
		if strings.Contains(out, "xoxb-123-secret") || strings.Contains(out, "sekrit") {
			t.Errorf("%s prints a secret: %s", format, out)
		}
	}
	if cfg.Slack.Token.Value() != "xoxb-123-secret" {
		t.Errorf("token not kept: %q", cfg.Slack.Token.Value())
	}
	_, err = Parse(strings.NewReader("slack:\n  webhook_url: not a url sekrit\n"), "inline")
	if err == nil || strings.Contains(err.Error(), "sekrit") {
		t.Errorf("bad webhook error must not echo the value: %v", err)
	}
}

func TestReadSecretOrder(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/slack-token", []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CREDENTIALS_DIRECTORY", dir)
	t.Setenv("PW_TEST_TOKEN", "")
	got, err := ReadSecret("PW_TEST_TOKEN", Secret{}, "slack-token")
	if err != nil || got.Value() != "from-file" {
		t.Fatalf("file under $CREDENTIALS_DIRECTORY: got %q, %v", got.Value(), err)
	}
	t.Setenv("PW_TEST_TOKEN", "from-env")
	if got, _ := ReadSecret("PW_TEST_TOKEN", NewSecret("inline"), "slack-token"); got.Value() != "from-env" {
		t.Errorf("env must win, got %q", got.Value())
	}
	_, err = ReadSecret("", Secret{}, "/nonexistent/secret")
	var pe *os.PathError
	if !errors.As(err, &pe) {
		t.Errorf("missing file: got %v", err)
	}
}

func TestNoFileGivesDefaults(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv(EnvConfig, "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	old := systemDir
	systemDir = t.TempDir()
	t.Cleanup(func() { systemDir = old })
	if got := Locate(""); got != "" {
		t.Fatalf("Locate with nothing present = %q", got)
	}
	cfg, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Database.Path != "pricewatch.db" || !cfg.Providers.Section("azure").Shared().Enabled {
		t.Errorf("defaults: %+v", cfg.Database)
	}
}

// Values that decode but are faults: each refused at load with its file and
// line, never accepted to fail later (or run every second).
func TestFaultyValuesRefusedWithLine(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       string
	}{
		{"negative busy timeout", "database:\n  busy_timeout: -5s\n", "cfg.yaml:line 2: database.busy_timeout: -5s: must not be negative"},
		{"negative delivery wait", "alerts:\n  fetch_delivery_wait: -1s\n", "cfg.yaml:line 2: alerts.fetch_delivery_wait: -1s: must not be negative"},
		{"negative fx max age", "fx:\n  max_age: -24h\n", "cfg.yaml:line 2: fx.max_age: -24h0m0s: must not be negative"},
		{"negative flap window", "alerts:\n  flap_window: -1h\n", "cfg.yaml:line 2: alerts.flap_window: -1h0m0s: must not be negative"},
		{"negative lease wait", "fetch:\n  lease_wait: -1m\n", "cfg.yaml:line 2: fetch.lease_wait: must not be negative"},
		{"zero retry-after cap", "slack:\n  max_retry_after: 0s\n", "cfg.yaml:line 2: slack.max_retry_after: must be positive"},
		{"negative every", "providers:\n  azure:\n    schedule: \"@every -3s\"\n", "cfg.yaml:line 3: providers.azure.schedule: \"@every -3s\": @every needs an interval of at least 1s"},
		{"sub-second every", "digest:\n  schedule: \"@every 10ms\"\n", "cfg.yaml:line 2: digest.schedule: \"@every 10ms\": @every needs an interval of at least 1s"},
		{"listen without port", "http:\n  listen: localhost\n", "cfg.yaml:line 2: http.listen: \"localhost\": want host:port"},
		{"listen with a bad port", "http:\n  listen: 127.0.0.1:99999\n", "cfg.yaml:line 2: http.listen: \"127.0.0.1:99999\": port \"99999\" is not a number from 0 to 65535"},
		{"duplicate map key", "fx:\n  fixed_rates:\n    USD: \"1.08\"\n    USD: \"9.99\"\n", "cfg.yaml:line 4: fx.fixed_rates.USD: key given twice"},
		{"second document", "log:\n  level: info\n---\nlog:\n  level: debug\n", "cfg.yaml:line 3: a second YAML document"},
		{"region code with a space", "providers:\n  aws:\n    regions: [\"us east 1\"]\n", "cfg.yaml:line 3: providers.aws.regions[0]: \"us east 1\" is not a region code"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.yaml), "cfg.yaml")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// TestKeyedProviders: Lambda and RunPod take the common keys and an
// api_key_file, are checked like the others, and rules may name them.
func TestKeyedProviders(t *testing.T) {
	creds := t.TempDir()
	if err := os.WriteFile(filepath.Join(creds, "lambda-api-key"), []byte("secret-lambda-key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CREDENTIALS_DIRECTORY", creds)
	cfg, err := Parse(strings.NewReader(`providers:
  lambda:
    enabled: true
    endpoint: http://127.0.0.1:8080
    schedule: "*/10 * * * *"
    timeout: 90s
    api_key_file: lambda-api-key
  runpod:
    enabled: false
alerts:
  rules:
    - name: capacity
      events: [back_in_stock]
      providers: [lambda, runpod]
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	l := sectionOf[*lambda.Section](t, cfg, "lambda")
	if !l.Enabled || l.Endpoint != "http://127.0.0.1:8080" || l.Schedule != "*/10 * * * *" || l.Timeout.Seconds() != 90 || l.APIKeyFile != "lambda-api-key" {
		t.Errorf("lambda %+v", l)
	}
	if r := sectionOf[*runpod.Section](t, cfg, "runpod"); r.Enabled || r.Endpoint != "https://api.runpod.io" {
		t.Errorf("runpod %+v", r)
	}

	_, err = Parse(strings.NewReader("providers:\n  runpod:\n    endpoint: api.runpod.io\n    schedule: often\n  lambda:\n    regions: [us-east-1]\n"), "t.yaml")
	for _, want := range []string{"line 3: providers.runpod.endpoint", "line 4: providers.runpod.schedule", "line 6: providers.lambda.regions: unknown key"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
}

// CI's fuzzing found "\t#" refused as the first line while the same line
// after a comment is a comment (a YAML scanner quirk at the stream's start).
// A tab-indented comment on line 1 is a comment; keys keep their lines.
func TestTabIndentedCommentOnFirstLine(t *testing.T) {
	// CI's fuzzing then found the same after a blank line ("\n\t#0"), and
	// tab-only blank lines before the first key: all separation space.
	for _, head := range []string{"\t# pricewatch\n", " \t # pricewatch\n", "\t#\n", "\n\t#0\n", "\t\n\r\t# x\r\n", "\xef\xbb\xbf\t# bom\n"} {
		cfg, err := Parse(strings.NewReader(head+"log:\n  level: debug\n"), "tab.yaml")
		if err != nil {
			t.Fatalf("%q: %v", head, err)
		}
		want := 2 + strings.Count(head, "\n") + strings.Count(strings.ReplaceAll(head, "\r\n", "\n"), "\r")
		if cfg.Log.Level != "debug" || cfg.Line("log.level") != want {
			t.Errorf("%q: log.level %q at line %d, want debug at line %d", head, cfg.Log.Level, cfg.Line("log.level"), want)
		}
	}
	// A tab that indents a key is still refused, as YAML says.
	if _, err := Parse(strings.NewReader("\tlog: {}\n"), "tab.yaml"); err == nil {
		t.Error("a tab-indented key was accepted")
	}
}
