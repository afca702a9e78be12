// Package machineview is `compare --by machine --per UNIT` (issue 31
// item 3): the flags, the API parameters they become for --server, and
// the table of report.MachineRows. The rows themselves are report's, the
// same the API and the dashboard's offers table give.
package machineview

import (
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/cmd/internal/clitext"
	"github.com/pricewatch/pricewatch/internal/table"
	"github.com/pricewatch/pricewatch/report"
)

// Flags are --by and --per as given.
type Flags struct {
	By, Per string
}

// Add registers --by and --per.
func (f *Flags) Add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.By, "by", report.ByPrice, "price: one row per price; machine: one row per instance type and region with on-demand, spot, best 1-year and 3-year prices")
	cmd.Flags().StringVar(&f.Per, "per", string(report.PerHour), "the machine rows' unit: hour, day, month (730 h) or year (8,760 h); with --by machine")
	static := func(vals ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return vals, cobra.ShellCompDirectiveNoFileComp
		}
	}
	_ = cmd.RegisterFlagCompletionFunc("by", static(report.ByPrice, report.ByMachine))
	var pers []string
	for _, p := range report.Pers {
		pers = append(pers, string(p))
	}
	_ = cmd.RegisterFlagCompletionFunc("per", static(pers...))
}

// Parse reads the flags. Unless --price-type was given (changed), the
// machine rows read every price type: their columns are the price types.
func (f *Flags) Parse(priceTypes *[]string, changed bool) (by string, per report.Per, err error) {
	by, per, err = report.ParseView("--by", f.By, "--per", f.Per)
	if err == nil && by == report.ByMachine && !changed {
		*priceTypes = []string{"any"}
	}
	return by, per, err
}

// SetParams sets by and per for --server (left out at their defaults).
func (f *Flags) SetParams(q url.Values, by string, per report.Per) {
	if by == report.ByMachine {
		q.Set("by", by)
		q.Set("per", string(per))
	}
}

// RemoteRows is where --server's answer of the view is decoded to.
func RemoteRows(by string) any {
	if by == report.ByMachine {
		return &[]report.MachineRow{}
	}
	return &[]report.CompareRow{}
}

// Heading is what the table is of.
type Heading struct {
	What     string // "A100 × 8 per instance"
	Types    string // the price types asked, as clitext.PriceTypes says them
	OS       string
	Now      time.Time
	Currency string
	Per      report.Per
	// Lines come under the heading (the seller and hardware bounds).
	Lines string
	// Wide keeps every column, whatever l.Width (--wide).
	Wide bool
}

// perText is "a month (730 hours)".
func perText(p report.Per) string {
	switch p {
	case report.PerDay:
		return "a day (24 hours)"
	case report.PerMonth:
		return "a month (730 hours)"
	case report.PerYear:
		return "a year (8,760 hours)"
	}
	return "an hour"
}

// amount prints a price for the unit: per hour to four decimals as every
// hourly rate, per day as an amount (two decimals, thousands grouped), per
// month and year to the whole unit: four columns of cents do not fit 100
// columns beside the region, and JSON and CSV carry every digit.
func amount(d report.NullDecimal, opt *string, per report.Per) string {
	switch {
	case d.Valid && per == report.PerHour:
		return clitext.Rate(d.D)
	case d.Valid && per == report.PerDay:
		return clitext.Money(d.D)
	case d.Valid:
		return pricewatch.GroupThousands(d.D.StringFixed(0))
	case opt != nil:
		return "no rate"
	}
	return "-"
}

// option is a commitment column's compact label (RI 1y all, SP 3y none).
func option(r *report.MachineRow, c int) string {
	if o := r.Offer(c); o != nil {
		return clitext.BuyLabel(*o)
	}
	return "-"
}

// WriteTable writes the machine rows as a table fitted to l.Width, with
// what the columns mean under it; notes are the exchange-rate notes.
func WriteTable(w io.Writer, rows []report.MachineRow, h Heading, l table.Layout, notes *clitext.RateNotes) error {
	var b strings.Builder
	width := l.Width
	b.WriteString(table.Wrap(fmt.Sprintf("%s, %s, %s: one row per machine, prices of %s in %s for %s.",
		h.What, h.Types, h.OS, h.Now.UTC().Format(time.DateOnly), h.Currency, perText(h.Per)), width, "  "))
	b.WriteString(h.Lines)
	if len(rows) == 0 {
		b.WriteString("No stored price matches (has `pricewatch fetch` run? try another --gpu or fewer filters).\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	b.WriteString("\n")
	var offers []pricewatch.Offer
	market := false
	for i := range rows {
		market = market || rows[i].Marketplace
		for c := range report.MachineColumnLabels {
			if o := rows[i].Offer(c); o != nil {
				offers = append(offers, *o)
			}
		}
	}
	cols := []table.Column{
		// Left out, in this order, until the table fits: the 3-year and
		// 1-year options, AVAIL, GPUS, MARKET (a machine is its region:
		// REGION stays).
		{Head: "PROVIDER"}, {Head: "REGION"}, {Head: "INSTANCE TYPE"}, {Head: "GPUS", Drop: 4},
		// Short heads: four prices, the region and a long instance name
		// (Nebius's) within 100 columns.
		{Head: ">ON-DEM"}, {Head: ">SPOT"}, {Head: ">1Y"}, {Head: "1Y AS", Drop: 2}, {Head: ">3Y"}, {Head: "3Y AS", Drop: 1},
		{Head: "AVAIL", Drop: 3}, {Head: "MARKET", Hidden: !market, Drop: 5},
	}
	for i := range rows {
		r := &rows[i]
		cell := func(c int) string {
			d, opt := r.Cell(c)
			return amount(d, opt, h.Per)
		}
		table.AddRow(cols, r.Provider, r.Region, r.InstanceType, clitext.GPUs(r.GPUCount, r.GPUModel),
			cell(report.ColOnDemand), cell(report.ColSpot), cell(report.ColBest1y), option(r, report.ColBest1y),
			cell(report.ColBest3y), option(r, report.ColBest3y), clitext.Avail(r.Available), clitext.MarketShort(r.Marketplace))
	}
	fit := l
	if h.Wide {
		fit.Width = 0
	}
	dropped, err := table.Fit(&b, cols, fit)
	if err != nil {
		return err
	}
	if len(dropped) > 0 {
		b.WriteString(table.Wrap(fmt.Sprintf("Left out to fit %d columns: %s (use --wide, or --format json or csv).", width, strings.Join(dropped, ", ")), width, "  "))
	}
	b.WriteString("\n")
	b.WriteString(table.Wrap("Each column is the machine's cheapest price of its kind, upfront spread over the term: ON-DEM on-demand, "+
		"SPOT spot (in any zone of the region), 1Y and 3Y the best reserved or savings-plan commitment of 1 and 3 years (1Y AS, 3Y AS: which one). "+
		"Ordered by on-demand price per GPU; - = no such price stored, no rate = its currency has no exchange rate. "+
		"Month and year prices are to the whole unit here (JSON and CSV: every digit).", width, "  "))
	clitext.WriteBuyLegend(&b, offers, width)
	b.WriteString(table.Wrap("AVAIL: yes = offered or in stock, no = sold out, ? = not known.", width, "  "))
	if market {
		b.WriteString(table.Wrap("MARKET: yes = a marketplace offer (third-party hosts' machines), not the cloud's own capacity.", width, "  "))
	}
	notes.Write(&b, width)
	_, err = io.WriteString(w, b.String())
	return err
}
