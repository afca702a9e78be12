package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/internal/testing/wait"
	"github.com/pricewatch/pricewatch/storage"
)

// syncBuffer collects a child's stderr while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// daemonProcess is `pricewatch run` started by a test.
type daemonProcess struct {
	cmd    *exec.Cmd
	stderr *syncBuffer
	exited chan error
}

// startDaemon starts `pricewatch run --config cfgPath` with env added to
// the test's environment; the test's cleanup kills it and, when the test
// failed, logs its stderr.
func startDaemon(t *testing.T, bin, cfgPath string, env ...string) *daemonProcess {
	t.Helper()
	d := &daemonProcess{cmd: exec.Command(bin, "run", "--config", cfgPath), stderr: &syncBuffer{}, exited: make(chan error, 1)}
	d.cmd.Env = append(os.Environ(), env...)
	d.cmd.Stderr = d.stderr
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { d.exited <- d.cmd.Wait() }()
	t.Cleanup(func() {
		d.cmd.Process.Kill()
		<-d.exited
		if t.Failed() {
			t.Logf("daemon stderr:\n%s", d.stderr.String())
		}
	})
	return d
}

// stop sends SIGTERM and waits at most within for a clean exit; it
// returns how long stopping took.
func (d *daemonProcess) stop(t *testing.T, within time.Duration) time.Duration {
	t.Helper()
	began := time.Now()
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-d.exited:
		d.exited <- err // for the cleanup
		if err != nil {
			t.Fatalf("daemon exited with %v", err)
		}
	case <-time.After(within):
		t.Fatalf("daemon did not stop within %s of SIGTERM", within)
	}
	return time.Since(began)
}

// shortSkipsBinary skips the test under -short, saying why (it runs the
// binary, or starts a real daemon), and builds the binary otherwise.
func shortSkipsBinary(t *testing.T, why string) string {
	t.Helper()
	if testing.Short() {
		t.Skip(why)
	}
	return buildBinary(t)
}

func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "pricewatch")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building pricewatch: %v\n%s", err, out)
	}
	return bin
}

func daemonConfig(dir, azureURL, slackURL, channel, extra string) string {
	return testConfig{
		logLevel: "info",
		logJSON:  true,
		http:     "http:\n  listen: \"\"\n",
		clouds:   []cloud{azureCloud(azureURL, "    schedule: \"@every 1s\"\n")},
		slack:    fakeSlackSection(slackURL, channel),
		alerts: `alerts:
  rules:
    - name: new-h100
      events: [availability_new]
      gpu_models: [H100]
    - name: drops
      events: [price_drop]
      min_change_pct: 5
`,
		extra: extra,
	}.yaml(dir)
}

// addAzureItem appends one item, in the page's own format, to a fake page.
func (f *fakeAzure) addItem(t *testing.T, page string, item map[string]any) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	var env map[string]json.RawMessage
	if err := json.Unmarshal(f.pages[page], &env); err != nil {
		t.Fatal(err)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(env["Items"], &items); err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(item)
	if err != nil {
		t.Fatal(err)
	}
	items = append(items, raw)
	env["Items"], _ = json.Marshal(items)
	env["Count"], _ = json.Marshal(len(items))
	if f.pages[page], err = json.Marshal(env); err != nil {
		t.Fatal(err)
	}
}

// daemonWorld is what a daemon test starts from: the built binary, a fake
// Azure, a fake Slack and a folder for the config and the database.
type daemonWorld struct {
	bin          string
	az           *fakeAzure
	slack        *slackAPI
	dir, cfgPath string
}

// newDaemonWorld skips the test under -short (see shortSkipsBinary).
func newDaemonWorld(t *testing.T) *daemonWorld {
	t.Helper()
	bin := shortSkipsBinary(t, "starts a real daemon")
	dir := t.TempDir()
	return &daemonWorld{bin: bin, az: newFakeAzure(t), slack: newSlackAPI(t), dir: dir, cfgPath: filepath.Join(dir, "pricewatch.yaml")}
}

// writeConfig (re)writes the daemon's config with alerts going to channel.
func (w *daemonWorld) writeConfig(t *testing.T, channel string) {
	t.Helper()
	writeFile(t, w.cfgPath, daemonConfig(w.dir, w.az.URL, w.slack.URL, channel, ""))
}

