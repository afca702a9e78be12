package digest

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/alerting/slack"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/analysis/digest"
	"github.com/pricewatch/pricewatch/internal/table"
)

// Shared wording and number formats of the text, Markdown and Slack
// renderers. Cloud text goes through each renderer's own escaping; these
// helpers only assemble.

// rateDigits is how many decimals a per-GPU-hour figure shows: derived
// rates carry ten, which nobody reads in a digest.
const rateDigits = 4

func perGPU(d decimal.Decimal) string { return d.StringFixed(rateDigits) }

// pct prints a move with its sign and one decimal, ASCII minus ("-5.0%").
func pct(d decimal.Decimal) string {
	s := d.StringFixed(1)
	if d.Round(1).IsPositive() {
		s = "+" + s
	}
	return s + "%"
}

func pctNull(d decimal.NullDecimal) string {
	if !d.Valid {
		return ""
	}
	return pct(d.Decimal)
}

// saving prints a saving in percent with one decimal, unsigned.
func saving(d decimal.Decimal) string { return d.StringFixed(1) + "%" }

// share prints a 0–1 share as a percentage with one decimal.
func share(d decimal.Decimal) string { return d.Mul(decimal.NewFromInt(100)).StringFixed(1) + "%" }

func when(t time.Time, loc *time.Location) string { return t.In(loc).Format("2006-01-02 15:04 MST") }

func day(t time.Time, loc *time.Location) string { return t.In(loc).Format("2006-01-02") }

// buyLabel is how an offer is bought (pricewatch.HowBought).
func buyLabel(o pricewatch.Offer) string { return o.Key().HowBought() }

func keyBuyLabel(k pricewatch.OfferKey) string { return k.HowBought() }

// modelChoice is one of a model's cheapest options, as every renderer
// lists them.
type modelChoice struct {
	label      string // "on-demand", "marketplace", "spot" or "commitment"
	choice     *digest.Choice
	wow        string // the week-on-week move; none for commitments
	commitment bool
}

// choicesOf is m's cheapest on-demand, spot and commitment options, in that
// order, without the ones it has none of (an empty list: no offers).
func choicesOf(m digest.ModelRow) []modelChoice {
	var out []modelChoice
	for _, c := range []modelChoice{
		{"on-demand", m.OnDemand, pctNull(m.OnDemandWoW), false},
		{"marketplace", m.MarketOnDemand, "", false},
		{"spot", m.Spot, pctNull(m.SpotWoW), false},
		{"commitment", m.Commitment, "", true},
	} {
		if c.choice != nil {
			out = append(out, c)
		}
	}
	return out
}

// hardwareLabel is "8× H100".
func hardwareLabel(model string, count float64) string {
	if model == "" {
		return ""
	}
	if count <= 0 {
		return model
	}
	return strconv.FormatFloat(count, 'f', -1, 64) + "× " + model
}

// zonesLabel names the places of an availability event.
func zonesLabel(zones []string) string {
	named := slices.DeleteFunc(slices.Clone(zones), func(z string) bool { return z == "" })
	if len(named) == 0 {
		return "the region"
	}
	return strings.Join(named, ", ")
}

// eventText describes an availability event after its "type (hardware)"
// prefix. esc escapes cloud text for the renderer.
func eventText(e digest.AvailabilityEvent, loc *time.Location, esc func(string) string) string {
	zones := esc(zonesLabel(e.Zones))
	at := when(e.At, loc)
	switch {
	case e.State == digest.Withdrawn:
		return fmt.Sprintf("withdrawn from %s on %s", zones, at)
	case e.State == string(pricewatch.SoldOut):
		s := fmt.Sprintf("sold out in %s since %s", zones, at)
		if !e.Still {
			s += ", available again now"
		}
		return s
	}
	verb := "newly in stock"
	switch {
	case e.Back:
		verb = "back in stock"
	case e.State == string(pricewatch.Offered):
		verb = "newly offered"
	}
	s := fmt.Sprintf("%s in %s since %s", verb, zones, at)
	if !e.Still {
		s += ", gone again now"
	}
	return s
}

// unconvertedText says which offers a row had to leave out.
func unconvertedText(m map[string]int) string {
	curs := make([]string, 0, len(m))
	for c := range m {
		curs = append(curs, c)
	}
	sort.Strings(curs)
	var parts []string
	for _, c := range curs {
		n := m[c]
		noun := "offers"
		if n == 1 {
			noun = "offer"
		}
		parts = append(parts, fmt.Sprintf("%d %s in %s", n, noun, c))
	}
	return strings.Join(parts, ", ") + " left out: no exchange rate"
}

