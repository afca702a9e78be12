package termchart

import (
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func TestChartDrawsStepsAndLabels(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	d := decimal.RequireFromString
	series := []Series{
		// 10 until day 5, then 20.
		{Label: "rising", Steps: []Step{{From: t0, To: t0.Add(5 * 24 * time.Hour), Value: d("10")}, {From: t0.Add(5 * 24 * time.Hour), Value: d("20")}}},
		// Flat at 10 from day 2: overlaps "rising" until day 5.
		{Label: "flat", Steps: []Step{{From: t0.Add(2 * 24 * time.Hour), Value: d("10")}}},
	}
	var b strings.Builder
	if err := Write(&b, "title", series, t0, t0.Add(10*24*time.Hour), 60); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(out, "\n")
	for _, l := range lines {
		if len([]rune(l)) > 60 {
			t.Errorf("line wider than 60: %q", l)
		}
	}
	// Rows: title, then Height rows from 20 (top) to 10 (bottom).
	top, bottom := lines[1], lines[Height]
	if !strings.HasPrefix(top, "20.00 ┤") || !strings.HasPrefix(bottom, "10.00 ┤") {
		t.Errorf("axis labels: top %q bottom %q", top, bottom)
	}
	// "rising" starts at the bottom left and ends top right; where the flat
	// line shares its cells the chart shows "*".
	body := strings.Join(lines[1:Height+1], "\n")
	if !strings.Contains(bottom, "A*") || !strings.HasSuffix(top, "A") || !strings.Contains(body, "B") {
		t.Errorf("lines not where expected:\n%s", out)
	}
	// The step is drawn as a vertical run of A in one column.
	col := strings.Index(lines[Height/2], "A")
	if col < 0 {
		t.Errorf("no vertical step in the middle row:\n%s", out)
	}
	if !strings.Contains(out, "2026-01-01") || !strings.Contains(out, "2026-01-11") || !strings.Contains(out, "*  more than one series") {
		t.Errorf("x labels or legend missing:\n%s", out)
	}
}

func TestChartFlatSeries(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var b strings.Builder
	err := Write(&b, "flat", []Series{{Label: "x", Steps: []Step{{From: t0, Value: decimal.RequireFromString("3.5")}}}}, t0, t0.Add(time.Hour), 100)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "3.50 ┤AAAA") || !strings.Contains(b.String(), "01-01 00:00") {
		t.Errorf("flat chart:\n%s", b.String())
	}
}
