// Package buildinfo names a build of pricewatch from what the linker and the
// go command stamp into it (a release version, the module version, the VCS
// revision), so that a build from a clone says which commit it is.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Describe names a build: the -ldflags version when a release set it, else
// the module version the go command stamped (a tagged module, or a
// pseudo-version from the VCS), else "dev" with the VCS revision, so that a
// build from a clone says which commit it is rather than only "dev". detail
// adds the revision's commit time and whether the tree had local changes.
func Describe(bi *debug.BuildInfo, ldflags string) (v, detail string) {
	var rev, at string
	modified := false
	if bi != nil {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	var parts []string
	if rev != "" {
		parts = append(parts, "revision "+shortRevision(rev))
	}
	if at != "" {
		parts = append(parts, "committed "+at)
	}
	if modified {
		parts = append(parts, "with local changes")
	}
	detail = strings.Join(parts, ", ")
	switch {
	case ldflags != "":
		return ldflags, detail
	case bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)":
		return bi.Main.Version, detail
	case rev != "":
		v = "dev-" + shortRevision(rev)
		if modified {
			v += "-dirty"
		}
		return v, detail
	}
	return "dev", detail
}

func shortRevision(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}
