package main

import "github.com/spf13/cobra"

// commands is the one list of pricewatch's commands; each is built in a
// file of its own (cmd_<name>.go). Adding a command = its file and a line
// here.
func (a *app) commands() []*cobra.Command {
	return []*cobra.Command{
		a.alertsCommand(),
		a.availabilityCommand(),
		a.compareCommand(),
		a.configCommand(),
		a.dbCommand(),
		a.digestCommand(),
		a.exportCommand(),
		a.fetchCommand(),
		a.fxCommand(),
		a.hardwareCommand(),
		a.heldCommand(),
		a.historyCommand(),
		a.recommendCommand(),
		a.runCommand(),
		a.runsCommand(),
		a.savingsCommand(),
		a.trendsCommand(),
		a.versionCommand(),
	}
}
