package digest

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
)

// The chart is drawn with golang.org/x/image's rasterizer and the Go font
// rather than with a plotting library. gonum/plot, used before, links
// twelve Liberation fonts and PDF, SVG and TeX back ends into every
// binary that imports it (6.4 of the daemon's 44.5 MB of mapped
// sections), and parses the fonts when the daemon starts: their pages
// were 2.2-5 MB of its resident memory, for a PNG drawn once a week
// (issue 30 bounds the daemon's RSS; docs/scale.md has the measurement).
// What is drawn by hand here is the chart's geometry: lines, dashes,
// markers and text.

// canvas is an image the chart is drawn on, white at first.
type canvas struct {
	img *image.RGBA
}

func newCanvas(w, h int) *canvas {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	return &canvas{img: img}
}

// pt is a point in pixels, y down.
type pt struct{ x, y float32 }

// fill paints the polygons in col, antialiased. Overlapping polygons must
// wind the same way (the rasterizer adds their coverage, clamped, so
// opposite windings would cancel): every polygon made here is made
// counter-clockwise on the screen first (ccw).
func (c *canvas) fill(col color.Color, polys ...[]pt) {
	minX, minY := float32(math.Inf(1)), float32(math.Inf(1))
	maxX, maxY := float32(math.Inf(-1)), float32(math.Inf(-1))
	for _, p := range polys {
		for _, q := range p {
			minX, minY = min(minX, q.x), min(minY, q.y)
			maxX, maxY = max(maxX, q.x), max(maxY, q.y)
		}
	}
	// The rasterizer covers only the polygons' box, not the whole image:
	// a chart is a few hundred small shapes. It draws no pixel outside
	// its rectangle, and clips what of the polygons lies outside it, so
	// the box is cut to the image: Draw writes into the image's pixels
	// without checking its bounds.
	r := image.Rect(int(math.Floor(float64(minX))), int(math.Floor(float64(minY))),
		int(math.Ceil(float64(maxX)))+1, int(math.Ceil(float64(maxY)))+1).Intersect(c.img.Bounds())
	if r.Empty() {
		return
	}
	z := vector.NewRasterizer(r.Dx(), r.Dy())
	ox, oy := float32(r.Min.X), float32(r.Min.Y)
	for _, p := range polys {
		if len(p) < 3 {
			continue
		}
		z.MoveTo(p[0].x-ox, p[0].y-oy)
		for _, q := range p[1:] {
			z.LineTo(q.x-ox, q.y-oy)
		}
		z.ClosePath()
	}
	z.Draw(c.img, r, image.NewUniform(col), image.Point{})
}

// ccw is p wound one way, whichever way it was made.
func ccw(p []pt) []pt {
	var area float32
	for i := range p {
		j := (i + 1) % len(p)
		area += p[i].x*p[j].y - p[j].x*p[i].y
	}
	if area < 0 {
		for i, j := 0, len(p)-1; i < j; i, j = i+1, j-1 {
			p[i], p[j] = p[j], p[i]
		}
	}
	return p
}

// circle is a polygon close enough to a circle of radius r at o for the
// sizes drawn here.
func circle(o pt, r float32) []pt {
	const n = 32
	p := make([]pt, n)
	for i := range p {
		a := 2 * math.Pi * float64(i) / n
		p[i] = pt{o.x + r*float32(math.Cos(a)), o.y + r*float32(math.Sin(a))}
	}
	return ccw(p)
}

// square is the square of half-side r at o.
func square(o pt, r float32) []pt {
	return ccw([]pt{{o.x - r, o.y - r}, {o.x + r, o.y - r}, {o.x + r, o.y + r}, {o.x - r, o.y + r}})
}

// stroke draws the polyline pts width pixels wide with round joins, dashed
// (on, off, on, off, … pixels along the line) when dashes is not empty.
func (c *canvas) stroke(col color.Color, width float32, dashes []float32, pts ...pt) {
	var polys [][]pt
	for _, piece := range dash(pts, dashes) {
		polys = append(polys, strokePolys(piece, width)...)
	}
	c.fill(col, polys...)
}

