package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch/storage"
)

// commands is the one list of pricewatch's commands; each is built in a
// file of its own (cmd_<name>.go). Adding a command = its file and a line
// here.
func (a *app) commands() []*cobra.Command {
	return []*cobra.Command{
		a.alertsCommand(),
		a.availabilityCommand(),
		a.changesCommand(),
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
		a.mcpCommand(),
		a.recommendCommand(),
		a.runCommand(),
		a.runsCommand(),
		a.savingsCommand(),
		a.trendsCommand(),
		a.versionCommand(),
	}
}

// group is a command that only holds its subcommands.
func group(use, short, long string, subs ...*cobra.Command) *cobra.Command {
	cmd := &cobra.Command{Use: use, Short: short, Long: long, Args: cobra.ArbitraryArgs,
		// Without it cobra printed the help and exited 0 for a typo
		// (`config nosuch`); top-level typos exit 2, and so do these.
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown command %q for %q", args[0], c.CommandPath())
			}
			return c.Help()
		}}
	cmd.AddCommand(subs...)
	return cmd
}

// formatFlag adds --format to cmd, table by default, and checks it is one
// of allowed (table, json or csv when none is given) before cmd runs.
func formatFlag(cmd *cobra.Command, format *string, help string, allowed ...string) {
	run := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if err := checkFormat(*format, allowed...); err != nil {
			return err
		}
		return run(c, args)
	}
	cmd.Flags().StringVar(format, "format", formatTable, help)
}

// readCommand is a command that reads stored data, locally or from the
// daemon named by --server, and prints it as --format table, json or csv.
func readCommand(format *string, server *serverFlag, cmd *cobra.Command) *cobra.Command {
	formatFlag(cmd, format, "output format: table, json or csv")
	server.add(cmd)
	return cmd
}

// withDB is the RunE of a command that works on the database: open (a.openDB
// to write, a.openReader to read) opens it once, and run gets it.
func withDB(open func(context.Context) (*storage.DB, error), run func(ctx context.Context, db *storage.DB) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error { return onDB(cmd.Context(), open, run) }
}

// onDB opens the database with open and hands it to run: the body of
// withDB, for a command that checks its arguments first.
func onDB(ctx context.Context, open func(context.Context) (*storage.DB, error), run func(ctx context.Context, db *storage.DB) error) error {
	db, err := open(ctx)
	if err != nil {
		return err
	}
	return run(ctx, db)
}
