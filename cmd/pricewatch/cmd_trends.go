package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/storage"
)

type trendsFlags struct {
	scopeFlags
	gpu        string
	window     string
	priceTypes []string
	top        int
}

// defaultTrendPriceTypes are the pay-as-you-go prices: a commitment's
// effective hourly assumes every hour is used, so it is not a price per
// GPU-hour anyone can buy by the hour.
var defaultTrendPriceTypes = []string{string(pricewatch.OnDemand), string(pricewatch.Spot)}

func (a *app) trendsCommand() *cobra.Command {
	var f trendsFlags
	cmd := &cobra.Command{
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
				return fmt.Errorf("--window: %w", err)
			}
			pts, err := parsePriceTypes(f.priceTypes)
			if err != nil {
				return err
			}
			if f.top < 0 {
				return fmt.Errorf("--top %d: want 0 (all) or more", f.top)
			}
			ctx := cmd.Context()
			m, err := a.openMarket(ctx, f.scopeFlags)
			if err != nil {
				return err
			}
			db, now, currency, book := m.db, m.now, m.currency, m.fx
			from := now.Add(-window)
			models, err := storedGPUModels(ctx, db, f.gpu)
			if err != nil {
				return err
			}
			label := analysis.WindowLabel(window)
			step := 24 * time.Hour
			if window < 2*step {
				step = time.Hour
			}
			notes := newRateNotes(currency, now, book.MaxAge())
			trendOpts := analysis.TrendOptions{Now: now, Window: window, Changes: []time.Duration{window}}
			// Offer by offer as the rows come: one offer's history is held
			// at a time, its move kept if it moved, its prices folded into
			// the cheapest series of its model.
			cheapest := map[string]*analysis.CheapestAccumulator{}
			accumulator := func(model string) *analysis.CheapestAccumulator {
				if cheapest[model] == nil {
					cheapest[model] = analysis.NewCheapestAccumulator(analysis.CheapestOptions{GPU: model, PriceTypes: pts, OS: f.os,
						From: from, To: now, Step: step, Currency: currency, FX: book})
				}
				return cheapest[model]
			}
			if f.gpu != "" {
				accumulator(f.gpu)
			}
			var moved []analysis.OfferTrend
			var ivs []analysis.Interval
			flush := func() error {
				if len(ivs) == 0 {
					return nil
				}
				series, err := analysis.GroupSeries(ivs)
				ivs = ivs[:0]
				if err != nil {
					return fmt.Errorf("reading price history: %w", err)
				}
				for _, t := range analysis.OfferTrends(series, trendOpts) {
					if d, ok := t.Change(label); ok && !d.Change.IsZero() {
						moved = append(moved, t)
					}
				}
				for _, sr := range series {
					model := f.gpu
					if model == "" {
						// One series per stored model: "A100-80GB" as a query
						// would also take in A100-80GB-PCIe.
						model = sr.Latest().GPUModel
					}
					if err := accumulator(model).Add(sr); err != nil {
						return err
					}
					if _, err := book.Quote(sr.Latest().Currency, currency, now); err != nil {
						notes.missing(sr.Latest().Currency)
					}
				}
				return nil
			}
			var prev pricewatch.OfferKey
			err = db.EachPrice(ctx, storage.PriceFilter{Providers: f.providers, Regions: f.regions, PriceTypes: pts, OS: sqlOS(f.os),
				GPUModels: models, Since: from, ByOffer: true, EffectiveOnly: true}, func(r *storage.PriceInterval) error {
				if r.GPUModel == "" || (f.gpu != "" && !analysis.MatchGPU(f.gpu, r.GPUModel)) || r.ValidFrom.After(now) {
					return nil
				}
				if k := r.Key(); k != prev {
					if err := flush(); err != nil {
						return err
					}
					prev = k
				}
				iv := analysis.Interval{Offer: r.Offer, Effective: r.EffectiveHourly, From: r.ValidFrom}
				if r.ValidTo != nil && !r.ValidTo.After(now) {
					iv.To = *r.ValidTo
				}
				ivs = append(ivs, iv)
				return nil
			})
			if err == nil {
				err = flush()
			}
			if err != nil {
				return err
			}
			rep := trendsReport{window: label, from: from, to: now, currency: currency,
				movers: analysis.Movers(moved, label, f.top)}
			for _, model := range sortedKeys(cheapest) {
				res, err := cheapest[model].Result()
				if err != nil {
					return err
				}
				rep.cheapest = append(rep.cheapest, cheapestSeries{gpu: model, res: res})
				for _, p := range res.Points {
					notes.used(p.NativeCurrency, p.FXUsed)
				}
			}
			switch f.format {
			case formatJSON:
				notes.warn(a.stderr)
				return writeJSON(a.stdout, rep.json())
			case formatCSV:
				notes.warn(a.stderr)
				return rep.writeCSV(a.stdout)
			}
			return rep.writeTable(a.stdout, pts, f.os, notes)
		},
	}
	cmd.Flags().StringVar(&f.gpu, "gpu", "", "GPU model or family (default: every model, one cheapest series each)")
	cmd.Flags().StringVar(&f.window, "window", "30d", "how far back to look: 7d, 30d, 90d, 12w, 48h")
	cmd.Flags().StringSliceVar(&f.priceTypes, "price-type", defaultTrendPriceTypes, "on_demand, spot, reserved, savings_plan or any; repeatable")
	cmd.Flags().IntVar(&f.top, "top", 10, "how many movers to list (0: all)")
	addScopeFlags(cmd, &f.scopeFlags, "currency of the cheapest series")
	return cmd
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

