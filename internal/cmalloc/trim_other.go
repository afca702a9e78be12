//go:build !(linux && cgo)

package cmalloc

// Release does nothing where malloc_trim(3) is not glibc's.
func Release() {}
