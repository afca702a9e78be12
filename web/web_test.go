package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestRequireToken(t *testing.T) {
	const token = "s3cret-token"
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("inside")) })
	h := RequireToken(token, next)
	cases := []struct {
		name, path string
		set        func(*http.Request)
		want       int
	}{
		{"no header", "/api/v1/runs", func(*http.Request) {}, 401},
		{"bearer", "/api/v1/runs", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }, 200},
		{"bearer lower-case scheme", "/", func(r *http.Request) { r.Header.Set("Authorization", "bearer "+token) }, 200},
		{"wrong token", "/api/v1/runs", func(r *http.Request) { r.Header.Set("Authorization", "Bearer x"+token) }, 401},
		{"prefix of the token", "/metrics", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token[:5]) }, 401},
		{"empty bearer", "/metrics", func(r *http.Request) { r.Header.Set("Authorization", "Bearer ") }, 401},
		{"basic password", "/gpu/H100", func(r *http.Request) { r.SetBasicAuth("anyone", token) }, 200},
		{"basic wrong", "/gpu/H100", func(r *http.Request) { r.SetBasicAuth(token, "nope") }, 401},
		{"healthz open", "/healthz", func(*http.Request) {}, 200},
		{"healthz lookalike", "/healthz/x", func(*http.Request) {}, 401},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, c.path, nil)
			c.set(req)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != c.want {
				t.Fatalf("%d, want %d", rec.Code, c.want)
			}
			if c.want == 401 {
				if strings.Contains(rec.Body.String(), token) || rec.Header().Get("WWW-Authenticate") == "" {
					t.Errorf("401 body %q headers %v", rec.Body.String(), rec.Header())
				}
			}
		})
	}
}

func TestParseParams(t *testing.T) {
	v, _ := url.ParseQuery("provider=aws,azure&provider=alibaba&available_only=true&count=8&region=")
	p, err := parseParams(v, []string{"provider", "available_only", "count", "region"})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.list("provider"); strings.Join(got, " ") != "aws azure alibaba" {
		t.Errorf("list: %v", got)
	}
	if b, err := p.boolean("available_only"); err != nil || !b {
		t.Errorf("boolean: %v %v", b, err)
	}
	// An empty value is the default, as a form's empty field sends it.
	if p.has("region") || p.has("missing") {
		t.Error("empty or missing parameter reads as given")
	}
	if n, err := p.number("count"); err != nil || n != 8 {
		t.Errorf("number: %v %v", n, err)
	}
	if _, err := parseParams(v, []string{"provider", "count", "region"}); err == nil || !strings.Contains(err.Error(), `unknown parameter "available_only"`) {
		t.Errorf("unknown: %v", err)
	}
	if _, err := parseParams(url.Values{"x": {"1"}}, nil); err == nil || !strings.Contains(err.Error(), "takes: none") {
		t.Errorf("none allowed: %v", err)
	}
}

func TestETagMatches(t *testing.T) {
	for _, c := range []struct {
		header string
		want   bool
	}{{`"abc"`, true}, {`W/"abc"`, true}, {`"x", "abc"`, true}, {`*`, true}, {`"abd"`, false}, {``, false}} {
		if got := etagMatches(c.header, `"abc"`); got != c.want {
			t.Errorf("%q: %v", c.header, got)
		}
	}
}

func TestThinKeepsChangesAndEnds(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var steps []Step
	for i := 0; i < 10000; i++ {
		steps = append(steps, Step{At: t0.Add(time.Duration(i) * time.Hour), Value: float64(i / 2)})
	}
	got := thin(steps, 500)
	if len(got) > 501 || got[0].At != steps[0].At || got[len(got)-1].At != steps[len(steps)-1].At {
		t.Fatalf("%d steps, first %v last %v", len(got), got[0].At, got[len(got)-1].At)
	}
	flat := []Step{{At: t0, Value: 1}, {At: t0.Add(time.Hour), Value: 1}, {At: t0.Add(2 * time.Hour), Value: 2}, {At: t0.Add(3 * time.Hour), Value: 2}}
	if got := thin(flat, 100); len(got) != 3 || got[1].Value != 2 {
		t.Errorf("unchanged values kept: %+v", got)
	}
}

