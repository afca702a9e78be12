package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
)

type savingsFlags struct {
	scopeFlags
	utilization string
}

func (a *app) savingsCommand() *cobra.Command {
	var f savingsFlags
	cmd := &cobra.Command{
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
				return fmt.Errorf("--utilization: %w", err)
			}
			ctx := cmd.Context()
			m, err := a.openMarket(ctx, f.scopeFlags)
			if err != nil {
				return err
			}
			now, currency, book := m.now, m.currency, m.fx
			offers, err := m.offersOfType(ctx, args[0])
			if err != nil {
				return err
			}
			rep, err := analysis.ComputeSavings(offers, analysis.SavingsOptions{Utilization: u, Currency: currency, FX: book, At: now})
			if err != nil {
				return err
			}
			notes := newRateNotes(currency, now, book.MaxAge())
			for _, s := range rep.Rows() {
				notes.used(s.NativeCurrency, s.FXUsed)
			}
			for _, o := range offers {
				if _, err := book.Quote(o.Currency, currency, now); err != nil {
					notes.missing(o.Currency)
				}
			}
			switch f.format {
			case formatJSON:
				notes.warn(a.stderr)
				warnSkipped(a.stderr, rep.Unmatched)
				return writeJSON(a.stdout, savingsJSON(rep))
			case formatCSV:
				notes.warn(a.stderr)
				warnSkipped(a.stderr, rep.Unmatched)
				return writeSavingsCSV(a.stdout, rep)
			}
			return writeSavingsTable(a.stdout, args[0], offers, rep, currency, notes)
		},
	}
	cmd.Flags().StringVar(&f.utilization, "utilization", "1", "share of the term's hours the machine runs: 0.7 or 70%")
	addScopeFlags(cmd, &f.scopeFlags, "currency of every figure")
	return cmd
}

// savingsRow is the JSON shape scripts rely on; keep the names. Costs are at
// the given utilisation, percentages 0–100, utilisations 0–1.
type savingsRow struct {
	Provider             string          `json:"provider"`
	Region               string          `json:"region"`
	Zone                 string          `json:"zone"`
	InstanceType         string          `json:"instance_type"`
	OS                   string          `json:"os"`
	PriceType            string          `json:"price_type"`
	Term                 string          `json:"term"`
	Payment              string          `json:"payment"`
	OfferingClass        string          `json:"offering_class"`
	GPUModel             string          `json:"gpu_model"`
	GPUCount             float64         `json:"gpu_count"`
	Currency             string          `json:"currency"`
	TermHours            int64           `json:"term_hours"`
	Upfront              jsonDecimal     `json:"upfront"`
	Hourly               jsonDecimal     `json:"hourly"`
	OnDemandHourly       jsonDecimal     `json:"on_demand_hourly"`
	EffectiveHourly      jsonDecimal     `json:"effective_hourly"`
	Utilization          jsonDecimal     `json:"utilization"`
	SavingsPct           jsonDecimal     `json:"savings_pct"`
	FullUseSavingsPct    jsonDecimal     `json:"full_use_savings_pct"`
	BreakEvenUtilization jsonDecimal     `json:"break_even_utilization"`
	BreaksEven           bool            `json:"breaks_even"`
	TermCost             jsonDecimal     `json:"term_cost"`
	OnDemandTermCost     jsonDecimal     `json:"on_demand_term_cost"`
	PaybackHours         jsonNullDecimal `json:"payback_hours"`
	Best                 bool            `json:"best"`
	NativeCurrency       string          `json:"native_currency"`
	FXRate               jsonDecimal     `json:"fx_rate"`
	FXDate               *string         `json:"fx_date"`
	FXSource             string          `json:"fx_source"`
	FXStale              bool            `json:"fx_stale"`
}

func savingsJSON(rep analysis.SavingsReport) []savingsRow {
	rows := rep.Rows()
	out := make([]savingsRow, 0, len(rows))
	for _, s := range rows {
		out = append(out, savingsRow{
			Provider: s.Provider, Region: s.Region, Zone: s.Zone, InstanceType: s.InstanceType, OS: s.OS,
			PriceType: string(s.PriceType), Term: s.Term, Payment: s.Payment, OfferingClass: s.OfferingClass,
			GPUModel: s.GPUModel, GPUCount: s.GPUCount, Currency: s.Currency, TermHours: s.TermHours,
			Upfront: jsonDecimal(s.Upfront), Hourly: jsonDecimal(s.Hourly), OnDemandHourly: jsonDecimal(s.OnDemandHourly),
			EffectiveHourly: jsonDecimal(s.EffectiveHourly), Utilization: jsonDecimal(s.Utilization),
			SavingsPct: jsonDecimal(s.SavingsPct), FullUseSavingsPct: jsonDecimal(s.FullUseSavingsPct),
			BreakEvenUtilization: jsonDecimal(s.BreakEvenUtilization), BreaksEven: s.BreaksEven,
			TermCost: jsonDecimal(s.TermCost), OnDemandTermCost: jsonDecimal(s.OnDemandTermCost),
			PaybackHours: nullDecimal(s.PaybackHours.Decimal, s.PaybackHours.Valid), Best: s.Best,
			NativeCurrency: s.NativeCurrency, FXRate: jsonDecimal(s.FXRate), FXDate: optString(s.FXDate),
			FXSource: s.FXSource, FXStale: s.FXStale,
		})
	}
	return out
}

