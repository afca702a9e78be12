package azurecn

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers/azurecn/azurecntest"
	"github.com/pricewatch/pricewatch/internal/heappeak"
)

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
	stop := heappeak.Start()
	for range b.N {
		if _, err := fetch(b, srv, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(stop())/(1<<20), "heap-peak-MB")
	b.ReportMetric(float64(peakRSS())/(1<<20), "peak-RSS-MB")
}
