package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
)

// Exit codes, documented in the README ("Exit codes"). Scripts and
// monitoring tell the classes apart, so each means one thing.
const (
	exitOK       = 0 // the command did what was asked
	exitFailed   = 1 // the operation failed (a fetch, Slack refusing, a database error)
	exitUsage    = 2 // the command line is wrong: unknown flag, bad value, missing argument
	exitPartial  = 3 // partly failed: some providers of a fetch failed, others stored, or one could not read every region
	exitNotFound = 4 // asked for something that is not stored (an instance type, a GPU model)
)

// usageError is a mistake in the command line; it exits 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// exitCodeFor maps an error returned by a command to the process exit code.
func exitCodeFor(err error) int {
	var ec exitCode
	if errors.As(err, &ec) {
		return int(ec)
	}
	var ue usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	// A flag value the shared parsers refused (--since 3x, --utilization 2).
	var pe *report.ParamError
	if errors.As(err, &pe) {
		return exitUsage
	}
	// A name nothing stored carries, asked locally or of the daemon.
	var nf *report.NotStoredError
	if errors.As(err, &nf) || errors.Is(err, storage.ErrOutboxNotFound) {
		return exitNotFound
	}
	// cobra reports an unknown subcommand without a hook to wrap it.
	if strings.HasPrefix(err.Error(), "unknown command ") {
		return exitUsage
	}
	return exitFailed
}

// markUsageErrors makes every argument-count and flag error of cmd and its
// subcommands a usage error, so that `pricewatch history` without its
// argument exits 2 rather than 1 like a failed fetch.
func markUsageErrors(cmd *cobra.Command) {
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	if args := cmd.Args; args != nil {
		cmd.Args = func(c *cobra.Command, a []string) error {
			if err := args(c, a); err != nil {
				// cobra's text ("accepts 1 arg(s), received 0") does not
				// say what the argument is: show the usage line.
				return usagef("%w; usage: %s (see `%s --help`)", err, c.UseLine(), c.CommandPath())
			}
			return nil
		}
	}
	for _, sub := range cmd.Commands() {
		markUsageErrors(sub)
	}
}