// strokePolys is a polyline's outline: a quadrilateral a segment and a
// disc at each inner vertex, so that the segments join without notches.
func strokePolys(pts []pt, width float32) [][]pt {
	h := width / 2
	var polys [][]pt
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		dx, dy := b.x-a.x, b.y-a.y
		l := float32(math.Hypot(float64(dx), float64(dy)))
		if l == 0 {
			continue
		}
		nx, ny := -dy/l*h, dx/l*h
		polys = append(polys, ccw([]pt{{a.x + nx, a.y + ny}, {b.x + nx, b.y + ny}, {b.x - nx, b.y - ny}, {a.x - nx, a.y - ny}}))
		if i < len(pts)-1 {
			polys = append(polys, circle(b, h))
		}
	}
	return polys
}

// dash cuts a polyline into the pieces drawn by the pattern dashes (the
// whole line when it is empty). The pattern runs on across vertices.
func dash(pts []pt, dashes []float32) [][]pt {
	if len(dashes) == 0 || len(pts) < 2 {
		return [][]pt{pts}
	}
	var out [][]pt
	k, left, on := 0, dashes[0], true
	cur := []pt{pts[0]}
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		l := float32(math.Hypot(float64(b.x-a.x), float64(b.y-a.y)))
		done := float32(0)
		for l-done > left {
			done += left
			p := pt{a.x + (b.x-a.x)*done/l, a.y + (b.y-a.y)*done/l}
			if on {
				out = append(out, append(cur, p))
			}
			cur = []pt{p}
			on = !on
			k = (k + 1) % len(dashes)
			left = dashes[k]
		}
		left -= l - done
		cur = append(cur, b)
	}
	if on && len(cur) > 1 {
		out = append(out, cur)
	}
	return out
}

// goFont is the Go font (golang.org/x/image/font/gofont), parsed once.
var goFont = sync.OnceValues(func() (*opentype.Font, error) { return opentype.Parse(goregular.TTF) })

// face is the Go font at size points. A face is not safe for concurrent
// use: each chart makes its own.
func face(size float64) (font.Face, error) {
	f, err := goFont()
	if err != nil {
		return nil, fmt.Errorf("reading the chart's font: %w", err)
	}
	fc, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: chartDPI, Hinting: font.HintingFull})
	if err != nil {
		return nil, fmt.Errorf("sizing the chart's font: %w", err)
	}
	return fc, nil
}

// advance is s's advance in f, in pixels.
func advance(f font.Face, s string) float32 {
	return float32(font.MeasureString(f, s)) / 64
}

// textHeight is f's line height (ascent and descent), in pixels.
func textHeight(f font.Face) float32 {
	m := f.Metrics()
	return float32(m.Ascent+m.Descent) / 64
}

// text writes s in f with its box's point at (x, y): ax and ay are where
// that point is in the box, 0 left or top, 0.5 centre, 1 right or bottom.
func (c *canvas) text(f font.Face, col color.Color, s string, x, y, ax, ay float32) {
	m := f.Metrics()
	left := x - ax*advance(f, s)
	top := y - ay*textHeight(f)
	d := font.Drawer{Dst: c.img, Src: image.NewUniform(col), Face: f,
		Dot: fixed.Point26_6{X: fixed.Int26_6(left * 64), Y: fixed.Int26_6(top*64) + m.Ascent}}
	d.DrawString(s)
}

// textUp writes s reading upwards, its box's centre at (x, y): the price
// axis's label.
func (c *canvas) textUp(f font.Face, col color.Color, s string, x, y float32) {
	w, h := int(math.Ceil(float64(advance(f, s)))), int(math.Ceil(float64(textHeight(f))))
	flat := image.NewRGBA(image.Rect(0, 0, w, h))
	d := font.Drawer{Dst: flat, Src: image.NewUniform(col), Face: f, Dot: fixed.Point26_6{Y: f.Metrics().Ascent}}
	d.DrawString(s)
	// Turned a quarter left: the text's column i becomes row w-1-i.
	up := image.NewRGBA(image.Rect(0, 0, h, w))
	for i := range w {
		for j := range h {
			up.SetRGBA(j, w-1-i, flat.RGBAAt(i, j))
		}
	}
	at := image.Pt(int(x)-h/2, int(y)-w/2)
	draw.Draw(c.img, up.Bounds().Add(at), up, image.Point{}, draw.Over)
}
