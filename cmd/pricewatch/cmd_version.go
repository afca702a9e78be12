package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch/buildinfo"
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
	v, _ := buildinfo.Describe(bi, version)
	return v
}

// buildDescription is the version with the commit it was built from, for
// `pricewatch version` and `--version`.
func buildDescription() string {
	bi, _ := debug.ReadBuildInfo()
	v, detail := buildinfo.Describe(bi, version)
	if detail == "" {
		return v
	}
	return v + " (" + detail + ")"
}
