package digest

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis/digest"
)

// mdEscape makes cloud text literal in GitHub-flavoured Markdown, table
// cells included.
var mdEscape = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`,
	"<", "&lt;", ">", "&gt;", "|", `\|`, "#", `\#`, "\n", " ", "\r", " ")

func md(s string) string { return mdEscape.Replace(s) }

// WriteMarkdown renders the digest as GitHub-flavoured Markdown (for a
// wiki page, an issue or an e-mail).
func WriteMarkdown(w io.Writer, d digest.Digest) error {
	b := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(b, format+"\n", args...) }
	// section starts a "## title" section, set apart by blank lines.
	section := func(title string) {
		p("")
		p("## %s", title)
		p("")
	}
	// tableSection starts a section that holds a table of rows: without
	// rows it says none and reports false, else it writes intro (a format,
	// as p takes) and reports true for the caller to write the table.
	tableSection := func(title string, rows int, none, intro string) bool {
		section(title)
		if rows == 0 {
			p(none)
			return false
		}
		p(intro)
		p("")
		return true
	}
	loc := d.Loc()

	p("# Weekly GPU price digest · %s", d.Week)
	p("")
	p("Week to %s · prices per GPU-hour in %s, Linux · %s",
		when(d.Now, loc), d.Currency, countsText(d))

	section("Cheapest per GPU-hour")
	p("| GPU | Buy | %s/GPU-h | w/w | Where |", d.Currency)
	p("|---|---|--:|--:|---|")
	var notes []string
	for _, m := range d.Models {
		choices := choicesOf(m)
		if len(choices) == 0 {
			p("| %s | – | | | no offers |", md(m.Model))
		}
		for _, c := range choices {
			p("| %s | %s | %s | %s | %s |", md(m.Model), c.label, perGPU(c.choice.PerGPUHour), c.wow,
				choiceWhere(c.choice, d.Currency, c.commitment, md))
		}
		if len(m.Unconverted) > 0 {
			notes = append(notes, md(m.Model)+": "+unconvertedText(m.Unconverted))
		}
	}
	p("")
	p("*w/w*: move of the cheapest price since %s.", when(d.From, loc))
	for _, n := range notes {
		p("")
		p("> ⚠️ %s", n)
	}

	if tableSection("Best commitment vs on-demand", len(d.Savings), "No commitment of a watched GPU beats on-demand.",
		"Assumes 100%% utilisation (full use); *break-even* is the share of the term's hours above which the commitment is cheaper than on-demand.") {
		p("| GPU | Saving | Break-even | %s/GPU-h | On-demand | Commitment | Cash |", d.Currency)
		p("|---|--:|--:|--:|--:|---|---|")
		for _, s := range d.Savings {
			p("| %s | %s | %s | %s | %s | %s %s %s %s | %s |", md(s.Model), saving(s.FullUseSavingsPct), share(s.BreakEvenUtilization),
				perGPU(s.EffectivePerGPU), perGPU(s.OnDemandPerGPU), md(s.Provider), md(pricewatch.Place(s.Region, s.Zone)), md(s.InstanceType), md(buyLabel(s.Offer)),
				md(commitmentCash(s)))
		}
		var notes []string
		for _, s := range d.Savings {
			for _, line := range []string{lockInText(d, s, md), md(fleetText(d, s))} {
				if line != "" {
					notes = append(notes, fmt.Sprintf("- **%s**: %s.", md(s.Model), line))
				}
			}
		}
		if len(notes) > 0 {
			p("") // a list of its own, not a row of the table
		}
		for _, n := range notes {
			p("%s", n)
		}
	}

	if tableSection("Biggest moves this week", len(d.Moves), noMovesText(d),
		"Per GPU-hour, in the cloud's own currency.") {
		p("| Change | 7 days ago | Now | Currency | Where |")
		p("|--:|--:|--:|---|---|")
		for _, g := range groupMoves(d.Moves) {
			from, to := g.Shown()
			p("| %s | %s | %s | %s | %s |", pct(g.Pct), perGPU(from), perGPU(to), md(g.Currency), g.where(md, func(mv digest.Move) string { return md(moveWhere(mv)) }))
		}
		if more := moreMovesText(d); more != "" {
			p("")
			p("%s", more)
		}
	}

	section("Availability")
	p("**New:**")
	p("")
	mdEvents(b, d.NewAvailability, d, "nothing newly available this week.")
	for _, prov := range d.Baseline {
		p("- (%s: first week of data; its places are not listed as new)", md(prov))
	}
	p("")
	p("**Sold out or withdrawn:**")
	p("")
	mdEvents(b, d.SoldOut, d, "nothing sold out or withdrawn this week.")
	if len(d.CapacityBlocks) > 0 {
		p("")
		p("**Capacity blocks** (offered this week, cheapest per GPU-hour first):")
		p("")
		for _, c := range d.CapacityBlocks {
			p("- %s", capacityBlockText(c, d, md))
		}
		if more := moreBlocksText(d); more != "" {
			p("- %s", md(more))
		}
	}

	section("Data quality")
	if len(d.Freshness) == 0 {
		p("No provider is enabled.")
	}
	for _, s := range d.Freshness {
		if s.Stale {
			p("- ⚠️ **%s is stale**: %s", md(s.Provider), md(s.Reason))
		} else {
			p("- ✅ %s: %s", md(s.Provider), md(statusText(s, loc)))
		}
	}
	p("")
	p("Exchange rates into %s for prices of %s:", d.Currency, day(d.Now, loc))
	p("")
	if len(d.Rates) == 0 {
		p("- none needed: every price is in %s.", d.Currency)
	}
	for _, r := range d.Rates {
		mark := ""
		if r.Missing || r.Quote.Stale {
			mark = "⚠️ "
		}
		p("- %s%s: %s", mark, md(r.From), md(rateText(r, d.Currency)))
	}

	section("Chart data")
	p("%s.", md(d.Chart.Title))
	p("")
	if d.Chart.Empty() {
		p("No H100 or A100 price in the last %d weeks.", digest.ChartWeeks)
	} else {
		head, sep := "| Week of |", "|---|"
		for _, s := range d.Chart.Series {
			head += " " + md(s.Label) + " |"
			sep += "--:|"
		}
		p("%s", head)
		p("%s", sep)
		for _, row := range chartRows(d.Chart) {
			p("| %s | %s |", day(row.at, loc), strings.Join(row.values, " | "))
		}
	}
	for _, g := range chartGaps(d.Chart, loc) {
		p("")
		p("> ⚠️ %s.", md(g))
	}
	if n := chartLeftOut(d.Chart); n > 0 {
		p("")
		p("> ⚠️ %d offers left out of some weeks: no exchange rate for their date.", n)
	}
	return b.Flush()
}

func mdEvents(w io.Writer, es []digest.AvailabilityEvent, d digest.Digest, none string) {
	if len(es) == 0 {
		fmt.Fprintln(w, "- "+none)
		return
	}
	for _, e := range es {
		fmt.Fprintf(w, "- %s %s %s (%s): %s\n", md(e.Provider), md(e.Region), md(e.InstanceType),
			md(hardwareLabel(e.GPUModel, e.GPUCount)), eventText(e, d.Loc(), md))
	}
}
