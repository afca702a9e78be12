package systemd

import (
	"context"
	"errors"
	"fmt"
	"github.com/pricewatch/pricewatch/internal/testing/wait"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// fakeSystemd listens where systemd would and hands back each datagram.
type fakeSystemd struct {
	t    *testing.T
	conn *net.UnixConn
	addr string
}

// listen starts a fake service manager on a socket path, or on an abstract
// name when abstract is true, and points NOTIFY_SOCKET at it.
func listen(t *testing.T, abstract bool) *fakeSystemd {
	t.Helper()
	var addr string
	if abstract {
		addr = fmt.Sprintf("@pricewatch-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	} else {
		// t.TempDir paths carry the test name and can pass the 108-byte
		// sun_path limit; a short directory of our own cannot.
		dir, err := os.MkdirTemp("", "sdn")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		addr = filepath.Join(dir, "notify")
	}
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: addr, Net: "unixgram"})
	if err != nil {
		t.Fatalf("listening on %s: %v", addr, err)
	}
	t.Cleanup(func() { conn.Close() })
	t.Setenv("NOTIFY_SOCKET", addr)
	return &fakeSystemd{t: t, conn: conn, addr: addr}
}

// next returns the next datagram, or fails the test after wait.
func (f *fakeSystemd) next(wait time.Duration) string {
	f.t.Helper()
	msg, ok := f.poll(wait)
	if !ok {
		f.t.Fatalf("no datagram within %v", wait)
	}
	return msg
}

// poll returns the next datagram if one arrives within wait.
func (f *fakeSystemd) poll(wait time.Duration) (string, bool) {
	f.t.Helper()
	if err := f.conn.SetReadDeadline(time.Now().Add(wait)); err != nil {
		f.t.Fatal(err)
	}
	buf := make([]byte, 4096)
	n, err := f.conn.Read(buf)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return "", false
		}
		f.t.Fatalf("reading datagram: %v", err)
	}
	return string(buf[:n]), true
}

func newNotifier(t *testing.T) *Notifier {
	t.Helper()
	n, err := New()
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return n
}

func TestMessages(t *testing.T) {
	cases := []struct {
		name string
		send func(*Notifier) error
		want string
	}{
		{"ready", (*Notifier).Ready, "READY=1"},
		{"stopping", (*Notifier).Stopping, "STOPPING=1"},
		{"watchdog", (*Notifier).Watchdog, "WATCHDOG=1"},
		{"status", func(n *Notifier) error { return n.Status("aws ok 12:17Z; azure failed") }, "STATUS=aws ok 12:17Z; azure failed"},
		{"status newlines flattened", func(n *Notifier) error { return n.Status("line one\nline two\r\nthree") }, "STATUS=line one line two three"},
		{"extend timeout", func(n *Notifier) error { return n.ExtendTimeout(90 * time.Second) }, "EXTEND_TIMEOUT_USEC=90000000"},
	}
	for _, abstract := range []bool{false, true} {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%s/abstract=%v", tc.name, abstract), func(t *testing.T) {
				sd := listen(t, abstract)
				n := newNotifier(t)
				if !n.Enabled() {
					t.Fatal("Enabled() = false with NOTIFY_SOCKET set")
				}
				if err := tc.send(n); err != nil {
					t.Fatalf("send: %v", err)
				}
				if got := sd.next(time.Second); got != tc.want {
					t.Errorf("datagram = %q, want %q", got, tc.want)
				}
			})
		}
	}
}

func TestReloadingCarriesMonotonicUsec(t *testing.T) {
	sd := listen(t, false)
	n := newNotifier(t)

	before, err := monotonicUsec()
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Reloading(); err != nil {
		t.Fatalf("Reloading: %v", err)
	}
	after, err := monotonicUsec()
	if err != nil {
		t.Fatal(err)
	}

	lines := strings.Split(sd.next(time.Second), "\n")
	if len(lines) != 2 || lines[0] != "RELOADING=1" || !strings.HasPrefix(lines[1], "MONOTONIC_USEC=") {
		t.Fatalf("datagram lines = %q, want RELOADING=1 then MONOTONIC_USEC=…", lines)
	}
	usec, err := strconv.ParseInt(strings.TrimPrefix(lines[1], "MONOTONIC_USEC="), 10, 64)
	if err != nil {
		t.Fatalf("MONOTONIC_USEC not an integer: %v", err)
	}
	if usec < before || usec > after {
		t.Errorf("MONOTONIC_USEC=%d, want CLOCK_MONOTONIC between %d and %d", usec, before, after)
	}
}