type cheapestSeries struct {
	gpu string
	res analysis.CheapestResult
}

type trendsReport struct {
	window   string
	from, to time.Time
	currency string
	movers   []analysis.OfferTrend
	cheapest []cheapestSeries
}

// moverRow and cheapestRow are the JSON shapes scripts rely on; keep the names.
type moverRow struct {
	Provider            string      `json:"provider"`
	Region              string      `json:"region"`
	Zone                string      `json:"zone"`
	InstanceType        string      `json:"instance_type"`
	PriceType           string      `json:"price_type"`
	Term                string      `json:"term"`
	Payment             string      `json:"payment"`
	OfferingClass       string      `json:"offering_class"`
	OS                  string      `json:"os"`
	GPUModel            string      `json:"gpu_model"`
	GPUCount            float64     `json:"gpu_count"`
	Currency            string      `json:"currency"`
	ThenEffectiveHourly jsonDecimal `json:"then_effective_hourly"`
	EffectiveHourly     jsonDecimal `json:"effective_hourly"`
	Change              jsonDecimal `json:"change"`
	ChangePct           jsonDecimal `json:"change_pct"`
	LastChange          any         `json:"last_change"`
}

type cheapestRow struct {
	GPU                   string      `json:"gpu"`
	At                    string      `json:"at"`
	Provider              string      `json:"provider"`
	Region                string      `json:"region"`
	Zone                  string      `json:"zone"`
	InstanceType          string      `json:"instance_type"`
	PriceType             string      `json:"price_type"`
	Term                  string      `json:"term"`
	Payment               string      `json:"payment"`
	OfferingClass         string      `json:"offering_class"`
	OS                    string      `json:"os"`
	GPUModel              string      `json:"gpu_model"`
	GPUCount              float64     `json:"gpu_count"`
	Currency              string      `json:"currency"`
	PricePerGPUHour       jsonDecimal `json:"price_per_gpu_hour"`
	NativeCurrency        string      `json:"native_currency"`
	NativePricePerGPUHour jsonDecimal `json:"native_price_per_gpu_hour"`
	FXRate                jsonDecimal `json:"fx_rate"`
	FXDate                *string     `json:"fx_date"`
	FXSource              string      `json:"fx_source"`
	FXStale               bool        `json:"fx_stale"`
}

type trendsJSON struct {
	Window      string        `json:"window"`
	From        string        `json:"from"`
	To          string        `json:"to"`
	Currency    string        `json:"currency"`
	Movers      []moverRow    `json:"movers"`
	Cheapest    []cheapestRow `json:"cheapest"`
	Unconverted []string      `json:"unconverted"`
}