func writeSavingsCSV(w io.Writer, rep analysis.SavingsReport) error {
	header := []string{"provider", "region", "zone", "instance_type", "os", "price_type", "term", "payment", "offering_class",
		"gpu_model", "gpu_count", "currency", "term_hours", "upfront", "hourly", "on_demand_hourly", "effective_hourly", "utilization",
		"savings_pct", "full_use_savings_pct", "break_even_utilization", "breaks_even", "term_cost", "on_demand_term_cost",
		"payback_hours", "best", "native_currency", "fx_rate", "fx_date", "fx_source", "fx_stale"}
	var rows [][]string
	for _, s := range rep.Rows() {
		payback := ""
		if s.PaybackHours.Valid {
			payback = s.PaybackHours.Decimal.String()
		}
		rows = append(rows, []string{s.Provider, s.Region, s.Zone, s.InstanceType, s.OS, string(s.PriceType), s.Term, s.Payment, s.OfferingClass,
			s.GPUModel, formatFloat(s.GPUCount), s.Currency, fmt.Sprint(s.TermHours), s.Upfront.String(), s.Hourly.String(),
			s.OnDemandHourly.String(), s.EffectiveHourly.String(), s.Utilization.String(), s.SavingsPct.String(),
			s.FullUseSavingsPct.String(), s.BreakEvenUtilization.String(), fmt.Sprint(s.BreaksEven), s.TermCost.String(),
			s.OnDemandTermCost.String(), payback, fmt.Sprint(s.Best), s.NativeCurrency, s.FXRate.String(), s.FXDate, s.FXSource,
			fmt.Sprint(s.FXStale)})
	}
	return writeCSV(w, header, rows)
}

func writeSavingsTable(w io.Writer, instanceType string, offers []pricewatch.Offer, rep analysis.SavingsReport, currency string, notes *rateNotes) error {
	var b strings.Builder
	u := shareText(rep.Utilization)
	switch {
	case len(offers) == 0:
		fmt.Fprintf(&b, "No current prices for %s (has `pricewatch fetch` run, and is the name spelled as the cloud spells it?).\n", instanceType)
	case len(rep.Groups) == 0 && len(rep.Unmatched) == 0:
		fmt.Fprintf(&b, "No commitment prices stored for %s: only pay-as-you-go prices are known.\n", instanceType)
	default:
		fmt.Fprintf(&b, "Commitments for %s against on-demand, at %s utilisation, in %s.\n", instanceType, u, currency)
		b.WriteString(wrapText("A commitment costs its term cost whatever the use; ON-DEMAND is paying on demand for the hours used over the same term. "+
			"BREAK-EVEN is the utilisation above which the commitment is cheaper.", tableWidth, ""))
	}
	var shown []pricewatch.Offer
	for _, g := range rep.Groups {
		b.WriteString("\n")
		fmt.Fprintf(&b, "%s %s %s (%s, %s): on-demand %s %s/h\n", g.Provider, placeOf(g.Region, g.Zone), g.InstanceType,
			gpusLabel(g.OnDemand.GPUCount, g.OnDemand.GPUModel), g.OS, displayRate(g.OnDemandHourly), g.Currency)
		cols := []fitColumn{{head: " "}, {head: "BUY"}, {head: ">EFFECTIVE/H"}, {head: ">SAVINGS"}, {head: ">BREAK-EVEN"},
			{head: ">UPFRONT", drop: 1}, {head: ">TERM COST"}, {head: ">ON-DEMAND"}}
		for _, s := range g.Options {
			mark := ""
			if s.Best {
				mark = "*"
			}
			be := shareText(s.BreakEvenUtilization)
			if !s.BreaksEven {
				be = "never"
			}
			addRow(cols, mark, buyLabel(s.Offer), displayRate(s.EffectiveHourly), percentText(s.SavingsPct), be,
				moneyText(s.Upfront), moneyText(s.TermCost), moneyText(s.OnDemandTermCost))
			shown = append(shown, s.Offer)
		}
		dropped, err := fitTable(&b, cols)
		if err != nil {
			return err
		}
		if len(dropped) > 0 {
			fmt.Fprintf(&b, "Left out to fit %d columns: %s (see --format json).\n", tableWidth, strings.Join(dropped, ", "))
		}
		if g.OnDemandBest {
			fmt.Fprintf(&b, "On-demand is cheapest at %s: no commitment here pays off at that use.\n", u)
		} else {
			best := g.Options[0]
			saved := best.OnDemandTermCost.Sub(best.TermCost)
			b.WriteString(wrapText(fmt.Sprintf("* Best at %s: %s, %s %s less than on-demand over %s (%s); it breaks even at %s.",
				u, buyLabel(best.Offer), moneyText(saved), g.Currency, best.Term, percentText(best.SavingsPct), shareText(best.BreakEvenUtilization)), tableWidth, "  "))
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
			placeOf(s.Offer.Region, s.Offer.Zone), s.Offer.InstanceType, buyLabel(s.Offer)))
	}
	for _, r := range reasons {
		b.WriteString("\n")
		b.WriteString(wrapText(fmt.Sprintf("Not compared (%s):", r), tableWidth, "  "))
		for _, o := range byReason[r] {
			b.WriteString("- " + o + "\n")
		}
	}
	if len(shown) > 0 || len(rep.Unmatched) > 0 {
		b.WriteString("\n")
		writeBuyLegend(&b, shown)
	}
	notes.write(&b)
	if len(notes.absent) > 0 {
		b.WriteString(wrapText("Or ask in the prices' own currency: --currency "+strings.Join(sortedSet(notes.absent), " or --currency ")+".", tableWidth, "  "))
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
