package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// providerList is the value of a repeatable --provider flag. It refuses a
// name no registered cloud carries when the flag is parsed, so that a typo
// (`--provider awz`) is a usage error (exit 2) on every command instead of
// a filter that silently matches nothing (exit 0, no rows).
type providerList struct{ names *[]string }

func (p providerList) String() string { return "[" + strings.Join(*p.names, ",") + "]" }
func (p providerList) Type() string   { return "strings" }

func (p providerList) Set(v string) error {
	for _, name := range strings.Split(v, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		if name == "" {
			continue
		}
		if !slices.Contains(providerNames, name) {
			return fmt.Errorf("%q is not a provider: want one of %s", name, strings.Join(providerNames, ", "))
		}
		if !slices.Contains(*p.names, name) {
			*p.names = append(*p.names, name)
		}
	}
	return nil
}

// providerFlag adds a repeatable --provider flag that accepts only
// registered providers; its help lists them after what.
func providerFlag(cmd *cobra.Command, names *[]string, what string) {
	cmd.Flags().Var(providerList{names: names}, "provider", what+" ("+strings.Join(providerNames, ", ")+"); repeatable")
}