func (r trendsReport) moverRows() []moverRow {
	out := make([]moverRow, 0, len(r.movers))
	for _, t := range r.movers {
		d, _ := t.Change(r.window)
		k := t.Key
		var last any
		if !t.LastChange.IsZero() {
			last = t.LastChange.UTC().Format(time.RFC3339)
		}
		out = append(out, moverRow{Provider: k.Provider, Region: k.Region, Zone: k.Zone, InstanceType: k.InstanceType,
			PriceType: string(k.PriceType), Term: k.Term, Payment: k.Payment, OfferingClass: k.OfferingClass, OS: k.OS,
			GPUModel: t.GPUModel, GPUCount: t.GPUCount, Currency: t.Currency, ThenEffectiveHourly: jsonDecimal(d.From),
			EffectiveHourly: jsonDecimal(d.To), Change: jsonDecimal(d.Change), ChangePct: jsonDecimal(d.Pct), LastChange: last})
	}
	return out
}

func (r trendsReport) cheapestRows() ([]cheapestRow, []string) {
	out := []cheapestRow{}
	unconverted := []string{}
	for _, s := range r.cheapest {
		for _, p := range s.res.Points {
			k := p.Key
			out = append(out, cheapestRow{GPU: s.gpu, At: p.At.UTC().Format(time.RFC3339), Provider: k.Provider, Region: k.Region,
				Zone: k.Zone, InstanceType: k.InstanceType, PriceType: string(k.PriceType), Term: k.Term, Payment: k.Payment,
				OfferingClass: k.OfferingClass, OS: k.OS, GPUModel: p.GPUModel, GPUCount: p.GPUCount, Currency: p.Currency,
				PricePerGPUHour: jsonDecimal(p.PerGPUHour), NativeCurrency: p.NativeCurrency,
				NativePricePerGPUHour: jsonDecimal(p.NativePerGPUHour), FXRate: jsonDecimal(p.FXRate), FXDate: optString(p.FXDate),
				FXSource: p.FXSource, FXStale: p.FXStale})
		}
		unconverted = append(unconverted, s.res.Unconverted...)
	}
	return out, unconverted
}

func (r trendsReport) json() trendsJSON {
	cheapest, unconverted := r.cheapestRows()
	return trendsJSON{Window: r.window, From: r.from.UTC().Format(time.RFC3339), To: r.to.UTC().Format(time.RFC3339),
		Currency: r.currency, Movers: r.moverRows(), Cheapest: cheapest, Unconverted: unconverted}
}

// writeCSV writes movers and cheapest points as one table told apart by
// the kind column, so that one file holds the whole report.
func (r trendsReport) writeCSV(w io.Writer) error {
	header := []string{"kind", "gpu", "at", "provider", "region", "zone", "instance_type", "price_type", "term", "payment",
		"offering_class", "os", "gpu_model", "gpu_count", "currency", "then_effective_hourly", "effective_hourly", "change",
		"change_pct", "price_per_gpu_hour", "native_currency", "native_price_per_gpu_hour", "fx_rate", "fx_date", "fx_source", "fx_stale"}
	var rows [][]string
	for _, m := range r.moverRows() {
		rows = append(rows, []string{"mover", "", "", m.Provider, m.Region, m.Zone, m.InstanceType, m.PriceType, m.Term, m.Payment,
			m.OfferingClass, m.OS, m.GPUModel, formatFloat(m.GPUCount), m.Currency, decText(m.ThenEffectiveHourly), decText(m.EffectiveHourly),
			decText(m.Change), decText(m.ChangePct), "", "", "", "", "", "", ""})
	}
	cheapest, _ := r.cheapestRows()
	for _, c := range cheapest {
		date := ""
		if c.FXDate != nil {
			date = *c.FXDate
		}
		rows = append(rows, []string{"cheapest", c.GPU, c.At, c.Provider, c.Region, c.Zone, c.InstanceType, c.PriceType, c.Term, c.Payment,
			c.OfferingClass, c.OS, c.GPUModel, formatFloat(c.GPUCount), c.Currency, "", "", "", "", decText(c.PricePerGPUHour),
			c.NativeCurrency, decText(c.NativePricePerGPUHour), decText(c.FXRate), date, c.FXSource, fmt.Sprint(c.FXStale)})
	}
	return writeCSV(w, header, rows)
}

