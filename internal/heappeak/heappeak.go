// Package heappeak measures the most heap a piece of work held, for the
// benchmarks and memory tests that state a peak (the fetchers' large
// answers, the cold AWS cycle, the Azure China sheet, the scale
// benchmarks through scalegen.PeakHeap).
package heappeak

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// Start samples the heap in use (live objects and the unused part of their
// spans, what runtime.MemStats calls HeapInuse, read through
// runtime/metrics, which does not stop the world) every 2 ms until the
// returned stop is called; stop returns the highest sample, in bytes. A
// GC first, so the peak is the work's and not garbage left before it.
func Start() (stop func() uint64) {
	runtime.GC()
	samples := newSamples()
	return highest(2*time.Millisecond, func() uint64 { return inUse(samples) })
}

// StartLive samples the live heap as the last collection marked it
// (/gc/heap/live:bytes) every millisecond until the returned stop, which
// returns the highest: what a piece of work held live at once, without
// the garbage Start's in-use bytes count until the next sweep. Its
// samples are as dense as the collections: run under a low GOGC.
func StartLive() (stop func() uint64) {
	samples := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	return highest(time.Millisecond, func() uint64 {
		metrics.Read(samples)
		return samples[0].Value.Uint64()
	})
}

// highest calls sample every period until the returned stop, which
// samples once more and returns the highest sample.
func highest(period time.Duration, sample func() uint64) (stop func() uint64) {
	var peak atomic.Uint64
	read := func() {
		if v := sample(); v > peak.Load() {
			peak.Store(v)
		}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			read()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		read()
		return peak.Load()
	}
}

// Held is the heap in use as Start samples it, after a collection: what
// is held before a piece of work whose peak Start measures.
func Held() uint64 {
	runtime.GC()
	return inUse(newSamples())
}

func newSamples() []metrics.Sample {
	return []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
}

// inUse reads the samples: live objects and their spans' unused part.
func inUse(samples []metrics.Sample) uint64 {
	metrics.Read(samples)
	return samples[0].Value.Uint64() + samples[1].Value.Uint64()
}
