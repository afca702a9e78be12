package main

import (
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/cmd/internal/clitext"
	"github.com/pricewatch/pricewatch/internal/table"
	"github.com/pricewatch/pricewatch/report"
)

type savingsFlags struct {
	scopeFlags
	utilization string
}

func (a *app) savingsCommand() *cobra.Command {
	var f savingsFlags
	cmd := analysisCommand(&f.scopeFlags, "currency of every figure", &cobra.Command{
		Use:   "savings INSTANCE_TYPE",
		Short: "Compare every commitment option of an instance type with on-demand",
		Long: `For each place the instance type is sold, list every commitment (reserved
instance, savings plan, prepaid subscription) beside on-demand: effective
hourly price, saving at the given utilisation, the utilisation at which the
commitment breaks even, and the cost over the term. A commitment is paid for
every hour of its term; on-demand only for the hours used.`,
		Example: `  pricewatch savings Standard_ND96amsr_A100_v4 --region westus2 --utilization 0.7
  pricewatch savings ecs.gn7-c13g1.26xlarge --currency CNY --format json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			u, err := analysis.ParseUtilization(f.utilization)
			if err != nil {
				return usagef("--utilization: %w", err)
			}
			ctx := cmd.Context()
			if f.server != "" {
				if err := remoteFormat(f.server, f.format, formatJSON); err != nil {
					return err
				}
				q := f.query()
				q.set("utilization", f.utilization)
				_, err := a.remoteRows(ctx, f.server, "savings/"+url.PathEscape(args[0]), url.Values(q), true, nil)
				return err
			}
			m, err := a.openMarket(ctx, f.scopeFlags)
			if err != nil {
				return err
			}
			instanceType, err := report.ResolveInstanceType(ctx, m.db, args[0])
			if err != nil {
				return err
			}
			sav, err := report.ComputeSavings(ctx, m.db, m.fx, report.SavingsQuery{Scope: m.reportScope(), InstanceType: instanceType, Utilization: u})
			if err != nil {
				return err
			}
			offers, rep := sav.Offers, sav.SavingsReport
			notes := m.rateNotes()
			for _, s := range rep.Rows() {
				notes.Used(s.NativeCurrency, s.FXUsed)
			}
			for _, o := range offers {
				m.noteIfUnquoted(notes, o.Currency)
			}
			return a.writeReport(f.format, notes, reportOutput{
				json:  func() any { return report.SavingsRows(rep) },
				table: func(w io.Writer) error { return writeSavingsTable(w, instanceType, offers, rep, m.currency, notes) },
				warn:  func(w io.Writer) { warnSkipped(w, rep.Unmatched) },
			})
		},
	})
	cmd.Flags().StringVar(&f.utilization, "utilization", "1", "share of the term's hours the machine runs: 0.7 or 70%")
	return cmd
}

func writeSavingsTable(w io.Writer, instanceType string, offers []pricewatch.Offer, rep analysis.SavingsReport, currency string, notes *clitext.RateNotes) error {
	var b strings.Builder
	u := clitext.Share(rep.Utilization)
	switch {
	case len(offers) == 0:
		fmt.Fprintf(&b, "No current prices for %s (has `pricewatch fetch` run, and is the name spelled as the cloud spells it?).\n", instanceType)
	case len(rep.Groups) == 0 && len(rep.Unmatched) == 0:
		fmt.Fprintf(&b, "No commitment prices stored for %s: only pay-as-you-go prices are known.\n", instanceType)
	default:
		b.WriteString(table.Wrap(fmt.Sprintf("Commitments for %s against on-demand, at %s utilisation, in %s.", instanceType, u, currency), tableWidth(), "  "))
		b.WriteString(table.Wrap("A commitment costs its term cost whatever the use; ON-DEMAND is paying on demand for the hours used over the same term. "+
			"SAVINGS is the saving at that utilisation; DISCOUNT is the commitment's rate against on-demand at full use, as the clouds quote it. "+
			"BREAK-EVEN is the utilisation above which the commitment is cheaper.", tableWidth(), ""))
	}
	var shown []pricewatch.Offer
	for _, g := range rep.Groups {
		b.WriteString("\n")
		b.WriteString(table.Wrap(fmt.Sprintf("%s %s %s (%s, %s): on-demand %s %s/h", g.Provider, pricewatch.Place(g.Region, g.Zone), g.InstanceType,
			clitext.GPUs(g.OnDemand.GPUCount, g.OnDemand.GPUModel), g.OS, clitext.Rate(g.OnDemandHourly), g.Currency), tableWidth(), "  "))
		cols := []table.Column{{Head: " "}, {Head: "BUY"}, {Head: ">EFFECTIVE/H"}, {Head: ">SAVINGS"}, {Head: ">DISCOUNT", Drop: 2}, {Head: ">BREAK-EVEN"},
			{Head: ">UPFRONT", Drop: 1}, {Head: ">TERM COST", Drop: 4}, {Head: ">ON-DEMAND", Drop: 3}}
		for _, s := range g.Options {
			mark := ""
			if s.Best {
				mark = "*"
			}
			be := clitext.Share(s.BreakEvenUtilization)
			if !s.BreaksEven {
				be = "never"
			}
			table.AddRow(cols, mark, clitext.BuyLabel(s.Offer), clitext.Rate(s.EffectiveHourly), clitext.Percent(s.SavingsPct), clitext.Percent(s.DiscountPct), be,
				clitext.Money(s.Upfront), clitext.Money(s.TermCost), clitext.Money(s.OnDemandTermCost))
			shown = append(shown, s.Offer)
		}
		if err := fitNoting(&b, cols, "see --wide or --format json"); err != nil {
			return err
		}
		if g.OnDemandBest {
			fmt.Fprintf(&b, "On-demand is cheapest at %s: no commitment here pays off at that use.\n", u)
		} else {
			best := g.Options[0]
			saved := best.OnDemandTermCost.Sub(best.TermCost)
			b.WriteString(table.Wrap(fmt.Sprintf("* Best at %s: %s, %s %s less than on-demand over %s (%s); it breaks even at %s.",
				u, clitext.BuyLabel(best.Offer), clitext.Money(saved), g.Currency, best.Term, clitext.Percent(best.SavingsPct), clitext.Share(best.BreakEvenUtilization)), tableWidth(), "  "))
		}
	}
	// One paragraph per reason: a missing rate leaves out every option of
	// the machine for the same reason.
	var reasons []string
	byReason := map[string][]string{}
	for _, s := range rep.Unmatched {
		if _, ok := byReason[s.Reason]; !ok {
			reasons = append(reasons, s.Reason)
		}
		byReason[s.Reason] = append(byReason[s.Reason], fmt.Sprintf("%s %s %s %s", s.Offer.Provider,
			pricewatch.Place(s.Offer.Region, s.Offer.Zone), s.Offer.InstanceType, clitext.BuyLabel(s.Offer)))
	}
	for _, r := range reasons {
		b.WriteString("\n")
		b.WriteString(table.Wrap(fmt.Sprintf("Not compared (%s):", r), tableWidth(), "  "))
		for _, o := range byReason[r] {
			b.WriteString("- " + o + "\n")
		}
	}
	if len(shown) > 0 || len(rep.Unmatched) > 0 {
		b.WriteString("\n")
		clitext.WriteBuyLegend(&b, shown, tableWidth())
	}
	notes.Write(&b, tableWidth())
	if len(notes.Absent()) > 0 {
		b.WriteString(table.Wrap("Or ask in the prices' own currency: --currency "+strings.Join(notes.Absent(), " or --currency ")+".", tableWidth(), "  "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// warnSkipped tells a script's user on stderr what was left out of JSON or CSV.
func warnSkipped(w io.Writer, skipped []analysis.Skipped) {
	for _, s := range skipped {
		fmt.Fprintf(w, "pricewatch: warning: %s not compared: %s\n", s.Offer.Key(), s.Reason)
	}
}
