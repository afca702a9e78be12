package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch/internal/clitext"
	"github.com/pricewatch/pricewatch/internal/table"
	"github.com/pricewatch/pricewatch/storage"
)

// A terminal chart of price series: one letter per series, time across,
// price up. Money stays decimal in the labels; floats only place a value
// on a row of the screen.

const (
	plotHeight = 12
	glyphs     = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
)

// plotStep is one price in force from From until To (zero To: until the
// end of the chart).
type plotStep struct {
	From, To time.Time
	Value    decimal.Decimal
}

type plotSeries struct {
	Label string
	Steps []plotStep // oldest first, not overlapping
}

// at returns the value in force at t.
func (s plotSeries) at(t time.Time) (decimal.Decimal, bool) {
	for i := len(s.Steps) - 1; i >= 0; i-- {
		st := s.Steps[i]
		if !t.Before(st.From) {
			if !st.To.IsZero() && !t.Before(st.To) {
				return decimal.Decimal{}, false
			}
			return st.Value, true
		}
	}
	return decimal.Decimal{}, false
}

// writePlot draws series between from and to in at most width columns.
func writePlot(w io.Writer, title string, series []plotSeries, from, to time.Time, width int) error {
	var b strings.Builder
	b.WriteString(table.Wrap(title, width, "  "))
	if len(series) > len(glyphs) {
		fmt.Fprintf(&b, "(%d series not drawn: only %d letters; narrow with --region or --provider)\n", len(series)-len(glyphs), len(glyphs))
		series = series[:len(glyphs)]
	}
	var lo, hi decimal.Decimal
	first := true
	for _, s := range series {
		for _, st := range s.Steps {
			if first || st.Value.LessThan(lo) {
				lo = st.Value
			}
			if first || st.Value.GreaterThan(hi) {
				hi = st.Value
			}
			first = false
		}
	}
	if first {
		_, err := io.WriteString(w, title+"\nNothing to draw.\n")
		return err
	}
	// Y labels: the exact top and bottom, and evenly spaced values between
	// them rounded to cents (they mark a row, not a price).
	labels := make([]string, plotHeight)
	span := hi.Sub(lo)
	for r := 3; r < plotHeight-2; r += 3 {
		v := hi.Sub(span.Mul(decimal.NewFromInt(int64(r))).DivRound(decimal.NewFromInt(plotHeight-1), 10))
		labels[r] = v.StringFixed(2)
	}
	labels[0], labels[plotHeight-1] = clitext.Rate(hi), clitext.Rate(lo)
	if span.IsZero() {
		labels = make([]string, plotHeight)
		labels[plotHeight/2] = clitext.Rate(lo)
	}
	labelW := 0
	for _, l := range labels {
		labelW = max(labelW, utf8.RuneCountInString(l))
	}
	cols := width - labelW - 2
	grid := make([][]rune, plotHeight)
	for r := range grid {
		grid[r] = []rune(strings.Repeat(" ", cols))
	}
	row := func(v decimal.Decimal) int {
		if span.IsZero() {
			return plotHeight / 2
		}
		f, _ := hi.Sub(v).Div(span).Float64()
		return int(f*float64(plotHeight-1) + 0.5)
	}
	put := func(r, c int, g rune) {
		if cur := grid[r][c]; cur != ' ' && cur != g {
			g = '*'
		}
		grid[r][c] = g
	}
	for i, s := range series {
		g := rune(glyphs[i])
		prev := -1
		for c := 0; c < cols; c++ {
			t := colTime(from, to, c, cols)
			v, ok := s.at(t)
			if !ok {
				prev = -1
				continue
			}
			r := row(v)
			put(r, c, g)
			// A step up or down is drawn as a vertical run, so a change in
			// price shows as a change, not a jump between two dots.
			if prev >= 0 && prev != r {
				step := 1
				if r < prev {
					step = -1
				}
				for k := prev + step; k != r; k += step {
					put(k, c, g)
				}
			}
			prev = r
		}
	}
	for r := 0; r < plotHeight; r++ {
		axis := "│"
		if labels[r] != "" {
			axis = "┤"
		}
		line := fmt.Sprintf("%*s %s%s", labelW, labels[r], axis, string(grid[r]))
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	fmt.Fprintf(&b, "%s └%s\n", strings.Repeat(" ", labelW), strings.Repeat("─", cols))
	b.WriteString(xLabels(from, to, labelW+2, cols) + "\n")
	for i, s := range series {
		last := s.Steps[len(s.Steps)-1]
		fmt.Fprintf(&b, "  %c  %s, last %s\n", glyphs[i], s.Label, clitext.Rate(last.Value))
	}
	if strings.ContainsRune(gridString(grid), '*') {
		b.WriteString("  *  more than one series\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func gridString(g [][]rune) string {
	var b strings.Builder
	for _, r := range g {
		b.WriteString(string(r))
	}
	return b.String()
}

// colTime is the moment column c of cols stands for.
func colTime(from, to time.Time, c, cols int) time.Time {
	if cols <= 1 {
		return from
	}
	return from.Add(time.Duration(float64(to.Sub(from)) * float64(c) / float64(cols-1)))
}

// xLabels puts the first, middle and last times under the axis.
func xLabels(from, to time.Time, indent, cols int) string {
	layout := "2006-01-02"
	if to.Sub(from) < 3*24*time.Hour {
		layout = "01-02 15:04"
	}
	line := []rune(strings.Repeat(" ", indent+cols))
	place := func(s string, at int) {
		r := []rune(s)
		at = max(0, min(at, len(line)-len(r)))
		copy(line[at:], r)
	}
	left, right := from.UTC().Format(layout), to.UTC().Format(layout)
	place(left, indent)
	if cols > 3*len(left) {
		mid := colTime(from, to, cols/2, cols).UTC().Format(layout)
		place(mid, indent+cols/2-len(mid)/2)
	}
	place(right, indent+cols-len(right))
	return strings.TrimRight(string(line), " ")
}

// writeHistoryPlot draws the effective hourly price of every offer in the
// history, one chart per currency. The time axis runs from the first price
// to the last time any of them was seen, so the chart needs no clock; a
// current price extends to the end of the axis.
func writeHistoryPlot(w io.Writer, instanceType string, rows []storage.PriceInterval) error {
	if len(rows) == 0 {
		_, err := io.WriteString(w, table.Wrap("No price history for that instance type (has `pricewatch fetch` run, "+
			"and is the name spelled as the cloud spells it?).", tableWidth(), "  "))
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
	byCurrency := map[string][]plotSeries{}
	for _, group := range groupByOffer(rows) {
		h := group[0]
		s := plotSeries{Label: fmt.Sprintf("%s %s %s %s", h.Provider, clitext.Place(h.Region, h.Zone), clitext.BuyLabel(h.Offer), h.OS)}
		for _, r := range group {
			st := plotStep{From: r.ValidFrom, Value: r.EffectiveHourly}
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
			from.UTC().Format("2006-01-02 15:04"), to.UTC().Format("2006-01-02 15:04 UTC"))
		if err := writePlot(w, title, byCurrency[c], from, to, chartWidth()); err != nil {
			return err
		}
	}
	return nil
}
