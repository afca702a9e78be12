// Package systemd speaks the sd_notify(3) protocol so that pricewatch can
// run as a Type=notify service: readiness, reload and stop notifications,
// status text and watchdog keep-alives. It also holds the unit file, the
// sysusers.d entry and the install script that put the daemon on a host.
//
// Everything here is a no-op when $NOTIFY_SOCKET is unset, so the same
// binary runs unchanged in a terminal, in tests and under systemd.
package systemd

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"
	"golang.org/x/sys/unix"
)

// Notifier sends state changes to the service manager over the datagram
// socket named in $NOTIFY_SOCKET. The zero value and a Notifier built
// outside systemd send nothing. It is safe for concurrent use: every message
// goes out on its own short-lived socket, as libsystemd's sd_notify does,
// which keeps a watchdog goroutine and the main loop from sharing state.
type Notifier struct {
	addr *net.UnixAddr
}

// New returns a Notifier for the socket in $NOTIFY_SOCKET. It fails only
// when the variable names an address family this client cannot reach
// (systemd ≥ 254 may hand out vsock: addresses to VMs); an unset variable
// is not an error but a Notifier that does nothing. The Notifier returned
// with an error is usable too and also does nothing, so a caller can log the
// error and carry on.
func New() (*Notifier, error) {
	n := &Notifier{}
	sock := os.Getenv("NOTIFY_SOCKET")
	switch {
	case sock == "":
		return n, nil
	case strings.HasPrefix(sock, "/"), strings.HasPrefix(sock, "@"):
		// Go's net package maps a leading '@' to the abstract namespace,
		// which is exactly what sd_notify(3) specifies.
		n.addr = &net.UnixAddr{Name: sock, Net: "unixgram"}
		return n, nil
	default:
		return n, fmt.Errorf("NOTIFY_SOCKET=%q: only unix socket paths and @abstract names are supported", sock)
	}
}

// Enabled reports whether messages go anywhere, i.e. whether pricewatch
// runs under a service manager that asked for notifications.
func (n *Notifier) Enabled() bool { return n != nil && n.addr != nil }

// Ready tells systemd that start-up (or a reload) has finished: storage is
// open and the schedules are set.
func (n *Notifier) Ready() error { return n.send("READY=1") }

// Reloading tells systemd that a configuration reload has begun. systemd ≥
// 253 insists on MONOTONIC_USEC in the same datagram and otherwise lets
// `systemctl reload` hang; older versions ignore it. Follow with Ready once
// the reload is done, whether it succeeded or not.
func (n *Notifier) Reloading() error {
	usec, err := monotonicUsec()
	if err != nil {
		return fmt.Errorf("reading CLOCK_MONOTONIC for RELOADING=1: %w", err)
	}
	return n.send("RELOADING=1\nMONOTONIC_USEC=" + strconv.FormatInt(usec, 10))
}

// Stopping tells systemd that shutdown has begun, so that it does not count
// the time spent draining in-flight runs as a hang.
func (n *Notifier) Stopping() error { return n.send("STOPPING=1") }

// Status sets the one-line text `systemctl status` shows. A newline would
// start a new assignment in the protocol, so newlines become spaces.
func (n *Notifier) Status(text string) error {
	return n.send("STATUS=" + strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(text))
}

// ExtendTimeout asks for d more time before systemd gives up on the current
// start-up, reload or stop (a long database migration, a slow drain) instead
// of raising the unit's timeouts for every start.
func (n *Notifier) ExtendTimeout(d time.Duration) error {
	return n.send("EXTEND_TIMEOUT_USEC=" + strconv.FormatInt(d.Microseconds(), 10))
}

// Watchdog sends one keep-alive. Prefer RunWatchdog, which sends them only
// while the daemon is healthy.
func (n *Notifier) Watchdog() error { return n.send("WATCHDOG=1") }

