package digest

import (
	"fmt"
	"strings"

	slackapi "github.com/slack-go/slack"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/alerting/slack"
	"github.com/pricewatch/pricewatch/analysis/digest"
)

// ChartMode says what becomes of the chart when the digest is posted.
type ChartMode int

const (
	// ChartAttached: the PNG is stored with the message and shared in its
	// thread (needs a bot token with files:write).
	ChartAttached ChartMode = iota
	// ChartWebhook: the digest goes through an incoming webhook, which
	// cannot upload files.
	ChartWebhook
	// ChartOff: digest.chart is false.
	ChartOff
	// ChartNoData: nothing to draw.
	ChartNoData
)

// SlackOptions tune the Block Kit rendering.
type SlackOptions struct {
	// DeliveryKey is the outbox key, shown in the footer and metadata.
	DeliveryKey string
	Chart       ChartMode
}

// Budgets that keep the message within Slack's limits by construction:
// at most 1 header + 2 summary/divider + maxModelSections + 1 + 5 list
// sections + 1 context = 11 + maxModelSections blocks (≤ 50), and about
// 10,000 characters of block text in all (Slack was seen to reject
// ~13,000 as msg_blocks_too_long even with every block within its own
// limit): the capacity blocks' list, shown only in a week with blocks,
// gets maxBlockChars.
const (
	maxModelSections = 10
	maxModelChars    = 500
	maxListChars     = 1000
	maxBlockChars    = 600
	maxSummaryChars  = 600
	maxFallbackChars = 1000
	// maxAltText is Slack's limit for a file's alt text.
	maxAltText = 1000
)

// ChartFileName is the name the chart is uploaded under.
func ChartFileName(d digest.Digest) string { return "pricewatch-digest-" + d.Week + ".png" }

// esc escapes one text from a cloud or the config for mrkdwn and caps it.
func esc(s string) string { return slack.EscapeField(s) }

// code puts a cloud name in mrkdwn code, escaped; a backquote would end it.
func code(s string) string { return "`" + esc(strings.ReplaceAll(s, "`", "'")) + "`" }

// signed prints a move for Slack with a real minus sign.
func signed(s string) string { return strings.Replace(s, "-", "−", 1) }

// lines joins lines into one section's text under a budget, ending with
// "…and N more" when some do not fit.
func lines(title string, ls []string, budget int, more string) string {
	out := title
	for i, l := range ls {
		tail := ""
		if rest := len(ls) - i - 1; rest > 0 {
			tail = fmt.Sprintf("\n…and %d more%s", rest, more)
		}
		if len([]rune(out))+1+len([]rune(l))+len([]rune(tail)) > budget {
			return out + fmt.Sprintf("\n…and %d more%s", len(ls)-i, more)
		}
		out += "\n" + l
	}
	return out
}

