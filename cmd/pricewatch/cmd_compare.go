package main

import (
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/fx"
	"github.com/pricewatch/pricewatch/report"
)

func init() {
	extraCommands = append(extraCommands, (*app).compareCommand, (*app).savingsCommand, (*app).trendsCommand, (*app).recommendCommand)
}

type compareFlags struct {
	scopeFlags
	gpu           string
	count         float64
	priceTypes    []string
	availableOnly bool
	wide          bool
}

func (a *app) compareCommand() *cobra.Command {
	var f compareFlags
	cmd := &cobra.Command{
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
				return fmt.Errorf("--gpu is required (e.g. --gpu H100, --gpu A100-80GB)")
			}
			if f.count < 0 {
				return usagef("--count %v: want a positive number of GPUs per instance", f.count)
			}
			pts, err := parsePriceTypes(f.priceTypes)
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
					q.set("count", formatFloat(f.count))
				}
				q.list("price_type", f.priceTypes)
				if f.availableOnly {
					q.set("available_only", "true")
				}
				body, err := a.remoteGet(ctx, f.server, "offers", url.Values(q))
				if err != nil || f.format == formatJSON {
					a.stdout.Write(body)
					return err
				}
				var rows []report.CompareRow
				if err := decodeRemote(body, &rows); err != nil {
					return err
				}
				return writeCompareRowsCSV(a.stdout, rows)
			}
			m, err := a.openMarket(ctx, f.scopeFlags)
			if err != nil {
				return err
			}
			if err := report.CheckGPUModel(ctx, m.db, f.gpu); err != nil {
				return err
			}
			now, currency, book := m.now, m.currency, m.fx
			res, err := report.Compare(ctx, m.db, book, report.CompareQuery{Scope: m.reportScope(), GPU: f.gpu, Count: f.count,
				PriceTypes: pts, AvailableOnly: f.availableOnly})
			if err != nil {
				return err
			}
			notes := newRateNotes(currency, now, book.MaxAge())
			for _, r := range res.Rows {
				notes.used(r.NativeCurrency, r.FXUsed)
			}
			for _, r := range res.Unconverted {
				notes.missing(r.NativeCurrency)
			}
			switch f.format {
			case formatJSON:
				notes.warn(a.stderr)
				return writeJSON(a.stdout, compareJSON(res))
			case formatCSV:
				notes.warn(a.stderr)
				return writeCompareCSV(a.stdout, res)
			}
			return writeCompareTable(a.stdout, res, f, pts, now, notes)
		},
	}
	cmd.Flags().StringVar(&f.gpu, "gpu", "", "GPU model or family: H100, A100 (any A100), A100-80GB, L40S, …")
	cmd.Flags().Float64Var(&f.count, "count", 0, "only instance types with this many GPUs (0: any)")
	cmd.Flags().StringSliceVar(&f.priceTypes, "price-type", []string{string(pricewatch.OnDemand)}, "on_demand, spot, reserved, savings_plan or any; repeatable")
	cmd.Flags().BoolVar(&f.availableOnly, "available-only", false, "only offers known to be offered or in stock where priced")
	cmd.Flags().BoolVar(&f.wide, "wide", false, "keep every column, whatever the terminal's width")
	addScopeFlags(cmd, &f.scopeFlags, "currency to compare in")
	addServerFlag(cmd, &f.scopeFlags)
	return cmd
}

func compareJSON(res analysis.CompareResult) []report.CompareRow { return report.CompareRows(res) }

func writeCompareCSV(w io.Writer, res analysis.CompareResult) error {
	return writeCompareRowsCSV(w, compareJSON(res))
}

func writeCompareRowsCSV(w io.Writer, compareRows []report.CompareRow) error {
	return writeRowsCSV(w, compareRows)
}

