package main

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/internal/testing/wait"
)

// serveInProcess runs the daemon ("run") with the config at cfgPath until
// the test ends, waits until its listener on port answers /readyz and
// returns its base URL and the function that stops it (to defer, so that
// it stops before the fakes it reads close): cancelled, the daemon must
// exit 0 within a minute.
func serveInProcess(t *testing.T, cfgPath, port string) (base string, stop func()) {
	t.Helper()
	stop, _ = runInProcess(t, cfgPath)
	base = "http://127.0.0.1:" + port
	waitOK(t, base+"/readyz", 60*time.Second)
	return base, stop
}

// runInProcess runs the daemon ("run") with the config at cfgPath in this
// process. stop cancels it and wants it to exit 0 within a minute; logs
// is what it has written to stdout and stderr so far.
func runInProcess(t *testing.T, cfgPath string) (stop func(), logs func() string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"--config", cfgPath, "run"}, &stdout, &stderr) }()
	stop = func() {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("daemon exit %d: %s", code, stderr.String())
			}
		case <-time.After(60 * time.Second):
			t.Error("the daemon did not stop")
		}
	}
	return stop, func() string { return stdout.String() + stderr.String() }
}

// waitOK waits until url answers 200 OK.
func waitOK(t *testing.T, url string, within time.Duration) {
	t.Helper()
	wait.For(t, url+" to answer 200", within, func() bool {
		resp, err := http.Get(url)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}
