// Package slack renders alerts as Slack Block Kit messages and posts them,
// with a bot token (chat.postMessage, the main path) or an incoming
// webhook. It implements alerting.Renderer and alerting.Notifier.
//
// Slack's limits hold by construction: at most MaxItems (≤ 45) item blocks
// plus four others (≤ 50 blocks), every text from a cloud escaped for
// mrkdwn and then capped, so a section stays far below 3,000 characters, a
// header below 150 and the fallback text below 3,000 (Slack truncates at
// 40,000).
package slack

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	slackapi "github.com/slack-go/slack"
	"github.com/slack-go/slack/slackutilsx"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/clouds"
)

// Slack's documented limits (docs.slack.dev/reference/block-kit/blocks).
const (
	MaxBlocks      = 50
	MaxHeaderChars = 150
	// MaxSectionChars is a section's text limit.
	MaxSectionChars = 3000
	// maxFallbackChars caps the top-level text, the notification line:
	// Slack cuts at 40,000 but nobody reads past a few lines.
	maxFallbackChars = 3000
	// maxItemChars bounds one item's section. With MaxItems items the
	// blocks' text stays under the ~13k total Slack was seen to reject
	// (msg_blocks_too_long) even when each block was within its limit.
	maxItemChars = 600
	// maxFieldChars bounds a single text from a cloud (an instance type, a
	// region) after escaping.
	maxFieldChars = 100
	// DefaultMaxItems is how many items a message lists before "and K more".
	DefaultMaxItems = 15
	// blocksBesideItems: header, summary, "and K more", footer.
	blocksBesideItems = 4
)

// Payload is what the outbox stores for a Slack message: chat.postMessage's
// text, blocks and metadata.
type Payload struct {
	// Text is the notification and fallback line, mrkdwn-escaped.
	Text   string                  `json:"text"`
	Blocks slackapi.Blocks         `json:"blocks"`
	Meta   *slackapi.SlackMetadata `json:"metadata,omitempty"`
	// File names the file stored beside the message in the outbox (the
	// digest's chart); the bytes are not in the payload.
	File *FileInfo `json:"file,omitempty"`
}

// FileInfo is how a file sent with a message appears in Slack.
type FileInfo struct {
	Name    string `json:"name"`     // file name, e.g. pricewatch-digest-2026-W11.png
	Title   string `json:"title"`    // shown above the image
	AltText string `json:"alt_text"` // read out by screen readers
}

// Renderer renders alert groups as Block Kit messages.
type Renderer struct {
	// MaxItems is how many items a message shows (default 15, at most 45
	// so the message stays within 50 blocks).
	MaxItems int
}

func (r Renderer) maxItems() int {
	n := r.MaxItems
	if n <= 0 {
		n = DefaultMaxItems
	}
	return min(n, MaxBlocks-blocksBesideItems)
}

// Render implements alerting.Renderer.
func (r Renderer) Render(g alerting.Group) ([]byte, error) {
	if len(g.Items) == 0 {
		return nil, fmt.Errorf("nothing to render for rule %s", g.Rule)
	}
	provider := ProviderName(g.Provider)
	title := eventTitle(g.Event)
	n := len(g.Items)
	shown := min(n, r.maxItems())

	var blocks []slackapi.Block
	blocks = append(blocks, header(headline(g, title, provider)))

	summary := fmt.Sprintf("*%d* %s on *%s* · rule *%s*", n, noun(g.Event, n), escape(provider), escapeField(g.Rule))
	if g.Criteria != "" {
		summary += " (" + escapeField(g.Criteria) + ")"
	}
	summary += fmt.Sprintf("\nSeen %s in run %d · <%s|%s pricing page>", dateToken(g.At), g.RunID, PricingURL(g.Provider, priceTypeOf(g)), escape(provider))
	blocks = append(blocks, section(summary))

	for _, it := range g.Items[:shown] {
		blocks = append(blocks, section(itemText(it)))
	}
	if more := n - shown; more > 0 {
		blocks = append(blocks, contextBlock(fmt.Sprintf("…and *%d more* not shown here: `pricewatch history TYPE` or `pricewatch availability` lists them all.", more)))
	}
	// The delivery key stays in the message metadata for tracing; people
	// read the provider and the run, not an idempotency key.
	blocks = append(blocks, contextBlock(fmt.Sprintf("pricewatch · %s · run %d", escape(provider), g.RunID)))

	text := fmt.Sprintf("pricewatch: %s: %d %s on %s — %s", title, n, noun(g.Event, n), escape(provider), oneLine(g.Items[0]))
	if n > 1 {
		text += fmt.Sprintf(" (and %d more)", n-1)
	}
	p := Payload{
		Text:   truncate(text, maxFallbackChars),
		Blocks: slackapi.Blocks{BlockSet: blocks},
		Meta: &slackapi.SlackMetadata{EventType: "pricewatch_alert", EventPayload: map[string]any{
			"delivery_key": g.Key, "event": string(g.Event), "provider": g.Provider, "rule": g.Rule, "run_id": g.RunID, "items": n,
		}},
	}
	return marshal(p)
}

