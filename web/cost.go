package web

import (
	"runtime"
	"time"
)

// computeCost runs compute on one OS thread and is the CPU time that
// thread spent in it (SQLite's cgo calls included), or its wall time
// where the platform cannot tell a thread's CPU time.
//
// Issue 30: measured as wall time, an answer's cost counted the time its
// goroutine waited for a core; under 200 clients the overview's went
// from 138 to 545 ms between rounds, and the refresh order (least cost
// per asking first) moved with the load, not with the work.
//
// A computation waiting (for the limiter, the database) keeps its thread
// meanwhile, and the runtime starts another for the others: the daemon
// ran 9-13 threads through the load test's profiles.
func computeCost(compute func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := time.Now()
	cpu0, ok0 := threadCPU()
	compute()
	if cpu1, ok1 := threadCPU(); ok0 && ok1 {
		return cpu1 - cpu0
	}
	return time.Since(start)
}
