// Package wait is the tests' one poll for a condition that other
// goroutines or processes make true.
package wait

import (
	"testing"
	"time"
)

// For polls cond until it holds, failing t (naming what) when within has
// passed. It polls a hundred times over within, between every millisecond
// and every tenth of a second, so that a short wait reacts quickly and a
// long one (a process starting) does not load the machine.
func For(t testing.TB, what string, within time.Duration, cond func() bool) {
	t.Helper()
	step := min(max(within/100, time.Millisecond), 100*time.Millisecond)
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(step) {
		if cond() {
			return
		}
	}
	if cond() {
		return
	}
	t.Fatalf("timed out after %s waiting for %s", within, what)
}
