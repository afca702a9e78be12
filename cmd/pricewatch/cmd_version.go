package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = ""

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintf(a.stdout, "pricewatch %s\n", buildDescription())
			return nil
		},
	}
}

// buildVersion is the version as one token (a metrics label, a log field,
// the Slack test message).
func buildVersion() string {
	bi, _ := debug.ReadBuildInfo()
	v, _ := versionOf(bi, version)
	return v
}

// buildDescription is the version with the commit it was built from, for
// `pricewatch version` and `--version`.
func buildDescription() string {
	bi, _ := debug.ReadBuildInfo()
	v, detail := versionOf(bi, version)
	if detail == "" {
		return v
	}
	return v + " (" + detail + ")"
}

// versionOf names a build: the -ldflags version when a release set it, else
// the module version the go command stamped (a tagged module, or a
// pseudo-version from the VCS), else "dev" with the VCS revision, so that a
// build from a clone says which commit it is rather than only "dev". detail
// adds the revision's commit time and whether the tree had local changes.
func versionOf(bi *debug.BuildInfo, ldflags string) (v, detail string) {
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
