package main

import (
	"fmt"
	"io"
	"net/url"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/cmd/internal/clitext"
	"github.com/pricewatch/pricewatch/internal/table"
	"github.com/pricewatch/pricewatch/report"
)

func (a *app) changesCommand() *cobra.Command {
	var (
		since, gpuFilter, instanceType string
		kinds, providers, regions      []string
		limit                          int
		format                         string
		server                         serverFlag
	)
	cmd := readCommand(&format, &server, &cobra.Command{
		Use:   "changes",
		Short: "List the price and availability changes runs found, newest first",
		Long: `List what each run found when it stored: a price seen first (price_new), changed
(price_changed) or gone (price_gone); a type offered in a new place
(availability_new), withdrawn (availability_gone), back in stock or sold out.
Every change is listed, whatever the alert rules say.`,
		Example: `  pricewatch changes --since 24h --kind price --gpu H100
  pricewatch changes --kind sold_out --kind back_in_stock --provider tencent --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 0 {
				return usagef("--limit %d: want 0 (all) or more", limit)
			}
			if server.url != "" {
				q := query{}
				q.set("since", since)
				q.list("kind", kinds)
				q.set("gpu", gpuFilter)
				q.set("instance_type", instanceType)
				q.list("provider", providers)
				q.list("region", regions)
				q.set("limit", strconv.Itoa(limit))
				var rows []report.ChangeRow
				if printed, err := a.remoteRows(cmd.Context(), server.url, "changes", url.Values(q), format == formatJSON, &rows); err != nil || printed {
					return err
				}
				return writeChanges(a.stdout, format, rows)
			}
			ks, err := report.ParseChangeKinds("--kind", kinds)
			if err != nil {
				return usagef("%w", err)
			}
			db, err := a.openReader(cmd.Context())
			if err != nil {
				return err
			}
			from, err := parseSince(since, time.Now().UTC())
			if err != nil {
				return err
			}
			if err := report.CheckGPUModel(cmd.Context(), db, gpuFilter); err != nil {
				return err
			}
			q := report.ChangesQuery{Since: from, Kinds: ks, GPU: gpuFilter, Providers: providers, Regions: regions, Limit: limit}
			if instanceType != "" {
				if q.InstanceType, err = report.ResolveInstanceType(cmd.Context(), db, instanceType); err != nil {
					return err
				}
			}
			cs, err := report.Changes(cmd.Context(), db, q)
			if err != nil {
				return err
			}
			return writeChanges(a.stdout, format, report.ChangeRows(cs))
		},
	})
	cmd.Flags().StringVar(&since, "since", "7d", "only changes after this: a duration back (24h, 7d, 2w) or a date")
	cmd.Flags().StringSliceVar(&kinds, "kind", nil, "price, availability, or a kind (price_changed, sold_out, …); repeatable")
	cmd.Flags().StringVar(&gpuFilter, "gpu", "", "only this GPU model or family (H100, A100 for any A100, …)")
	cmd.Flags().StringVar(&instanceType, "instance-type", "", "only this instance type")
	providerFlag(cmd, &providers, "only this provider")
	cmd.Flags().StringSliceVar(&regions, "region", nil, "only this region; repeatable")
	cmd.Flags().IntVar(&limit, "limit", 500, "the newest this many changes (0: all)")
	return cmd
}

func writeChanges(w io.Writer, format string, rows []report.ChangeRow) error {
	if format != formatTable {
		return writeRows(w, format, rows)
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "No change recorded in that span (has `pricewatch fetch` run twice?).")
		return err
	}
	t := table.New("AT", "KIND", "PROVIDER", "PLACE", "INSTANCE TYPE", "BUY", "FROM", "TO", "CHANGE %")
	for _, r := range rows {
		from, to := changeSide(r.FromEffectiveHourly, r.FromState), changeSide(r.ToEffectiveHourly, r.ToState)
		pct := "-"
		if r.ChangePct.Valid {
			pct = r.ChangePct.D.String()
		}
		buy := "-"
		if r.PriceType != "" {
			buy = clitext.BuyLabel(pricewatch.Offer{PriceType: r.PriceType, Term: r.Term, Payment: r.Payment, OfferingClass: r.OfferingClass})
		}
		p := pricewatch.Printable
		t.Add(tableTime(r.At), r.Kind, p(r.Provider), p(pricewatch.Place(r.Region, r.Zone)), p(r.InstanceType), buy, from, to, pct)
	}
	return writeTable(w, t)
}

// changeSide is one side of a change in a table: the price with its
// currency, else the availability state, else "-".
func changeSide(price report.NullDecimal, state *string) string {
	switch {
	case price.Valid:
		return clitext.Rate(price.D)
	case state != nil:
		return *state
	}
	return "-"
}