// SlackPayload renders the digest as one Block Kit message for the outbox
// (chat.postMessage text, blocks and metadata, plus the chart's file name
// when the chart is attached).
func SlackPayload(d digest.Digest, opts SlackOptions) ([]byte, error) {
	loc := d.Loc()
	var blocks []slackapi.Block
	blocks = append(blocks, slack.Header("📊 Weekly GPU price digest · "+d.Week))

	summary := fmt.Sprintf("Week to %s · prices per GPU-hour in *%s*, Linux · %s",
		slack.DateToken(d.Now), esc(d.Currency), esc(countsText(d)))
	var warn []string
	if st := d.Stale(); len(st) > 0 {
		names := make([]string, len(st))
		for i, p := range st {
			names[i] = esc(slack.ProviderName(p.Provider))
		}
		warn = append(warn, "stale data from "+strings.Join(names, ", "))
	}
	if m := d.MissingRates(); len(m) > 0 {
		warn = append(warn, "no exchange rate for "+esc(strings.Join(m, ", "))+" (those prices are left out)")
	}
	if d.StaleRates() {
		warn = append(warn, "some exchange rates are stale")
	}
	if len(warn) > 0 {
		summary += "\n⚠️ " + strings.Join(warn, " · ")
	}
	blocks = append(blocks, slack.Section(slack.Truncate(summary, maxSummaryChars)), slack.Divider())

	shown := min(len(d.Models), maxModelSections)
	for _, m := range d.Models[:shown] {
		blocks = append(blocks, slack.Section(modelSection(m, d.Currency)))
	}
	if more := len(d.Models) - shown; more > 0 {
		blocks = append(blocks, slack.Context(fmt.Sprintf("…and %d more models: `pricewatch digest` lists them all.", more)))
	}
	blocks = append(blocks, slack.Divider())

	var sav []string
	for _, s := range d.Savings {
		sav = append(sav, fmt.Sprintf("• *%s*: save *%s* with %s %s %s %s: %s vs %s %s per GPU-hour on demand; breaks even at *%s* of hours; %s",
			esc(s.Model), saving(s.FullUseSavingsPct), esc(slack.ProviderName(s.Provider)), esc(pricewatch.Place(s.Region, s.Zone)), code(s.InstanceType),
			esc(buyLabel(s.Offer)), perGPU(s.EffectivePerGPU), perGPU(s.OnDemandPerGPU), esc(d.Currency), share(s.BreakEvenUtilization),
			esc(commitmentCash(s))))
		for _, line := range []string{lockInText(d, s, esc), slack.Escape(fleetText(d, s))} {
			if line != "" {
				sav = append(sav, "    ◦ "+line)
			}
		}
	}
	if len(sav) == 0 {
		sav = []string{"No commitment of a watched GPU beats on-demand."}
	}
	blocks = append(blocks, slack.Section(lines("*Best commitment vs on-demand* (assumes 100% utilisation, full use)", sav, maxListChars, "")))

	var mv []string
	for _, g := range groupMoves(d.Moves) {
		from, to := g.Shown()
		where := g.where(esc, func(m digest.Move) string {
			k := m.Key
			return fmt.Sprintf("%s %s %s %s (%s)", esc(slack.ProviderName(k.Provider)), esc(pricewatch.Place(k.Region, k.Zone)), code(k.InstanceType),
				esc(keyBuyLabel(k)), esc(hardwareLabel(m.GPUModel, m.GPUCount)))
		})
		mv = append(mv, fmt.Sprintf("• *%s* %s: %s → %s %s", signed(pct(g.Pct)), where, perGPU(from), perGPU(to), esc(g.Currency)))
	}
	if len(mv) == 0 {
		mv = []string{esc(noMovesText(d))}
	}
	if more := moreMovesText(d); more != "" {
		mv = append(mv, more)
	}
	blocks = append(blocks, slack.Section(lines("*Biggest moves this week* (per GPU-hour, in the cloud's currency)", mv, maxListChars, "")))

	var av []string
	for _, e := range d.NewAvailability {
		av = append(av, "🆕 "+eventLine(e, d))
	}
	for _, p := range d.Baseline {
		av = append(av, fmt.Sprintf("_%s: first week of data; its places are not listed as new_", esc(slack.ProviderName(p))))
	}
	for _, e := range d.SoldOut {
		av = append(av, "⛔ "+eventLine(e, d))
	}
	if len(av) == 0 {
		av = []string{"Nothing newly available, sold out or withdrawn this week."}
	}
	blocks = append(blocks, slack.Section(lines("*Availability*", av, maxListChars, ": `pricewatch availability` lists them")))
	if len(d.CapacityBlocks) > 0 {
		var cb []string
		for _, c := range d.CapacityBlocks {
			cb = append(cb, "📦 "+capacityBlockText(c, d, esc))
		}
		if more := moreBlocksText(d); more != "" {
			cb = append(cb, more)
		}
		blocks = append(blocks, slack.Section(lines("*Capacity blocks this week* (cheapest per GPU-hour first)", cb, maxBlockChars, ": `pricewatch availability --all` lists them")))
	}

	var dq []string
	for _, p := range d.Freshness {
		if p.Stale {
			// The reason may quote a cloud's error at length: it gets more
			// room than one field.
			dq = append(dq, fmt.Sprintf("⚠️ *%s is stale*: %s", esc(slack.ProviderName(p.Provider)), slack.Truncate(slack.Escape(p.Reason), 300)))
		} else {
			dq = append(dq, fmt.Sprintf("✅ %s: %s", esc(slack.ProviderName(p.Provider)), esc(statusText(p, loc))))
		}
	}
	for _, r := range d.Rates {
		mark := "💱"
		if r.Missing || r.Quote.Stale {
			mark = "⚠️"
		}
		dq = append(dq, fmt.Sprintf("%s %s: %s", mark, esc(r.From), slack.Truncate(slack.Escape(rateText(r, d.Currency)), 300)))
	}
	if len(dq) == 0 {
		dq = []string{"No provider is enabled and every price is in " + esc(d.Currency) + "."}
	}
	blocks = append(blocks, slack.Section(lines("*Data quality*", dq, maxListChars, "")))

	footer := ""
	switch opts.Chart {
	case ChartAttached:
		footer = fmt.Sprintf("📈 Chart of the cheapest H100 and A100 per GPU-hour over %d weeks in the thread.", digest.ChartWeeks)
		// A line that starts late is weeks without history, not a drop.
		for _, g := range chartGaps(d.Chart, loc) {
			footer += " " + slack.Escape(g) + "."
		}
	case ChartWebhook:
		footer = "📈 Chart not attached: an incoming webhook cannot upload files (use a bot token with files:write)."
	case ChartOff:
		footer = "📈 Chart off (digest.chart)."
	case ChartNoData:
		footer = fmt.Sprintf("📈 No chart: no H100 or A100 price in the last %d weeks.", digest.ChartWeeks)
	}
	footer += " `pricewatch digest` previews this digest · delivery " + esc(opts.DeliveryKey)
	blocks = append(blocks, slack.Context(footer))

	p := slack.Payload{
		Text:   slack.Truncate(fallback(d), maxFallbackChars),
		Blocks: slackapi.Blocks{BlockSet: blocks},
		Meta: &slackapi.SlackMetadata{EventType: "pricewatch_digest", EventPayload: map[string]any{
			"delivery_key": opts.DeliveryKey, "week": d.Week, "currency": d.Currency,
		}},
	}
	if opts.Chart == ChartAttached {
		p.File = &slack.FileInfo{Name: ChartFileName(d), Title: d.Chart.Title, AltText: altText(d)}
	}
	return slack.Marshal(p)
}

