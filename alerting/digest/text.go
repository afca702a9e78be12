package digest

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis/digest"
	"github.com/pricewatch/pricewatch/internal/table"
)

// WriteText renders the digest as plain text for a terminal.
func WriteText(w io.Writer, d digest.Digest) error {
	b := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(b, format+"\n", args...) }
	loc := d.Loc()
	id := func(s string) string { return s }

	p("Weekly GPU price digest · %s", d.Week)
	p("Week to %s · prices per GPU-hour in %s, Linux%s", when(d.Now, loc), d.Currency, scopeText(d))
	para(b, "", countsText(d))

	p("")
	p("CHEAPEST PER GPU-HOUR (w/w: move of the cheapest since %s)", when(d.From, loc))
	t := table.New("GPU", "BUY", ">"+d.Currency+"/GPU-H", ">W/W", "WHERE")
	var notes []string
	for _, m := range d.Models {
		first := true
		name := func() string {
			if first {
				first = false
				return m.Model
			}
			return ""
		}
		choices := choicesOf(m)
		if len(choices) == 0 {
			t.Add(name(), "-", "", "", "no offers")
		}
		for _, c := range choices {
			t.Add(name(), c.label, perGPU(c.choice.PerGPUHour), c.wow, choiceWhere(c.choice, d.Currency, c.commitment, id))
		}
		if len(m.Unconverted) > 0 {
			notes = append(notes, m.Model+": "+unconvertedText(m.Unconverted))
		}
	}
	if err := flushTable(b, t); err != nil {
		return err
	}
	for _, n := range notes {
		para(b, "  ! ", n)
	}

	p("")
	p("BEST COMMITMENT VS ON-DEMAND (assumes 100%% utilisation, every hour of the term used)")
	p("  Break-even: the share of hours above which the commitment is cheaper than on-demand.")
	if len(d.Savings) == 0 {
		p("  No commitment of a watched GPU beats on-demand.")
	} else {
		t := table.New("GPU", ">SAVING", ">BREAK-EVEN", ">"+d.Currency+"/GPU-H", ">ON-DEMAND", "COMMITMENT")
		for _, s := range d.Savings {
			t.Add(s.Model, saving(s.FullUseSavingsPct), share(s.BreakEvenUtilization), perGPU(s.EffectivePerGPU), perGPU(s.OnDemandPerGPU),
				fmt.Sprintf("%s %s %s %s", s.Provider, pricewatch.Place(s.Region, s.Zone), s.InstanceType, buyLabel(s.Offer)))
		}
		if err := flushTable(b, t); err != nil {
			return err
		}
		for _, s := range d.Savings {
			para(b, "  ", s.Model+": "+commitmentCash(s)+".")
			for _, line := range []string{lockInText(d, s, id), fleetText(d, s)} {
				if line != "" {
					para(b, "    ", s.Model+": "+line+".")
				}
			}
		}
	}

	p("")
	p("BIGGEST MOVES THIS WEEK (per GPU-hour, in the cloud's own currency)")
	if len(d.Moves) == 0 {
		para(b, "  ", noMovesText(d))
	} else {
		t := table.New(">CHANGE", ">7D AGO", ">NOW", "CUR", "WHERE")
		for _, g := range groupMoves(d.Moves) {
			from, to := g.Shown()
			t.Add(pct(g.Pct), perGPU(from), perGPU(to), g.Currency, g.where(id, moveWhere))
		}
		if err := flushTable(b, t); err != nil {
			return err
		}
		if more := moreMovesText(d); more != "" {
			p("  %s", more)
		}
	}

	p("")
	p("NEW AVAILABILITY")
	writeEvents(b, d.NewAvailability, d, "  Nothing newly available this week.")
	for _, prov := range d.Baseline {
		para(b, "  ", fmt.Sprintf("(%s: first week of data; its places are not listed as new)", prov))
	}
	p("")
	p("SOLD OUT OR WITHDRAWN")
	writeEvents(b, d.SoldOut, d, "  Nothing sold out or withdrawn this week.")
	// Only where a cloud offered one: capacity blocks are fetched only
	// when configured, so an empty section would mostly say "not asked".
	if len(d.CapacityBlocks) > 0 {
		p("")
		p("CAPACITY BLOCKS (offered this week, cheapest per GPU-hour first)")
		for _, c := range d.CapacityBlocks {
			para(b, "  ", "- "+capacityBlockText(c, d, func(s string) string { return s }))
		}
		if more := moreBlocksText(d); more != "" {
			p("  %s", more)
		}
	}

	p("")
	p("DATA FRESHNESS")
	if len(d.Freshness) == 0 {
		p("  No provider is enabled.")
	} else {
		t := table.New("PROVIDER", "STATE", "DETAIL")
		for _, s := range d.Freshness {
			state := "ok"
			if s.Stale {
				state = "STALE"
			}
			t.Add(s.Provider, state, statusText(s, loc))
		}
		if err := flushTable(b, t); err != nil {
			return err
		}
	}

	p("")
	p("EXCHANGE RATES (into %s for prices of %s)", d.Currency, day(d.Now, loc))
	if len(d.Rates) == 0 {
		p("  None needed: every price is in %s.", d.Currency)
	} else {
		t := table.New("FROM", "RATE")
		for _, r := range d.Rates {
			t.Add(r.From, rateText(r, d.Currency))
		}
		if err := flushTable(b, t); err != nil {
			return err
		}
	}

	p("")
	p("CHART DATA: %s", d.Chart.Title)
	if d.Chart.Empty() {
		p("  No H100 or A100 price in the last %d weeks.", digest.ChartWeeks)
	} else {
		cols := []string{"WEEK OF"}
		for _, s := range d.Chart.Series {
			cols = append(cols, ">"+strings.ToUpper(s.Label))
		}
		t := table.New(cols...)
		for _, row := range chartRows(d.Chart) {
			cells := append([]string{day(row.at, loc)}, row.values...)
			t.Add(cells...)
		}
		if err := flushTable(b, t); err != nil {
			return err
		}
	}
	for _, g := range chartGaps(d.Chart, loc) {
		para(b, "  ! ", g+".")
	}
	if n := chartLeftOut(d.Chart); n > 0 {
		para(b, "  ! ", fmt.Sprintf("%d offers left out of some weeks: no exchange rate for their date (see EXCHANGE RATES).", n))
	}
	return b.Flush()
}

