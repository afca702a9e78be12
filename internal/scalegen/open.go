package scalegen

import (
	"context"
	"os"
	"runtime/debug"
	"testing"
)

// DaemonMemoryLimit is the Go heap's soft limit the daemon runs under when
// GOMEMLIMIT does not set one (cmd/pricewatch's defaultMemoryLimit).
const DaemonMemoryLimit = 96 << 20

// OpenCopy opens a copy of the cached scale database of share (built on
// first use) in a temporary directory of tb, closed when tb ends: a
// benchmark must not migrate the cache or leave WAL files beside it.
func OpenCopy(tb testing.TB, share float64) *Sim {
	tb.Helper()
	ctx := context.Background()
	d := Default(share)
	cached, err := Cached(ctx, d, os.Stderr)
	if err != nil {
		tb.Fatal(err)
	}
	path, err := CopyTo(cached, tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	return OpenPath(tb, path, share)
}

// OpenPath opens the scale database of share at path (a file or a
// PostgreSQL DSN), closed when tb ends.
func OpenPath(tb testing.TB, path string, share float64) *Sim {
	tb.Helper()
	sim, err := Open(context.Background(), path, Default(share))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { sim.Close() })
	return sim
}

// LimitMemory puts the process under the daemon's soft memory limit until
// tb ends, unless GOMEMLIMIT says otherwise, so that a benchmark measures
// the garbage collection the daemon does.
func LimitMemory(tb testing.TB) {
	if os.Getenv("GOMEMLIMIT") == "" {
		old := debug.SetMemoryLimit(DaemonMemoryLimit)
		tb.Cleanup(func() { debug.SetMemoryLimit(old) })
	}
}
