package web

import (
	"fmt"
	"html/template"
	"math"
	"sort"
	"strings"
	"time"
)

// The charts are SVG drawn here, on the server: a page is one response
// with nothing to fetch or run, it renders the same in every browser and in
// a screenshot pasted into Slack, and a year of history is reduced to a few
// hundred points before it leaves the daemon. Coordinates are floats;
// prices themselves stay exact decimals until they become a pixel.

// Step is one value of a series from At until the next step.
type Step struct {
	At    time.Time
	Value float64
	Label string // shown in the point's tooltip
}

// Line is one series of a chart.
type Line struct {
	Name   string
	Steps  []Step
	Dashed bool
	// End is where the last step stops (zero: the chart's end).
	End time.Time
}

// LineChart is a step chart of prices over time.
type LineChart struct {
	ID       string // the element's id, for tests and links
	Title    string
	Unit     string // y axis, e.g. "USD per GPU-hour"
	From, To time.Time
	Lines    []Line
}

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"}

// Color is the line's colour, by its place in the chart.
func Color(i int) string { return palette[i%len(palette)] }

const (
	chartW, chartH         = 800, 300
	padL, padR, padT, padB = 64, 16, 12, 28
	plotW, plotH           = chartW - padL - padR, chartH - padT - padB
	maxStepsPerLine        = 2000
	availW                 = 800
	// A timeline row is its label's line and its bar below it; the label
	// line holds the phone's 22-unit axis font. timelineLabelChars is how
	// many characters of that font fit the width less the margins (at
	// about 0.6 em a character, wider than the system fonts' average).
	timelineLeft, timelineLabelH, timelineBarH = 4, 24, 14
	timelineRowH                               = timelineLabelH + timelineBarH + 6
	timelineLabelChars                         = (availW - timelineLeft - padR) * 10 / (22 * 6)
)

