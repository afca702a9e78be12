// Package cputime is what the benchmarks and load tests read of the
// process's CPU use (beside internal/heappeak's peak heap).
package cputime

import (
	"syscall"
	"time"
)

// Self is the process's user and system CPU time so far (0 where the
// system does not say).
func Self() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
