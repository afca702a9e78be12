package digest

import (
	"image/color"
	"testing"
)

// TestFillClipsToTheCanvas: a shape reaching past the canvas's edges is
// drawn where it lies on it, and nothing is written outside it (the
// rasterizer writes the image's pixels without checking its bounds).
func TestFillClipsToTheCanvas(t *testing.T) {
	red := color.RGBA{R: 0xff, A: 0xff}
	white := color.RGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xff}
	for _, c := range []struct {
		name   string
		shape  []pt
		inside []pt // pixels the shape covers
	}{
		{"past every edge", square(pt{10, 10}, 20), []pt{{0, 0}, {19, 19}, {5, 15}}},
		{"past the right and bottom", square(pt{19, 19}, 4), []pt{{19, 19}, {16, 16}}},
		{"outside", square(pt{-50, -50}, 4), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			cv := newCanvas(20, 20)
			cv.fill(red, c.shape)
			for _, p := range c.inside {
				if got := cv.img.RGBAAt(int(p.x), int(p.y)); got != red {
					t.Errorf("pixel %v is %v, want red", p, got)
				}
			}
			if c.inside == nil {
				for i := 0; i < len(cv.img.Pix); i += 4 {
					if got := (color.RGBA{cv.img.Pix[i], cv.img.Pix[i+1], cv.img.Pix[i+2], cv.img.Pix[i+3]}); got != white {
						t.Fatalf("pixel %d painted %v by a shape off the canvas", i/4, got)
					}
				}
			}
		})
	}
}