func flushTable(w io.Writer, t *table.Table) error { return t.Write(w, textLayout) }

// choiceWhere is where a choice is sold, with its native price when it was
// converted and any flag the reader must see.
func choiceWhere(c *digest.Choice, cur string, commitment bool, esc func(string) string) string {
	o := c.Offer
	s := fmt.Sprintf("%s %s %s (%s)", esc(o.Provider), esc(pricewatch.Place(o.Region, o.Zone)), esc(o.InstanceType), esc(hardwareLabel(o.GPUModel, o.GPUCount)))
	if commitment {
		s += " " + esc(buyLabel(o))
	}
	if c.NativeCurrency != cur {
		s += fmt.Sprintf(" = %s %s", perGPU(c.NativePerGPUHour), esc(c.NativeCurrency))
	}
	if c.FXStale {
		s += " [stale rate]"
	}
	if c.Available != nil && !*c.Available {
		s += " [sold out]"
	}
	return s
}

func moveWhere(mv digest.Move) string {
	k := mv.Key
	return fmt.Sprintf("%s %s %s %s (%s)", k.Provider, pricewatch.Place(k.Region, k.Zone), k.InstanceType, keyBuyLabel(k), hardwareLabel(mv.GPUModel, mv.GPUCount))
}

func writeEvents(w io.Writer, es []digest.AvailabilityEvent, d digest.Digest, none string) {
	if len(es) == 0 {
		fmt.Fprintln(w, none)
		return
	}
	id := func(s string) string { return s }
	for _, e := range es {
		para(w, "  ", fmt.Sprintf("%s %s %s (%s): %s", e.Provider, e.Region, e.InstanceType, hardwareLabel(e.GPUModel, e.GPUCount), eventText(e, d.Loc(), id)))
	}
}

// para prints text after prefix, wrapped to textWidth with a hanging
// indent of two more spaces.
func para(w io.Writer, prefix, text string) {
	lead := strings.Repeat(" ", len(prefix)+2)
	for i, line := range table.WrapLines(text, textWidth-len(prefix)-2) {
		if i == 0 {
			fmt.Fprintln(w, prefix+line)
		} else {
			fmt.Fprintln(w, lead+line)
		}
	}
}
