// Package termchart draws price series as a terminal chart for
// `pricewatch history --chart`: one letter per series, time across, price
// up. Money stays decimal in the labels; floats only place a value on a
// row of the screen.
package termchart

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch/cmd/internal/clitext"
	"github.com/pricewatch/pricewatch/internal/table"
)

const (
	// Height is how many rows a chart's plot area has.
	Height = 12
	glyphs = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
)

// Step is one price in force from From until To (zero To: until the
// end of the chart).
type Step struct {
	From, To time.Time
	Value    decimal.Decimal
}

// Series is one line of a chart, drawn with its own letter.
type Series struct {
	Label string
	Steps []Step // oldest first, not overlapping
}

// at returns the value in force at t.
func (s Series) at(t time.Time) (decimal.Decimal, bool) {
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

// Write draws series between from and to in at most width columns,
// under title (wrapped to width).
func Write(w io.Writer, title string, series []Series, from, to time.Time, width int) error {
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
	labels := make([]string, Height)
	span := hi.Sub(lo)
	for r := 3; r < Height-2; r += 3 {
		v := hi.Sub(span.Mul(decimal.NewFromInt(int64(r))).DivRound(decimal.NewFromInt(Height-1), 10))
		labels[r] = v.StringFixed(2)
	}
	labels[0], labels[Height-1] = clitext.Rate(hi), clitext.Rate(lo)
	if span.IsZero() {
		labels = make([]string, Height)
		labels[Height/2] = clitext.Rate(lo)
	}
	labelW := 0
	for _, l := range labels {
		labelW = max(labelW, utf8.RuneCountInString(l))
	}
	cols := width - labelW - 2
	grid := make([][]rune, Height)
	for r := range grid {
		grid[r] = []rune(strings.Repeat(" ", cols))
	}
	row := func(v decimal.Decimal) int {
		if span.IsZero() {
			return Height / 2
		}
		f, _ := hi.Sub(v).Div(span).Float64()
		return int(f*float64(Height-1) + 0.5)
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
	for r := 0; r < Height; r++ {
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
