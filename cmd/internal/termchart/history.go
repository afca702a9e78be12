package termchart

import (
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/cmd/internal/clitext"
	"github.com/pricewatch/pricewatch/internal/table"
	"github.com/pricewatch/pricewatch/storage"
)

// WriteHistory draws the effective hourly price of every offer in the
// history, one chart per currency. The time axis runs from the first price
// to the last time any of them was seen, so the chart needs no clock; a
// current price extends to the end of the axis.
func WriteHistory(w io.Writer, instanceType string, rows []storage.PriceInterval, wrapWidth, chartWidth int, timeOf func(time.Time) string) error {
	if len(rows) == 0 {
		_, err := io.WriteString(w, table.Wrap("No price history for that instance type (has `pricewatch fetch` run, "+
			"and is the name spelled as the cloud spells it?).", wrapWidth, "  "))
		return err
	}
	from, to := rows[0].ValidFrom, rows[0].LastSeen
	for _, r := range rows {
		end := r.LastSeen
		if r.ValidTo != nil {
			end = *r.ValidTo
		}
		if r.ValidFrom.Before(from) {
			from = r.ValidFrom
		}
		if end.After(to) {
			to = end
		}
	}
	byCurrency := map[string][]Series{}
	for _, group := range clitext.GroupByOffer(rows) {
		h := group[0]
		s := Series{Label: fmt.Sprintf("%s %s %s %s", h.Provider, pricewatch.Place(h.Region, h.Zone), clitext.BuyLabel(h.Offer), h.OS)}
		for _, r := range group {
			st := Step{From: r.ValidFrom, Value: r.EffectiveHourly}
			if r.ValidTo != nil {
				st.To = *r.ValidTo
			}
			s.Steps = append(s.Steps, st)
		}
		byCurrency[h.Currency] = append(byCurrency[h.Currency], s)
	}
	currencies := make([]string, 0, len(byCurrency))
	for c := range byCurrency {
		currencies = append(currencies, c)
	}
	sort.Strings(currencies)
	for i, c := range currencies {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		title := fmt.Sprintf("%s: effective hourly price in %s, %s to %s", instanceType, c,
			timeOf(from), timeOf(to))
		if err := Write(w, title, byCurrency[c], from, to, chartWidth); err != nil {
			return err
		}
	}
	return nil
}
