package web

import (
	"fmt"
	"html"
	"html/template"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/report"
)

// The offers page's machine view and its side-by-side comparison (issue
// 31 item 3): the rows are report.MachineRows, the same `compare --by
// machine` prints and GET /api/v1/offer-table?by=machine answers.

// maxCompared bounds the machines compared side by side: past a dozen
// the columns no longer fit a screen.
const maxCompared = 12

// perChoice is a unit the selectors offer.
type perChoice struct {
	Value, Label string
}

var perChoices = []perChoice{{"hour", "per hour"}, {"day", "per day"}, {"month", "per month (730 h)"}, {"year", "per year (8,760 h)"}}

// perLabel is how a unit is named in a heading: "per month (730 h)".
func perLabel(p report.Per) string {
	for _, c := range perChoices {
		if c.Value == string(p) {
			return c.Label
		}
	}
	return "per hour"
}

// amountText prints a price for its unit: per hour as every hourly rate,
// longer units as amounts (two decimals, thousands grouped).
func amountText(d report.NullDecimal, per report.Per) string {
	if per == report.PerHour || per == "" {
		return rateText(d.D)
	}
	return pricewatch.FormatAmount(d.D)
}

// machineCell is one price cell: its text, the option it is (nil: no
// such price) and why a price is missing.
func machineCell(r *report.MachineRow, col int) (class, text, option string) {
	p, opt := r.Cell(col)
	switch {
	case opt == nil:
		return "flat", "–", ""
	case !p.Valid:
		return "unknown", "no rate", *opt
	}
	return "", amountText(p, r.Per), *opt
}

// machineRows renders the machine view's rows: a tick box (the compare
// form's id), the machine, its four prices with the option each is, and
// its hardware. The view is always the server's (data-complete 0): the
// page's script filters price rows only.
func machineRows(rows []report.MachineRow) template.HTML {
	var b strings.Builder
	td := func(class, text, href, title string) {
		b.WriteString("<td")
		if class != "" {
			b.WriteString(` class="` + class + `"`)
		}
		if title != "" {
			b.WriteString(` title="` + html.EscapeString(title) + `"`)
		}
		b.WriteString(">")
		if href != "" {
			b.WriteString(`<a href="` + html.EscapeString(href) + `">` + html.EscapeString(text) + "</a>")
		} else {
			b.WriteString(html.EscapeString(text))
		}
		b.WriteString("</td>")
	}
	num := func(f *float64) (string, string) {
		if f == nil {
			return "num unknown", unknownText
		}
		return "num", trimFloat(*f)
	}
	for i := range rows {
		r := &rows[i]
		b.WriteString(`<tr data-machine="` + html.EscapeString(r.ID) + `">`)
		b.WriteString(tickCell(r.ID, r.InstanceType, r.Region))
		td("", r.Provider, "", "")
		td("", r.Region, "", "")
		td("", r.InstanceType, "/instance/"+url.PathEscape(r.InstanceType), "")
		gpus := unknownText
		if r.GPUCount > 0 {
			gpus = trimFloat(r.GPUCount) + "×"
		}
		td("", gpus+r.GPUModel, "", "")
		for col := range report.MachineColumnLabels {
			class, text, opt := machineCell(r, col)
			b.WriteString(`<td class="` + strings.TrimSpace("num price-cell "+class) + `"`)
			if opt != "" {
				b.WriteString(` title="` + html.EscapeString(opt) + `"`)
			}
			b.WriteString(">" + html.EscapeString(text))
			if opt != "" && col != report.ColOnDemand {
				b.WriteString(`<br><small>` + html.EscapeString(opt) + `</small>`)
			}
			b.WriteString("</td>")
		}
		if r.OnDemandPerGPU.Valid {
			td("num", amountText(r.OnDemandPerGPU, r.Per), "", "")
		} else {
			td("num flat", "–", "", "")
		}
		td("avail "+r.Availability, availText(r.Available, r.Availability), "", "")
		class, text := num(r.GPUMemoryGB)
		td(class, text, "", "")
		if r.VCPUs == nil {
			td("num unknown", unknownText, "", "")
		} else {
			td("num", strconv.Itoa(*r.VCPUs), "", "")
		}
		class, text = num(r.MemoryGB)
		td(class, text, "", "")
		b.WriteString("</tr>\n")
	}
	return template.HTML(b.String())
}