// marshal encodes a payload as Slack receives it (alerting.EncodeJSON).
func marshal(p Payload) ([]byte, error) { return alerting.EncodeJSON(p) }

// TestMessage is what `pricewatch alerts test` posts.
func TestMessage(at time.Time, version string) ([]byte, error) {
	text := "pricewatch test message: alerts reach this channel."
	blocks := []slackapi.Block{
		header("✅ pricewatch can post here"),
		section(fmt.Sprintf("This is a test message from `pricewatch alerts test` (pricewatch %s), sent %s. "+
			"Price and availability alerts routed to this channel will look like this, with Block Kit sections per change.",
			escapeField(version), dateToken(at))),
	}
	return marshal(Payload{Text: text, Blocks: slackapi.Blocks{BlockSet: blocks},
		Meta: &slackapi.SlackMetadata{EventType: "pricewatch_test", EventPayload: map[string]any{"sent_at": at.UTC().Format(time.RFC3339)}}})
}

func header(text string) slackapi.Block {
	return slackapi.NewHeaderBlock(slackapi.NewTextBlockObject(slackapi.PlainTextType, truncate(text, MaxHeaderChars), true, false))
}

func section(mrkdwn string) slackapi.Block {
	return slackapi.NewSectionBlock(slackapi.NewTextBlockObject(slackapi.MarkdownType, truncate(mrkdwn, MaxSectionChars), false, false), nil, nil)
}

func contextBlock(mrkdwn string) slackapi.Block {
	return slackapi.NewContextBlock("", slackapi.NewTextBlockObject(slackapi.MarkdownType, truncate(mrkdwn, MaxSectionChars), false, false))
}

// safeName matches cloud names that may appear in a plain-text header as
// they are; anything else is left out of the header.
var safeName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

func headline(g alerting.Group, title, provider string) string {
	if len(g.Items) == 1 {
		c := g.Items[0].Change
		place := c.Place.Region
		if c.Place.Zone != "" {
			place = c.Place.Zone
		}
		if safeName.MatchString(c.Place.InstanceType) && safeName.MatchString(place) {
			return fmt.Sprintf("%s: %s · %s %s", title, c.Place.InstanceType, provider, place)
		}
	}
	return fmt.Sprintf("%s: %d %s on %s", title, len(g.Items), noun(g.Event, len(g.Items)), provider)
}

// eventTitles head a group's message; an event without one shows its name.
var eventTitles = map[alerting.Event]string{
	alerting.AvailabilityNew:         "🆕 Newly offered",
	alerting.AvailabilityGone:        "🚫 Withdrawn",
	alerting.BackInStock:             "✅ Back in stock",
	alerting.SoldOut:                 "⛔ Sold out",
	alerting.PriceDrop:               "🔻 Price drop",
	alerting.PriceRise:               "🔺 Price rise",
	alerting.SpotBelow:               "💸 Spot below threshold",
	alerting.PriceNew:                "🏷️ New price",
	alerting.CapacityBlockAvailable:  "📦 Capacity block available",
	alerting.InterruptionBandChanged: "🌀 Spot interruption band changed",
	alerting.PlacementScoreChanged:   "🎯 Spot placement score changed",
	alerting.EvictionBandChanged:     "🌀 Spot eviction band changed",
}

func eventTitle(e alerting.Event) string {
	if t, ok := eventTitles[e]; ok {
		return t
	}
	return string(e)
}

