package table

import (
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	long := "a summary that is much longer than the room left for it"
	cases := []struct {
		name   string
		layout Layout
		want   string
	}{
		{"no limit keeps every cell whole", Layout{},
			"ID  STATE  SUMMARY\n" +
				" 7  ok     " + long + "\n" +
				"12  -      short\n"},
		{"a narrow width cuts the last column", Layout{Width: 30, MinLast: 12},
			"ID  STATE  SUMMARY\n" +
				" 7  ok     a summary that is …\n" +
				"12  -      short\n"},
		{"the cut stops at MinLast", Layout{Width: 15, MinLast: 12},
			"ID  STATE  SUMMARY\n" +
				" 7  ok     a summary t…\n" +
				"12  -      short\n"},
		{"wrap hangs the rest under the last column", Layout{Width: 30, Indent: "  ", Wrap: true, MinLast: 12},
			"  ID  STATE  SUMMARY\n" +
				"   7  ok     a summary that is\n" +
				"             much longer than\n" +
				"             the room left for\n" +
				"             it\n" +
				"  12  -      short\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tb := New(">ID", "STATE", "SUMMARY")
			tb.Add("7", "ok", long)
			tb.Add("12", "-", "short")
			var b strings.Builder
			if err := tb.Write(&b, c.layout); err != nil {
				t.Fatal(err)
			}
			if b.String() != c.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), c.want)
			}
			if c.layout.Width > 0 && !c.layout.Wrap && WidestLine(b.String()) > max(c.layout.Width, 11+c.layout.MinLast) {
				t.Errorf("wider than %d:\n%s", c.layout.Width, b.String())
			}
		})
	}
}

// A right-aligned last column is a figure: never cut, never wrapped.
func TestRightAlignedLastColumnStaysWhole(t *testing.T) {
	for _, wrap := range []bool{false, true} {
		tb := New("NAME", ">AMOUNT")
		tb.Add("x", "123456789012345678901234567890")
		var b strings.Builder
		if err := tb.Write(&b, Layout{Width: 20, Wrap: wrap, MinLast: 5}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "123456789012345678901234567890\n") {
			t.Errorf("wrap %v: figure changed:\n%s", wrap, b.String())
		}
	}
}

// Fit leaves out columns lowest drop rank first, names them (not "#"),
// and keeps every column without a width.
func TestFitDropsInOrder(t *testing.T) {
	build := func() []Column {
		cols := []Column{{Head: ">#", Drop: 1}, {Head: "NAME"}, {Head: ">/GB", Drop: 3}, {Head: ">/TFLOPS", Drop: 2}, {Head: "MARKET", Hidden: true}}
		AddRow(cols, "1", "Standard_ND96amsr_A100_v4", "0.0500", "0.01000", "yes")
		return cols
	}
	for _, c := range []struct {
		width   int
		dropped []string
		heads   string
	}{
		{0, nil, "# NAME /GB /TFLOPS"},
		{44, nil, "NAME /GB /TFLOPS"},
		{40, []string{"/TFLOPS"}, "NAME /GB"},
		{30, []string{"/TFLOPS", "/GB"}, "NAME"},
		{20, []string{"/TFLOPS", "/GB"}, "NAME"},
	} {
		var b strings.Builder
		dropped, err := Fit(&b, build(), Layout{Width: c.width})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(dropped, ",") != strings.Join(c.dropped, ",") {
			t.Errorf("width %d: dropped %v, want %v", c.width, dropped, c.dropped)
		}
		if head, _, _ := strings.Cut(b.String(), "\n"); strings.Join(strings.Fields(head), " ") != c.heads {
			t.Errorf("width %d: header %q, want %q", c.width, head, c.heads)
		}
		if c.width > 0 && len(c.heads) > 4 && WidestLine(b.String()) > c.width {
			t.Errorf("width %d: wider:\n%s", c.width, b.String())
		}
	}
}

func TestWrap(t *testing.T) {
	cases := []struct {
		text   string
		width  int
		indent string
		want   string
	}{
		{"", 10, "  ", ""},
		{"one two three four", 0, "  ", "one two three four\n"},
		{"one two three four", 9, "  ", "one two\n  three\n  four\n"},
		{"averyveryverylongword x", 5, "", "averyveryverylongword\nx\n"},
	}
	for _, c := range cases {
		if got := Wrap(c.text, c.width, c.indent); got != c.want {
			t.Errorf("Wrap(%q, %d): %q, want %q", c.text, c.width, got, c.want)
		}
	}
	if got := WrapLines("", 10); len(got) != 1 || got[0] != "" {
		t.Errorf("WrapLines of nothing: %q, want one empty line", got)
	}
}

// Issue 20 item 16: a column of prices printed 1.3867 beside 2.69 and
// 10.00; every number of a right-aligned column now has the column's
// decimals, whatever follows it, and what is not a number is left alone.
func TestRightColumnsShareTheirDecimals(t *testing.T) {
	tb := New("PROVIDER", ">USD/GPU-H", ">NOW", ">CHANGE", ">SINCE", ">N")
	tb.Add("vastai", "1.3867", "41.76 CNY", "-10.0%", "2022-07-08", "3")
	tb.Add("runpod", "2.69", "6.554 USD", "+5.0%", "09:00", "12")
	tb.Add("oci", "10.00", "-", "n/a", "2022-07-11", "1,024")
	tb.Add("lambda", "3", "1,234.5 CNY", "0%", "", "-")
	var b strings.Builder
	if err := tb.Write(&b, Layout{}); err != nil {
		t.Fatal(err)
	}
	want := `PROVIDER  USD/GPU-H            NOW  CHANGE       SINCE      N
vastai       1.3867     41.760 CNY  -10.0%  2022-07-08      3
runpod       2.6900      6.554 USD   +5.0%       09:00     12
oci         10.0000              -     n/a  2022-07-11  1,024
lambda       3.0000  1,234.500 CNY    0.0%                  -
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// A column no row fills is left out; one that any row fills stays.
func TestDropEmpty(t *testing.T) {
	for _, c := range []struct {
		name string
		rows [][]string
		want string
	}{
		{"empty", [][]string{{"azure", "", "ok"}, {"aws", "", "failed"}}, "PROVIDER  STATUS\nazure     ok\naws       failed\n"},
		{"filled", [][]string{{"azure", "db-a", "ok"}, {"aws", "", "failed"}}, "PROVIDER  REPLICA  STATUS\nazure     db-a     ok\naws                failed\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tb := New("PROVIDER", "REPLICA", "STATUS")
			for _, r := range c.rows {
				tb.Add(r...)
			}
			var b strings.Builder
			if err := tb.DropEmpty("REPLICA").Write(&b, Layout{}); err != nil {
				t.Fatal(err)
			}
			if b.String() != c.want {
				t.Errorf("got\n%q\nwant\n%q", b.String(), c.want)
			}
		})
	}
}
