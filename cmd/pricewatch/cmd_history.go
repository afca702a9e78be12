package main

import (
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
)

type historyFlags struct {
	providers []string
	regions   []string
	since     string
	format    string
	plot      bool
	server    serverFlag
}

func (a *app) historyCommand() *cobra.Command {
	var f historyFlags
	cmd := &cobra.Command{
		Use:   "history INSTANCE_TYPE",
		Short: "Show the price history of an instance type as validity intervals",
		Example: `  pricewatch history p5.48xlarge --region us-east-1
  pricewatch history Standard_ND96isr_H100_v5 --since 30d --format json
  pricewatch history ecs.gn7-c13g1.26xlarge --since 90d --plot`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(f.format); err != nil {
				return err
			}
			if f.plot && f.format != formatTable {
				return fmt.Errorf("--plot draws a chart in the terminal; leave out --format %s", f.format)
			}
			since, err := parseSince(f.since, time.Now().UTC())
			if err != nil {
				return err
			}
			if f.server.url != "" {
				q := query{}
				q.list("provider", f.providers)
				q.list("region", f.regions)
				q.set("since", f.since)
				body, err := a.remoteGet(cmd.Context(), f.server.url, "history/"+url.PathEscape(args[0]), url.Values(q))
				if err != nil {
					return err
				}
				if f.format == formatJSON {
					_, err := a.stdout.Write(body)
					return err
				}
				var hr []report.HistoryRow
				if err := decodeRemote(body, &hr); err != nil {
					return err
				}
				rows, err := historyFromRows(hr)
				if err != nil {
					return err
				}
				if f.plot {
					return writeHistoryPlot(a.stdout, args[0], rows)
				}
				return writeHistory(a.stdout, f.format, rows)
			}
			db, err := a.openReader(cmd.Context())
			if err != nil {
				return err
			}
			rows, err := report.History(cmd.Context(), db, report.HistoryQuery{
				InstanceType: args[0], Providers: f.providers, Regions: f.regions, Since: since,
			})
			if err != nil {
				return err
			}
			if f.plot {
				return writeHistoryPlot(a.stdout, args[0], rows)
			}
			return writeHistory(a.stdout, f.format, rows)
		},
	}
	cmd.Flags().StringSliceVar(&f.providers, "provider", nil, "only this provider (aws, azure, alibaba, tencent, vastai, oci); repeatable")
	cmd.Flags().StringSliceVar(&f.regions, "region", nil, "only this region code; repeatable")
	cmd.Flags().StringVar(&f.since, "since", "", "only intervals valid since a duration ago (30d, 12h) or a date (2026-01-01)")
	cmd.Flags().StringVar(&f.format, "format", formatTable, "output format: table, json or csv")
	cmd.Flags().BoolVar(&f.plot, "plot", false, "draw the effective hourly prices as a chart instead of tables")
	f.server.add(cmd)
	return cmd
}

func writeHistory(w io.Writer, format string, rows []storage.PriceInterval) error {
	switch format {
	case formatJSON:
		out := report.HistoryRows(rows)
		return writeJSON(w, out)
	case formatCSV:
		header := []string{"provider", "region", "zone", "instance_type", "price_type", "term", "payment", "offering_class", "os", "currency",
			"hourly_price", "upfront", "effective_hourly", "per_gpu_hour", "gpu_model", "gpu_count", "gpu_memory_gb", "valid_from", "valid_to", "last_seen"}
		var out [][]string
		for _, r := range rows {
			pg, _ := pricewatch.PerGPUHour(r.EffectiveHourly, r.GPUCount)
			to := ""
			if r.ValidTo != nil {
				to = r.ValidTo.UTC().Format(time.RFC3339)
			}
			out = append(out, []string{r.Provider, r.Region, r.Zone, r.InstanceType, string(r.PriceType), r.Term, r.Payment, r.OfferingClass, r.OS, r.Currency,
				r.Hourly.String(), r.Upfront.String(), r.EffectiveHourly.String(), pg.String(), r.GPUModel, formatFloat(r.GPUCount), formatFloat(r.GPUMemoryGB),
				r.ValidFrom.UTC().Format(time.RFC3339), to, r.LastSeen.UTC().Format(time.RFC3339)})
		}
		return writeCSV(w, header, out)
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "No price history for that instance type (has `pricewatch fetch` run, and is the name spelled as the cloud spells it?).")
		return err
	}
	// One block per offer: its identity as a heading, then its intervals.
	// This keeps every column readable at 100 columns.
	var b strings.Builder
	first := true
	for _, group := range groupByOffer(rows) {
		if !first {
			b.WriteString("\n")
		}
		first = false
		h := group[0]
		fmt.Fprintf(&b, "%s %s%s  %s  %s  %s\n", h.Provider, h.Region, zoneSuffix(h.Zone), h.InstanceType, offerLabel(h.Offer), hardwareLabel(h.Hardware))
		t := newTable("FROM", "TO", ">HOURLY", ">UPFRONT", ">EFFECTIVE/H", ">PER GPU-H", ">CHANGE")
		var prev *decimal.Decimal
		for _, r := range group {
			to := "current"
			if r.ValidTo != nil {
				to = r.ValidTo.UTC().Format("2006-01-02 15:04")
			}
			upfront := "-"
			if !r.Upfront.IsZero() {
				upfront = pricewatch.FormatPrice(r.Upfront)
			}
			pg := "-"
			if v, ok := pricewatch.PerGPUHour(r.EffectiveHourly, r.GPUCount); ok {
				pg = displayRate(v)
			}
			t.add(r.ValidFrom.UTC().Format("2006-01-02 15:04"), to, pricewatch.FormatPrice(r.Hourly), upfront,
				displayRate(r.EffectiveHourly), pg, changeLabel(prev, r.EffectiveHourly))
			eff := r.EffectiveHourly
			prev = &eff
		}
		if err := t.write(&b); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func groupByOffer(rows []storage.PriceInterval) [][]storage.PriceInterval {
	var out [][]storage.PriceInterval
	for i, r := range rows {
		if i == 0 || r.Key() != rows[i-1].Key() {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], r)
	}
	return out
}