func noun(e alerting.Event, n int) string {
	one, many := "change", "changes"
	switch e {
	case alerting.PriceDrop, alerting.PriceRise, alerting.SpotBelow, alerting.PriceNew:
		one, many = "price", "prices"
	case alerting.AvailabilityNew, alerting.AvailabilityGone, alerting.BackInStock, alerting.SoldOut:
		one, many = "place", "places"
	case alerting.CapacityBlockAvailable:
		one, many = "block", "blocks"
	case alerting.PlacementScoreChanged:
		one, many = "score", "scores"
	case alerting.InterruptionBandChanged, alerting.EvictionBandChanged:
		one, many = "band", "bands"
	}
	if n == 1 {
		return one
	}
	return many
}

// itemText is one item's section: what, where, and the change.
func itemText(it alerting.Item) string {
	c := it.Change
	var b strings.Builder
	fmt.Fprintf(&b, "*%s*", escapeField(c.Place.InstanceType))
	if hw := hardware(c.Hardware); hw != "" {
		b.WriteString(" · " + hw)
	}
	b.WriteString(" · " + place(c))
	if it.Event.IsPrice() {
		b.WriteString(" · " + priceTypeLabel(c.Offer))
	}
	b.WriteString("\n")
	cur := escapeField(c.Currency)
	switch it.Event {
	case alerting.PriceDrop, alerting.PriceRise:
		fmt.Fprintf(&b, "%s → *%s* %s/h", money(c.Old.Decimal), money(c.New.Decimal), cur)
		if it.DeltaPct.Valid {
			fmt.Fprintf(&b, " (*%s%%*)", signed(it.DeltaPct.Decimal))
		}
		if it.OldPerGPU.Valid && it.NewPerGPU.Valid {
			fmt.Fprintf(&b, " · per GPU-hour %s → *%s* %s", rate(it.OldPerGPU.Decimal), rate(it.NewPerGPU.Decimal), cur)
			if it.DeltaPerGPU.Valid {
				fmt.Fprintf(&b, " (%s)", signed(it.DeltaPerGPU.Decimal.Round(4)))
			}
		}
	case alerting.SpotBelow, alerting.PriceNew:
		if it.NewPerGPU.Valid {
			fmt.Fprintf(&b, "*%s %s per GPU-hour* · %s %s/h", rate(it.NewPerGPU.Decimal), cur, money(c.New.Decimal), cur)
		} else {
			fmt.Fprintf(&b, "*%s %s/h*", money(c.New.Decimal), cur)
		}
		if it.OldPerGPU.Valid {
			fmt.Fprintf(&b, " · was %s per GPU-hour", rate(it.OldPerGPU.Decimal))
		}
	case alerting.CapacityBlockAvailable:
		if s := c.Signal; s != nil {
			fmt.Fprintf(&b, "%s · %s → %s · fee %s %s", blockShape(s.Shape), dateToken(s.Start), dateToken(s.End), escapeField(s.Value), escapeField(s.Unit))
			if it.NewPerGPU.Valid {
				fmt.Fprintf(&b, " · *%s %s per GPU-hour*", rate(it.NewPerGPU.Decimal), escapeField(s.Unit))
			}
		}
	case alerting.InterruptionBandChanged:
		if s := c.Signal; s != nil {
			fmt.Fprintf(&b, "interruption %s → *%s*", escapeField(s.OldValue), escapeField(s.Value))
		}
	case alerting.PlacementScoreChanged:
		if s := c.Signal; s != nil {
			fmt.Fprintf(&b, "spot placement score %s → *%s* · %s", escapeField(s.OldValue), escapeField(s.Value), escapeField(placementRequest(s.Shape)))
		}
	case alerting.EvictionBandChanged:
		if s := c.Signal; s != nil {
			fmt.Fprintf(&b, "eviction rate %s → *%s*", escapeField(s.OldValue), escapeField(s.Value))
		}
	case alerting.AvailabilityNew:
		b.WriteString("now offered")
		if s := stateLabel(c.NewState); c.NewState != pricewatch.Offered && s != "" {
			b.WriteString(", " + s)
		}
	case alerting.AvailabilityGone:
		b.WriteString("withdrawn: missing from the last complete runs")
		if !c.OldSince.IsZero() {
			fmt.Fprintf(&b, " (listed since %s)", dateToken(c.OldSince))
		}
	case alerting.BackInStock, alerting.SoldOut:
		fmt.Fprintf(&b, "%s → *%s*", stateLabel(c.OldState), stateLabel(c.NewState))
		if !c.OldSince.IsZero() {
			fmt.Fprintf(&b, " (%s since %s)", stateLabel(c.OldState), dateToken(c.OldSince))
		}
	}
	return truncate(b.String(), maxItemChars)
}