// modelSection is one watched model's cheapest options.
func modelSection(m digest.ModelRow, cur string) string {
	var b strings.Builder
	b.WriteString("*" + esc(m.Model) + "*")
	choices := choicesOf(m)
	if len(choices) == 0 {
		b.WriteString("\nno offers")
	}
	for _, c := range choices {
		o := c.choice.Offer
		label := c.label
		if c.commitment {
			label = "best commitment"
		}
		fmt.Fprintf(&b, "\n• %s *%s* %s", label, perGPU(c.choice.PerGPUHour), esc(cur))
		if c.wow != "" {
			fmt.Fprintf(&b, " (%s w/w)", signed(c.wow))
		}
		fmt.Fprintf(&b, " · %s %s %s %s", esc(slack.ProviderName(o.Provider)), esc(pricewatch.Place(o.Region, o.Zone)), code(o.InstanceType), esc(hardwareLabel(o.GPUModel, o.GPUCount)))
		if o.PriceType.IsCommitment() {
			b.WriteString(" " + esc(buyLabel(o)))
		}
		if c.choice.NativeCurrency != cur {
			fmt.Fprintf(&b, " (%s %s)", perGPU(c.choice.NativePerGPUHour), esc(c.choice.NativeCurrency))
		}
		if c.choice.FXStale {
			b.WriteString(" ⚠️ stale rate")
		}
		if c.choice.Available != nil && !*c.choice.Available {
			b.WriteString(" ⛔ sold out")
		}
	}
	if len(m.Unconverted) > 0 {
		b.WriteString("\n⚠️ " + esc(unconvertedText(m.Unconverted)))
	}
	return slack.Truncate(b.String(), maxModelChars)
}

func eventLine(e digest.AvailabilityEvent, d digest.Digest) string {
	return fmt.Sprintf("%s %s %s (%s): %s", esc(slack.ProviderName(e.Provider)), esc(e.Region), code(e.InstanceType),
		esc(hardwareLabel(e.GPUModel, e.GPUCount)), eventText(e, d.Loc(), esc))
}

// fallback is the notification line: the cheapest on-demand of each model.
func fallback(d digest.Digest) string {
	s := "Weekly GPU price digest " + d.Week + ":"
	var parts []string
	for _, m := range d.Models {
		if m.OnDemand != nil {
			parts = append(parts, fmt.Sprintf("%s from %s %s/GPU-h on demand", esc(m.Model), perGPU(m.OnDemand.PerGPUHour), esc(d.Currency)))
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "no on-demand price of a watched GPU")
	}
	s += " " + strings.Join(parts, ", ")
	if st := d.Stale(); len(st) > 0 {
		s += fmt.Sprintf(" · %d stale providers", len(st))
	}
	return s
}

// altText describes the chart for screen readers: the newest value of
// each line.
func altText(d digest.Digest) string {
	s := d.Chart.Title + "."
	for _, sr := range d.Chart.Series {
		if len(sr.Points) == 0 {
			continue
		}
		first, last := sr.Points[0], sr.Points[len(sr.Points)-1]
		s += fmt.Sprintf(" %s: %s %s per GPU-hour on %s, %s now.", sr.Label, perGPU(first.PerGPUHour), first.Currency,
			day(first.At, d.Loc()), perGPU(last.PerGPUHour))
	}
	return slack.Truncate(s, maxAltText)
}
