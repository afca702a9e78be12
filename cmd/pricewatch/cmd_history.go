package main

import (
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/pricewatch/pricewatch/apiclient"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/cmd/internal/buyflags"
	"github.com/pricewatch/pricewatch/cmd/internal/clitext"
	"github.com/pricewatch/pricewatch/cmd/internal/termchart"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
)

type historyFlags struct {
	providers  []string
	regions    []string
	since      string
	limit      int
	priceTypes []string
	os         string
	format     string
	plot       bool
	server     serverFlag
	seller     string
}

// The table is for reading: without --since it shows the last
// defaultTableSince; it and the chart show at most defaultTableLimit
// intervals. JSON and CSV are for scripts and carry all of it unless told
// otherwise.
const (
	defaultTableSince = "90d"
	defaultTableLimit = 2000
)

// parseSale parses the --price-type and --seller flags of the commands
// that list offers.
func parseSale(priceTypes []string, seller string) ([]pricewatch.PriceType, analysis.Seller, error) {
	pts, err := parsePriceTypes(priceTypes)
	if err != nil {
		return nil, "", err
	}
	s, err := buyflags.Seller(seller)
	if err != nil {
		return nil, "", err
	}
	return pts, s, nil
}

func (a *app) historyCommand() *cobra.Command {
	var f historyFlags
	cmd := readCommand(&f.format, &f.server, &cobra.Command{
		Use:   "history INSTANCE_TYPE",
		Short: "Show the price history of an instance type as validity intervals",
		Example: `  pricewatch history p5.48xlarge --region us-east-1
  pricewatch history Standard_ND96isr_H100_v5 --since 30d --format json
  pricewatch history ecs.gn7-c13g1.26xlarge --since 90d --plot`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.plot && f.format != formatTable {
				return usagef("--plot draws a chart in the terminal; leave out --format %s", f.format)
			}
			if f.limit < 0 {
				return usagef("--limit %d: want 0 (no limit) or more", f.limit)
			}
			pts, seller, err := parseSale(f.priceTypes, f.seller)
			if err != nil {
				return err
			}
			if err := checkOS(f.os); err != nil {
				return err
			}
			osFilter := strings.ToLower(f.os)
			if osFilter == "any" || osFilter == "all" {
				osFilter = ""
			}
			// The API has no price-type or OS filter; they apply to its
			// answer.
			keepFiltered := func(rows []storage.PriceInterval) []storage.PriceInterval {
				return slices.DeleteFunc(rows, func(r storage.PriceInterval) bool {
					return (len(pts) > 0 && !slices.Contains(pts, r.PriceType)) || (osFilter != "" && r.OS != osFilter)
				})
			}
			reading := f.format == formatTable
			sinceText, limit := f.since, f.limit
			if reading && !f.plot && !cmd.Flags().Changed("since") {
				sinceText = defaultTableSince
			}
			if reading && !cmd.Flags().Changed("limit") {
				limit = defaultTableLimit
			}
			var since time.Time
			if sinceText != "all" {
				var err error
				if since, err = parseSince(sinceText, time.Now().UTC()); err != nil {
					return err
				}
			}
			instanceType := args[0]
			var rows []storage.PriceInterval
			var sigs []storage.SignalInterval // the type's capacity signals, for the table
			if f.server.url != "" {
				q := query{}
				q.set("seller", string(seller))
				q.list("provider", f.providers)
				q.list("region", f.regions)
				if sinceText != "all" {
					// The table's default window holds for a server's
					// history too ("all" is the API's empty since).
					q.set("since", sinceText)
				}
				// JSON passes through when nothing is left to filter here.
				passThrough := f.format == formatJSON && limit <= 0 && len(pts) == 0 && osFilter == ""
				var hr []report.HistoryRow
				if printed, err := a.remoteRows(cmd.Context(), f.server.url, "history/"+url.PathEscape(args[0]), url.Values(q), passThrough, &hr); err != nil || printed {
					return err
				}
				if rows, err = apiclient.History(hr); err != nil {
					return err
				}
				rows = keepFiltered(rows)
				if f.format != formatTable {
					if limit > 0 {
						rows = report.KeepNewest(rows, limit)
					}
					return writeHistory(a.stdout, f.format, rows)
				}
				if limit > 0 {
					// The API has no limit: keep the newest here, one more
					// than shown as a local read does.
					rows = report.KeepNewest(rows, limit+1)
				}
			} else {
				db, err := a.openReader(cmd.Context())
				if err != nil {
					return err
				}
				if instanceType, err = report.ResolveInstanceType(cmd.Context(), db, args[0]); err != nil {
					return err
				}
				q := report.HistoryQuery{InstanceType: instanceType, Providers: f.providers, Regions: f.regions, Since: since,
					PriceTypes: pts, OS: osFilter, Seller: seller}
				if f.format != formatTable {
					// Streamed: a type with tens of thousands of intervals is
					// never held whole.
					q.Limit = limit
					return report.StreamHistory(cmd.Context(), a.stdout, db, f.format == formatCSV, q)
				}
				if limit > 0 {
					// One more than shown says whether older ones were left out.
					q.Limit = limit + 1
				}
				if rows, err = report.History(cmd.Context(), db, q); err != nil {
					return err
				}
				sq := report.SignalQuery{InstanceType: instanceType, Providers: f.providers, Regions: f.regions, All: true, Since: since}
				if sigs, err = report.Signals(cmd.Context(), db, sq); err != nil {
					return err
				}
			}

			cut := limit > 0 && len(rows) > limit
			if cut {
				rows = report.DropOldest(rows)
			}
			if f.plot {
				err = termchart.WriteHistory(a.stdout, instanceType, rows, tableWidth(), chartWidth(), tableTimeOf)
			} else {
				err = writeHistory(a.stdout, f.format, rows)
			}
			if err == nil && len(sigs) > 0 && !f.plot {
				fmt.Fprintln(a.stdout, "\nCapacity signals:")
				err = writeTable(a.stdout, report.SignalsTable(sigs, tableTimeOf))
			}
			if err != nil {
				return err
			}
			switch {
			case cut:
				fmt.Fprintf(a.stderr, "Showing the newest %d intervals%s; --limit 0 shows all of them, --since narrows the time.\n", limit, sinceNote(f.since, sinceText))
			case len(rows) == 0 && !f.plot && !cmd.Flags().Changed("since"):
				fmt.Fprintf(a.stderr, "Nothing valid in the last %s; --since all shows older history.\n", defaultTableSince)
			}
			return nil
		},
	})
	providerFlag(cmd, &f.providers, "only this provider")
	cmd.Flags().StringSliceVar(&f.regions, "region", nil, "only this region code; repeatable")
	cmd.Flags().StringVar(&f.since, "since", "", "only intervals valid since a duration ago (30d, 12h), a date (2026-01-01) or all (default: 90d for the table, all for --plot, json and csv)")
	cmd.Flags().IntVar(&f.limit, "limit", 0, fmt.Sprintf("at most this many intervals, the newest (0: no limit; default %d for the table and --plot)", defaultTableLimit))
	cmd.Flags().StringSliceVar(&f.priceTypes, "price-type", nil, "only these price types: on_demand, spot, reserved, savings_plan (comma-separated or repeated; default all)")
	cmd.Flags().StringVar(&f.os, "os", "", "only this operating system: linux or windows (default both)")
	cmd.Flags().BoolVar(&f.plot, "plot", false, "draw the effective hourly prices as a chart instead of tables")
	buyflags.AddSeller(cmd, &f.seller)
	return cmd
}

func sinceNote(flag, used string) string {
	if flag == "" {
		return " of the last " + used
	}
	return ""
}

func writeHistory(w io.Writer, format string, rows []storage.PriceInterval) error {
	switch format {
	case formatJSON:
		out := report.HistoryRows(rows)
		return writeJSON(w, out)
	case formatCSV:
		out := make([][]string, 0, len(rows))
		for i := range rows {
			out = append(out, report.HistoryCSVRow(&rows[i]))
		}
		return writeCSV(w, report.HistoryCSVHeader, out)
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "No price history for that instance type (has `pricewatch fetch` run, and is the name spelled as the cloud spells it?).")
		return err
	}
	return clitext.WriteHistoryTable(w, rows, layout(), tableTimeOf)
}
