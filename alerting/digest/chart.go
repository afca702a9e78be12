package digest

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/image/font"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/alerting/slack"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/analysis/digest"
)

// Chart image size: wide enough for twelve weekly labels, and readable
// when Slack scales it to a message's width.
const (
	ChartWidth  = 1200 // pixels
	ChartHeight = 600
	chartDPI    = 96
)

// ErrEmptyChart is returned by RenderChart when no H100 or A100 price
// falls in the chart's weeks: an empty frame would read as "no data
// problem" rather than "no data".
var ErrEmptyChart = errors.New("no H100 or A100 price to chart in the last 12 weeks")

// seriesColors keeps a family's colour across price types; spot is dashed.
var seriesColors = map[string]color.RGBA{
	"H100": {R: 0x1f, G: 0x5f, B: 0xbf, A: 0xff}, // blue
	"A100": {R: 0xd9, G: 0x5f, B: 0x0e, A: 0xff}, // orange
}

// The chart's sizes, in points (1/72 inch, drawn at chartDPI).
const (
	titleSize  = 17
	labelSize  = 13
	tickSize   = 11
	legendSize = 12
	lineWidth  = 2.5
	markerSize = 3.5 // a marker's radius
	dashOn     = 8
	dashOff    = 5
	thumbWidth = 40 // a legend entry's sample of its line
	chartPad   = 6
)

// px is points in pixels.
func px(points float64) float32 { return float32(points * chartDPI / 72) }

var (
	gridColor = color.RGBA{R: 0xdd, G: 0xdd, B: 0xdd, A: 0xff}
	inkColor  = color.RGBA{A: 0xff}
)

// RenderChart draws the digest's chart (the cheapest H100 and A100 per
// GPU-hour, a point a week over the last 12 weeks, on-demand solid and spot
// dashed) as a PNG. Prices become floats only here, for drawing; every
// figure printed comes from the decimals.
func RenderChart(d digest.Digest, w io.Writer) error {
	img, _, err := drawChart(d)
	if err != nil {
		return err
	}
	if err := png.Encode(w, img); err != nil {
		return fmt.Errorf("writing the chart: %w", err)
	}
	return nil
}

// chartScale maps a time (Unix seconds) and a price per GPU-hour to the
// chart's pixels.
type chartScale struct {
	x, y func(float64) float32
}