func (n *Notifier) send(state string) error {
	if !n.Enabled() {
		return nil
	}
	conn, err := net.DialUnix("unixgram", nil, n.addr)
	if err != nil {
		return fmt.Errorf("sd_notify %s: connecting to NOTIFY_SOCKET: %w", firstLine(state), err)
	}
	defer conn.Close()
	written, err := conn.Write([]byte(state))
	if err != nil {
		return fmt.Errorf("sd_notify %s: %w", firstLine(state), err)
	}
	if written != len(state) {
		return fmt.Errorf("sd_notify %s: short write (%d of %d bytes)", firstLine(state), written, len(state))
	}
	return nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// monotonicUsec is CLOCK_MONOTONIC in microseconds, the clock systemd
// compares MONOTONIC_USEC against. Go's time package keeps its monotonic
// reading private (and relative to process start), so ask the kernel.
func monotonicUsec() (int64, error) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return 0, err
	}
	return ts.Sec*1_000_000 + ts.Nsec/1_000, nil
}

// WatchdogInterval returns the interval systemd expects keep-alives within
// (WatchdogSec= in the unit), or 0 when the watchdog is off, when pricewatch
// is not under systemd, or when $WATCHDOG_PID names another process (the
// variable leaked into a child).
func (n *Notifier) WatchdogInterval() (time.Duration, error) {
	if !n.Enabled() {
		return 0, nil
	}
	usecText := os.Getenv("WATCHDOG_USEC")
	if usecText == "" {
		return 0, nil
	}
	if pidText := os.Getenv("WATCHDOG_PID"); pidText != "" {
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid <= 0 {
			return 0, fmt.Errorf("WATCHDOG_PID=%q is not a process id", pidText)
		}
		if pid != os.Getpid() {
			return 0, nil
		}
	}
	usec, err := strconv.ParseInt(usecText, 10, 64)
	if err != nil || usec <= 0 {
		return 0, fmt.Errorf("WATCHDOG_USEC=%q is not a positive number of microseconds", usecText)
	}
	return time.Duration(usec) * time.Microsecond, nil
}

// RunWatchdog sends WATCHDOG=1 at half the watchdog interval until ctx is
// done, but only after healthy returns nil. A scheduler that stopped ticking
// or a wedged database therefore makes systemd restart the daemon (with a
// goroutine dump, given the unit's GOTRACEBACK=all and the default
// WatchdogSignal=SIGABRT), while a slow fetch does not. Each health check
// gets at most half the interval; one that takes longer counts as unhealthy.
//
// It returns at once when the watchdog is not enabled, so it can always be
// started in its own goroutine. A nil healthy counts as always healthy.
func (n *Notifier) RunWatchdog(ctx context.Context, healthy func(context.Context) error, log *zap.Logger) {
	if healthy == nil {
		healthy = func(context.Context) error { return nil }
	}
	interval, err := n.WatchdogInterval()
	if err != nil {
		log.Error("systemd watchdog disabled: cannot read its settings", zap.Error(err))
		return
	}
	if interval == 0 {
		return
	}
	period := interval / 2
	log.Debug("systemd watchdog enabled", zap.Duration("interval", interval), zap.Duration("ping_every", period))

	ticker := time.NewTicker(period)
	defer ticker.Stop()
	skipping := false
	for {
		checkCtx, cancel := context.WithTimeout(ctx, period)
		err := healthy(checkCtx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			// Logged at error on every skip: two in a row mean systemd is
			// about to kill the daemon, and this line says why.
			log.Error("systemd watchdog ping skipped: daemon unhealthy",
				zap.Error(err), zap.Duration("watchdog_interval", interval))
			skipping = true
		default:
			if skipping {
				log.Info("daemon healthy again; systemd watchdog pings resumed")
				skipping = false
			}
			if err := n.Watchdog(); err != nil {
				log.Warn("systemd watchdog ping failed", zap.Error(err))
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}
