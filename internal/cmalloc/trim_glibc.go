//go:build linux && cgo

package cmalloc

/*
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

// trim is malloc_trim(0) where the C library is glibc's (musl has none).
static void trim(void) {
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}

static int is_glibc(void) {
#ifdef __GLIBC__
	return 1;
#else
	return 0;
#endif
}

// hold_freed leaves n blocks of size bytes freed but resident in the
// heap, below one block kept (so that free() cannot return them by
// shrinking the heap's top), and returns the kept block.
static void *hold_freed(int n, size_t size) {
	void **blocks = malloc(n * sizeof(void *));
	for (int i = 0; i < n; i++) {
		blocks[i] = malloc(size);
		memset(blocks[i], 1, size);
	}
	void *top = malloc(64);
	for (int i = 0; i < n; i++) {
		free(blocks[i]);
	}
	free(blocks);
	return top;
}
*/
import "C"

import "unsafe"

// Release returns the free memory of every malloc arena to the system
// (glibc's malloc_trim(3); nothing on another C library), as
// debug.FreeOSMemory does for Go's heap.
func Release() { C.trim() }

// glibc says whether the C library is glibc's (for the test).
func glibc() bool { return C.is_glibc() == 1 }

// holdFreed leaves n blocks of size bytes freed but resident (for the
// test); free the pointer it returns when done.
func holdFreed(n, size int) unsafe.Pointer { return C.hold_freed(C.int(n), C.size_t(size)) }

func free(p unsafe.Pointer) { C.free(p) }