// rateText is one exchange rate line (without the currency column).
func rateText(r digest.Rate, cur string) string {
	if r.Missing {
		s := "MISSING: " + r.Error
		if r.Offers > 0 {
			noun := "offers"
			if r.Offers == 1 {
				noun = "offer"
			}
			s += fmt.Sprintf("; %d %s left out", r.Offers, noun)
		}
		return s
	}
	return r.Quote.String()
}

// statusText is one provider's freshness line (without the name column).
func statusText(p digest.ProviderStatus, loc *time.Location) string {
	if p.Stale {
		return p.Reason
	}
	if p.LastSuccess != nil {
		return "last successful run " + when(*p.LastSuccess, loc)
	}
	return ""
}

// textWidth is the widest line the text digest prints; the last column of
// a table wraps to stay within it (never narrower than 20).
const textWidth = 100

// textLayout is the text digest's tables: indented, the last column
// wrapped to textWidth.
var textLayout = table.Layout{Width: textWidth, Indent: "  ", Wrap: true, MinLast: 20}

// count prints a count without trailing zeros (8, 0.25).
func count(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// money is an amount for reading: two decimals, thousands grouped.
func money(d decimal.Decimal) string { return slack.Readable(d.Round(2)) }

// commitmentCash says what a commitment needs in cash per instance, with
// the instance's GPUs named ("upfront 636,439.00 USD per instance of 8
// GPUs"). The reference fleet's run-rate is fleetText's, never on the same
// line: a per-instance upfront beside a fleet's month read as one sum
// (issue 31 item 4).
func commitmentCash(s digest.SavingsRow) string {
	if !s.Upfront.IsPositive() {
		return "no upfront"
	}
	return fmt.Sprintf("upfront %s %s per instance of %s GPUs", money(s.Upfront), s.Currency, count(s.GPUCount))
}

// fleetText is the reference fleet's monthly run-rate at the commitment's
// rate ("a fleet of 8 GPUs at this rate (8 × 730 h): 37,230.00 USD a
// month"), or "" when the digest has no fleet.
func fleetText(d digest.Digest, s digest.SavingsRow) string {
	rr, ok := d.MonthlyRunRate(s.EffectivePerGPU)
	if !ok {
		return ""
	}
	return fmt.Sprintf("a fleet of %d GPUs at this rate (%d × %d h): %s %s a month", d.FleetGPUs, d.FleetGPUs, digest.FleetHours, money(rr), d.Currency)
}

// lockInText (its cloud names escaped by esc) compares the commitment with the cheapest on-demand of the
// same GPU and count on any cloud, plainly; "" when there is none.
func lockInText(d digest.Digest, s digest.SavingsRow, esc func(string) string) string {
	a := s.Alternative
	if a == nil {
		return ""
	}
	// The names are the clouds': escaped (and capped) by the renderer.
	where := fmt.Sprintf("%s %s %s (%s × %s)", esc(a.Offer.Provider), esc(pricewatch.Place(a.Offer.Region, a.Offer.Zone)), esc(a.Offer.InstanceType),
		count(a.Offer.GPUCount), esc(a.Offer.GPUModel))
	if s.LockInDearer() {
		// The verdict and both prices first: a list line may be cut.
		more := s.EffectivePerGPU.Sub(a.PerGPUHour).Div(a.PerGPUHour).Mul(decimal.NewFromInt(100)).Round(1)
		return fmt.Sprintf("this lock-in costs MORE than another cloud's on-demand: %s vs %s %s per GPU-hour (%s%% more) on demand with no commitment at %s",
			perGPU(s.EffectivePerGPU), perGPU(a.PerGPUHour), d.Currency, more.StringFixed(1), where)
	}
	return fmt.Sprintf("cheaper than the best on-demand of the same machine size on any cloud (%s %s per GPU-hour at %s)", perGPU(a.PerGPUHour), d.Currency, where)
}

// scopeText names the regions, providers and sellers a digest is scoped
// to ("" for all).
func scopeText(d digest.Digest) string {
	out := ""
	if len(d.Regions) > 0 {
		out += " · regions " + strings.Join(d.Regions, ", ")
	}
	if len(d.Providers) > 0 {
		out += " · providers " + strings.Join(d.Providers, ", ")
	}
	switch d.Seller {
	case analysis.SellerCloud:
		out += " · the clouds' own capacity only"
	case analysis.SellerMarketplace:
		out += " · marketplace hosts only"
	}
	return out
}

// countsText is the digest's opening count line: how many offers are
// watched, how many price changes the week recorded, and how many offers'
// prices differ from a week ago. The last two differ (a price that moved
// back, an offer listed or withdrawn in the week), so each says what it
// counts: "9 changed" followed by "no watched price changed" read as a
// contradiction (issue 20 item 15).
func countsText(d digest.Digest) string {
	return fmt.Sprintf("%s of watched GPUs; %s recorded this week; %s from 7 days ago.",
		plural(d.Offers, "offer", "offers"), plural(d.Changed, "price change", "price changes"),
		plural(d.Moved, "offer's price differs", "offers' prices differ"))
}

// noMovesText is the moves section with nothing to list.
func noMovesText(d digest.Digest) string {
	if d.Changed == 0 {
		return "No watched price changed this week."
	}
	return fmt.Sprintf("No watched price differs from 7 days ago: the week's %s moved back, or were of offers listed or withdrawn during the week.",
		plural(d.Changed, "change", "changes"))
}

// moreMovesText counts the offers that moved but are not listed; empty
// when every one is.
func moreMovesText(d digest.Digest) string {
	if d.Moved <= len(d.Moves) {
		return ""
	}
	return fmt.Sprintf("…and %s.", plural(d.Moved-len(d.Moves), "more offer moved", "more offers moved"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// capacityBlockText is a capacity block in words, each piece of cloud text passed
// through the renderer's escaping: "8 × H100 for 7 days from Dec 14 11:30
// in us-east-2b (aws p5.48xlarge): 31.0000 USD per GPU-hour (41664.00 USD
// upfront)", and whether it is still offered.
func capacityBlockText(c digest.CapacityBlock, d digest.Digest, escape func(string) string) string {
	loc := d.Loc()
	unit := "days"
	if c.Days() == "1" {
		unit = "day"
	}
	price := fmt.Sprintf("%s %s per GPU-hour", perGPU(c.NativePerGPUHour), escape(c.NativeCurrency))
	if c.PerGPUHour.Valid && c.NativeCurrency != d.Currency {
		price = fmt.Sprintf("%s %s per GPU-hour (%s)", perGPU(c.PerGPUHour.Decimal), d.Currency, price)
	}
	s := fmt.Sprintf("%s × %s for %s %s from %s in %s (%s %s): %s, %s %s upfront", strconv.FormatFloat(c.GPUs, 'f', -1, 64), escape(c.GPUModel),
		c.Days(), unit, c.Start.In(loc).Format("Jan 2 15:04"), escape(pricewatch.Place(c.Region, c.Zone)), escape(c.Provider), escape(c.InstanceType),
		price, c.NativeFee.StringFixed(2), escape(c.NativeCurrency))
	if !c.Still {
		s += "; no longer offered"
	}
	return s
}

// moreBlocksText says how many of the week's blocks are not listed.
func moreBlocksText(d digest.Digest) string {
	if n := d.BlocksSeen - len(d.CapacityBlocks); n > 0 {
		return fmt.Sprintf("… and %d more (`pricewatch availability --all` lists them)", n)
	}
	return ""
}

// moveGroup is the moves of one cloud, way of buying, GPU and currency by
// the same per-GPU-hour amounts: one price change that hit many shapes
// and places (a GCP spot cut on a3-highgpu-{1,2,4,8}g in four regions)
// reads as one line, not sixteen (issue 31 item 4).
type moveGroup struct {
	digest.Move // the first of the group
	types       []string
	places      []string
	n           int
}

// groupMoves groups moves, in the order their first move comes.
func groupMoves(ms []digest.Move) []*moveGroup {
	var out []*moveGroup
	byKey := map[string]*moveGroup{}
	for _, m := range ms {
		from, to := m.Shown()
		k := m.Key
		key := strings.Join([]string{k.Provider, keyBuyLabel(k), m.GPUModel, m.Currency, from.String(), to.String(),
			fmt.Sprint(m.FromPerGPU.Valid && m.ToPerGPU.Valid)}, "\x00")
		g := byKey[key]
		if g == nil || !m.FromPerGPU.Valid { // a whole-instance move is its own
			g = &moveGroup{Move: m}
			out = append(out, g)
			if m.FromPerGPU.Valid {
				byKey[key] = g
			}
		}
		g.n++
		if !slices.Contains(g.types, k.InstanceType) {
			g.types = append(g.types, k.InstanceType)
		}
		if p := pricewatch.Place(k.Region, k.Zone); !slices.Contains(g.places, p) {
			g.places = append(g.places, p)
		}
	}
	return out
}

// where names a group's cloud, shapes and places, its names escaped by
// esc; a group of one is the move's own line (single).
func (g *moveGroup) where(esc func(string) string, single func(digest.Move) string) string {
	if g.n == 1 {
		return single(g.Move)
	}
	escAll := func(ss []string) string {
		out := make([]string, len(ss))
		for i, s := range ss {
			out[i] = esc(s)
		}
		return strings.Join(out, ", ")
	}
	return fmt.Sprintf("%s %s (%s per GPU-hour): %d offers, %s in %s", esc(g.Key.Provider), esc(keyBuyLabel(g.Key)), esc(g.GPUModel), g.n,
		plural(len(g.types), "type", "types")+" "+escAll(g.types), plural(len(g.places), "place", "places")+" "+escAll(g.places))
}
