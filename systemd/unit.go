package systemd

import (
	_ "embed"
	"slices"
	"strings"
)

//go:embed pricewatch.service
var unit string

// memoryKeys are the environment variables of the unit that shape the
// daemon's memory.
var memoryKeys = []string{"GOMEMLIMIT", "MALLOC_ARENA_MAX"}

// MemoryEnvironment is what the unit sets in the daemon's environment that
// shapes its memory (the Go heap's soft limit, glibc's malloc arenas), as
// KEY=value: the load test runs the daemon with it, so that its figures
// are the unit's (internal/loadgen).
func MemoryEnvironment() []string {
	var env []string
	for _, line := range strings.Split(unit, "\n") {
		kv, ok := strings.CutPrefix(strings.TrimSpace(line), "Environment=")
		if !ok {
			continue
		}
		if key, _, _ := strings.Cut(kv, "="); slices.Contains(memoryKeys, key) {
			env = append(env, kv)
		}
	}
	return env
}