// tickCell is a row's tick box: it belongs to the compare form
// (form="offer-compare"), which sends the ticked machines' ids.
func tickCell(id, instanceType, region string) string {
	return `<td class="tick"><input type="checkbox" name="id" form="offer-compare" value="` + html.EscapeString(id) +
		`" aria-label="` + html.EscapeString("compare "+instanceType+" in "+region) + `"></td>`
}

// machineHeads are the machine view's column headings after the tick.
var machineHeads = []struct {
	Label   string
	Numeric bool
}{
	{"provider", false}, {"region", false}, {"instance type", false}, {"GPUs", false},
	{report.MachineColumnLabels[report.ColOnDemand], true}, {report.MachineColumnLabels[report.ColSpot], true},
	{report.MachineColumnLabels[report.ColBest1y], true}, {report.MachineColumnLabels[report.ColBest3y], true},
	{"on-demand per GPU", true}, {"availability", false}, {"GPU GB", true}, {"vCPUs", true}, {"memory GB", true},
}

// compareData is what offerscompare.html shows.
type compareData struct {
	Machines []report.MachineRow
	Lines    []compareLine
	// Missing are the ids asked that name no current machine.
	Missing []string
	Per     string
	Units   []pageLink // the same machines in the other units
	Back    string
}

// compareLine is one row of the side-by-side table: one attribute of
// every machine.
type compareLine struct {
	Label string
	Cells []compareCell
}

type compareCell struct {
	Class, Text, Note string
}

// compareParams are what /offers/compare takes.
var compareParams = []string{"id", "per", "currency", "os", "now"}

// pageOffersCompare is /offers/compare?id=…: the ticked machines side by
// side, one column each, with the cheapest price per GPU of each kind
// marked.
func (s *Server) pageOffersCompare(w http.ResponseWriter, r *http.Request) {
	p, ok := s.pageParams(w, r, compareParams...)
	if !ok {
		return
	}
	var keys []report.MachineKey
	providers := map[string]bool{}
	for _, v := range p.v["id"] {
		k, err := report.ParseMachineKey(strings.TrimSpace(v))
		if err != nil {
			s.pageError(w, r, err)
			return
		}
		keys = append(keys, k)
		providers[k.Provider] = true
	}
	if len(keys) == 0 || len(keys) > maxCompared {
		s.pageError(w, r, &report.ParamError{Msg: fmt.Sprintf("id: tick from 1 to %d machines on the offers table to compare them", maxCompared)})
		return
	}
	sc, err := s.scope(p)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	sc.Providers = slices.Sorted(maps.Keys(providers))
	per, err := report.ParsePer("per", p.str("per"))
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	t, err := s.offerTable(r.Context(), report.OfferTableQuery{Scope: sc, By: report.ByMachine, Per: per})
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	picked, missing := report.PickMachines(t.Machines, keys)
	d := compareData{Machines: picked, Per: perLabel(per), Lines: compareLines(picked)}
	for _, k := range missing {
		d.Missing = append(d.Missing, k.String())
	}
	back := url.Values{"by": {report.ByMachine}, "per": {string(per)}}
	for _, c := range perChoices {
		v := url.Values{}
		for _, k := range []string{"id", "currency", "os", "now"} {
			for _, x := range p.v[k] {
				v.Add(k, x)
			}
		}
		v.Set("per", c.Value)
		d.Units = append(d.Units, pageLink{Href: "/offers/compare?" + v.Encode(), Text: c.Label})
	}
	for _, k := range []string{"currency", "os", "now"} {
		if x := p.str(k); x != "" {
			back.Set(k, x)
		}
	}
	d.Back = "/offers?" + back.Encode()
	s.render(w, r, "offerscompare", page{Title: "Machines side by side", Nav: "offers", Now: sc.At, Currency: t.Currency, Data: d})
}