// TestDaemonScenario runs `pricewatch run` as a real process against a fake
// Azure and a fake Slack: a baseline, a price drop and an H100 in a new
// region while Slack is down, an invalid and then a valid SIGHUP reload that
// moves alerts to another channel, and SIGTERM.
func TestDaemonScenario(t *testing.T) {
	w := newDaemonWorld(t)
	bin, az, slack, dir, cfgPath := w.bin, w.az, w.slack, w.dir, w.cfgPath
	w.writeConfig(t, "C0ALERTS")

	notify := listenNotify(t)
	daemon := startDaemon(t, bin, cfgPath, "PRICEWATCH_SLACK_TOKEN="+alertsToken, "NOTIFY_SOCKET="+notify.path, "WATCHDOG_USEC=1000000")
	cmd, stderr := daemon.cmd, daemon.stderr

	ctx := context.Background()
	db := openTestDB(t, filepath.Join(dir, "pw.db"))
	defer db.Close()
	okRuns := func() int {
		runs, err := db.Runs(ctx, 1000)
		if err != nil {
			return 0
		}
		n := 0
		for _, r := range runs {
			if r.Status == pricewatch.RunOK {
				n++
			}
		}
		return n
	}
	wait.For(t, "the baseline run", 30*time.Second, func() bool { return okRuns() >= 2 })
	if got := slack.received(); len(got) != 0 {
		t.Fatalf("the baseline alerted: %+v", got)
	}

	// Slack goes down; meanwhile a price drops 11.5% and an H100 size shows
	// up in a region it was never offered in.
	slack.mu.Lock()
	slack.script = []string{"500", "500", "429"}
	slack.mu.Unlock()
	az.setPrice(t, "1", `"retailPrice": 32.77,`, `"retailPrice": 29.0,`)
	az.setPrice(t, "1", `"unitPrice": 32.77,`, `"unitPrice": 29.0,`)
	az.addItem(t, "2", map[string]any{
		"currencyCode": "USD", "tierMinimumUnits": 0.0, "retailPrice": 98.32, "unitPrice": 98.32,
		"armRegionName": "swedencentral", "location": "Sweden Central", "effectiveStartDate": "2026-11-01T00:00:00Z",
		"meterId": "0c1d2e3f-4a5b-5c6d-8e7f-9a0b1c2d3e4f", "meterName": "ND96isr H100 v5", "productId": "DZH318Z0NJ3T",
		"skuId": "DZH318Z0NJ3T/0012", "productName": "Virtual Machines NDsr H100 v5 Series", "skuName": "ND96isr H100 v5",
		"serviceName": "Virtual Machines", "serviceId": "DZH313Z7MMC8", "serviceFamily": "Compute", "unitOfMeasure": "1 Hour",
		"type": "Consumption", "isPrimaryMeterRegion": true, "armSkuName": "Standard_ND96isr_H100_v5",
	})
	// The outage: 500, 500, then 429 with Retry-After, then Slack recovers
	// and both alerts arrive.
	wait.For(t, "both alerts after the outage", 60*time.Second, func() bool { return len(slack.received()) >= 2 })
	slack.mu.Lock()
	left := len(slack.script)
	slack.mu.Unlock()
	if left != 0 {
		t.Errorf("Slack's failures were not all met (%d left): the daemon did not retry through them", left)
	}
	got := slack.received()
	var sawDrop, sawH100 bool
	for _, p := range got {
		if p.channel != "C0ALERTS" {
			t.Errorf("alert to %q, want C0ALERTS", p.channel)
		}
		sawDrop = sawDrop || strings.Contains(p.text, "Standard_ND96amsr_A100_v4")
		sawH100 = sawH100 || (strings.Contains(p.text, "Standard_ND96isr_H100_v5") && strings.Contains(p.text, "swedencentral"))
	}
	if !sawDrop || !sawH100 {
		t.Errorf("want a price-drop alert for ND96amsr and a new-region alert for ND96isr H100 in swedencentral, got %+v", got)
	}

	// An invalid config is refused and the daemon keeps running on the old one.
	writeFile(t, cfgPath, "database:\n  path: [oops\n")
	cmd.Process.Signal(syscall.SIGHUP)
	wait.For(t, "the invalid reload to be refused", 10*time.Second, func() bool {
		return strings.Contains(stderr.String(), "config reload failed; keeping the running config")
	})

	// A valid reload moves alerts to another channel.
	w.writeConfig(t, "C0NEWCHAN")
	cmd.Process.Signal(syscall.SIGHUP)
	wait.For(t, "the reload", 10*time.Second, func() bool { return strings.Contains(stderr.String(), "config reloaded") })
	before := okRuns()
	wait.For(t, "a run on the new config", 20*time.Second, func() bool { return okRuns() > before+1 })
	az.setPrice(t, "1", `"retailPrice": 29.0,`, `"retailPrice": 25.0,`)
	az.setPrice(t, "1", `"unitPrice": 29.0,`, `"unitPrice": 25.0,`)
	wait.For(t, "the alert in the new channel", 30*time.Second, func() bool { return len(slack.received()) >= 3 })
	if p := slack.received()[2]; p.channel != "C0NEWCHAN" || !strings.Contains(p.text, "Standard_ND96amsr_A100_v4") {
		t.Errorf("after reload: %+v, want the ND96amsr drop in C0NEWCHAN", p)
	}

	// SIGTERM: a clean exit, well inside systemd's stop timeout.
	if took := daemon.stop(t, 20*time.Second); took > 15*time.Second {
		t.Errorf("stopping took %s", took)
	}

	// Every alert arrived exactly once; nothing is left queued.
	keys := map[string]int{}
	for _, p := range slack.received() {
		keys[p.key]++
	}
	for k, n := range keys {
		if n != 1 {
			t.Errorf("message %s delivered %d times", k, n)
		}
	}
	pending, err := db.ListOutbox(ctx, storage.OutboxFilter{Status: "pending"})
	if err != nil {
		t.Fatal(err)
	}
	if len(pending) != 0 {
		t.Errorf("%d messages still pending after the daemon stopped", len(pending))
	}
	// The database: three on-demand intervals for the A100 VM, the H100 in
	// swedencentral offered, no run left marked running.
	hist, err := db.Prices(ctx, storage.PriceFilter{InstanceType: "Standard_ND96amsr_A100_v4", PriceTypes: nil})
	if err != nil {
		t.Fatal(err)
	}
	var onDemand []string
	for _, h := range hist {
		if h.PriceType == "on_demand" {
			onDemand = append(onDemand, h.Hourly.String())
		}
	}
	if strings.Join(onDemand, ",") != "32.77,29,25" {
		t.Errorf("on-demand intervals %v, want 32.77, 29, 25", onDemand)
	}
	avail, err := db.Availability(ctx, storage.AvailabilityFilter{InstanceType: "Standard_ND96isr_H100_v5"})
	if err != nil || len(avail) != 1 || avail[0].Region != "swedencentral" {
		t.Errorf("H100 availability %+v, %v", avail, err)
	}
	runs, _ := db.Runs(ctx, 1000)
	for _, r := range runs {
		if r.Status == pricewatch.RunRunning {
			t.Errorf("run %d left running", r.ID)
		}
	}
	if strings.Contains(stderr.String(), alertsToken) {
		t.Error("the Slack token appears in the daemon's log")
	}

	// What systemd was told, in order: ready, watchdog pings while healthy,
	// a reload bracketed by RELOADING (with MONOTONIC_USEC) and READY, and
	// STOPPING at the end.
	var seq []string
	watchdogs := 0
	for _, m := range notify.messages() {
		switch {
		case m == "WATCHDOG=1":
			watchdogs++
		case strings.HasPrefix(m, "RELOADING=1\nMONOTONIC_USEC="):
			seq = append(seq, "RELOADING")
		case m == "READY=1" || m == "STOPPING=1":
			seq = append(seq, strings.TrimSuffix(m, "=1"))
		}
	}
	// Two reloads (the refused one is still bracketed): READY, then
	// RELOADING/READY twice, then STOPPING.
	if want := "READY RELOADING READY RELOADING READY STOPPING"; strings.Join(seq, " ") != want {
		t.Errorf("sd_notify sequence %q, want %q", strings.Join(seq, " "), want)
	}
	if watchdogs < 5 {
		t.Errorf("%d watchdog pings over the run, want one every half second", watchdogs)
	}
}

type notifySocket struct {
	path string
	mu   sync.Mutex
	msgs []string
}

// listenNotify is a fake systemd NOTIFY_SOCKET collecting datagrams.
func listenNotify(t *testing.T) *notifySocket {
	t.Helper()
	dir, err := os.MkdirTemp("", "pwn") // short: socket paths are limited to 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	n := &notifySocket{path: filepath.Join(dir, "notify")}
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: n.path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	go func() {
		buf := make([]byte, 4096)
		for {
			k, err := conn.Read(buf)
			if err != nil {
				return
			}
			n.mu.Lock()
			n.msgs = append(n.msgs, string(buf[:k]))
			n.mu.Unlock()
		}
	}()
	return n
}

func (n *notifySocket) messages() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.msgs...)
}
