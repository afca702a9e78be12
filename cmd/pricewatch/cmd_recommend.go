package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/clouds"
	"github.com/pricewatch/pricewatch/cmd/internal/buyflags"
	"github.com/pricewatch/pricewatch/cmd/internal/clitext"
	"github.com/pricewatch/pricewatch/internal/table"
	"github.com/pricewatch/pricewatch/report"
)

type recommendFlags struct {
	scopeFlags
	gpu         string
	count       int
	utilization string
	horizon     string
	includeSpot bool
	top         int
	seller      string
	hosts       int
	hardware    report.HardwareParams
}

func (a *app) recommendCommand() *cobra.Command {
	var f recommendFlags
	cmd := scopedCommand(&f.scopeFlags, "currency of the answer", &cobra.Command{
		Use:   "recommend --gpu MODEL --count N",
		Short: "Answer which cloud and which commitment for N GPUs at a utilisation over a horizon",
		Long: `Price every way to get N GPUs of a model for the horizon from the stored current
prices of every cloud: on demand for the hours used, or commitments renewed at
today's price until the horizon is covered. Shows the options compared, the
cheapest one, where it breaks even and what would change the answer. Spot is
left out unless --include-spot: it can be taken back at any time.`,
		Example: `  pricewatch recommend --gpu A100 --count 8 --utilization 0.6 --horizon 3y
  pricewatch recommend --gpu A100 --count 8 --utilization 0.6 --horizon 3y --currency CNY
  pricewatch recommend --gpu H100 --count 16 --utilization 90% --horizon 1y --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(f.gpu) == "" {
				return usagef("--gpu is required (e.g. --gpu A100)")
			}
			u, err := analysis.ParseUtilization(f.utilization)
			if err != nil {
				return usagef("--utilization: %w", err)
			}
			if f.top < 0 {
				return usagef("--top %d: want 0 (all) or more", f.top)
			}
			if f.count < 1 {
				return usagef("--count %d: want at least 1 GPU", f.count)
			}
			if _, err := pricewatch.TermHours(f.horizon); err != nil {
				return usagef("--horizon: %w", err)
			}
			if f.hosts < 0 {
				return usagef("--hosts %d: want 1 or more machines (0: one, or several with a stated interconnect)", f.hosts)
			}
			seller, hw, err := buyflags.Buyer(f.seller, f.hardware)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			m, err := a.openMarket(ctx, f.scopeFlags)
			if err != nil {
				return err
			}
			if err := report.CheckGPUModel(ctx, m.db, f.gpu); err != nil {
				return err
			}
			rec, err := report.Recommend(ctx, m.db, m.fx, report.RecommendQuery{Scope: m.reportScope(), GPU: f.gpu, Count: f.count,
				Utilization: u, Horizon: f.horizon, IncludeSpot: f.includeSpot, Seller: seller, Hardware: hw, Hosts: f.hosts})
			if err != nil {
				return err
			}
			notes := m.rateNotes()
			noteConversions(notes, rec.Options, rec.Unconverted, func(o analysis.Option) (string, analysis.FXUsed) { return o.NativeCurrency, o.FXUsed })
			return a.writeReport(f.format, notes, reportOutput{
				json:  func() any { return report.RecommendJSONOf(rec) },
				csv:   func(w io.Writer) error { return writeRecommendCSV(w, rec) },
				table: func(w io.Writer) error { return writeRecommendTable(w, rec, f, hw, m.now, notes) },
			})
		},
	})
	cmd.Flags().StringVar(&f.gpu, "gpu", "", "GPU model or family: A100 (any A100), H100, A100-80GB, …")
	cmd.Flags().IntVar(&f.count, "count", 1, "GPUs needed at once")
	cmd.Flags().StringVar(&f.utilization, "utilization", "1", "share of the horizon's hours the GPUs are busy: 0.6 or 60%")
	cmd.Flags().StringVar(&f.horizon, "horizon", "1y", "how long the GPUs are needed: 1y, 3y, 18m, or days (7d) to weigh capacity blocks")
	cmd.Flags().BoolVar(&f.includeSpot, "include-spot", false, "consider spot prices too (interruptible capacity)")
	cmd.Flags().IntVar(&f.top, "top", 10, "how many options to list in the table (0: all)")
	cmd.Flags().IntVar(&f.hosts, "hosts", 0, "at most this many machines for the job, as they are (default: one machine, or several whose cloud states their interconnect)")
	buyflags.AddSeller(cmd, &f.seller)
	buyflags.AddHardware(cmd, &f.hardware)
	return cmd
}

func writeRecommendCSV(w io.Writer, rec analysis.Recommendation) error {
	js := report.RecommendJSONOf(rec)
	return writeRowsCSV(w, append(js.Options, js.Unconverted...))
}

func writeRecommendTable(w io.Writer, rec analysis.Recommendation, f recommendFlags, hw analysis.HardwareFilter, now time.Time, notes *clitext.RateNotes) error {
	var b strings.Builder
	models := ""
	if len(rec.Models) > 0 {
		models = " (" + strings.Join(rec.Models, ", ") + ")"
	}
	b.WriteString(table.Wrap(fmt.Sprintf("Question: %d × %s GPUs%s at %s utilisation over %s, costs in %s, from the prices current on %s.",
		rec.Count, rec.GPU, models, clitext.Share(rec.Utilization), rec.Horizon, rec.Currency, now.UTC().Format(time.DateOnly)), tableWidth(), "  "))
	b.WriteString(clitext.BuyerLines("", hw, rec.Currency, tableWidth()))
	if len(rec.Options) > 0 {
		shown := rec.Options
		if f.top > 0 && len(shown) > f.top {
			shown = shown[:f.top]
		}
		b.WriteString("\n")
		title := fmt.Sprintf("Options compared, cheapest first (%s", clitext.Plural(len(rec.Options), "option"))
		if len(shown) < len(rec.Options) {
			title += fmt.Sprintf(", top %d shown", len(shown))
		}
		b.WriteString(title + "):\n")
		// Cost per GPU-hour used is TOTAL over the same number of GPU-hours
		// for every option, so the table leaves it to JSON and the reasons.
		// Left out, in this order, until the table fits: BREAK-EVEN,
		// REGION, N, PROVIDER (the instance type names its cloud).
		cols := []table.Column{{Head: " "}, {Head: "PROVIDER", Drop: 4}, {Head: "REGION", Drop: 2}, {Head: "INSTANCE TYPE"}, {Head: ">N", Drop: 3},
			{Head: "BUY"}, {Head: ">TOTAL " + rec.Currency}, {Head: ">BREAK-EVEN", Drop: 1}}
		var offers []pricewatch.Offer
		marks := map[string]bool{}
		for i, o := range shown {
			mark := ""
			switch {
			case i == rec.Best:
				mark = "*"
			case o.Available != nil && !*o.Available:
				mark = "x"
			case o.Available == nil:
				mark = "?"
			}
			marks[mark] = true
			be := "-"
			if o.BreakEvenUtilization.Valid {
				be = clitext.Share(o.BreakEvenUtilization.Decimal)
				if o.BreakEvenUtilization.Decimal.GreaterThan(decimal.NewFromInt(1)) {
					be = "never"
				}
			}
			table.AddRow(cols, mark, o.Provider, pricewatch.Place(o.Region, o.Zone), o.InstanceType, fmt.Sprint(o.Instances), clitext.BuyLabel(o.Offer),
				clitext.Money(o.TotalCost), be)
			offers = append(offers, o.Offer)
		}
		if err := fitNoting(&b, cols, "see --wide or --format json"); err != nil {
			return err
		}
		legend := []string{"* = recommended"}
		if marks["x"] {
			legend = append(legend, "x = sold out where priced")
		}
		if marks["?"] {
			legend = append(legend, "? = availability not known")
		}
		b.WriteString(strings.Join(legend, "; ") + ".\n")
		clitext.WriteBuyLegend(&b, offers, tableWidth())
		b.WriteString(table.Wrap("N = instances needed; TOTAL = cost over the horizon at the utilisation asked; "+
			"BREAK-EVEN = utilisation above which the commitment beats on-demand for the same machine.", tableWidth(), "  "))
	}
	if len(rec.Unconverted) > 0 {
		b.WriteString("\n")
		fmt.Fprintf(&b, "Not compared (%s without a rate into %s):\n", clitext.Plural(len(rec.Unconverted), "option"), rec.Currency)
		for _, o := range rec.Unconverted {
			b.WriteString(table.Wrap(fmt.Sprintf("- %s (%s)", o.Label(), o.NativeCurrency), tableWidth(), "  "))
		}
	}
	if n := len(rec.Blocks) + len(rec.UnconvertedBlocks); n > 0 {
		// Beside the options, not ranked with them: a block starts when
		// its window does.
		b.WriteString("\n")
		fmt.Fprintf(&b, "Capacity blocks that fit (%s, paid upfront for the window):\n", clitext.Plural(n, "block"))
		for _, o := range rec.Blocks {
			b.WriteString(table.Wrap(fmt.Sprintf("- %s: %s %s per GPU-hour, %s %s upfront", o.Label(), clitext.Rate(o.PerGPUHour), o.Currency,
				clitext.Money(o.Fee), o.Currency), tableWidth(), "  "))
		}
		for _, o := range rec.UnconvertedBlocks {
			b.WriteString(table.Wrap(fmt.Sprintf("- %s: %s %s upfront (no rate into %s)", o.Label(), clitext.Money(o.Fee), o.Currency, rec.Currency), tableWidth(), "  "))
		}
	}
	b.WriteString("\n")
	if rec.BestCloud >= 0 && rec.BestMarketplace >= 0 {
		// Side by side, not one mixed winner (issue 31 item 1): a company
		// that cannot buy from a marketplace reads the first line.
		c, m := rec.Options[rec.BestCloud], rec.Options[rec.BestMarketplace]
		b.WriteString("Recommendation, cloud and marketplace side by side:\n")
		b.WriteString(table.Wrap(fmt.Sprintf("- cloud: %s, %s %s over %s.", c.Label(), clitext.Money(c.TotalCost), rec.Currency, rec.Horizon), tableWidth(), "    "))
		b.WriteString(table.Wrap(fmt.Sprintf("- marketplace (%s): %s, %s %s over %s.", clouds.MarketplaceName(m.Provider, m.OfferingClass), m.Label(),
			clitext.Money(m.TotalCost), rec.Currency, rec.Horizon), tableWidth(), "    "))
	} else if best, ok := rec.BestOption(); ok {
		b.WriteString(table.Wrap(fmt.Sprintf("Recommendation: %s, %s %s over %s.", best.Label(), clitext.Money(best.TotalCost), rec.Currency, rec.Horizon), tableWidth(), "  "))
	} else {
		b.WriteString("Recommendation: none (see below).\n")
	}
	b.WriteString("\nWhy:\n")
	for _, r := range rec.Reasons {
		b.WriteString(table.Wrap("- "+r, tableWidth(), "  "))
	}
	if len(rec.Changes) > 0 {
		b.WriteString("\nWhat would change the answer:\n")
		for _, c := range rec.Changes {
			b.WriteString(table.Wrap("- "+c, tableWidth(), "  "))
		}
	}
	notes.WriteApart(&b, tableWidth())
	_, err := io.WriteString(w, b.String())
	return err
}