func TestUnsetSocketIsNoop(t *testing.T) {
	t.Setenv("NOTIFY_SOCKET", "")
	t.Setenv("WATCHDOG_USEC", "1000000")
	n := newNotifier(t)
	if n.Enabled() {
		t.Fatal("Enabled() = true without NOTIFY_SOCKET")
	}
	for name, send := range map[string]func() error{
		"Ready": n.Ready, "Reloading": n.Reloading, "Stopping": n.Stopping,
		"Watchdog": n.Watchdog, "Status": func() error { return n.Status("x") },
	} {
		if err := send(); err != nil {
			t.Errorf("%s without NOTIFY_SOCKET: %v", name, err)
		}
	}
	if d, err := n.WatchdogInterval(); d != 0 || err != nil {
		t.Errorf("WatchdogInterval() = %v, %v; want 0, nil outside systemd", d, err)
	}
	var zero *Notifier
	if err := zero.Ready(); err != nil {
		t.Errorf("nil Notifier Ready: %v", err)
	}
}

func TestUnsupportedAddress(t *testing.T) {
	t.Setenv("NOTIFY_SOCKET", "vsock:2:1234")
	n, err := New()
	if err == nil || !strings.Contains(err.Error(), "vsock:2:1234") {
		t.Fatalf("New() error = %v, want one naming the address", err)
	}
	if n == nil || n.Enabled() {
		t.Fatal("want a usable, disabled Notifier alongside the error")
	}
	if err := n.Ready(); err != nil {
		t.Errorf("Ready on disabled Notifier: %v", err)
	}
}

func TestSendToMissingSocketFails(t *testing.T) {
	t.Setenv("NOTIFY_SOCKET", filepath.Join(t.TempDir(), "gone"))
	n := newNotifier(t)
	err := n.Ready()
	if err == nil || !strings.Contains(err.Error(), "READY=1") {
		t.Fatalf("Ready() = %v, want an error naming the message", err)
	}
}