// oneLine is an item for the fallback text: no links or date tokens.
func oneLine(it alerting.Item) string {
	c := it.Change
	s := escapeField(c.Place.InstanceType) + " " + placePlain(c)
	switch it.Event {
	case alerting.PriceDrop, alerting.PriceRise:
		s += fmt.Sprintf(" %s %s → %s %s/h", priceTypeLabel(c.Offer), money(c.Old.Decimal), money(c.New.Decimal), escapeField(c.Currency))
		if it.DeltaPct.Valid {
			s += fmt.Sprintf(" (%s%%)", signed(it.DeltaPct.Decimal))
		}
	case alerting.SpotBelow, alerting.PriceNew:
		if it.NewPerGPU.Valid {
			s += fmt.Sprintf(" %s %s %s per GPU-hour", priceTypeLabel(c.Offer), rate(it.NewPerGPU.Decimal), escapeField(c.Currency))
		} else {
			s += fmt.Sprintf(" %s %s %s/h", priceTypeLabel(c.Offer), money(c.New.Decimal), escapeField(c.Currency))
		}
	case alerting.BackInStock, alerting.SoldOut:
		s += " " + stateLabel(c.NewState)
	case alerting.CapacityBlockAvailable:
		if sg := c.Signal; sg != nil {
			s += fmt.Sprintf(" capacity block %s → %s", sg.Start.UTC().Format("2006-01-02 15:04"), sg.End.UTC().Format("2006-01-02 15:04 UTC"))
			if it.NewPerGPU.Valid {
				s += fmt.Sprintf(" %s %s per GPU-hour", rate(it.NewPerGPU.Decimal), escapeField(sg.Unit))
			}
		}
	case alerting.InterruptionBandChanged:
		if sg := c.Signal; sg != nil {
			s += fmt.Sprintf(" interruption %s → %s", escapeField(sg.OldValue), escapeField(sg.Value))
		}
	case alerting.PlacementScoreChanged:
		if sg := c.Signal; sg != nil {
			s += fmt.Sprintf(" spot placement score %s → %s (%s)", escapeField(sg.OldValue), escapeField(sg.Value), escapeField(placementRequest(sg.Shape)))
		}
	case alerting.EvictionBandChanged:
		if sg := c.Signal; sg != nil {
			s += fmt.Sprintf(" eviction rate %s → %s", escapeField(sg.OldValue), escapeField(sg.Value))
		}
	}
	return s
}

func hardware(h pricewatch.Hardware) string {
	if h.GPUModel == "" {
		return ""
	}
	if h.GPUCount <= 0 {
		return escapeField(h.GPUModel)
	}
	return strconv.FormatFloat(h.GPUCount, 'f', -1, 64) + "× " + escapeField(h.GPUModel)
}

func place(c pricewatch.Change) string {
	s := "region `" + escapeField(c.Place.Region) + "`"
	if c.Place.Zone != "" {
		s += " zone `" + escapeField(c.Place.Zone) + "`"
	}
	return s
}

func placePlain(c pricewatch.Change) string {
	if c.Place.Zone != "" {
		return escapeField(c.Place.Zone)
	}
	return escapeField(c.Place.Region)
}

func stateLabel(s pricewatch.AvailabilityState) string {
	switch s {
	case pricewatch.InStock:
		return "in stock"
	case pricewatch.SoldOut:
		return "sold out"
	case pricewatch.Offered:
		return "offered"
	}
	return escapeField(string(s))
}

// priceTypeLabel is how the offer is bought (pricewatch.HowBought), escaped.
func priceTypeLabel(k pricewatch.OfferKey) string { return escapeField(k.HowBought()) }