func zoneSuffix(zone string) string {
	if zone == "" {
		return ""
	}
	return "/" + zone
}

// offerLabel names the purchase option: "on_demand linux USD",
// "reserved 3y all_upfront standard linux USD".
func offerLabel(o pricewatch.Offer) string {
	parts := []string{string(o.PriceType)}
	for _, p := range []string{o.Term, o.Payment, o.OfferingClass, o.OS, o.Currency} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " ")
}

func hardwareLabel(h pricewatch.Hardware) string {
	if h.GPUModel == "" {
		return ""
	}
	if h.GPUCount == 0 {
		return h.GPUModel + " (GPU count unknown)"
	}
	mem := ""
	if h.GPUMemoryGB > 0 {
		mem = " " + formatFloat(h.GPUMemoryGB) + "GB"
	}
	return fmt.Sprintf("%s×%s%s", formatFloat(h.GPUCount), h.GPUModel, mem)
}

// displayRate shows a derived rate (effective hourly, per GPU-hour) to four
// decimals for the table; JSON and CSV carry every stored digit.
func displayRate(d decimal.Decimal) string {
	if d.Equal(d.Round(4)) {
		return pricewatch.FormatPrice(d)
	}
	return d.StringFixed(4)
}

func changeLabel(prev *decimal.Decimal, cur decimal.Decimal) string {
	if prev == nil {
		return "-"
	}
	if prev.IsZero() {
		return "n/a"
	}
	pct := cur.Sub(*prev).Div(*prev).Mul(decimal.NewFromInt(100)).Round(1)
	sign := ""
	if pct.IsPositive() {
		sign = "+"
	}
	return sign + pct.StringFixed(1) + "%"
}

// historyFromRows reads back the API's history rows (for --server) into the
// intervals the table and the plot are drawn from.
func historyFromRows(rows []report.HistoryRow) ([]storage.PriceInterval, error) {
	out := make([]storage.PriceInterval, 0, len(rows))
	for _, r := range rows {
		iv := storage.PriceInterval{Offer: pricewatch.Offer{Provider: r.Provider, Region: r.Region, Zone: r.Zone, InstanceType: r.InstanceType,
			PriceType: pricewatch.PriceType(r.PriceType), Term: r.Term, Payment: r.Payment, OfferingClass: r.OfferingClass, OS: r.OS,
			Currency: r.Currency, Hourly: decimal.Decimal(r.HourlyPrice), Upfront: decimal.Decimal(r.Upfront),
			Hardware: pricewatch.Hardware{GPUModel: r.GPUModel, GPUCount: r.GPUCount, GPUMemoryGB: r.GPUMemoryGB}},
			EffectiveHourly: decimal.Decimal(r.EffectiveHourly)}
		var err error
		if iv.ValidFrom, err = remoteTime(r.ValidFrom); err != nil {
			return nil, err
		}
		if iv.LastSeen, err = remoteTime(r.LastSeen); err != nil {
			return nil, err
		}
		if r.ValidTo != nil {
			to, err := remoteTime(r.ValidTo)
			if err != nil {
				return nil, err
			}
			iv.ValidTo = &to
		}
		out = append(out, iv)
	}
	return out, nil
}

// remoteTime reads an RFC 3339 time the API sent as a JSON string.
func remoteTime(v any) (time.Time, error) {
	s, _ := v.(string)
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("reading the daemon's answer: time %v: %w", v, err)
	}
	return t, nil
}
