//go:build !linux

package web

import "time"

// threadCPU: not told on this platform (computeCost falls back to wall
// time).
func threadCPU() (time.Duration, bool) { return 0, false }
