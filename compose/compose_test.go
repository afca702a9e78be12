package compose

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch/config"
	"github.com/pricewatch/pricewatch/daemon"
	"github.com/pricewatch/pricewatch/fx"
	"github.com/pricewatch/pricewatch/report/weekly"
	"github.com/pricewatch/pricewatch/secret"
	"github.com/pricewatch/pricewatch/storage"
)

// fixedNow is the clock the built fetchers judge validity by.
func fixedNow() time.Time { return time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC) }

func testRoot() *Wiring {
	return &Wiring{Log: zap.NewNop(), Secrets: secret.New(), Now: fixedNow}
}

// Issue 32 item 2: what Snapshot builds from a config is the daemon's
// plain settings and services, each taken from its key, and every secret
// the config names read into the snapshot's set.
func TestSnapshotSettings(t *testing.T) {
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte("s3cret-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Source = "/etc/pricewatch/pricewatch.yaml"
	cfg.Log.Level = "warn"
	cfg.HTTP = config.HTTP{Listen: "0.0.0.0:9108", TokenFile: tokenFile}
	cfg.FX.Currency, cfg.FX.Enabled, cfg.FX.Endpoint = "usd", true, "http://ecb.example/daily.xml"
	cfg.Metrics.Offers = config.MetricsOffers{GPUModels: []string{"A100"}, Providers: []string{"aws"}}
	cfg.Storage.MaintenanceSchedule = "@daily"
	cfg.Storage.Retention.ChangesMaxAge = 48 * time.Hour
	cfg.Digest.Enabled, cfg.Digest.Schedule, cfg.Digest.Timezone = true, "0 9 * * 1", "Europe/Berlin"
	cfg.Digest.Channel, cfg.Slack.Channel = "", " C0SLACK "

	snap, err := Snapshot(testRoot(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Source != cfg.Source || snap.LogLevel != "warn" {
		t.Errorf("source %q, log level %q", snap.Source, snap.LogLevel)
	}
	if h := snap.HTTP; h.Listen != "0.0.0.0:9108" || h.Loopback || h.Token != "s3cret-token" || h.TokenErr != nil || h.AllowUnauthenticated {
		t.Errorf("http %+v", h)
	}
	if snap.FX.Currency != "usd" || snap.Prices.Currency != "USD" || !slices.Equal(snap.Prices.Offers.GPUModels, []string{"A100"}) ||
		!slices.Equal(snap.Prices.Offers.Providers, []string{"aws"}) {
		t.Errorf("fx %+v, prices %+v", snap.FX, snap.Prices)
	}
	if snap.Maintenance != "@daily" || snap.Retention != storage.Retention(cfg.Storage.Retention) {
		t.Errorf("maintenance %q, retention %+v", snap.Maintenance, snap.Retention)
	}
	if snap.Digest == nil || *snap.Digest != (daemon.DigestSchedule{Schedule: "0 9 * * 1", Timezone: "Europe/Berlin"}) {
		t.Errorf("digest schedule %+v", snap.Digest)
	}
	if !slices.Contains(snap.Secrets, "s3cret-token") {
		t.Errorf("the token is not among the snapshot's secrets")
	}
	var want []string
	for name, c := range cfg.Providers.Commons() {
		if c.Enabled {
			want = append(want, name)
		}
	}
	var got []string
	for _, j := range snap.Jobs {
		got = append(got, j.Name)
		if c := cfg.Providers.Commons()[j.Name]; j.Schedule != c.Schedule || j.Timeout != c.Timeout || j.Guard == nil || j.Scrub == nil {
			t.Errorf("job %s: schedule %q timeout %s, guard or scrubber missing", j.Name, j.Schedule, j.Timeout)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) || len(got) == 0 {
		t.Errorf("jobs %q, want the enabled providers %q", got, want)
	}
	if e := snap.Expected(fixedNow()); len(e) != len(want) {
		t.Errorf("expected intervals %v, want one per enabled provider", e)
	}
	if u, ok := snap.Rates.(*fx.Updater); !ok || !u.Enabled || u.Endpoint != cfg.FX.Endpoint || u.Client == nil {
		t.Errorf("rates %#v", snap.Rates)
	}
	dg, ok := snap.Digests.(*weekly.Service)
	if !ok || dg.Channel != "C0SLACK" || dg.Timezone != "Europe/Berlin" || dg.FX.Currency != "usd" || dg.SlackToken || dg.SlackTokenErr != nil {
		t.Errorf("digests %#v (channel falls back on slack.channel, trimmed)", snap.Digests)
	}
}

// A digest switched off has no schedule; an unreadable token file does not
// stop the snapshot building but is carried for Start to refuse; an alert
// rule that cannot build stops it.
func TestSnapshotEdges(t *testing.T) {
	cfg := config.Default()
	cfg.Digest.Enabled = false
	cfg.HTTP.TokenFile = filepath.Join(t.TempDir(), "missing")
	snap, err := Snapshot(testRoot(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Digest != nil || snap.HTTP.TokenErr == nil || snap.HTTP.Token != "" || !strings.Contains(snap.HTTP.TokenErr.Error(), "http.token_file") {
		t.Errorf("digest %+v, http %+v", snap.Digest, snap.HTTP)
	}

	cfg = config.Default()
	cfg.Alerts.Rules = []config.Rule{{Name: "odd", Events: []string{"no_such_event"}}}
	if _, err := Snapshot(testRoot(), cfg); err == nil {
		t.Error("a rule with an unknown event built")
	}
}
