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
	base, stop, _ = serveInProcessLogged(t, cfgPath, port)
	return base, stop
}

// serveInProcessLogged is serveInProcess, also returning what the daemon
// has written to stdout and stderr so far.
func serveInProcessLogged(t *testing.T, cfgPath, port string) (base string, stop func(), logs func() string) {
	t.Helper()
	stop, logs, exited := startInProcess(t, cfgPath)
	base = "http://127.0.0.1:" + port
	// A daemon that could not start (its port taken, say) fails the test
	// with its own words, not after a wait for someone else's listener.
	wait.For(t, base+"/readyz to answer 200", 60*time.Second, func() bool {
		select {
		case <-exited:
			t.Fatalf("the daemon exited before it was ready:\n%s", logs())
		default:
		}
		resp, err := readyClient.Get(base + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return base, stop, logs
}

// readyClient asks for /readyz: a listener that never answers is asked
// again, not waited on past the test's deadline.
var readyClient = &http.Client{Timeout: 5 * time.Second}

// startInProcess runs the daemon ("run") with the config at cfgPath in
// this process. stop cancels it and wants it to exit 0 within a minute;
// logs is what it has written to stdout and stderr so far; exited is
// closed when it has exited.
func startInProcess(t *testing.T, cfgPath string) (stop func(), logs func() string, exited <-chan struct{}) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	done := make(chan struct{})
	var code int
	go func() {
		defer close(done)
		code = run(ctx, []string{"--config", cfgPath, "run"}, &stdout, &stderr)
	}()
	stop = func() {
		cancel()
		select {
		case <-done:
			if code != 0 {
				t.Errorf("daemon exit %d: %s", code, stderr.String())
			}
		case <-time.After(60 * time.Second):
			t.Error("the daemon did not stop")
		}
	}
	return stop, func() string { return stdout.String() + stderr.String() }, done
}