// drawChart is the chart's image, and where its values are drawn.
func drawChart(d digest.Digest) (*image.RGBA, chartScale, error) {
	c := d.Chart
	if c.Empty() {
		return nil, chartScale{}, ErrEmptyChart
	}
	loc := d.Loc()
	faces := map[float64]font.Face{}
	for _, size := range []float64{titleSize, labelSize, tickSize, legendSize} {
		f, err := face(size)
		if err != nil {
			return nil, chartScale{}, err
		}
		faces[size] = f
	}
	var series []digest.ChartSeries
	maxY := 0.0
	for _, s := range c.Series {
		if len(s.Points) == 0 {
			continue
		}
		series = append(series, s)
		for _, p := range s.Points {
			y, _ := p.PerGPUHour.Float64()
			maxY = max(maxY, y)
		}
	}
	if maxY <= 0 {
		maxY = 1 // every price 0: an axis to 1, not one of no height
	}
	// Start at zero so that a move looks as big as it is; a little
	// headroom keeps the top point off the frame.
	yMax := maxY * 1.1
	yTicks := niceTicks(0, yMax)
	var xTicks []tick
	for t := c.From; !t.After(c.To); t = t.Add(digest.Week) {
		xTicks = append(xTicks, tick{value: float64(t.Unix()), label: t.In(loc).Format("Jan 2")})
	}

	cv := newCanvas(ChartWidth, ChartHeight)
	title := faces[titleSize]
	cv.text(title, inkColor, c.Title, ChartWidth/2, px(chartPad), 0.5, 0)
	plotArea, legendArea := chartLayout(image.Rect(0, 0, ChartWidth, ChartHeight), len(series), legendSize)
	plotArea.Min.Y += int(textHeight(title) + px(chartPad))

	// The data's frame: room on the left for the price axis's label and
	// tick labels, below for the weeks' labels and the axis's label.
	ticks, label := faces[tickSize], faces[labelSize]
	widest := float32(0)
	for _, t := range yTicks {
		widest = max(widest, advance(ticks, t.label))
	}
	tickLen := px(4)
	lastLabel := float32(0)
	if len(xTicks) > 0 {
		lastLabel = advance(ticks, xTicks[len(xTicks)-1].label)
	}
	frame := struct{ x0, y0, x1, y1 float32 }{
		x0: float32(plotArea.Min.X) + textHeight(label) + 2*px(chartPad) + widest + tickLen,
		y0: float32(plotArea.Min.Y) + px(chartPad),
		// The last week's label is centred near the frame's right end:
		// half of it must fit.
		x1: float32(plotArea.Max.X) - max(px(chartPad)*2, lastLabel/2),
		y1: float32(plotArea.Max.Y) - textHeight(label) - textHeight(ticks) - tickLen - 2*px(chartPad),
	}
	// Two days either side keep the first and last points and labels whole.
	margin := float64(2 * 24 * 60 * 60)
	xMin, xMax := float64(c.From.Unix())-margin, float64(max(c.To.Unix(), c.From.Unix()))+margin
	x := func(v float64) float32 { return frame.x0 + float32((v-xMin)/(xMax-xMin))*(frame.x1-frame.x0) }
	y := func(v float64) float32 { return frame.y1 - float32(v/yMax)*(frame.y1-frame.y0) }

	for _, t := range xTicks {
		cv.stroke(gridColor, 1, nil, pt{x(t.value), frame.y0}, pt{x(t.value), frame.y1})
		cv.stroke(inkColor, 1, nil, pt{x(t.value), frame.y1}, pt{x(t.value), frame.y1 + tickLen})
		cv.text(ticks, inkColor, t.label, x(t.value), frame.y1+tickLen+px(2), 0.5, 0)
	}
	for _, t := range yTicks {
		cv.stroke(gridColor, 1, nil, pt{frame.x0, y(t.value)}, pt{frame.x1, y(t.value)})
		cv.stroke(inkColor, 1, nil, pt{frame.x0 - tickLen, y(t.value)}, pt{frame.x0, y(t.value)})
		cv.text(ticks, inkColor, t.label, frame.x0-tickLen-px(2), y(t.value), 1, 0.5)
	}
	cv.stroke(inkColor, 1, nil, pt{frame.x0, frame.y0}, pt{frame.x0, frame.y1}, pt{frame.x1, frame.y1})
	cv.text(label, inkColor, "week ("+loc.String()+")", (frame.x0+frame.x1)/2, float32(plotArea.Max.Y)-px(chartPad), 0.5, 1)
	cv.textUp(label, inkColor, c.Currency+" per GPU-hour", float32(plotArea.Min.X)+px(chartPad)+textHeight(label)/2, (frame.y0+frame.y1)/2)

	legend := faces[legendSize]
	lineH := float32(legendArea.Dy()-2*int(px(chartPad))) / float32(max(len(series), 1))
	for i, s := range series {
		col, ok := seriesColors[s.GPU]
		if !ok {
			col = inkColor
		}
		spot := s.PriceType == pricewatch.Spot
		pts := make([]pt, len(s.Points))
		for j, p := range s.Points {
			v, _ := p.PerGPUHour.Float64()
			pts[j] = pt{x(float64(p.At.Unix())), y(v)}
		}
		drawSeries(cv, col, spot, true, pts...)
		// The legend's entry: a sample of the line with its marker in
		// the middle, and the label.
		ly := float32(legendArea.Min.Y) + px(chartPad) + (float32(i)+0.5)*lineH
		lx := float32(legendArea.Min.X)
		drawSeries(cv, col, spot, false, pt{lx, ly}, pt{lx + px(thumbWidth), ly})
		cv.fill(col, marker(spot, pt{lx + px(thumbWidth)/2, ly}))
		cv.text(legend, inkColor, legendLabel(s), lx+px(thumbWidth)+px(chartPad), ly, 0, 0.5)
	}
	return cv.img, chartScale{x: x, y: y}, nil
}

// drawSeries draws a series' line through pts, solid or dashed for spot
// prices, with a marker at each point where markers is set: a disc, or a
// square for spot prices.
func drawSeries(cv *canvas, col color.Color, spot, markers bool, pts ...pt) {
	var dashes []float32
	if spot {
		dashes = []float32{px(dashOn), px(dashOff)}
	}
	cv.stroke(col, px(lineWidth), dashes, pts...)
	if !markers {
		return
	}
	glyphs := make([][]pt, len(pts))
	for i, p := range pts {
		glyphs[i] = marker(spot, p)
	}
	cv.fill(col, glyphs...)
}

// marker is the glyph of a point: a square for spot prices, a disc else.
func marker(spot bool, p pt) []pt {
	if spot {
		return square(p, px(markerSize))
	}
	return circle(p, px(markerSize))
}

// tick is a labelled mark on an axis.
type tick struct {
	value float64
	label string
}