// SVG draws the chart; an empty chart says so instead of drawing axes.
func (c LineChart) SVG() template.HTML {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg id="%s" class="chart" viewBox="0 0 %d %d" role="img" aria-label="%s" xmlns="http://www.w3.org/2000/svg">`,
		template.HTMLEscapeString(c.ID), chartW, chartH, template.HTMLEscapeString(c.Title))
	fmt.Fprintf(&b, `<title>%s</title>`, template.HTMLEscapeString(c.Title))
	lo, hi, n := math.Inf(1), math.Inf(-1), 0
	for _, l := range c.Lines {
		for _, s := range l.Steps {
			lo, hi, n = math.Min(lo, s.Value), math.Max(hi, s.Value), n+1
		}
	}
	if n == 0 || !c.To.After(c.From) {
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="empty" text-anchor="middle">No prices in this period.</text></svg>`, chartW/2, chartH/2)
		return template.HTML(b.String())
	}
	ticks := niceTicks(lo, hi, 5)
	lo, hi = math.Min(lo, ticks[0]), math.Max(hi, ticks[len(ticks)-1])
	if hi == lo {
		hi = lo + 1
	}
	x := func(t time.Time) float64 {
		if t.Before(c.From) {
			t = c.From
		}
		if t.After(c.To) {
			t = c.To
		}
		return padL + float64(t.Sub(c.From))/float64(c.To.Sub(c.From))*plotW
	}
	y := func(v float64) float64 { return padT + (hi-v)/(hi-lo)*plotH }
	// Grid and y labels.
	for _, t := range ticks {
		fmt.Fprintf(&b, `<line class="grid" x1="%d" x2="%d" y1="%.1f" y2="%.1f"/>`, padL, chartW-padR, y(t), y(t))
		fmt.Fprintf(&b, `<text class="axis" x="%d" y="%.1f" text-anchor="end" dominant-baseline="middle">%s</text>`, padL-6, y(t), tickLabel(t, ticks))
	}
	for _, t := range timeTicks(c.From, c.To) {
		if x(t) < padL+30 || x(t) > chartW-padR-20 {
			continue // would run into the y labels or off the edge
		}
		fmt.Fprintf(&b, `<text class="axis" x="%.1f" y="%d" text-anchor="middle">%s</text>`, x(t), chartH-8, t.Format(timeTickFormat(c.To.Sub(c.From))))
	}
	fmt.Fprintf(&b, `<text class="axis unit" x="%d" y="%d">%s</text>`, padL+4, padT+12, template.HTMLEscapeString(c.Unit))
	for i, l := range c.Lines {
		steps := thin(l.Steps, maxStepsPerLine)
		if len(steps) == 0 {
			continue
		}
		end := c.To
		if !l.End.IsZero() && l.End.Before(end) {
			end = l.End
		}
		var d strings.Builder
		for j, s := range steps {
			next := end
			if j+1 < len(steps) {
				next = steps[j+1].At
			}
			if j == 0 {
				fmt.Fprintf(&d, "M%.1f %.1f", x(s.At), y(s.Value))
			} else {
				fmt.Fprintf(&d, "V%.1f", y(s.Value))
			}
			fmt.Fprintf(&d, "H%.1f", x(next))
		}
		dash := ""
		if l.Dashed {
			dash = ` stroke-dasharray="6 4"`
		}
		fmt.Fprintf(&b, `<path class="line" data-series="%s" d="%s" stroke="%s"%s fill="none"><title>%s</title></path>`,
			template.HTMLEscapeString(l.Name), d.String(), Color(i), dash, template.HTMLEscapeString(l.Name))
		last := steps[len(steps)-1]
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s: %s</title></circle>`, x(last.At), y(last.Value), Color(i),
			template.HTMLEscapeString(l.Name), template.HTMLEscapeString(last.Label))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// thin keeps at most n steps, always the first and last and every change
// of value when they fit; a year of hourly samples stays a light page.
func thin(steps []Step, n int) []Step {
	var out []Step
	for i, s := range steps {
		if i == 0 || s.Value != steps[i-1].Value || i == len(steps)-1 {
			out = append(out, s)
		}
	}
	if len(out) <= n {
		return out
	}
	every := float64(len(out)) / float64(n)
	kept := make([]Step, 0, n+1)
	for i := 0.0; int(i) < len(out); i += every {
		kept = append(kept, out[int(i)])
	}
	if kept[len(kept)-1].At != out[len(out)-1].At {
		kept = append(kept, out[len(out)-1])
	}
	return kept
}

func niceTicks(lo, hi float64, n int) []float64 {
	if hi <= lo {
		pad := math.Max(math.Abs(lo)*0.05, 0.01)
		lo, hi = lo-pad, hi+pad
	}
	raw := (hi - lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	// Whole multiples of the step, so that no float drift drops the top
	// tick: the axis always spans the data.
	first, last := math.Floor(lo/step+1e-9), math.Ceil(hi/step-1e-9)
	var out []float64
	for i := first; i <= last && len(out) < 13; i++ {
		out = append(out, i*step)
	}
	return out
}

func tickLabel(v float64, ticks []float64) string {
	step := 1.0
	if len(ticks) > 1 {
		step = ticks[1] - ticks[0]
	}
	dec := 0
	for s := step; s < 1 && dec < 6; s *= 10 {
		dec++
	}
	if step != math.Trunc(step*math.Pow(10, float64(dec)))/math.Pow(10, float64(dec)) && dec < 6 {
		dec++
	}
	return fmt.Sprintf("%.*f", dec, v)
}

func timeTicks(from, to time.Time) []time.Time {
	span := to.Sub(from)
	step := 24 * time.Hour
	switch {
	case span > 200*24*time.Hour:
		step = 30 * 24 * time.Hour
	case span > 60*24*time.Hour:
		step = 14 * 24 * time.Hour
	case span > 20*24*time.Hour:
		step = 7 * 24 * time.Hour
	case span > 6*24*time.Hour:
		step = 2 * 24 * time.Hour
	case span <= 2*24*time.Hour:
		step = 6 * time.Hour
	}
	var out []time.Time
	for t := from.Truncate(step).Add(step); t.Before(to); t = t.Add(step) {
		out = append(out, t)
	}
	return out
}

func timeTickFormat(span time.Duration) string {
	if span <= 2*24*time.Hour {
		return "01-02 15h"
	}
	return "Jan 2"
}

// Bar is one availability interval.
type Bar struct {
	From, Until time.Time // zero Until: still open
	State       string
}

// Timeline is the availability of one instance type, a row per place.
type Timeline struct {
	ID       string
	From, To time.Time
	Rows     map[string][]Bar // by place
	// Confidential are the notices of the clouds whose availability the
	// timeline shows is confidential to the customer (CoreWeave's
	// Capacity Finder): the page marks it, once per cloud.
	Confidential []string
}

var stateColors = map[string]string{"offered": "#2ca02c", "in_stock": "#2ca02c", "sold_out": "#d62728"}

// SVG draws one row per place, a bar per interval coloured by state. Each
// row's label sits on its own line above its bar rather than in a column
// to its left: labels ("azure westus2 Standard_NC40ads_H100_v5") are far
// wider than any column a phone leaves, and the phone's larger axis font
// cut them off on the left (issue 25 item 3). A label longer than the full
// width is cut with an ellipsis, its whole text in a <title>.
func (t Timeline) SVG() template.HTML {
	places := make([]string, 0, len(t.Rows))
	for p := range t.Rows {
		places = append(places, p)
	}
	sort.Strings(places)
	h := padT + padB + timelineRowH*max(1, len(places))
	var b strings.Builder
	fmt.Fprintf(&b, `<svg id="%s" class="timeline" viewBox="0 0 %d %d" role="img" aria-label="availability timeline" xmlns="http://www.w3.org/2000/svg">`,
		template.HTMLEscapeString(t.ID), availW, h)
	if len(places) == 0 || !t.To.After(t.From) {
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="empty" text-anchor="middle">No availability recorded.</text></svg>`, availW/2, h/2)
		return template.HTML(b.String())
	}
	x := func(tm time.Time) float64 {
		switch {
		case tm.IsZero() || tm.After(t.To): // still open
			tm = t.To
		case tm.Before(t.From):
			tm = t.From
		}
		return timelineLeft + float64(tm.Sub(t.From))/float64(t.To.Sub(t.From))*float64(availW-timelineLeft-padR)
	}
	for i, p := range places {
		y := padT + i*timelineRowH
		label, cut := fitLabel(p, timelineLabelChars)
		title := ""
		if cut {
			title = `<title>` + template.HTMLEscapeString(p) + `</title>`
		}
		fmt.Fprintf(&b, `<text class="axis label" x="%d" y="%d">%s%s</text>`, timelineLeft, y+timelineLabelH-4, title, template.HTMLEscapeString(label))
		for _, bar := range t.Rows[p] {
			color, ok := stateColors[bar.State]
			if !ok {
				color = "#7f7f7f"
			}
			x0, x1 := x(bar.From), x(bar.Until)
			until := "now"
			if !bar.Until.IsZero() {
				until = bar.Until.UTC().Format("2006-01-02 15:04")
			}
			fmt.Fprintf(&b, `<rect class="bar" x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"><title>%s %s: %s to %s</title></rect>`,
				x0, y+timelineLabelH, math.Max(x1-x0, 1.5), timelineBarH, color, template.HTMLEscapeString(p), bar.State,
				bar.From.UTC().Format("2006-01-02 15:04"), until)
		}
	}
	for _, tm := range timeTicks(t.From, t.To) {
		label := tm.Format(timeTickFormat(t.To.Sub(t.From)))
		fmt.Fprintf(&b, `<text class="axis" x="%.1f" y="%d" text-anchor="%s">%s</text>`, x(tm), h-8, tickAnchor(x(tm), label, 0, availW), label)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// phoneAxisFont is the axis font's size in viewBox units on a phone, the
// largest it is drawn (style.css); a character is about 0.6 of it.
const phoneAxisFont = 22

// tickAnchor anchors a time tick's label at its middle unless half the
// label, at the phone's font, would cross the chart's edge lo or hi: then
// it starts (or ends) at the tick, so that a tick near the chart's start
// keeps its whole label inside whatever the date (a tick a few units after
// the start, centred, stuck out of the left edge on a 390 px phone).
func tickAnchor(x float64, label string, lo, hi float64) string {
	half := float64(len([]rune(label))) * phoneAxisFont * 0.6 / 2
	switch {
	case x-half < lo:
		return "start"
	case x+half > hi:
		return "end"
	}
	return "middle"
}

// fitLabel cuts s to at most n characters, the last an ellipsis, and says
// whether it did.
func fitLabel(s string, n int) (string, bool) {
	r := []rune(s)
	if len(r) <= n || n < 2 {
		return s, false
	}
	return string(r[:n-1]) + "…", true
}
