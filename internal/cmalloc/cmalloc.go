// Package cmalloc hands the C heap's free memory back to the system. The
// daemon's C memory is SQLite's (through cgo): glibc's malloc keeps what
// SQLite frees for its next allocations, and a burst (a large read, a
// retention pass) stays resident after it.
package cmalloc
