package azurecn

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/fetchers/azurecn/azurecntest"
)

// heapPeak samples the heap in use until the returned stop is called,
// which returns the highest sample.
func heapPeak() (stop func() uint64) {
	var (
		mu   sync.Mutex
		peak uint64
		done = make(chan struct{})
		wg   sync.WaitGroup
	)
	sample := func() {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		mu.Lock()
		peak = max(peak, m.HeapInuse)
		mu.Unlock()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				sample()
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		sample()
		return peak
	}
}

// peakRSS is the process's high-water resident set (Linux VmHWM), in
// bytes; 0 where /proc does not tell.
func peakRSS() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// BenchmarkStreamSheet reads a generated 256 MB sheet (fake storage host
// to fetcher over loopback, parsed and mapped as it arrives) and reports
// throughput, the heap's peak and the process's peak RSS (docs/scale.md).
func BenchmarkStreamSheet(b *testing.B) {
	const size = 256 << 20
	srv := azurecntest.New(b)
	srv.Generate(generate(size))
	b.SetBytes(size)
	stop := heapPeak()
	for range b.N {
		if _, err := fetch(b, srv, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(stop())/(1<<20), "heap-peak-MB")
	b.ReportMetric(float64(peakRSS())/(1<<20), "peak-RSS-MB")
}