// decText prints an exact decimal for CSV.
func decText(d jsonDecimal) string { b, _ := d.MarshalJSON(); return string(b) }

func (r trendsReport) writeTable(w io.Writer, pts []pricewatch.PriceType, os string, notes *rateNotes) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Prices over the %s from %s to %s (%s; %s).\n", r.window, r.from.UTC().Format("2006-01-02 15:04"),
		r.to.UTC().Format("2006-01-02 15:04 UTC"), priceTypesText(pts), osText(os))
	b.WriteString("\n")
	if len(r.movers) == 0 {
		fmt.Fprintf(&b, "No price moved over the %s.\n", r.window)
	} else {
		fmt.Fprintf(&b, "Biggest movers over the %s (effective hourly, in the cloud's own currency):\n", r.window)
		cols := []fitColumn{{head: "PROVIDER"}, {head: "REGION"}, {head: "INSTANCE TYPE"}, {head: "BUY"},
			{head: ">" + strings.ToUpper(r.window) + " AGO", drop: 1}, {head: ">NOW"}, {head: ">CHANGE"}}
		for _, t := range r.movers {
			d, _ := t.Change(r.window)
			sign := ""
			if d.Pct.IsPositive() {
				sign = "+"
			}
			o := pricewatch.Offer{PriceType: t.Key.PriceType, Term: t.Key.Term, Payment: t.Key.Payment, OfferingClass: t.Key.OfferingClass}
			addRow(cols, t.Key.Provider, placeOf(t.Key.Region, t.Key.Zone), t.Key.InstanceType, buyLabel(o),
				displayRate(d.From), displayRate(d.To)+" "+t.Currency, sign+percentText(d.Pct))
		}
		if _, err := fitTable(&b, cols); err != nil {
			return err
		}
	}
	for _, s := range r.cheapest {
		b.WriteString("\n")
		if len(s.res.Points) == 0 {
			fmt.Fprintf(&b, "Cheapest %s per GPU-hour: no price in %s in the window.\n", s.gpu, r.currency)
		} else {
			fmt.Fprintf(&b, "Cheapest %s per GPU-hour in %s (sampled %s; a row each time it changes):\n", s.gpu, r.currency, sampleText(s.res.Points))
			cols := []fitColumn{{head: "SINCE"}, {head: ">" + r.currency + "/GPU-H"}, {head: "PROVIDER"}, {head: "REGION"},
				{head: "INSTANCE TYPE"}, {head: "BUY"}, {head: ">NATIVE/GPU-H", drop: 1}}
			for _, p := range changesOnly(s.res.Points) {
				o := pricewatch.Offer{PriceType: p.Key.PriceType, Term: p.Key.Term, Payment: p.Key.Payment, OfferingClass: p.Key.OfferingClass}
				addRow(cols, sinceText(p.At, s.res.Points), displayRate(p.PerGPUHour), p.Key.Provider, placeOf(p.Key.Region, p.Key.Zone),
					p.Key.InstanceType, buyLabel(o), displayRate(p.NativePerGPUHour)+" "+p.NativeCurrency)
			}
			if _, err := fitTable(&b, cols); err != nil {
				return err
			}
		}
		if len(s.res.Unconverted) > 0 {
			var left []string
			for _, u := range s.res.Unconverted {
				left = append(left, offerKeyLabel(u))
			}
			b.WriteString(wrapText(fmt.Sprintf("Left out of the series where no rate into %s applied: %s.", r.currency,
				strings.Join(left, "; ")), tableWidth, "  "))
		}
	}
	var lines strings.Builder
	notes.write(&lines)
	if lines.Len() > 0 {
		b.WriteString("\n" + lines.String())
	}
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
	return strings.Join([]string{p[0], placeOf(p[1], p[2]), p[3], buyLabel(o)}, " ")
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
	return "daily at " + points[0].At.UTC().Format("15:04 UTC")
}

// sinceText prints a sample time as a date when samples are daily.
func sinceText(t time.Time, points []analysis.CheapestPoint) string {
	if sampleText(points) == "hourly" {
		return t.UTC().Format("2006-01-02 15:04")
	}
	return t.UTC().Format(time.DateOnly)
}
