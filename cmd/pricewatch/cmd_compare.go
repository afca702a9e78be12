package main

import (
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/cmd/internal/buyflags"
	"github.com/pricewatch/pricewatch/cmd/internal/clitext"
	"github.com/pricewatch/pricewatch/cmd/internal/machineview"
	"github.com/pricewatch/pricewatch/internal/table"
	"github.com/pricewatch/pricewatch/report"
)

type compareFlags struct {
	scopeFlags
	gpu           string
	count         float64
	priceTypes    []string
	availableOnly bool
	wide          bool
	seller        string
	hardware      report.HardwareParams
	view          machineview.Flags
}

func (a *app) compareCommand() *cobra.Command {
	var f compareFlags
	cmd := analysisCommand(&f.scopeFlags, "currency to compare in", &cobra.Command{
		Use:   "compare --gpu MODEL",
		Short: "Rank current offers of a GPU by price per GPU-hour, in one currency",
		Long: `Rank the current offers of a GPU model or family (A100 covers A100-40GB and
A100-80GB) across clouds by effective price per GPU-hour, converted into one
currency with the ECB rate of today. Also shows the price per GPU-hour per dense
TFLOPS and per GB of GPU memory. Offers whose currency has no rate are listed
apart, never ranked.`,
		Example: `  pricewatch compare --gpu H100 --count 8
  pricewatch compare --gpu A100 --price-type any --currency CNY --available-only
  pricewatch compare --gpu L40S --provider azure --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(f.gpu) == "" {
				return usagef("--gpu is required (e.g. --gpu H100, --gpu A100-80GB)")
			}
			if f.count < 0 || f.count == 0 && cmd.Flags().Changed("count") { // docs/commands.md: a usage error
				return usagef("--count %v: want a positive number of GPUs per instance", f.count)
			}
			by, per, err := f.view.Parse(&f.priceTypes, cmd.Flags().Changed("price-type"))
			if err != nil {
				return err
			}
			pts, err := parsePriceTypes(f.priceTypes)
			if err != nil {
				return err
			}
			seller, hw, err := buyflags.Buyer(f.seller, f.hardware)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			if f.server != "" {
				if err := remoteFormat(f.server, f.format, formatJSON, formatCSV); err != nil {
					return err
				}
				q := f.query()
				q.set("gpu", f.gpu)
				if f.count > 0 {
					q.set("count", clitext.Float(f.count))
				}
				q.list("price_type", f.priceTypes)
				if f.availableOnly {
					q.set("available_only", "true")
				}
				buyflags.SetParams(url.Values(q), seller, f.hardware)
				f.view.SetParams(url.Values(q), by, per)
				rows := machineview.RemoteRows(by)
				if printed, err := a.remoteRows(ctx, f.server, "offers", url.Values(q), f.format == formatJSON, rows); err != nil || printed {
					return err
				}
				return writeRowsCSV(a.stdout, rows)
			}
			m, err := a.openMarket(ctx, f.scopeFlags)
			if err != nil {
				return err
			}
			if err := report.CheckGPUModel(ctx, m.db, f.gpu); err != nil {
				return err
			}
			q := report.CompareQuery{Scope: m.reportScope(), GPU: f.gpu, Count: f.count,
				PriceTypes: pts, AvailableOnly: f.availableOnly, Seller: seller, Hardware: hw, By: by, Per: per}
			res, err := report.Compare(ctx, m.db, m.fx, q)
			if err != nil {
				return err
			}
			notes := m.rateNotes()
			noteConversions(notes, res.Rows, res.Unconverted, func(r analysis.CompareRow) (string, analysis.FXUsed) { return r.NativeCurrency, r.FXUsed })
			return a.writeReport(f.format, notes, reportOutput{
				json: func() any { return report.CompareAnswer(res, q) },
				table: func(w io.Writer) error {
					if by == report.ByMachine {
						return machineview.WriteTable(w, report.MachinesOf(res, per), machineview.Heading{What: clitext.CompareWhat(f.gpu, f.count), Types: clitext.PriceTypes(pts),
							OS: clitext.OSText(f.os), Now: m.now, Currency: res.Currency, Per: per, Lines: clitext.BuyerLines(seller, hw, res.Currency, tableWidth()),
							Wide: f.wide}, table.Layout{Width: tableWidth(), MinLast: cutMinLast}, notes)
					}
					return writeCompareTable(w, res, f, pts, seller, hw, m.now, notes)
				},
			})
		},
	})
	cmd.Flags().StringVar(&f.gpu, "gpu", "", "GPU model or family: H100, A100 (any A100), A100-80GB, L40S, …")
	cmd.Flags().Float64Var(&f.count, "count", 0, "only instance types with this many GPUs (default: any count)")
	cmd.Flags().StringSliceVar(&f.priceTypes, "price-type", []string{string(pricewatch.OnDemand)}, "on_demand, spot, reserved, savings_plan, capacity_block or any; repeatable")
	cmd.Flags().BoolVar(&f.availableOnly, "available-only", false, "only offers known to be offered or in stock where priced")
	cmd.Flags().BoolVar(&f.wide, "wide", false, "keep every column, whatever the terminal's width")
	buyflags.AddSeller(cmd, &f.seller)
	buyflags.AddHardware(cmd, &f.hardware)
	f.view.Add(cmd)
	return cmd
}

func writeCompareTable(w io.Writer, res analysis.CompareResult, f compareFlags, pts []pricewatch.PriceType, seller analysis.Seller,
	hw analysis.HardwareFilter, now time.Time, notes *clitext.RateNotes) error {
	var b strings.Builder
	b.WriteString(table.Wrap(fmt.Sprintf("%s, %s, %s: prices of %s in %s per GPU-hour, cheapest first.",
		clitext.CompareWhat(f.gpu, f.count), clitext.PriceTypes(pts), clitext.OSText(f.os), now.UTC().Format(time.DateOnly), res.Currency), tableWidth(), "  "))
	if f.availableOnly {
		b.WriteString("Only offers known to be offered or in stock where priced.\n")
	}
	b.WriteString(clitext.BuyerLines(seller, hw, res.Currency, tableWidth()))
	if len(res.Rows) == 0 && len(res.Unconverted) == 0 {
		b.WriteString("No stored price matches (has `pricewatch fetch` run? try --price-type any or another --gpu).\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	b.WriteString("\n")
	mixed := clitext.MixedPriceTypes(res.Rows, res.Unconverted)
	market := clitext.AnyMarketplace(res.Rows, res.Unconverted)
	if len(res.Rows) > 0 {
		width := tableWidth()
		if f.wide {
			width = 0
		}
		cols := []table.Column{
			// Left out, in this order, until the table fits: BAND, /GB,
			// /TFLOPS, MARKET, AVAIL (availability matters more than who
			// hosts it: issue 31), GPUS, REGION (README "Terminal width").
			{Head: "PROVIDER"}, {Head: "REGION", Drop: 7}, {Head: "INSTANCE TYPE"}, {Head: "GPUS", Drop: 6},
			{Head: "BUY", Hidden: !mixed},
			{Head: ">" + res.Currency + "/GPU-H"}, {Head: ">/TFLOPS", Drop: 3}, {Head: ">/GB", Drop: 2}, {Head: "AVAIL", Drop: 5},
			{Head: "MARKET", Hidden: !market, Drop: 4}, {Head: "BAND", Hidden: !clitext.AnyBand(res.Rows), Drop: 1},
			// A capacity block's window (issue 23 item 3), only when a
			// block is listed.
			{Head: "WINDOW (UTC)", Hidden: !clitext.AnyWindow(res.Rows)},
			// The machine beside the price, with --wide (JSON and CSV
			// always carry it): "?" where the cloud does not say.
			{Head: ">GPU GB", Hidden: !f.wide}, {Head: ">VCPUS", Hidden: !f.wide}, {Head: ">MEM GB", Hidden: !f.wide},
			{Head: "INTERCONNECT", Hidden: !f.wide}, {Head: "LOCAL DISK", Hidden: !f.wide},
		}
		for _, r := range res.Rows {
			tflops, gb := "-", "-"
			if r.PricePerTFLOPS.Valid {
				tflops = r.PricePerTFLOPS.Decimal.StringFixed(5)
			}
			if r.PricePerGB.Valid {
				gb = r.PricePerGB.Decimal.StringFixed(4)
			}
			table.AddRow(cols, r.Provider, pricewatch.Place(r.Region, r.Zone), r.InstanceType, clitext.GPUs(r.GPUCount, r.GPUModel),
				clitext.BuyLabel(r.Offer), clitext.Rate(r.PricePerGPUHour), tflops, gb, clitext.Avail(r.Available), clitext.MarketShort(r.Marketplace), dash(clitext.Band(r)),
				clitext.BlockWindow(r), clitext.KnownFloat(r.Offer.GPUMemoryGB), clitext.KnownInt(r.Offer.VCPUs), clitext.KnownFloat(r.Offer.MemoryGB),
				clitext.KnownString(r.Offer.Interconnect), clitext.KnownString(r.Offer.LocalStorage))
		}
		dropped, err := table.Fit(&b, cols, table.Layout{Width: width, MinLast: cutMinLast})
		if err != nil {
			return err
		}
		if len(dropped) > 0 {
			b.WriteString(table.Wrap(fmt.Sprintf("Left out to fit %d columns: %s (use --wide, or --format json or csv).", tableWidth(), strings.Join(dropped, ", ")), tableWidth(), "  "))
		}
	}
	if len(res.Unconverted) > 0 {
		if len(res.Rows) > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "Not ranked (%s without a rate into %s), in their own currency:\n", clitext.Plural(len(res.Unconverted), "offer"), res.Currency)
		cols := []table.Column{{Head: "PROVIDER"}, {Head: "REGION", Drop: 4}, {Head: "INSTANCE TYPE"}, {Head: "GPUS", Drop: 3}, {Head: "BUY", Hidden: !mixed},
			{Head: ">PER GPU-H"}, {Head: "CUR"}, {Head: "AVAIL", Drop: 2}, {Head: "MARKET", Hidden: !market, Drop: 1}}
		for _, r := range res.Unconverted {
			pg := "-"
			if v, ok := pricewatch.PerGPUHour(r.NativeEffectiveHourly, r.GPUCount); ok {
				pg = clitext.Rate(v)
			}
			table.AddRow(cols, r.Provider, pricewatch.Place(r.Region, r.Zone), r.InstanceType, clitext.GPUs(r.GPUCount, r.GPUModel), clitext.BuyLabel(r.Offer),
				pg, r.NativeCurrency, clitext.Avail(r.Available), clitext.MarketShort(r.Marketplace))
		}
		if _, err := fitTable(&b, cols); err != nil {
			return err
		}
	}
	b.WriteString("\n")
	if mixed {
		clitext.WriteBuyLegend(&b, clitext.OffersOf(res.Rows, res.Unconverted), tableWidth())
	}
	b.WriteString(table.Wrap("AVAIL: yes = offered or in stock, no = sold out, ? = not known. "+
		"/TFLOPS is per dense BF16 (else FP16) TFLOPS, /GB per GB of GPU memory.", tableWidth(), "  "))
	if market {
		b.WriteString(table.Wrap("MARKET: yes = a marketplace offer (third-party hosts' machines: reliability varies by host, "+
			"the host may withdraw it, and the marketplace's terms apply), not the cloud's own capacity.", tableWidth(), "  "))
	}
	if len(res.UnknownModels) > 0 {
		fmt.Fprintf(&b, "Not in the GPU catalogue (no /TFLOPS or /GB figure): %s.\n", strings.Join(res.UnknownModels, ", "))
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(&b, "Left out: %s.\n", s.Reason)
	}
	notes.Write(&b, tableWidth())
	_, err := io.WriteString(w, b.String())
	return err
}
