package main

import (
	"context"
	"fmt"

	"github.com/pricewatch/pricewatch/alerting"
	providerrun "github.com/pricewatch/pricewatch/run"
	"github.com/pricewatch/pricewatch/storage"

	"github.com/spf13/cobra"
	"go.uber.org/zap"
)

func (a *app) fetchCommand() *cobra.Command {
	var only []string
	var format string
	cmd := &cobra.Command{
		Use:   "fetch",
		Short: "Run one fetch cycle now: fetch every enabled provider, store, report",
		Long: `Fetch runs one cycle now. It prints a line per provider (offers seen, new,
changed, unchanged, duration). Exit status: 0 when every provider stored (or
was skipped), 1 when nothing was stored anywhere (every provider failed, or
failed and was skipped), 3 when some failed and others stored, or when a
provider stored but could not read every region (status partial: the line
names the regions not read and why; their stored prices are kept).
A provider without credentials is skipped, not failed.`,
		Example: `  pricewatch fetch
  pricewatch fetch --provider azure --provider aws`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			// A broken alert rule is reported before anything is fetched.
			if _, err := a.wiring().OutboxFunc(); err != nil {
				return err
			}
			jobs, err := a.wiring().Jobs(only)
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
			failed, stored, partial := 0, 0, 0
			var sums []providerrun.Summary
			for _, job := range jobs {
				job.Owner = "pricewatch fetch"
				job.SummaryReports = true
				sum := job.Run(ctx, db, a.wiring().SaveOptions(), a.log)
				sums = append(sums, sum)
				if format == formatTable {
					fmt.Fprintln(a.stdout, sum.Line())
				}
				switch sum.Status {
				case providerrun.StatusOK:
					stored++
				case providerrun.StatusPartial:
					stored++
					partial++
				case providerrun.StatusFailed, providerrun.StatusNotStarted:
					failed++
				}
				if ctx.Err() != nil {
					break
				}
			}
			// The lines after the cycle (rates, deliveries) are notes beside
			// the JSON or CSV summary, which stays machine-readable.
			notes := a.stdout
			if format != formatTable {
				notes = a.stderr
			}
			// The line says why rates were not updated; it is not logged too.
			fxLines, _ := a.wiring().Rates().AfterCycle(ctx, db)
			for _, line := range fxLines {
				fmt.Fprintln(notes, line)
			}
			if line := a.deliverAfterFetch(ctx, db); line != "" {
				fmt.Fprintln(notes, line)
			}
			switch format {
			case formatJSON:
				if err := writeJSON(a.stdout, providerrun.Rows(sums)); err != nil {
					return err
				}
			case formatCSV:
				if err := writeRowsCSV(a.stdout, providerrun.Rows(sums)); err != nil {
					return err
				}
			}
			switch {
			case ctx.Err() != nil || (failed > 0 && stored == 0):
				// Nothing was stored anywhere (every provider failed, or
				// failed and was skipped): the fetch failed, not "partly".
				return exitCode(exitFailed)
			case failed > 0 || partial > 0:
				// Some providers stored, some failed, or a provider stored
				// but could not read every region: partly failed.
				return exitCode(exitPartial)
			}
			return nil
		},
	}
	formatFlag(cmd, &format, "run summary format: table (a line per provider), json or csv")
	providerFlag(cmd, &only, "fetch only this provider")
	return cmd
}

// deliverAfterFetch delivers what a `pricewatch fetch` queued, waiting at
// most alerts.fetch_delivery_wait, and returns the summary line the fetch
// prints ("" when there was nothing to send).
func (a *app) deliverAfterFetch(ctx context.Context, db *storage.DB) string {
	if ctx.Err() != nil {
		return ""
	}
	rep, err := a.wiring().Deliver(ctx, db, a.cfg.Alerts.FetchDeliveryWait, false)
	if err != nil {
		a.log.Error("alerts not delivered", zap.Error(err))
		return fmt.Sprintf("%-8s failed   %v (alerts stay queued)", "alerts", err)
	}
	if rep.Sent+rep.Logged+rep.Failed+rep.Pending == 0 {
		return ""
	}
	return fmt.Sprintf("%-8s %s", "alerts", reportLine(rep))
}

func reportLine(rep alerting.Report) string {
	s := fmt.Sprintf("%d sent", rep.Sent)
	if rep.Logged > 0 {
		// Only the log has them: nobody was told, so not "sent".
		logged := fmt.Sprintf("%d logged (no Slack or webhook is configured for them: set slack.* or webhook.url)", rep.Logged)
		if rep.Sent == 0 {
			s = logged
		} else {
			s += ", " + logged
		}
	}
	if rep.Failed > 0 {
		s += fmt.Sprintf(", %d failed (see `pricewatch alerts list --failed`)", rep.Failed)
	}
	if rep.Pending > 0 {
		s += fmt.Sprintf(", %d pending (Slack did not take them in time; they are retried)", rep.Pending)
	}
	return s
}