// compareLines are the side-by-side table's rows: the machine, then its
// prices (the cheapest of each kind marked best), then its hardware.
func compareLines(ms []report.MachineRow) []compareLine {
	line := func(label string, cell func(r *report.MachineRow) compareCell) compareLine {
		l := compareLine{Label: label}
		for i := range ms {
			l.Cells = append(l.Cells, cell(&ms[i]))
		}
		return l
	}
	text := func(label string, f func(r *report.MachineRow) string) compareLine {
		return line(label, func(r *report.MachineRow) compareCell { return compareCell{Text: f(r)} })
	}
	known := func(f *float64) string {
		if f == nil {
			return unknownText
		}
		return trimFloat(*f)
	}
	knownText := func(s *string) string {
		if s == nil {
			return unknownText
		}
		return *s
	}
	out := []compareLine{
		text("provider", func(r *report.MachineRow) string { return r.Provider }),
		text("region", func(r *report.MachineRow) string { return r.Region }),
		text("GPUs", func(r *report.MachineRow) string {
			if r.GPUCount <= 0 {
				return unknownText + " " + r.GPUModel
			}
			return trimFloat(r.GPUCount) + "×" + r.GPUModel
		}),
	}
	// A price is compared per GPU: a 1-GPU machine is not the better buy
	// of an 8-GPU one for costing less.
	perGPU := func(r *report.MachineRow, col int) (decimal.Decimal, bool) {
		p, _ := r.Cell(col)
		if !p.Valid || r.GPUCount <= 0 {
			return decimal.Decimal{}, false
		}
		return p.D.Div(decimal.NewFromFloat(r.GPUCount)), true
	}
	for col, label := range report.MachineColumnLabels {
		// The cheapest converted price per GPU of the column is marked.
		var best decimal.NullDecimal
		for i := range ms {
			if v, ok := perGPU(&ms[i], col); ok && (!best.Valid || v.LessThan(best.Decimal)) {
				best = decimal.NullDecimal{Decimal: v, Valid: true}
			}
		}
		out = append(out, line(label, func(r *report.MachineRow) compareCell {
			class, txt, opt := machineCell(r, col)
			if v, ok := perGPU(r, col); ok && len(ms) > 1 && v.Equal(best.Decimal) {
				class = "best"
			}
			return compareCell{Class: strings.TrimSpace("num " + class), Text: txt, Note: opt}
		}))
	}
	out = append(out,
		line("on-demand per GPU", func(r *report.MachineRow) compareCell {
			if !r.OnDemandPerGPU.Valid {
				return compareCell{Class: "num flat", Text: "–"}
			}
			return compareCell{Class: "num", Text: amountText(r.OnDemandPerGPU, r.Per)}
		}),
		text("availability", func(r *report.MachineRow) string { return availText(r.Available, r.Availability) }),
		text("GPU memory GB", func(r *report.MachineRow) string { return known(r.GPUMemoryGB) }),
		text("vCPUs", func(r *report.MachineRow) string {
			if r.VCPUs == nil {
				return unknownText
			}
			return strconv.Itoa(*r.VCPUs)
		}),
		text("memory GB", func(r *report.MachineRow) string { return known(r.MemoryGB) }),
		text("interconnect", func(r *report.MachineRow) string { return knownText(r.Interconnect) }),
		text("local storage", func(r *report.MachineRow) string { return knownText(r.LocalStorage) }),
		text("seller", func(r *report.MachineRow) string {
			if r.Marketplace {
				return "marketplace hosts"
			}
			return "the cloud itself"
		}),
	)
	return out
}