func TestChartSVG(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	empty := LineChart{ID: "c", Title: "t", From: t0, To: t0.Add(24 * time.Hour)}.SVG()
	if !strings.Contains(string(empty), "No prices in this period") || strings.Contains(string(empty), "<path") {
		t.Errorf("empty chart: %s", empty)
	}
	c := LineChart{ID: "c", Title: `a <b> & "c"`, Unit: "USD", From: t0, To: t0.Add(10 * 24 * time.Hour), Lines: []Line{
		{Name: "on-demand <x>", Steps: []Step{{At: t0, Value: 2.5}, {At: t0.Add(48 * time.Hour), Value: 2.25}}},
		{Name: "spot", Dashed: true, Steps: []Step{{At: t0.Add(24 * time.Hour), Value: 1}}},
	}}.SVG()
	s := string(c)
	if strings.Count(s, `class="line"`) != 2 || !strings.Contains(s, `stroke-dasharray`) || strings.Contains(s, "<b>") || strings.Contains(s, "<x>") {
		t.Errorf("chart: %s", s)
	}
	tl := Timeline{ID: "tl", From: t0, To: t0.Add(48 * time.Hour), Rows: map[string][]Bar{
		"aws us-east-1": {{From: t0.Add(-time.Hour), State: "offered"}}, // open: runs to To
	}}.SVG()
	if !strings.Contains(string(tl), `x="4.0" y="36" width="780.0"`) { // below its label, across the whole width
		t.Errorf("open bar does not run to the end: %s", tl)
	}
	// Labels start at the left margin on their own line (never anchored
	// at their end, where a phone's larger font pushed them off the left
	// edge); one longer than the width is cut with an ellipsis and keeps
	// its whole text in a <title>.
	long := "azure westus2 " + strings.Repeat("Standard_ND96isr_H100_v5", 3)
	tl = Timeline{ID: "tl", From: t0, To: t0.Add(48 * time.Hour), Rows: map[string][]Bar{
		"aws us-east-1 p5.48xlarge": {{From: t0, State: "offered"}},
		long:                        {{From: t0, State: "sold_out"}},
	}}.SVG()
	if regexp.MustCompile(`class="axis label"[^>]*text-anchor`).MatchString(string(tl)) {
		t.Errorf("a label is anchored at its end: %s", tl)
	}
	if !strings.Contains(string(tl), `<text class="axis label" x="4" y="32">aws us-east-1 p5.48xlarge</text>`) {
		t.Errorf("short label not whole on its own line: %s", tl)
	}
	cut, _ := fitLabel(long, timelineLabelChars)
	if !strings.Contains(string(tl), `<title>`+long+`</title>`+cut+`</text>`) || len([]rune(cut)) != timelineLabelChars || !strings.HasSuffix(cut, "…") {
		t.Errorf("long label not cut with its title (%q): %s", cut, tl)
	}
}

// TestTimelineTicksInside: every time tick's label lies inside the chart at
// the phone's font, wherever the first and last tick fall. A tick an hour
// after the chart's start, centred on it, stuck out of the left edge on a
// 390 px phone whenever the fixture's dates put one there (CI failed on
// 2026-12-05 so).
func TestTimelineTicksInside(t *testing.T) {
	tick := regexp.MustCompile(`<text class="axis" x="([0-9.]+)" y="[0-9]+" text-anchor="(start|middle|end)">([^<]+)</text>`)
	day := 24 * time.Hour
	for _, c := range []struct {
		name     string
		from, to time.Time
	}{
		{"tick an hour after the start", time.Date(2026, 11, 15, 23, 0, 0, 0, time.UTC), time.Date(2026, 12, 5, 11, 0, 0, 0, time.UTC)},
		{"tick an hour before the end", time.Date(2026, 11, 15, 11, 0, 0, 0, time.UTC), time.Date(2026, 12, 5, 1, 0, 0, 0, time.UTC)},
		{"short span", time.Date(2026, 12, 3, 23, 30, 0, 0, time.UTC), time.Date(2026, 12, 5, 0, 30, 0, 0, time.UTC)},
		{"year", time.Date(2025, 12, 5, 11, 0, 0, 0, time.UTC), time.Date(2026, 12, 5, 11, 0, 0, 0, time.UTC)},
	} {
		t.Run(c.name, func(t *testing.T) {
			svg := string(Timeline{ID: "tl", From: c.from, To: c.to, Rows: map[string][]Bar{
				"aws us-east-1": {{From: c.from.Add(-day), State: "offered"}},
			}}.SVG())
			ticks := tick.FindAllStringSubmatch(svg, -1)
			if len(ticks) == 0 {
				t.Fatalf("no ticks: %s", svg)
			}
			for _, m := range ticks {
				x, _ := strconv.ParseFloat(m[1], 64)
				w := float64(len([]rune(m[3]))) * phoneAxisFont * 0.6
				lo, hi := x-w/2, x+w/2
				switch m[2] {
				case "start":
					lo, hi = x, x+w
				case "end":
					lo, hi = x-w, x
				}
				if lo < 0 || hi > availW {
					t.Errorf("tick %q anchored %s at %.1f spans %.1f..%.1f, outside 0..%d", m[3], m[2], x, lo, hi, availW)
				}
			}
		})
	}
}

func TestNiceTicks(t *testing.T) {
	for _, c := range []struct{ lo, hi float64 }{{0.91, 1.37}, {20, 70}, {3, 3}, {0.0012, 0.0019}} {
		ticks := niceTicks(c.lo, c.hi, 5)
		eps := 1e-9 * (c.hi - c.lo + 1)
		if len(ticks) < 2 || ticks[0] > c.lo+eps || ticks[len(ticks)-1] < c.hi-eps {
			t.Errorf("%v–%v: %v", c.lo, c.hi, ticks)
		}
	}
}
