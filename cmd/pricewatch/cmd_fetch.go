package main

import (
	"fmt"
	"slices"

	"github.com/spf13/cobra"
	"go.uber.org/zap"
)

func (a *app) fetchCommand() *cobra.Command {
	var only []string
	cmd := &cobra.Command{
		Use:   "fetch",
		Short: "Run one fetch cycle now: fetch every enabled provider, store, report",
		Long: `Fetch runs one cycle now. It prints a line per provider (offers seen, new,
changed, unchanged, duration) and exits non-zero if any provider failed.
A provider without credentials is skipped, not failed.`,
		Example: `  pricewatch fetch
  pricewatch fetch --provider azure --provider aws`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			for _, p := range only {
				if !slices.Contains(providerNames, p) {
					return fmt.Errorf("--provider %q: want one of %v", p, providerNames)
				}
			}
			// A broken alert rule is reported before anything is fetched.
			if _, err := a.outboxFunc(); err != nil {
				return err
			}
			jobs, err := a.buildJobs(only)
			if err != nil {
				return err
			}
			if len(jobs) == 0 {
				return fmt.Errorf("no provider to fetch: all are disabled in the config (providers.<name>.enabled)")
			}
			db, err := a.openDB(ctx)
			if err != nil {
				return err
			}
			// Runs a killed `pricewatch fetch` left 'running' are closed now,
			// as the daemon does at start; a live process's run holds its
			// lease and is left alone.
			if err := db.CloseAbandonedRuns(ctx); err != nil {
				a.log.Warn("closing abandoned runs", zap.Error(err))
			}
			failed := 0
			for _, job := range jobs {
				job.owner = "pricewatch fetch"
				sum := runProvider(ctx, db, job, a.saveOptions(), a.log)
				fmt.Fprintln(a.stdout, summaryLine(sum))
				if sum.Status == statusFailed {
					failed++
				}
				if ctx.Err() != nil {
					break
				}
			}
			for _, line := range a.afterCycle(ctx, db) {
				fmt.Fprintln(a.stdout, line)
			}
			if line := a.deliverAfterFetch(ctx, db); line != "" {
				fmt.Fprintln(a.stdout, line)
			}
			if failed > 0 || ctx.Err() != nil {
				return exitCode(1)
			}
			return nil
		},
	}
	cmd.Flags().StringSliceVar(&only, "provider", nil, "fetch only this provider (aws, azure, alibaba, tencent, vastai, oci); repeatable")
	return cmd
}
