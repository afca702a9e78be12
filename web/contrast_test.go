package web

import (
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// cssVars reads the custom properties of the stylesheet's :root rules: the
// first (light) and the one inside @media (prefers-color-scheme: dark),
// which overrides the light values it names.
func cssVars(t *testing.T) (light, dark map[string]string) {
	t.Helper()
	raw, err := os.ReadFile("static/style.css")
	if err != nil {
		t.Fatal(err)
	}
	css := string(raw)
	decl := regexp.MustCompile(`--([a-z-]+)\s*:\s*(#[0-9a-fA-F]{3,6})\b`)
	block := func(from int) string {
		i := strings.Index(css[from:], ":root")
		if i < 0 {
			t.Fatal("no :root rule")
		}
		start := from + i
		end := strings.Index(css[start:], "}")
		return css[start : start+end]
	}
	read := func(rule string, into map[string]string) {
		for _, m := range decl.FindAllStringSubmatch(rule, -1) {
			into[m[1]] = m[2]
		}
	}
	light = map[string]string{}
	read(block(0), light)
	d := strings.Index(css, "prefers-color-scheme: dark")
	if d < 0 {
		t.Fatal("no dark scheme")
	}
	dark = map[string]string{}
	for k, v := range light {
		dark[k] = v
	}
	read(block(d), dark)
	return light, dark
}

// luminance is WCAG 2's relative luminance of an sRGB colour.
func luminance(t *testing.T, hex string) float64 {
	t.Helper()
	h := strings.TrimPrefix(hex, "#")
	if len(h) == 3 {
		h = string([]byte{h[0], h[0], h[1], h[1], h[2], h[2]})
	}
	v, err := strconv.ParseUint(h, 16, 32)
	if err != nil || len(h) != 6 {
		t.Fatalf("colour %q", hex)
	}
	lin := func(c uint64) float64 {
		s := float64(c) / 255
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(v>>16&0xff) + 0.7152*lin(v>>8&0xff) + 0.0722*lin(v&0xff)
}

func contrast(t *testing.T, a, b string) float64 {
	la, lb := luminance(t, a), luminance(t, b)
	return (math.Max(la, lb) + 0.05) / (math.Min(la, lb) + 0.05)
}

// TestPaletteContrast: every text colour of the palette on every ground it
// is drawn on reaches WCAG AA (4.5:1 for text; the focus ring 3:1 against
// the grounds it surrounds, WCAG 1.4.11), in the light and the dark scheme.
// The pairs follow style.css: body text, muted notes and links on the
// page, the table head and the cheapest row; moves (up/down) on the page
// and the cheapest row; text on warnings; chart text on the chart's
// ground, which stays white in both schemes.
func TestPaletteContrast(t *testing.T) {
	light, dark := cssVars(t)
	text := map[string][]string{
		"bg":       {"fg", "muted", "accent", "up", "down"},
		"head":     {"fg", "muted", "accent"},
		"best":     {"fg", "muted", "accent", "up", "down"},
		"warn-bg":  {"fg", "muted", "accent"},
		"chart-bg": {"chart-text"},
	}
	for _, scheme := range []struct {
		name string
		vars map[string]string
	}{{"light", light}, {"dark", dark}} {
		get := func(name string) string {
			v, ok := scheme.vars[name]
			if !ok {
				t.Fatalf("%s: no --%s", scheme.name, name)
			}
			return v
		}
		for ground, fgs := range text {
			for _, fg := range fgs {
				if c := contrast(t, get(fg), get(ground)); c < 4.5 {
					t.Errorf("%s: --%s %s on --%s %s is %.2f:1, want at least 4.5:1", scheme.name, fg, get(fg), ground, get(ground), c)
				}
			}
		}
		for _, ground := range []string{"bg", "head"} {
			if c := contrast(t, get("accent"), get(ground)); c < 3 {
				t.Errorf("%s: the focus ring --accent on --%s is %.2f:1, want at least 3:1", scheme.name, ground, c)
			}
		}
	}
	// The formula itself, on WCAG's extremes and a known pair.
	if c := contrast(t, "#000", "#fff"); math.Abs(c-21) > 1e-9 {
		t.Errorf("black on white %.3f, want 21", c)
	}
	if c := contrast(t, "#777777", "#ffffff"); math.Abs(c-4.48) > 0.01 {
		t.Errorf("#777 on white %.3f, want 4.48", c)
	}
}
