//go:build !(linux && cgo)

package cmalloc

// Release does nothing without cgo on Linux.
func Release() {}