// niceTicks marks the price axis at 5 to 10 round steps (1, 2, 2.5 or 5
// times a power of ten) so that prices can be read off the chart.
func niceTicks(lo, hi float64) []tick {
	span := hi - lo
	if span <= 0 {
		return nil
	}
	step := math.Pow(10, math.Floor(math.Log10(span/10)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if span/(step*m) <= 10 {
			step *= m
			break
		}
	}
	decimals := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	if step*math.Pow(10, float64(decimals)) != math.Round(step*math.Pow(10, float64(decimals))) {
		decimals++ // 2.5, 0.25, …
	}
	var ticks []tick
	for v := math.Ceil(lo/step) * step; v <= hi+step/1e6; v += step {
		ticks = append(ticks, tick{value: v, label: strconv.FormatFloat(v, 'f', decimals, 64)})
	}
	return ticks
}

// chartLayout splits the canvas c into the plot above and a strip below it
// for the legend, one line per series (fontSize points high): drawn inside
// the plot, the legend covered the lines it names (issue 20 item 15).
func chartLayout(c image.Rectangle, entries int, fontSize float64) (plotArea, legendArea image.Rectangle) {
	pad := int(px(chartPad))
	strip := int(math.Ceil(float64(entries)*float64(px(fontSize))*1.3)) + 2*pad
	plotArea = image.Rect(c.Min.X, c.Min.Y, c.Max.X, c.Max.Y-strip)
	legendArea = image.Rect(c.Min.X+8*pad, c.Max.Y-strip, c.Max.X-pad, c.Max.Y)
	return plotArea, legendArea
}

// legendLabel names a line, its newest value and where that price is
// offered, and every cloud the cheapest came from over the weeks: each
// point is the cheapest offer of its week, which may be another cloud's.
func legendLabel(s digest.ChartSeries) string {
	last := s.Points[len(s.Points)-1]
	label := fmt.Sprintf("%s: now %s %s at %s %s", s.Label, perGPU(last.PerGPUHour), last.Currency,
		slack.ProviderName(last.Key.Provider), pricewatch.Place(last.Key.Region, last.Key.Zone))
	var clouds []string
	for _, p := range s.Points {
		if name := slack.ProviderName(p.Key.Provider); !slices.Contains(clouds, name) {
			clouds = append(clouds, name)
		}
	}
	if len(clouds) > 1 {
		label += " (cheapest in the weeks shown: " + strings.Join(clouds, ", ") + ")"
	}
	return label
}

// chartLeftOut counts the offers some point of the chart had to leave out
// for lack of an exchange rate.
func chartLeftOut(c digest.Chart) int {
	seen := map[string]bool{}
	for _, s := range c.Series {
		for _, u := range s.Unconverted {
			seen[u] = true
		}
	}
	return len(seen)
}

// chartRow is one sample time of the chart with a cell per series.
type chartRow struct {
	at     time.Time
	values []string
}

// chartRows tabulates the chart for the text renderers: a row per week, a
// column per series, "-" where nothing was priced.
func chartRows(c digest.Chart) []chartRow {
	var rows []chartRow
	for t := c.From; !t.After(c.To); t = t.Add(digest.Week) {
		row := chartRow{at: t}
		for _, s := range c.Series {
			v := "-"
			for _, p := range s.Points {
				if p.At.Equal(t) {
					v = perGPU(p.PerGPUHour)
					break
				}
			}
			row.values = append(row.values, v)
		}
		rows = append(rows, row)
	}
	return rows
}

// chartGaps says, per series, which weeks of the chart have no price, so
// that a line starting late or broken off is read as weeks without history
// rather than drawn as if nothing were there (issue 31 item 4): "A100 spot:
// no price before the week of 2022-07-11". Nil when every week has one.
func chartGaps(c digest.Chart, loc *time.Location) []string {
	var out []string
	for _, s := range c.Series {
		var missing []time.Time
		weeks := 0
		for t := c.From; !t.After(c.To); t = t.Add(digest.Week) {
			weeks++
			if !slices.ContainsFunc(s.Points, func(p analysis.CheapestPoint) bool { return p.At.Equal(t) }) {
				missing = append(missing, t)
			}
		}
		switch {
		case len(missing) == 0:
		case len(missing) == weeks:
			out = append(out, fmt.Sprintf("%s: no price in any of the %d weeks", s.Label, weeks))
		case missing[0].Equal(c.From) && missing[len(missing)-1].Equal(c.From.Add(time.Duration(len(missing)-1)*digest.Week)):
			out = append(out, fmt.Sprintf("%s: no price before the week of %s (%d of %d weeks without a price)", s.Label,
				day(c.From.Add(time.Duration(len(missing))*digest.Week), loc), len(missing), weeks))
		default:
			days := make([]string, len(missing))
			for i, t := range missing {
				days[i] = day(t, loc)
			}
			out = append(out, fmt.Sprintf("%s: no price in %d of %d weeks (weeks of %s)", s.Label, len(missing), weeks, strings.Join(days, ", ")))
		}
	}
	return out
}