// priceTypeOf returns the group's price type when all items share one, for
// the pricing page link.
func priceTypeOf(g alerting.Group) pricewatch.PriceType {
	if !g.Event.IsPrice() {
		return ""
	}
	pt := g.Items[0].Change.Offer.PriceType
	for _, it := range g.Items[1:] {
		if it.Change.Offer.PriceType != pt {
			return ""
		}
	}
	return pt
}

// ProviderName is the provider as people write it (from package clouds'
// table).
func ProviderName(p string) string { return clouds.DisplayName(p) }

// PricingURL is the cloud's public pricing page for a price type (from
// package clouds' table).
func PricingURL(provider string, pt pricewatch.PriceType) string {
	return clouds.PricingURL(provider, pt)
}

// dateToken shows t in each reader's time zone, with UTC as the fallback.
func dateToken(t time.Time) string {
	return fmt.Sprintf("<!date^%d^{date_short_pretty} {time}|%s>", t.Unix(), t.UTC().Format("2006-01-02 15:04 UTC"))
}

// money prints a price for reading: at most four decimals (an effective
// rate carries ten, which nobody reads in a chat message), at least two,
// and thousands separators (636,439.00). The outbox and JSON keep every
// digit.
func money(d decimal.Decimal) string { return Readable(d) }

// rate prints a per-GPU-hour figure the same way.
func rate(d decimal.Decimal) string { return Readable(d) }

// Readable is a money figure for people: rounded to four decimals, trailing
// zeros beyond two dropped, the integer part grouped by thousands.
func Readable(d decimal.Decimal) string {
	return pricewatch.GroupThousands(pricewatch.FormatPrice(d.Round(4)))
}

func signed(d decimal.Decimal) string {
	if d.IsPositive() {
		return "+" + d.String()
	}
	if d.IsNegative() {
		return "−" + d.Neg().String()
	}
	return d.String()
}

// escape makes text safe inside mrkdwn: &, < and > are Slack's control
// characters (a cloud's "<!channel>" must not ping anyone).
func escape(s string) string { return slackutilsx.EscapeMessage(s) }

// escapeField escapes one text from outside (a cloud, the config) and caps
// it, never cutting an escape sequence in half.
func escapeField(s string) string {
	return truncate(escape(strings.Join(strings.Fields(s), " ")), maxFieldChars)
}

// truncate cuts s to at most n runes, ending in "…". It never leaves half
// of an &amp;-style entity behind, nor half of a <…> link or date token.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	cut := string(r)
	if i := strings.LastIndexByte(cut, '&'); i >= 0 && !strings.Contains(cut[i:], ";") {
		cut = cut[:i]
	}
	if i := strings.LastIndexByte(cut, '<'); i >= 0 && !strings.Contains(cut[i:], ">") {
		cut = cut[:i]
	}
	return cut + "…"
}

// blockShape says a block's request: "1 instance for 7 days".
func blockShape(shape string) string {
	n := pricewatch.ShapeValue(shape, "instance_count")
	h, err := strconv.Atoi(pricewatch.ShapeValue(shape, "duration_hours"))
	if n == "" || err != nil {
		return escapeField(shape)
	}
	word := "instances"
	if n == "1" {
		word = "instance"
	}
	if h%24 == 0 {
		days := "days"
		if h == 24 {
			days = "day"
		}
		return fmt.Sprintf("%s %s for %d %s", escapeField(n), word, h/24, days)
	}
	return fmt.Sprintf("%s %s for %d hours", escapeField(n), word, h)
}

// placementRequest says what a placement score answers, from its shape:
// "for 1 instance of any of p4d.24xlarge, p5.48xlarge, per zone".
func placementRequest(shape string) string {
	n := pricewatch.ShapeValue(shape, "target_capacity")
	if n == "" {
		return shape
	}
	unit := "instances"
	if n == "1" {
		unit = "instance"
	}
	s := "for " + n + " " + unit
	if types := pricewatch.ShapeValue(shape, "instance_types"); types != "" {
		s += " of any of " + strings.ReplaceAll(types, "+", ", ")
	}
	if pricewatch.ShapeValue(shape, "single_availability_zone") == "true" {
		s += ", in one zone"
	}
	return s
}
