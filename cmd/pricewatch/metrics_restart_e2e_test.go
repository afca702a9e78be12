package main

import (
	"bytes"
	"io"
	"net/http"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/internal/testing/promtool"
	"github.com/pricewatch/pricewatch/internal/testing/wait"
)

// TestDaemonRestartKeepsLastSuccess restarts for real: Azure succeeds once
// (`pricewatch fetch`), then `pricewatch run` starts as a new process while
// every Azure response is cut short. Its /metrics must still carry Azure's
// last-success time, equal to the stored run's, once a run after the
// restart has failed; the scrape passes `promtool check metrics`.
func TestDaemonRestartKeepsLastSuccess(t *testing.T) {
	bin := buildBinary(t)
	az := newFakeAzure(t)
	dir := t.TempDir()
	addr := "127.0.0.1:" + freePort(t)
	cfgPath := testConfig{
		http:   "http:\n  listen: " + addr + "\n",
		clouds: []cloud{azureCloud(az.URL, westus2+"    schedule: \"@every 1s\"\n")},
	}.write(t, dir)
	rawCLI(t, "--config", cfgPath, "fetch", "--provider", "azure")
	want := lastSuccessThenCut(t, cfgPath, az)
	cmd := exec.Command(bin, "run", "--config", cfgPath)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	var body []byte
	wait.For(t, "a failed Azure run after the restart on /metrics", 60*time.Second, func() bool {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		body, _ = io.ReadAll(resp.Body)
		return bytes.Contains(body, []byte(`pricewatch_fetch_runs_total{provider="azure",result="error"}`))
	})
	got, found := parseScrape(t, string(body)).gauge("pricewatch_fetch_last_success_timestamp_seconds", map[string]string{"provider": "azure"})
	if !found || got != want {
		t.Errorf("after the restart: last success %v (present %v), want %v\n%s", got, found, want, stderr.String())
	}
	if path, ok := promtool.Find(t); ok {
		promtool.CheckMetrics(t, path, body)
	}
}
