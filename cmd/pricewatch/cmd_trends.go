package main

import (
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/cmd/internal/buyflags"
	"github.com/pricewatch/pricewatch/cmd/internal/clitext"
	"github.com/pricewatch/pricewatch/internal/table"
	"github.com/pricewatch/pricewatch/report"
)

type trendsFlags struct {
	scopeFlags
	gpu        string
	window     string
	priceTypes []string
	top        int
	seller     string
}

// defaultTrendPriceTypes are report.DefaultTrendPriceTypes as flag values.
var defaultTrendPriceTypes = func() []string {
	var out []string
	for _, p := range report.DefaultTrendPriceTypes {
		out = append(out, string(p))
	}
	return out
}()

func (a *app) trendsCommand() *cobra.Command {
	var f trendsFlags
	cmd := analysisCommand(&f.scopeFlags, "currency of the cheapest series", &cobra.Command{
		Use:   "trends",
		Short: "Show the biggest price movers and the cheapest price per GPU-hour over a window",
		Long: `List the offers whose effective hourly price moved most (by percent) over the
window, and, per GPU model, the cheapest price per GPU-hour across every cloud
and region through the window, converted into one currency with the rate of
each day. By default only pay-as-you-go prices (on-demand and spot) are used.`,
		Example: `  pricewatch trends --gpu H100 --window 30d
  pricewatch trends --window 7d --price-type spot --top 5
  pricewatch trends --gpu A100 --currency CNY --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			window, err := analysis.ParseWindow(f.window)
			if err != nil {
				return usagef("--window: %w", err)
			}
			pts, err := parsePriceTypes(f.priceTypes)
			if err != nil {
				return err
			}
			if f.top < 0 {
				return usagef("--top %d: want 0 (all) or more", f.top)
			}
			seller, err := buyflags.Seller(f.seller)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			if f.server != "" {
				if err := remoteFormat(f.server, f.format, formatJSON); err != nil {
					return err
				}
				q := f.query()
				q.set("gpu", f.gpu)
				q.set("window", f.window)
				q.list("price_type", f.priceTypes)
				q.set("top", strconv.Itoa(f.top))
				q.set("seller", string(seller))
				_, err := a.remoteRows(ctx, f.server, "trends", url.Values(q), true, nil)
				return err
			}
			m, err := a.openMarket(ctx, f.scopeFlags)
			if err != nil {
				return err
			}
			if err := report.CheckGPUModel(ctx, m.db, f.gpu); err != nil {
				return err
			}
			tr, err := report.ComputeTrends(ctx, m.db, m.fx, report.TrendsQuery{Scope: m.reportScope(), GPU: f.gpu, Window: window,
				PriceTypes: pts, Top: f.top, Seller: seller})
			if err != nil {
				return err
			}
			rep := trendsReport{tr}
			notes := m.rateNotes()
			for _, s := range tr.Cheapest {
				for _, p := range s.Points {
					notes.Used(p.NativeCurrency, p.FXUsed)
				}
				for _, c := range s.Currencies {
					m.noteIfUnquoted(notes, c)
				}
			}
			return a.writeReport(f.format, notes, reportOutput{
				json:  func() any { return rep.json() },
				csv:   func(w io.Writer) error { return report.WriteTrendsCSV(w, rep.Trends) },
				table: func(w io.Writer) error { return rep.writeTable(w, pts, f.os, notes) },
			})
		},
	})
	cmd.Flags().StringVar(&f.gpu, "gpu", "", "GPU model or family (default: every model, one cheapest series each)")
	cmd.Flags().StringVar(&f.window, "window", "30d", "how far back to look: 7d, 30d, 90d, 12w, 48h")
	cmd.Flags().StringSliceVar(&f.priceTypes, "price-type", defaultTrendPriceTypes, "on_demand, spot, reserved, savings_plan, capacity_block or any; repeatable")
	cmd.Flags().IntVar(&f.top, "top", 10, "how many movers to list (0: all)")
	buyflags.AddSeller(cmd, &f.seller)
	return cmd
}

// trendsReport is the report with the CLI's table and CSV layouts.
type trendsReport struct{ report.Trends }

func (r trendsReport) json() report.TrendsJSON { return r.JSON() }

func (r trendsReport) writeTable(w io.Writer, pts []pricewatch.PriceType, os string, notes *clitext.RateNotes) error {
	var b strings.Builder
	b.WriteString(table.Wrap(fmt.Sprintf("Prices over the %s from %s to %s (%s; %s).", r.Window, tableTimeOf(r.From),
		tableTimeOf(r.To), clitext.PriceTypes(pts), clitext.OSText(os)), tableWidth(), "  "))
	b.WriteString("\n")
	if len(r.Movers) == 0 {
		fmt.Fprintf(&b, "No price moved over the %s.\n", r.Window)
	} else {
		b.WriteString(table.Wrap(fmt.Sprintf("Biggest movers over the %s (effective hourly, in the cloud's own currency):", r.Window), tableWidth(), "  "))
		cols := []table.Column{{Head: "PROVIDER"}, {Head: "REGION", Drop: 2}, {Head: "INSTANCE TYPE"}, {Head: "BUY"},
			{Head: ">" + strings.ToUpper(r.Window) + " AGO", Drop: 1}, {Head: ">NOW"}, {Head: ">CHANGE"}}
		for _, t := range r.Movers {
			d, _ := t.Change(r.Window)
			sign := ""
			if d.Pct.IsPositive() {
				sign = "+"
			}
			o := pricewatch.Offer{PriceType: t.Key.PriceType, Term: t.Key.Term, Payment: t.Key.Payment, OfferingClass: t.Key.OfferingClass}
			table.AddRow(cols, t.Key.Provider, pricewatch.Place(t.Key.Region, t.Key.Zone), t.Key.InstanceType, clitext.BuyLabel(o),
				clitext.Rate(d.From), clitext.Rate(d.To)+" "+t.Currency, sign+clitext.Percent(d.Pct))
		}
		if _, err := fitTable(&b, cols); err != nil {
			return err
		}
	}
	for _, s := range r.Cheapest {
		b.WriteString("\n")
		if len(s.Points) == 0 {
			fmt.Fprintf(&b, "Cheapest %s per GPU-hour: no price in %s in the window.\n", s.GPU, r.Currency)
		} else {
			b.WriteString(table.Wrap(fmt.Sprintf("Cheapest %s per GPU-hour in %s (sampled %s; a row each time it changes):", s.GPU, r.Currency, sampleText(s.Points)), tableWidth(), "  "))
			cols := []table.Column{{Head: "SINCE"}, {Head: ">" + r.Currency + "/GPU-H"}, {Head: "PROVIDER"}, {Head: "REGION", Drop: 2},
				{Head: "INSTANCE TYPE"}, {Head: "BUY"}, {Head: ">NATIVE/GPU-H", Drop: 1}}
			for _, p := range changesOnly(s.Points) {
				o := pricewatch.Offer{PriceType: p.Key.PriceType, Term: p.Key.Term, Payment: p.Key.Payment, OfferingClass: p.Key.OfferingClass}
				table.AddRow(cols, sinceText(p.At, s.Points), clitext.Rate(p.PerGPUHour), p.Key.Provider, pricewatch.Place(p.Key.Region, p.Key.Zone),
					p.Key.InstanceType, clitext.BuyLabel(o), clitext.Rate(p.NativePerGPUHour)+" "+p.NativeCurrency)
			}
			if _, err := fitTable(&b, cols); err != nil {
				return err
			}
		}
		if len(s.Unconverted) > 0 {
			var left []string
			for _, u := range s.Unconverted {
				left = append(left, offerKeyLabel(u))
			}
			b.WriteString(table.Wrap(fmt.Sprintf("Left out of the series where no rate into %s applied: %s.", r.Currency,
				strings.Join(left, "; ")), tableWidth(), "  "))
		}
	}
	notes.WriteApart(&b, tableWidth())
	_, err := io.WriteString(w, b.String())
	return err
}

// offerKeyLabel turns "alibaba/cn-hangzhou//ecs.gn7-c12g1.3xlarge/on_demand////linux: why"
// (an OfferKey and a reason, as analysis reports unconverted offers) into
// "alibaba cn-hangzhou ecs.gn7-c12g1.3xlarge on-demand".
func offerKeyLabel(s string) string {
	key, _, _ := strings.Cut(s, ": ")
	p := strings.Split(key, "/")
	if len(p) != 9 {
		return s
	}
	o := pricewatch.Offer{PriceType: pricewatch.PriceType(p[4]), Term: p[5], Payment: p[6], OfferingClass: p[7]}
	return strings.Join([]string{p[0], pricewatch.Place(p[1], p[2]), p[3], clitext.BuyLabel(o)}, " ")
}

// changesOnly keeps the first point and every point where the cheapest
// offer or its converted price differs from the point before.
func changesOnly(points []analysis.CheapestPoint) []analysis.CheapestPoint {
	var out []analysis.CheapestPoint
	for i, p := range points {
		if i == 0 || p.Key != points[i-1].Key || !p.PerGPUHour.Equal(points[i-1].PerGPUHour) {
			out = append(out, p)
		}
	}
	return out
}

// sampleText says how the series was sampled: "daily at 09:00 UTC".
func sampleText(points []analysis.CheapestPoint) string {
	if len(points) > 1 && points[1].At.Sub(points[0].At) < 24*time.Hour {
		return "hourly"
	}
	return "daily at " + points[0].At.UTC().Format("15:04Z")
}

// sinceText prints a sample time as a date when samples are daily.
func sinceText(t time.Time, points []analysis.CheapestPoint) string {
	if sampleText(points) == "hourly" {
		return tableTimeOf(t)
	}
	return t.UTC().Format(time.DateOnly)
}
