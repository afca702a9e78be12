package clitext

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/internal/table"
	"github.com/pricewatch/pricewatch/storage"
)

// WriteHistoryTable writes `history`'s table: one block per offer, its
// identity as a heading, then its intervals, every line within
// layout.Width. timeOf prints a time as every table of the CLI does.
func WriteHistoryTable(w io.Writer, rows []storage.PriceInterval, layout table.Layout, timeOf func(time.Time) string) error {
	// One block per offer: its identity as a heading, then its intervals.
	// This keeps every column readable at 100 columns.
	var b strings.Builder
	first := true
	for _, group := range GroupByOffer(rows) {
		if !first {
			b.WriteString("\n")
		}
		first = false
		h := group[0]
		heading := fmt.Sprintf("%s %s%s  %s  %s  %s", h.Provider, h.Region, zoneSuffix(h.Zone), h.InstanceType, offerLabel(h.Offer), hardwareLabel(h.Hardware))
		if w := layout.Width; w > 0 && utf8.RuneCountInString(heading) > w {
			// Too wide for the terminal: wrapped like the text around
			// the tables rather than running past $COLUMNS.
			b.WriteString(table.Wrap(heading, w, "  "))
		} else {
			b.WriteString(heading + "\n")
		}
		// At a narrow width the columns a reader can do without go first
		// (the list price beside the effective one, the upfront fee, the
		// move), as in the other tables; EFFECTIVE/H and PER GPU-H stay.
		cols := []table.Column{{Head: "FROM"}, {Head: "TO"}, {Head: ">HOURLY", Drop: 2}, {Head: ">UPFRONT", Drop: 1},
			{Head: ">EFFECTIVE/H"}, {Head: ">PER GPU-H"}, {Head: ">CHANGE", Drop: 3}}
		var prev *decimal.Decimal
		for _, r := range group {
			to := "current"
			if r.ValidTo != nil {
				to = timeOf(*r.ValidTo)
			}
			upfront := "-"
			if !r.Upfront.IsZero() {
				upfront = pricewatch.FormatPrice(r.Upfront)
			}
			pg := "-"
			if v, ok := pricewatch.PerGPUHour(r.EffectiveHourly, r.GPUCount); ok {
				pg = Rate(v)
			}
			table.AddRow(cols, timeOf(r.ValidFrom), to, pricewatch.FormatPrice(r.Hourly), upfront,
				Rate(r.EffectiveHourly), pg, changeLabel(prev, r.EffectiveHourly))
			eff := r.EffectiveHourly
			prev = &eff
		}
		dropped, err := table.Fit(&b, cols, layout)
		if err != nil {
			return err
		}
		if len(dropped) > 0 {
			b.WriteString(table.Wrap(fmt.Sprintf("Left out to fit %d columns: %s (use --wide, or --format json or csv).", layout.Width, strings.Join(dropped, ", ")), layout.Width, "  "))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// GroupByOffer splits history rows (sorted by offer) into one run of
// intervals per offer.
func GroupByOffer(rows []storage.PriceInterval) [][]storage.PriceInterval {
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
		mem = " " + Float(h.GPUMemoryGB) + "GB"
	}
	return fmt.Sprintf("%s×%s%s", Float(h.GPUCount), h.GPUModel, mem)
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
