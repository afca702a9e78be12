package tencent

import (
	"errors"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/chinacloudtest"
	"github.com/pricewatch/pricewatch/section"
)

func TestCredentialsFrom(t *testing.T) {
	chinacloudtest.CheckPair(t, chinacloudtest.Pair{IDEnv: EnvSecretID, SecretEnv: EnvSecretKey, From: CredentialsFrom,
		Missing:       "providers.tencent.secret_id_file and secret_key_file",
		IDMissing:     "the secret ID is missing",
		SecretMissing: "the secret key is missing"})
}

func TestNewChecksConfig(t *testing.T) {
	ok := Config{SecretID: section.NewSecret("id"), SecretKey: section.NewSecret("key"), Concurrency: 1}
	tests := []struct {
		name    string
		mutate  func(*Config)
		wantErr error
		text    string
	}{
		{"no credentials", func(c *Config) { c.SecretID, c.SecretKey = section.Secret{}, section.Secret{} }, fetchers.ErrNoCredentials, "TENCENTCLOUD_SECRET_KEY"},
		{"endpoint without scheme", func(c *Config) { c.Endpoint = "127.0.0.1:8081" }, nil, "endpoint"},
		{"endpoint with a path", func(c *Config) { c.Endpoint = "http://127.0.0.1:8081/cvm" }, nil, "served at /"},
		{"currency not a code", func(c *Config) { c.Currency = "yuan" }, nil, "ISO 4217"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := ok
			tc.mutate(&cfg)
			_, err := New(cfg, zap.NewNop())
			if err == nil || !strings.Contains(err.Error(), tc.text) || (tc.wantErr != nil && !errors.Is(err, tc.wantErr)) {
				t.Errorf("err = %v, want one with %q", err, tc.text)
			}
			// Issue 31 item 6: the skip line names the provider; the
			// error does not say "tencent:" again.
			if errors.Is(err, fetchers.ErrNoCredentials) && strings.HasPrefix(err.Error(), "tencent:") {
				t.Errorf("the skip reason repeats the provider: %v", err)
			}
		})
	}
	f, err := New(ok, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.cfg.Currency != "CNY" || f.api.endpoint.String() != DefaultEndpoint+"/" || f.Provider() != "tencent" {
		t.Errorf("defaults: currency %s endpoint %s", f.cfg.Currency, f.api.endpoint)
	}
}

func TestGPUTable(t *testing.T) {
	for fam, g := range gpuFamilies {
		if g.Model == "" || g.MemoryGB <= 0 || g.Source == "" {
			t.Errorf("%s: incomplete row %+v", fam, g)
		}
		for typ, n := range g.Counts {
			if familyOf("", typ) != fam || n <= 0 {
				t.Errorf("%s: count row %s = %v", fam, typ, n)
			}
		}
	}
}

func TestHardware(t *testing.T) {
	num := func(v string) number {
		var n number
		if err := n.UnmarshalJSON([]byte(v)); err != nil {
			t.Fatal(err)
		}
		return n
	}
	tests := []struct {
		name      string
		item      quotaItem
		wantOK    bool
		model     string
		count     float64
		memGB     float64
		warnCount int
	}{
		{"GpuCount preferred over Gpu", quotaItem{InstanceFamily: "GN7", InstanceType: "GN7.2XLARGE40", Gpu: num("1"), GpuCount: num("0.5")}, true, "T4", 0.5, 8, 0},
		{"string-typed GpuCount", quotaItem{InstanceType: "GT4.8XLARGE192", Gpu: num("2"), GpuCount: num(`"2"`)}, true, "A100-40GB", 2, 40, 0},
		{"no count fields: the table", quotaItem{InstanceFamily: "GN10X", InstanceType: "GN10X.9XLARGE160"}, true, "V100-32GB", 4, 32, 0},
		{"case of the family name", quotaItem{InstanceFamily: "GN10XP", InstanceType: "GN10XP.2XLARGE40", Gpu: num("1")}, true, "V100-32GB", 1, 32, 0},
		{"zero GPUs", quotaItem{InstanceFamily: "S5", InstanceType: "S5.LARGE8", Gpu: num("0"), GpuCount: num("0")}, false, "", 0, 0, 0},
		{"unknown family with GPUs", quotaItem{InstanceFamily: "PNV9", InstanceType: "PNV9.4XLARGE64", Gpu: num("1"), GpuCount: num("1")}, true, "", 1, 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			core, logs := observer.New(zapcore.WarnLevel)
			f := &Fetcher{log: zap.New(core)}
			hw, ok := f.hardware(tc.item)
			if ok != tc.wantOK || hw.GPUModel != tc.model || hw.GPUCount != tc.count || hw.GPUMemoryGB != tc.memGB {
				t.Errorf("got %+v %v", hw, ok)
			}
			f.hardware(tc.item) // a second sighting does not warn again
			if logs.Len() != tc.warnCount {
				t.Errorf("%d warnings, want %d", logs.Len(), tc.warnCount)
			}
		})
	}
}

func TestServerMessageRedacted(t *testing.T) {
	a := &api{secretID: section.NewSecret("AKIDabc"), secretKey: section.NewSecret("sekrit")}
	if got := a.redact("bad key sekrit for AKIDabc"); strings.Contains(got, "sekrit") || strings.Contains(got, "AKIDabc") {
		t.Errorf("redact left a secret: %s", got)
	}
}
