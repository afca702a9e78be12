//go:build linux && cgo

package cmalloc

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// Memory freed in C but kept by malloc below a block in use is handed
// back: the process's resident memory falls by most of it.
func TestReleaseReturnsFreedMemory(t *testing.T) {
	if !glibc() {
		t.Skip("malloc_trim(3) is glibc's")
	}
	const n, size = 256, 64 << 10 // 16 MiB, blocks under malloc's mmap threshold
	top := holdFreed(n, size)
	defer free(top)
	before := resident(t)
	Release()
	after := resident(t)
	if before-after < n*size/2 {
		t.Errorf("resident %d bytes before Release, %d after: want at least %d fewer", before, after, n*size/2)
	}
}

// resident is the process's resident memory in bytes (/proc/self/statm).
func resident(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	pages, err := strconv.Atoi(f[1])
	if err != nil {
		t.Fatal(err)
	}
	return pages * os.Getpagesize()
}
