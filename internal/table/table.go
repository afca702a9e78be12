// Package table is the one table engine: columns padded to their widest
// cell, fitted to a width by cutting or wrapping the last, free-text
// column, or by leaving out columns in a stated order (Fit). The CLI's
// tables and the text digest are laid out by it.
package table

import (
	"io"
	"strings"
	"unicode/utf8"
)

// Table lays out columns padded to their widest cell. A column whose
// header starts with ">" (a number) is right-aligned.
type Table struct {
	header []string
	right  []bool
	rows   [][]string
}

// New starts a table with these column headers.
func New(cols ...string) *Table {
	t := &Table{}
	for _, c := range cols {
		t.right = append(t.right, strings.HasPrefix(c, ">"))
		t.header = append(t.header, strings.TrimPrefix(c, ">"))
	}
	return t
}

// Add appends a row.
func (t *Table) Add(cells ...string) { t.rows = append(t.rows, cells) }

// Layout is how a table meets a width.
type Layout struct {
	// Width is the widest line; 0 means no limit.
	Width int
	// Indent starts every line.
	Indent string
	// Wrap breaks a last, left-aligned column that does not fit over
	// several lines (hanging under it); otherwise it is cut, ending in "…".
	// The header is never cut nor wrapped.
	Wrap bool
	// MinLast is the narrowest the last column is squeezed to.
	MinLast int
}

// Write writes the table laid out by l. A right-aligned last column (a
// number) is never cut or wrapped.
func (t *Table) Write(w io.Writer, l Layout) error {
	n := len(t.header)
	widths := make([]int, n)
	for _, r := range append([][]string{t.header}, t.rows...) {
		for i, c := range r {
			if i < n {
				widths[i] = max(widths[i], utf8.RuneCountInString(c))
			}
		}
	}
	last := n - 1
	// room is what is left for the last column; 0: it is not limited.
	room, lead := 0, utf8.RuneCountInString(l.Indent)
	for _, w := range widths[:max(last, 0)] {
		lead += w + 2
	}
	if l.Width > 0 && n > 1 && !t.right[last] {
		room = max(l.Width-lead, l.MinLast)
	}
	line := func(cells []string, fit bool) string {
		var b strings.Builder
		b.WriteString(l.Indent)
		for i, c := range cells {
			if i >= n {
				break
			}
			if i > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			switch {
			case t.right[i]:
				b.WriteString(pad + c)
			case i == len(cells)-1 && fit && room > 0 && l.Wrap:
				b.WriteString(strings.Join(WrapLines(c, room), "\n"+strings.Repeat(" ", lead)))
			case i == len(cells)-1 && fit && room > 0 && utf8.RuneCountInString(c) > room:
				b.WriteString(string([]rune(c)[:room-1]) + "…")
			case i == len(cells)-1:
				b.WriteString(c)
			default:
				b.WriteString(c + pad)
			}
		}
		return strings.TrimRight(b.String(), " ") + "\n"
	}
	if _, err := io.WriteString(w, line(t.header, false)); err != nil {
		return err
	}
	for _, r := range t.rows {
		if _, err := io.WriteString(w, line(r, len(r) == n)); err != nil {
			return err
		}
	}
	return nil
}

// WrapLines breaks s into lines of at most width runes at spaces (a
// longer word stays whole; 0: no limit); it returns at least one line.
func WrapLines(s string, width int) []string {
	return wrap(s, width, "")
}

// Wrap breaks text at spaces so that no line passes width (0: no limit),
// starting continuation lines with indent; it returns the lines with their
// newlines, or "" for text without words.
func Wrap(text string, width int, indent string) string {
	if len(strings.Fields(text)) == 0 {
		return ""
	}
	return strings.Join(wrap(text, width, indent), "\n") + "\n"
}

func wrap(text string, width int, indent string) []string {
	var out []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case width > 0 && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > width:
			out = append(out, line)
			line = indent + word
		default:
			line += " " + word
		}
	}
	return append(out, line)
}

// WidestLine is the width of the widest line of s.
func WidestLine(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		n = max(n, utf8.RuneCountInString(l))
	}
	return n
}