func TestWatchdogInterval(t *testing.T) {
	self := strconv.Itoa(os.Getpid())
	cases := []struct {
		name, usec, pid string
		want            time.Duration
		wantErr         bool
	}{
		{name: "off", usec: "", want: 0},
		{name: "on", usec: "60000000", want: time.Minute},
		{name: "our pid", usec: "60000000", pid: self, want: time.Minute},
		{name: "another pid", usec: "60000000", pid: "1", want: 0},
		{name: "bad usec", usec: "sixty", wantErr: true},
		{name: "zero usec", usec: "0", wantErr: true},
		{name: "bad pid", usec: "60000000", pid: "me", wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			listen(t, true)
			t.Setenv("WATCHDOG_USEC", tc.usec)
			t.Setenv("WATCHDOG_PID", tc.pid)
			got, err := newNotifier(t).WatchdogInterval()
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("interval = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestRunWatchdogPingsOnlyWhileHealthy drives the health check by hand and
// counts its calls, so the test waits on the loop's progress rather than
// on the clock.
func TestRunWatchdogPingsOnlyWhileHealthy(t *testing.T) {
	sd := listen(t, false)
	t.Setenv("WATCHDOG_USEC", "40000") // ping every 20ms
	t.Setenv("WATCHDOG_PID", strconv.Itoa(os.Getpid()))
	n := newNotifier(t)

	var unhealthy atomic.Bool
	checks := make(chan error, 100)
	healthy := func(ctx context.Context) error {
		var err error
		if unhealthy.Load() {
			err = errors.New("scheduler heartbeat is 5m old")
		}
		checks <- err
		return err
	}
	core, logs := observer.New(zapcore.DebugLevel)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		n.RunWatchdog(ctx, healthy, zap.New(core))
	}()
	t.Cleanup(func() { cancel(); <-done })

	// Healthy: pings arrive.
	for i := 0; i < 3; i++ {
		if got := sd.next(2 * time.Second); got != "WATCHDOG=1" {
			t.Fatalf("ping %d = %q, want WATCHDOG=1", i, got)
		}
	}

	// Unhealthy: once a check has failed, every ping the loop sent before
	// it is already queued; drain those, then expect silence over several
	// failed checks.
	unhealthy.Store(true)
	waitCheck(t, checks, true)
	for {
		if _, ok := sd.poll(10 * time.Millisecond); !ok {
			break
		}
	}
	for i := 0; i < 4; i++ {
		waitCheck(t, checks, true)
	}
	if msg, ok := sd.poll(5 * time.Millisecond); ok {
		t.Fatalf("got %q while unhealthy, want no ping", msg)
	}
	skipped := logs.FilterMessage("systemd watchdog ping skipped: daemon unhealthy").All()
	if len(skipped) < 5 {
		t.Fatalf("logged %d skips, want one per failed check (≥5)", len(skipped))
	}
	if skipped[0].Level != zapcore.ErrorLevel || skipped[0].ContextMap()["error"] != "scheduler heartbeat is 5m old" {
		t.Errorf("skip log = %v %v, want error level with the health error", skipped[0].Level, skipped[0].ContextMap())
	}

	// Healthy again: pings resume and the recovery is logged once.
	unhealthy.Store(false)
	if got := sd.next(2 * time.Second); got != "WATCHDOG=1" {
		t.Fatalf("after recovery got %q, want WATCHDOG=1", got)
	}
	if got := logs.FilterMessage("daemon healthy again; systemd watchdog pings resumed").Len(); got != 1 {
		t.Errorf("recovery logged %d times, want 1", got)
	}

	cancel()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("RunWatchdog did not return after cancel")
	}
}

// waitCheck waits for the next health check and asserts whether it failed.
func waitCheck(t *testing.T, checks <-chan error, wantFailed bool) {
	t.Helper()
	for {
		select {
		case err := <-checks:
			if (err != nil) == wantFailed {
				return
			}
			// A check that started before the switch; wait for the next.
		case <-time.After(2 * time.Second):
			t.Fatal("health check not called within 2s")
		}
	}
}

func TestRunWatchdogHealthCheckIsBounded(t *testing.T) {
	sd := listen(t, false)
	t.Setenv("WATCHDOG_USEC", "40000")
	n := newNotifier(t)

	// A check that would hang forever must be cut off at half the interval
	// and count as unhealthy rather than stall the loop.
	calls := make(chan error, 10)
	hang := func(ctx context.Context) error {
		<-ctx.Done()
		calls <- ctx.Err()
		return ctx.Err()
	}
	core, logs := observer.New(zapcore.ErrorLevel)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); n.RunWatchdog(ctx, hang, zap.New(core)) }()
	defer func() { cancel(); <-done }()

	for i := 0; i < 2; i++ {
		select {
		case err := <-calls:
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("check %d ended with %v, want deadline exceeded", i, err)
			}
		case <-time.After(2 * time.Second):
			t.Fatal("hung health check was not cut off")
		}
	}
	if msg, ok := sd.poll(5 * time.Millisecond); ok {
		t.Fatalf("got %q after a timed-out check, want no ping", msg)
	}
	wait.For(t, "two log lines", 2*time.Second, func() bool { return logs.Len() >= 2 })
}

func TestRunWatchdogReturnsWhenDisabled(t *testing.T) {
	cases := []struct{ name, usec, pid, wantLog string }{
		{name: "no WATCHDOG_USEC"},
		{name: "meant for another process", usec: "40000", pid: "1"},
		{name: "malformed", usec: "soon", wantLog: "systemd watchdog disabled: cannot read its settings"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sd := listen(t, false)
			t.Setenv("WATCHDOG_USEC", tc.usec)
			t.Setenv("WATCHDOG_PID", tc.pid)
			n := newNotifier(t)
			called := false
			core, logs := observer.New(zapcore.DebugLevel)
			done := make(chan struct{})
			go func() {
				defer close(done)
				n.RunWatchdog(context.Background(), func(context.Context) error { called = true; return nil }, zap.New(core))
			}()
			select {
			case <-done:
			case <-time.After(2 * time.Second):
				t.Fatal("RunWatchdog kept running with the watchdog off")
			}
			if called {
				t.Error("health check called with the watchdog off")
			}
			if msg, ok := sd.poll(5 * time.Millisecond); ok {
				t.Errorf("got %q with the watchdog off", msg)
			}
			if tc.wantLog != "" && logs.FilterMessage(tc.wantLog).Len() != 1 {
				t.Errorf("want log %q, got %v", tc.wantLog, logs.All())
			}
		})
	}
}

func TestRunWatchdogNilHealthCheckPings(t *testing.T) {
	sd := listen(t, false)
	t.Setenv("WATCHDOG_USEC", "40000")
	n := newNotifier(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); n.RunWatchdog(ctx, nil, zap.NewNop()) }()
	defer func() { cancel(); <-done }()
	if got := sd.next(2 * time.Second); got != "WATCHDOG=1" {
		t.Fatalf("got %q, want WATCHDOG=1", got)
	}
}
