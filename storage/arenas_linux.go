//go:build linux && cgo

package storage

/*
#include <stdlib.h>
#include <malloc.h>

// SQLite allocates its page caches and statements with malloc, from
// whichever OS thread the Go scheduler runs the cgo call on. glibc gives
// a thread that finds the arenas busy an arena of its own, up to eight
// per core, and keeps the pages freed into each. On the share-1 scale
// database, after the same 120 computed views, the daemon's memory
// outside the Go heap in use was 8-15 MB smaller with two arenas, its
// high-water RSS 6-8 MB lower (docs/scale.md, "The refresh round ordered
// by what is asked now"). An operator's own MALLOC_ARENA_MAX is left as
// set. This runs as the program loads, before any thread allocates.
static void pricewatch_arenas(void) __attribute__((constructor));
static void pricewatch_arenas(void) {
#ifdef M_ARENA_MAX
	if (getenv("MALLOC_ARENA_MAX") == NULL) {
		mallopt(M_ARENA_MAX, 2);
	}
#endif
}
*/
import "C"
