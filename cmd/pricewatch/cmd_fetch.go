package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

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
was skipped), 1 when every provider failed, 3 when some failed and others
stored.
A provider without credentials is skipped, not failed.`,
		Example: `  pricewatch fetch
  pricewatch fetch --provider azure --provider aws`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			for _, p := range only {
				if !slices.Contains(providerNames, p) {
					return usagef("--provider %q: want one of %v", p, providerNames)
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
			failed, stored := 0, 0
			var sums []runSummary
			for _, job := range jobs {
				job.owner = "pricewatch fetch"
				job.summaryReports = true
				sum := runProvider(ctx, db, job, a.saveOptions(), a.log)
				sums = append(sums, sum)
				if format == formatTable {
					fmt.Fprintln(a.stdout, summaryLine(sum))
				}
				switch sum.Status {
				case statusOK:
					stored++
				case statusFailed, statusNotStarted:
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
			for _, line := range a.afterCycle(ctx, db) {
				fmt.Fprintln(notes, line)
			}
			if line := a.deliverAfterFetch(ctx, db); line != "" {
				fmt.Fprintln(notes, line)
			}
			switch format {
			case formatJSON:
				if err := writeJSON(a.stdout, fetchRows(sums)); err != nil {
					return err
				}
			case formatCSV:
				if err := writeRowsCSV(a.stdout, fetchRows(sums)); err != nil {
					return err
				}
			}
			switch {
			case ctx.Err() != nil || (failed > 0 && stored == 0):
				// Nothing was stored anywhere (every provider failed, or
				// failed and was skipped): the fetch failed, not "partly".
				return exitCode(exitFailed)
			case failed > 0:
				// Some providers stored, some failed: partly failed.
				return exitCode(exitPartial)
			}
			return nil
		},
	}
	formatFlag(cmd, &format, "run summary format: table (a line per provider), json or csv")
	providerFlag(cmd, &only, "fetch only this provider ("+strings.Join(providerNames, ", ")+"); repeatable")
	return cmd
}

// fetchRow is one provider's run in `fetch --format json|csv`.
type fetchRow struct {
	Provider        string  `json:"provider"`
	Status          string  `json:"status"`
	OffersSeen      int     `json:"offers_seen"`
	OffersNew       int     `json:"offers_new"`
	OffersChanged   int     `json:"offers_changed"`
	OffersUnchanged int     `json:"offers_unchanged"`
	OffersClosed    int     `json:"offers_closed"`
	RegionsSkipped  int     `json:"regions_skipped"`
	OffersHeld      int     `json:"offers_held"`
	UnknownHardware int     `json:"unknown_hardware"`
	FirstRun        bool    `json:"first_run"`
	DurationSeconds float64 `json:"duration_seconds"`
	Error           *string `json:"error"`
}

func fetchRows(sums []runSummary) []fetchRow {
	out := make([]fetchRow, 0, len(sums))
	for _, s := range sums {
		status := s.Status
		if status == statusNotStarted {
			status = statusFailed
		}
		if status == statusOverlap {
			status = statusSkipped
		}
		r := fetchRow{Provider: s.Provider, Status: status, UnknownHardware: s.UnknownHardware,
			DurationSeconds: s.Duration.Round(time.Millisecond).Seconds()}
		if res := s.Result; res != nil {
			r.OffersSeen, r.OffersNew, r.OffersChanged, r.OffersUnchanged, r.OffersClosed = res.Seen, res.New, res.Changed, res.Unchanged, res.Closed
			r.RegionsSkipped, r.OffersHeld, r.FirstRun = res.Skipped, res.Held, res.FirstRun
		}
		if s.Err != nil {
			msg := s.Err.Error()
			r.Error = &msg
		}
		out = append(out, r)
	}
	return out
}
