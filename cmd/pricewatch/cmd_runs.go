package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch/cmd/internal/clitext"
	"github.com/pricewatch/pricewatch/internal/table"
	"github.com/pricewatch/pricewatch/report"
)

func (a *app) runsCommand() *cobra.Command {
	var (
		format string
		server serverFlag
	)
	cmd := readCommand(&format, &server, &cobra.Command{
		Use:   "runs",
		Short: "Show each provider's latest fetch run: status, counts, error, last success",
		Example: `  pricewatch runs
  pricewatch runs --format json --server http://pricewatch.internal:9108`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var rows []report.RunRow
			if server.url != "" {
				if printed, err := a.remoteRows(cmd.Context(), server.url, "runs", nil, format == formatJSON, &rows); err != nil || printed {
					return err
				}
			} else {
				db, err := a.openReader(cmd.Context())
				if err != nil {
					return err
				}
				if rows, err = report.Runs(cmd.Context(), db); err != nil {
					return err
				}
			}
			return writeRuns(a.stdout, format, rows)
		},
	})
	return cmd
}

func writeRuns(w io.Writer, format string, rows []report.RunRow) error {
	switch format {
	case formatJSON:
		return writeJSON(w, rows)
	case formatCSV:
		var out [][]string
		for _, r := range rows {
			out = append(out, []string{r.Provider, strconv.FormatInt(r.ID, 10), r.Status, clitext.Str(r.StartedAt), clitext.Str(r.FinishedAt), numText(r.DurationSecs),
				strconv.Itoa(r.OffersSeen), strconv.Itoa(r.OffersNew), strconv.Itoa(r.OffersChanged), strconv.Itoa(r.OffersSame),
				strconv.Itoa(r.OffersClosed), strconv.Itoa(r.RegionsSkipped), strconv.Itoa(r.OffersHeld), strconv.Itoa(r.Changes), r.SourceVersion, r.Error, clitext.Str(r.LastSuccessAt), r.Replica})
		}
		return writeCSV(w, []string{"provider", "id", "status", "started_at", "finished_at", "duration_seconds", "offers_seen", "offers_new",
			"offers_changed", "offers_unchanged", "offers_closed", "regions_skipped", "offers_held", "changes", "source_version", "error", "last_success_at", "replica"}, out)
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "No run recorded yet (run `pricewatch fetch` or start `pricewatch run`).")
		return err
	}
	// Left out, in this order, until the table fits $COLUMNS: HELD,
	// CLOSED, CHANGED, NEW, SECONDS, LAST SUCCESS; ERROR is cut last.
	cols := []table.Column{{Head: "PROVIDER"}, {Head: "STATUS"}, {Head: "REPLICA", Hidden: !slices.ContainsFunc(rows, func(r report.RunRow) bool { return r.Replica != "" })},
		{Head: "STARTED"}, {Head: ">SECONDS", Drop: 5}, {Head: ">SEEN"}, {Head: ">NEW", Drop: 4}, {Head: ">CHANGED", Drop: 3}, {Head: ">CLOSED", Drop: 2},
		{Head: ">HELD", Drop: 1}, {Head: "LAST SUCCESS", Drop: 6}, {Head: "ERROR"}}
	for _, r := range rows {
		table.AddRow(cols, r.Provider, r.Status, r.Replica, tableTime(r.StartedAt), dash(numText(r.DurationSecs)), strconv.Itoa(r.OffersSeen), strconv.Itoa(r.OffersNew),
			strconv.Itoa(r.OffersChanged), strconv.Itoa(r.OffersClosed), strconv.Itoa(r.OffersHeld), dash(tableTime(r.LastSuccessAt)), clitext.Clip(r.Error, 60))
	}
	return writeFitted(w, cols) // SQLite's runs name no replica: REPLICA hidden
}

// numText prints a JSON number held in an any (a float64, or null).
func numText(v any) string {
	if f, ok := v.(float64); ok {
		return clitext.Float(f)
	}
	return ""
}
