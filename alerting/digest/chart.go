package digest

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

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

// seriesStyle keeps a family's colour across price types; spot is dashed.
var seriesColors = map[string]color.RGBA{
	"H100": {R: 0x1f, G: 0x5f, B: 0xbf, A: 0xff}, // blue
	"A100": {R: 0xd9, G: 0x5f, B: 0x0e, A: 0xff}, // orange
}

// RenderChart draws the digest's chart (the cheapest H100 and A100 per
// GPU-hour, a point a week over the last 12 weeks, on-demand solid and spot
// dashed) as a PNG. Prices become floats only here, for drawing; every
// figure printed comes from the decimals.
func RenderChart(d digest.Digest, w io.Writer) error {
	c := d.Chart
	if c.Empty() {
		return ErrEmptyChart
	}
	loc := d.Loc()
	p := plot.New()
	// The legend is drawn below the plot, not by the plot over its lines.
	legend := plot.NewLegend()
	p.Title.Text = c.Title
	p.Title.TextStyle.Font.Size = vg.Points(17)
	p.Title.Padding = vg.Points(10)
	p.X.Label.Text = "week (" + loc.String() + ")"
	p.Y.Label.Text = c.Currency + " per GPU-hour"
	for _, f := range []*font.Font{&p.Title.TextStyle.Font, &p.X.Label.TextStyle.Font, &p.Y.Label.TextStyle.Font,
		&p.X.Tick.Label.Font, &p.Y.Tick.Label.Font, &legend.TextStyle.Font} {
		f.Variant = "Sans"
	}
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(13)
		a.Tick.Label.Font.Size = vg.Points(11)
	}
	var ticks plot.ConstantTicks
	for t := c.From; !t.After(c.To); t = t.Add(digest.Week) {
		ticks = append(ticks, plot.Tick{Value: float64(t.Unix()), Label: t.In(loc).Format("Jan 2")})
	}
	p.X.Tick.Marker = ticks
	// Two days either side keep the first and last points and labels whole.
	margin := float64(2 * 24 * 60 * 60)
	p.X.Min, p.X.Max = float64(c.From.Unix())-margin, float64(c.To.Unix())+margin
	p.Add(plotter.NewGrid())

	maxY := 0.0
	entries := 0
	for _, s := range c.Series {
		if len(s.Points) == 0 {
			continue
		}
		xys := make(plotter.XYs, len(s.Points))
		for i, pt := range s.Points {
			y, _ := pt.PerGPUHour.Float64()
			xys[i] = plotter.XY{X: float64(pt.At.Unix()), Y: y}
			maxY = max(maxY, y)
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return fmt.Errorf("drawing %s: %w", s.Label, err)
		}
		col, ok := seriesColors[s.GPU]
		if !ok {
			col = color.RGBA{A: 0xff}
		}
		line.Color, line.Width = col, vg.Points(2.5)
		points.Color, points.Radius = col, vg.Points(3.5)
		points.Shape = draw.CircleGlyph{}
		if s.PriceType == pricewatch.Spot {
			line.Dashes = []vg.Length{vg.Points(8), vg.Points(5)}
			points.Shape = draw.BoxGlyph{}
		}
		p.Add(line, points)
		legend.Add(legendLabel(s), line, points)
		entries++
	}
	// Start at zero so that a move looks as big as it is; a little
	// headroom keeps the top point off the frame.
	p.Y.Min, p.Y.Max = 0, maxY*1.1
	p.Y.Tick.Marker = niceTicks{}
	legend.Left, legend.Top = true, true
	legend.TextStyle.Font.Size = vg.Points(12)
	legend.ThumbnailWidth = vg.Points(40)

	cv := vgimg.NewWith(vgimg.UseWH(vg.Length(ChartWidth)*vg.Inch/chartDPI, vg.Length(ChartHeight)*vg.Inch/chartDPI), vgimg.UseDPI(chartDPI))
	plotArea, legendArea := chartLayout(draw.New(cv), entries, legend.TextStyle.Font.Size)
	p.Draw(plotArea)
	legend.Draw(legendArea)
	if _, err := (vgimg.PngCanvas{Canvas: cv}).WriteTo(w); err != nil {
		return fmt.Errorf("writing the chart: %w", err)
	}
	return nil
}

// niceTicks marks the price axis at 5 to 10 round steps (1, 2, 2.5 or 5
// times a power of ten) so that prices can be read off the chart.
type niceTicks struct{}

func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
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
	var ticks []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi+step/1e6; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', decimals, 64)})
	}
	return ticks
}

// chartLayout splits the canvas into the plot above and a strip below it
// for the legend, one line per series: drawn inside the plot, the legend
// covered the lines it names (issue 20 item 15).
func chartLayout(c draw.Canvas, entries int, fontSize vg.Length) (plotArea, legendArea draw.Canvas) {
	pad := vg.Points(6)
	strip := vg.Length(entries)*fontSize*1.3 + 2*pad
	plotArea = draw.Crop(c, 0, 0, strip, 0)
	legendArea = draw.Crop(c, pad*8, -pad, pad, 0)
	legendArea.Max.Y = c.Min.Y + strip - pad
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
