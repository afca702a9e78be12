package main

import (
	"fmt"
	"io"
	"net/url"

	"github.com/pricewatch/pricewatch/apiclient"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/cmd/internal/buyflags"
	"github.com/pricewatch/pricewatch/cmd/internal/clitext"
	"github.com/pricewatch/pricewatch/internal/table"
	"github.com/pricewatch/pricewatch/report"
)

func (a *app) availabilityCommand() *cobra.Command {
	var (
		gpuFilter string
		all       bool
		format    string
		providers []string
		regions   []string
		server    serverFlag
		sellerArg string
	)
	cmd := readCommand(&format, &server, &cobra.Command{
		Use:   "availability [INSTANCE_TYPE]",
		Short: "List where each GPU type is offered (or in stock) now, and since when",
		Example: `  pricewatch availability --gpu H100
  pricewatch availability HCCPNV5.24XLARGE384 --all`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			seller, err := buyflags.Seller(sellerArg)
			if err != nil {
				return err
			}
			if server.url != "" {
				q := query{}
				q.set("seller", string(seller))
				if len(args) == 1 {
					q.set("instance_type", args[0])
				}
				q.set("gpu", gpuFilter)
				if all {
					q.set("all", "true")
				}
				q.list("provider", providers)
				q.list("region", regions)
				var ar []report.AvailabilityRow
				if printed, err := a.remoteRows(cmd.Context(), server.url, "availability", url.Values(q), format == formatJSON, &ar); err != nil || printed {
					return err
				}
				rows, err := apiclient.Availability(ar)
				if err != nil {
					return err
				}
				return writeAvailability(a.stdout, format, rows)
			}
			db, err := a.openReader(cmd.Context())
			if err != nil {
				return err
			}
			if err := report.CheckGPUModel(cmd.Context(), db, gpuFilter); err != nil {
				return err
			}
			q := report.AvailabilityQuery{GPU: gpuFilter, All: all, Providers: providers, Regions: regions, Seller: seller}
			if len(args) == 1 {
				if q.InstanceType, err = report.ResolveInstanceType(cmd.Context(), db, args[0]); err != nil {
					return err
				}
			}
			rows, err := report.Availability(cmd.Context(), db, q)
			if err != nil {
				return err
			}
			if err := writeAvailability(a.stdout, format, rows); err != nil || format != formatTable {
				return err
			}
			sigs, err := report.Signals(cmd.Context(), db, report.SignalQuery{InstanceType: q.InstanceType, GPU: gpuFilter, All: all, Providers: providers, Regions: regions})
			if err != nil || len(sigs) == 0 {
				return err
			}
			fmt.Fprintln(a.stdout, "\nCapacity signals:")
			return writeTable(a.stdout, report.SignalsTable(sigs, tableTimeOf))
		},
	})
	cmd.Flags().StringVar(&gpuFilter, "gpu", "", "only this GPU model or family (H100, A100 for any A100, A100-80GB, …)")
	cmd.Flags().BoolVar(&all, "all", false, "include closed intervals (withdrawn, or a stock state that ended)")
	providerFlag(cmd, &providers, "only this provider")
	cmd.Flags().StringSliceVar(&regions, "region", nil, "only this region; repeatable")
	buyflags.AddSeller(cmd, &sellerArg)
	return cmd
}

func writeAvailability(w io.Writer, format string, rows []pricewatch.AvailabilityInterval) error {
	if format != formatTable {
		return writeRows(w, format, report.AvailabilityRows(rows))
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "Nothing offered matches (has `pricewatch fetch` run?).")
		return err
	}
	// Left out, in this order, until the table fits $COLUMNS: UNTIL,
	// ZONE, SINCE, GPU.
	cols := []table.Column{{Head: "PROVIDER"}, {Head: "REGION"}, {Head: "ZONE", Drop: 2}, {Head: "INSTANCE TYPE"}, {Head: "GPU", Drop: 4},
		{Head: "STATE"}, {Head: "SINCE", Drop: 3}, {Head: "UNTIL", Drop: 1}}
	for _, r := range rows {
		until := "-"
		if r.Until != nil {
			until = tableTimeOf(*r.Until)
		}
		// Names are the providers' and the database's: escaped, so that
		// none can drive the terminal (issue 20 item 8).
		p := pricewatch.Printable
		table.AddRow(cols, p(r.Provider), p(r.Region), p(dash(r.Zone)), p(r.InstanceType), fmt.Sprintf("%s×%s", clitext.Float(r.GPUCount), p(r.GPUModel)),
			p(string(r.State)), tableTimeOf(r.Since), until)
	}
	return writeFitted(w, cols)
}
