package heappeak

import (
	"runtime"
	"testing"
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
