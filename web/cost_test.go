package web

import (
	"runtime"
	"testing"
	"time"
)

// An answer's cost is the CPU its computation took, not the time it
// waited (for a core, a lock, the database's disk): issue 30's wall
// costs ranked the overview by the load of the moment.
func TestComputeCostIsCPUNotWaiting(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("a thread's CPU time is read on Linux only; elsewhere the cost is wall time")
	}
	waited := computeCost(func() { time.Sleep(100 * time.Millisecond) })
	if waited >= 50*time.Millisecond {
		t.Errorf("100 ms asleep cost %v, want well under it (CPU, not wall)", waited)
	}
	worked := computeCost(func() {
		for start, _ := threadCPU(); ; {
			if now, _ := threadCPU(); now-start >= 20*time.Millisecond {
				return
			}
		}
	})
	if worked < 20*time.Millisecond {
		t.Errorf("20 ms of CPU cost %v", worked)
	}
}