func writeCompareTable(w io.Writer, res analysis.CompareResult, f compareFlags, pts []pricewatch.PriceType, now time.Time, notes *rateNotes) error {
	var b strings.Builder
	what := strings.TrimSpace(f.gpu)
	if f.count > 0 {
		what += fmt.Sprintf(" × %s per instance", formatFloat(f.count))
	}
	b.WriteString(wrapText(fmt.Sprintf("%s, %s, %s: prices of %s in %s per GPU-hour, cheapest first.",
		what, priceTypesText(pts), osText(f.os), now.UTC().Format(time.DateOnly), res.Currency), tableWidth(), "  "))
	if f.availableOnly {
		b.WriteString("Only offers known to be offered or in stock where priced.\n")
	}
	if len(res.Rows) == 0 && len(res.Unconverted) == 0 {
		b.WriteString("No stored price matches (has `pricewatch fetch` run? try --price-type any or another --gpu).\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	b.WriteString("\n")
	mixed := mixedPriceTypes(res.Rows, res.Unconverted)
	market := anyMarketplace(res.Rows, res.Unconverted)
	if len(res.Rows) > 0 {
		width := tableWidth()
		if f.wide {
			width = 0
		}
		cols := []fitColumn{
			// Left out, in this order, until the table fits: /GB, /TFLOPS,
			// AVAIL, GPUS, REGION (README "Terminal width").
			{head: "PROVIDER"}, {head: "REGION", drop: 6}, {head: "INSTANCE TYPE"}, {head: "GPUS", drop: 5},
			{head: "BUY", hidden: !mixed},
			{head: ">" + res.Currency + "/GPU-H"}, {head: ">/TFLOPS", drop: 3}, {head: ">/GB", drop: 2}, {head: "AVAIL", drop: 4},
			{head: "MARKET", hidden: !market},
		}
		for _, r := range res.Rows {
			tflops, gb := "-", "-"
			if r.PricePerTFLOPS.Valid {
				tflops = r.PricePerTFLOPS.Decimal.StringFixed(5)
			}
			if r.PricePerGB.Valid {
				gb = r.PricePerGB.Decimal.StringFixed(4)
			}
			addRow(cols, r.Provider, placeOf(r.Region, r.Zone), r.InstanceType, gpusLabel(r.GPUCount, r.GPUModel),
				buyLabel(r.Offer), displayRate(r.PricePerGPUHour), tflops, gb, availShort(r.Available), marketShort(r.Marketplace))
		}
		dropped, err := fitTableTo(&b, cols, width)
		if err != nil {
			return err
		}
		if len(dropped) > 0 {
			b.WriteString(wrapText(fmt.Sprintf("Left out to fit %d columns: %s (use --wide, or --format json or csv).", tableWidth(), strings.Join(dropped, ", ")), tableWidth(), "  "))
		}
	}
	if len(res.Unconverted) > 0 {
		if len(res.Rows) > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "Not ranked (%s without a rate into %s), in their own currency:\n", plural(len(res.Unconverted), "offer"), res.Currency)
		cols := []fitColumn{{head: "PROVIDER"}, {head: "REGION"}, {head: "INSTANCE TYPE"}, {head: "GPUS"}, {head: "BUY", hidden: !mixed},
			{head: ">PER GPU-H"}, {head: "CUR"}, {head: "AVAIL"}, {head: "MARKET", hidden: !market}}
		for _, r := range res.Unconverted {
			pg := "-"
			if v, ok := pricewatch.PerGPUHour(r.NativeEffectiveHourly, r.GPUCount); ok {
				pg = displayRate(v)
			}
			addRow(cols, r.Provider, placeOf(r.Region, r.Zone), r.InstanceType, gpusLabel(r.GPUCount, r.GPUModel), buyLabel(r.Offer),
				pg, r.NativeCurrency, availShort(r.Available), marketShort(r.Marketplace))
		}
		if _, err := fitTable(&b, cols); err != nil {
			return err
		}
	}
	b.WriteString("\n")
	if mixed {
		writeBuyLegend(&b, append(offersOfRows(res.Rows), offersOfRows(res.Unconverted)...))
	}
	b.WriteString(wrapText("AVAIL: yes = offered or in stock, no = sold out, ? = not known. "+
		"/TFLOPS is per dense BF16 (else FP16) TFLOPS, /GB per GB of GPU memory.", tableWidth(), "  "))
	if market {
		b.WriteString(wrapText("MARKET: yes = a marketplace offer (third-party hosts' machines: reliability varies by host, "+
			"the host may withdraw it, and the marketplace's terms apply), not the cloud's own capacity.", tableWidth(), "  "))
	}
	if len(res.UnknownModels) > 0 {
		fmt.Fprintf(&b, "Not in the GPU catalogue (no /TFLOPS or /GB figure): %s.\n", strings.Join(res.UnknownModels, ", "))
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(&b, "Left out: %s.\n", s.Reason)
	}
	notes.write(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

func offersOfRows(rows []analysis.CompareRow) []pricewatch.Offer {
	out := make([]pricewatch.Offer, len(rows))
	for i, r := range rows {
		out[i] = r.Offer
	}
	return out
}

func anyMarketplace(sets ...[]analysis.CompareRow) bool {
	for _, rows := range sets {
		for _, r := range rows {
			if r.Marketplace {
				return true
			}
		}
	}
	return false
}

func marketShort(m bool) string {
	if m {
		return "yes"
	}
	return "-"
}

func mixedPriceTypes(sets ...[]analysis.CompareRow) bool {
	seen := map[string]bool{}
	for _, rows := range sets {
		for _, r := range rows {
			seen[buyLabel(r.Offer)] = true
		}
	}
	return len(seen) > 1
}

// ---- Shared by the analysis commands ----

// addNowFlag adds the hidden --now flag: the moment the command evaluates
// "current" prices, exchange-rate dates and windows at. Tests pin it so
// that golden outputs do not move with the clock.
func addNowFlag(cmd *cobra.Command, dst *string) {
	cmd.Flags().StringVar(dst, "now", "", "evaluate as of this RFC 3339 time instead of the clock")
	_ = cmd.Flags().MarkHidden("now")
}

func evalTime(s string) (time.Time, error) { return report.ParseNow("--now", s) }

// targetCurrency is --currency, else fx.currency from the config.
func (a *app) targetCurrency(flag string) (string, error) {
	return report.Currency("--currency", flag, a.cfg.FX.Currency)
}

// parsePriceTypes reads --price-type values; "any" (or nothing) means all.
func parsePriceTypes(vals []string) ([]pricewatch.PriceType, error) {
	return report.ParsePriceTypes("--price-type", vals)
}

// sqlOS turns --os into the storage filter: "" is Linux, "any" is every OS.
func sqlOS(os string) string { return report.StorageOS(os) }

func checkOS(os string) error { return report.CheckOS("--os", os) }

func osText(os string) string {
	switch s := sqlOS(os); s {
	case "":
		return "any OS"
	case pricewatch.Linux:
		return "Linux"
	case pricewatch.Windows:
		return "Windows"
	default:
		return s
	}
}

func priceTypesText(pts []pricewatch.PriceType) string {
	if len(pts) == 0 {
		return "every price type"
	}
	s := make([]string, len(pts))
	for i, p := range pts {
		s[i] = string(p)
	}
	return strings.Join(s, ", ")
}

// rateNotes collects the exchange rates a report used and the currencies it
// could not convert, and says so under the table (and on stderr for JSON
// and CSV, whose stdout scripts parse).
type rateNotes struct {
	target string
	now    time.Time
	maxAge time.Duration
	quotes map[string]rateUse // by "CNY 2022-07-08 ECB 0.149…": from, date, source, rate
	absent map[string]bool    // native currencies without a rate
}

type rateUse struct {
	from string
	analysis.FXUsed
}

func newRateNotes(target string, now time.Time, maxAge time.Duration) *rateNotes {
	return &rateNotes{target: target, now: now, maxAge: maxAge, quotes: map[string]rateUse{}, absent: map[string]bool{}}
}

func (n *rateNotes) used(from string, u analysis.FXUsed) {
	if u.FXSource == fx.SourceIdentity || u.FXSource == "" {
		return
	}
	n.quotes[strings.Join([]string{from, u.FXDate, u.FXSource, u.FXRate.String()}, " ")] = rateUse{from, u}
}

func (n *rateNotes) missing(from string) { n.absent[from] = true }

// lines says which rates were used, which were stale and which are missing.
func (n *rateNotes) lines() []string {
	var out []string
	keys := make([]string, 0, len(n.quotes))
	for k := range n.quotes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// A series converts each day at that day's rate: of a long run of one
	// currency's rates, show the first and the last.
	byFrom := map[string][]string{}
	var froms []string
	for _, k := range keys {
		from := n.quotes[k].from
		if _, ok := byFrom[from]; !ok {
			froms = append(froms, from)
		}
		byFrom[from] = append(byFrom[from], k)
	}
	keys = keys[:0]
	for _, from := range froms {
		ks := byFrom[from]
		if len(ks) > 2 {
			out = append(out, fmt.Sprintf("Rates: %d %s rates used, each price at the rate of its own day; the first and the last:", len(ks), from))
			ks = []string{ks[0], ks[len(ks)-1]}
		}
		keys = append(keys, ks...)
	}
	for _, k := range keys {
		q := n.quotes[k]
		s := fmt.Sprintf("Rates: 1 %s = %s %s (%s", q.from, q.FXRate, n.target, q.FXSource)
		if q.FXDate != "" {
			s += " " + q.FXDate
		}
		if q.FXSource == fx.SourceFixed {
			s += ", from fx.fixed_rates"
		}
		out = append(out, s+")")
		if q.FXStale {
			days := "?"
			if d, err := time.Parse(time.DateOnly, q.FXDate); err == nil {
				days = fmt.Sprint(int(n.now.Sub(d).Hours() / 24))
			}
			out = append(out, fmt.Sprintf("STALE: the %s rate of %s is %s days old (fx.max_age %s): run `pricewatch fx update`.",
				q.from, q.FXDate, days, durationText(n.maxAge)))
		}
	}
	for _, from := range sortedSet(n.absent) {
		out = append(out, fmt.Sprintf("No rate for %s→%s: set fx.fixed_rates or run `pricewatch fx update`; %s prices are not converted.", from, n.target, from))
	}
	return out
}

func (n *rateNotes) write(b *strings.Builder) {
	for _, l := range n.lines() {
		b.WriteString(wrapText(l, tableWidth(), "  "))
	}
}

// warn repeats the stale and missing-rate lines on stderr.
func (n *rateNotes) warn(w io.Writer) {
	for _, l := range n.lines() {
		if strings.Contains(l, "STALE") || strings.HasPrefix(l, "No rate") {
			fmt.Fprintf(w, "pricewatch: warning: %s\n", l)
		}
	}
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func durationText(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	return d.String()
}

// fitColumn is one column of a table that must fit tableWidth(): columns with a
// drop rank are left out, lowest rank first, until it does.
type fitColumn struct {
	head   string // a leading ">" right-aligns, as in newTable
	cells  []string
	drop   int  // 0: never dropped
	hidden bool // not shown at all
}

func addRow(cols []fitColumn, cells ...string) {
	for i := range cols {
		cols[i].cells = append(cols[i].cells, cells[i])
	}
}

// fitTable writes the table, leaving out droppable columns until every line
// fits tableWidth(), and returns the names of the columns that carry figures
// and were left out.
func fitTable(b *strings.Builder, cols []fitColumn) ([]string, error) {
	return fitTableTo(b, cols, tableWidth())
}

// fitTableTo is fitTable for another width; 0 keeps every column.
func fitTableTo(b *strings.Builder, cols []fitColumn, width int) ([]string, error) {
	var dropped []string
	for {
		var shown []fitColumn
		for _, c := range cols {
			if !c.hidden {
				shown = append(shown, c)
			}
		}
		heads := make([]string, len(shown))
		for i, c := range shown {
			heads[i] = c.head
		}
		t := newTable(heads...)
		for r := range shown[0].cells {
			cells := make([]string, len(shown))
			for i, c := range shown {
				cells[i] = c.cells[r]
			}
			t.add(cells...)
		}
		var out strings.Builder
		if err := t.write(&out); err != nil {
			return nil, err
		}
		next := -1
		if width > 0 && widestLine(out.String()) > width {
			for i, c := range cols {
				if !c.hidden && c.drop > 0 && (next < 0 || c.drop < cols[next].drop) {
					next = i
				}
			}
		}
		if next < 0 {
			b.WriteString(out.String())
			return dropped, nil
		}
		cols[next].hidden = true
		if name := strings.TrimPrefix(cols[next].head, ">"); name != "#" {
			dropped = append(dropped, name)
		}
	}
}

func widestLine(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		if w := utf8.RuneCountInString(l); w > n {
			n = w
		}
	}
	return n
}

// wrap breaks text at spaces so that no line passes width, indenting
// continuation lines; it returns the lines with their newlines.
func wrapText(text string, width int, indent string) string {
	var b strings.Builder
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case width > 0 && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > width:
			b.WriteString(line + "\n")
			line = indent + word
		default:
			line += " " + word
		}
	}
	if line != "" {
		b.WriteString(line + "\n")
	}
	return b.String()
}

func placeOf(region, zone string) string {
	if zone != "" {
		return zone
	}
	return region
}

func gpusLabel(count float64, model string) string {
	if model == "" {
		return "-"
	}
	return formatFloat(count) + "×" + model
}

// buyLabel names how an offer is bought, compactly enough for a table:
// "on-demand", "spot", "RI 3y all", "RI 1y partial conv", "SP 3y none ec2".
func buyLabel(o pricewatch.Offer) string {
	var parts []string
	switch o.PriceType {
	case pricewatch.OnDemand:
		return "on-demand"
	case pricewatch.Spot:
		return "spot"
	case pricewatch.Reserved:
		parts = append(parts, "RI")
	case pricewatch.SavingsPlan:
		parts = append(parts, "SP")
	default:
		return string(o.PriceType)
	}
	parts = append(parts, o.Term)
	switch o.Payment {
	case pricewatch.AllUpfront:
		parts = append(parts, "all")
	case pricewatch.PartialUpfront:
		parts = append(parts, "partial")
	case pricewatch.NoUpfront:
		parts = append(parts, "none")
	case "":
	default:
		parts = append(parts, o.Payment)
	}
	switch o.OfferingClass {
	case pricewatch.Convertible:
		parts = append(parts, "conv")
	case pricewatch.EC2InstanceSavingsPlan:
		parts = append(parts, "ec2")
	}
	return strings.Join(parts, " ")
}

// writeBuyLegend explains the abbreviations buyLabel used, if any.
func writeBuyLegend(b *strings.Builder, offers []pricewatch.Offer) {
	var ri, sp, pay, conv, ec2 bool
	for _, o := range offers {
		ri = ri || o.PriceType == pricewatch.Reserved
		sp = sp || o.PriceType == pricewatch.SavingsPlan
		pay = pay || o.Payment != ""
		conv = conv || o.OfferingClass == pricewatch.Convertible
		ec2 = ec2 || o.OfferingClass == pricewatch.EC2InstanceSavingsPlan
	}
	var parts []string
	if ri {
		parts = append(parts, "RI = reserved instance or prepaid subscription")
	}
	if sp {
		parts = append(parts, "SP = savings plan")
	}
	if pay {
		parts = append(parts, "all/partial/none = upfront payment")
	}
	if conv {
		parts = append(parts, "conv = convertible")
	}
	if ec2 {
		parts = append(parts, "ec2 = EC2 instance savings plan")
	}
	if len(parts) > 0 {
		b.WriteString(wrapText("BUY: "+strings.Join(parts, "; ")+".", tableWidth(), "  "))
	}
}

func availShort(a *bool) string {
	switch {
	case a == nil:
		return "?"
	case *a:
		return "yes"
	}
	return "no"
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// count prints "1 offer", "3 offers".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// moneyText prints an amount with two decimals and thousands separators.
func moneyText(d decimal.Decimal) string { return pricewatch.FormatAmount(d) }

// percentText prints a 0–100 percentage with one decimal: "39.5%".
func percentText(pct decimal.Decimal) string { return pct.StringFixed(1) + "%" }

// shareText prints a 0–1 share as a percentage: 0.3945 → "39.5%".
func shareText(share decimal.Decimal) string { return percentText(share.Mul(decimal.NewFromInt(100))) }
