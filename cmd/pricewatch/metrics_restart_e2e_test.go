package main

import (
	"bytes"
	"github.com/pricewatch/pricewatch/internal/testing/wait"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
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
	var got float64
	found := false
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, `pricewatch_fetch_last_success_timestamp_seconds{provider="azure"} `); ok {
			got, err = strconv.ParseFloat(v, 64)
			found = err == nil
		}
	}
	if !found || got != want {
		t.Errorf("after the restart: last success %v (present %v), want %v\n%s", got, found, want, stderr.String())
	}
	if promtool, err := exec.LookPath("promtool"); err == nil {
		check := exec.Command(promtool, "check", "metrics")
		check.Stdin = bytes.NewReader(body)
		if out, err := check.CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) != 0 {
			t.Errorf("promtool check metrics on the daemon's /metrics: %v\n%s", err, out)
		}
	}
}
