package scalegen

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/pricewatch/pricewatch/internal/heappeak"
)

// WrittenBytes is how many bytes this process has written through write
// calls so far (Linux /proc/self/io wchar; 0 elsewhere). Around a store
// step it counts what SQLite wrote to the database and WAL files.
func WrittenBytes() int64 {
	f, err := os.Open("/proc/self/io")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "wchar:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// PeakHeap is the most heap in use while fn runs, in bytes, sampled as
// heappeak samples it for the fetchers' benchmarks, so that the scale
// and fetcher peaks read alike.
func PeakHeap(fn func()) uint64 {
	stop := heappeak.Start()
	fn()
	return stop()
}

// CPUTime is the CPU time (user and system) this process has used.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
