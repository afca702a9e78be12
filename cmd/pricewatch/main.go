// Command pricewatch tracks GPU cloud prices and availability: a daemon
// (`pricewatch run`) and the CLI people type (`pricewatch history p5.48xlarge`).
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

// defaultMemoryLimit is the Go heap's soft limit when GOMEMLIMIT does not
// set one (README "Memory budget"): reading weeks of history makes much
// short-lived garbage, and without a limit the collector lets the heap
// grow to twice what is live before it runs.
const defaultMemoryLimit = 96 << 20

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes one command line and returns the process exit code. It is
// main without the process: tests call it directly.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runWith(ctx, args, os.Stdin, stdout, stderr)
}

// runWith is run reading stdin from in (`pricewatch mcp` reads its
// client's requests there).
func runWith(ctx context.Context, args []string, in io.Reader, stdout, stderr io.Writer) int {
	a := newApp(stdout, stderr)
	a.stdin = in
	defer a.close()
	root := a.rootCommand()
	markUsageErrors(root)
	setWidth(stdout)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	if err := root.ExecuteContext(ctx); err != nil {
		var ec exitCode
		if !asExitCode(err, &ec) {
			a.printError(err)
		}
		return exitCodeFor(err)
	}
	return exitOK
}
