package heappeak

import (
	"runtime"
	"testing"
	"time"
)

// A peak covers what the work held at its highest.
func TestStartSeesWhatWasHeld(t *testing.T) {
	stop := Start()
	held := make([]byte, 64<<20)
	for i := range held {
		held[i] = byte(i)
	}
	runtime.KeepAlive(held)
	if peak := stop(); peak < 64<<20 {
		t.Errorf("peak %d bytes, want at least the 64 MiB held", peak)
	}
}

// The live peak covers what was held through a collection, and counts
// less than the heap in use over the same work, which holds the garbage
// made beside it until it is swept.
func TestStartLiveSeesWhatWasHeldLive(t *testing.T) {
	runtime.GC()
	stopInUse, stopLive := Start(), StartLive()
	held := make([]byte, 64<<20)
	// 512 MiB of garbage, 1 MiB at a time, beside what is held.
	for range 512 {
		garbage := make([]byte, 1<<20)
		runtime.KeepAlive(garbage)
	}
	runtime.GC() // marks what is live now: what was held
	time.Sleep(5 * time.Millisecond)
	runtime.KeepAlive(held)
	live, inUse := stopLive(), stopInUse()
	if live < 64<<20 {
		t.Errorf("live peak %d bytes, want at least the 64 MiB held", live)
	}
	if live >= inUse {
		t.Errorf("live peak %d bytes, heap in use at most %d: want the garbage left out", live, inUse)
	}
}
