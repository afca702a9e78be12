package main

import (
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch/report"
)

func (a *app) changesCommand() *cobra.Command {
	var (
		p      report.ChangesParams
		format string
		server serverFlag
	)
	cmd := readCommand(&format, &server, &cobra.Command{
		Use:   "changes",
		Short: "List the price and availability changes runs found, newest first",
		Long: `List what each run found when it stored, whatever the alert rules say: a price
seen first, changed or gone (price_new, price_changed, price_gone); a type
offered in a new place or withdrawn (availability_new, availability_gone),
back in stock or sold out.`,
		Example: `  pricewatch changes --since 24h --kind price --gpu H100
  pricewatch changes --kind sold_out --kind back_in_stock --provider tencent --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var rows []report.ChangeRow
			if server.url != "" {
				if printed, err := a.remoteRows(cmd.Context(), server.url, "changes", p.Values(), format == formatJSON, &rows); err != nil || printed {
					return err
				}
				return writeChanges(a.stdout, format, rows)
			}
			db, err := a.openReader(cmd.Context())
			if err != nil {
				return err
			}
			q, err := p.Query(cmd.Context(), db, time.Now().UTC())
			if err != nil {
				return err
			}
			cs, err := report.Changes(cmd.Context(), db, q)
			if err != nil {
				return err
			}
			return writeChanges(a.stdout, format, report.ChangeRows(cs))
		},
	})
	cmd.Flags().StringVar(&p.Since, "since", report.DefaultChangesSince, "only changes after this: a duration back (24h, 7d, 2w) or a date")
	cmd.Flags().StringSliceVar(&p.Kinds, "kind", nil, "price, availability, or a kind (price_changed, sold_out, …); repeatable")
	cmd.Flags().StringVar(&p.GPU, "gpu", "", "only this GPU model or family (H100, A100 for any A100, …)")
	cmd.Flags().StringVar(&p.InstanceType, "instance-type", "", "only this instance type")
	providerFlag(cmd, &p.Providers, "only this provider")
	cmd.Flags().StringSliceVar(&p.Regions, "region", nil, "only this region; repeatable")
	cmd.Flags().IntVar(&p.Limit, "limit", report.DefaultChangesLimit, "the newest this many changes (0: all)")
	return cmd
}

func writeChanges(w io.Writer, format string, rows []report.ChangeRow) error {
	if done, err := writeUnlessTable(w, format, rows, "No change recorded in that span (has `pricewatch fetch` run twice?)."); done {
		return err
	}
	return writeTable(w, report.ChangesTable(rows, tableTime))
}
