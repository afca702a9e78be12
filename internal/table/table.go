// Package table is the one table engine: columns padded to their widest
// cell, fitted to a width by cutting or wrapping the last, free-text
// column, or by leaving out columns in a stated order (Fit). The CLI's
// tables and the text digest are laid out by it.
package table

import (
	"io"
	"slices"
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

// DropEmpty leaves out the column headed header when no row has a cell
// in it (a column that applies only to some setups), and returns t.
func (t *Table) DropEmpty(header string) *Table {
	col := slices.Index(t.header, strings.TrimPrefix(header, ">"))
	if col < 0 {
		return t
	}
	for _, r := range t.rows {
		if col < len(r) && r[col] != "" {
			return t
		}
	}
	t.header = slices.Delete(t.header, col, col+1)
	t.right = slices.Delete(t.right, col, col+1)
	for i, r := range t.rows {
		if col < len(r) {
			t.rows[i] = slices.Delete(r, col, col+1)
		}
	}
	return t
}

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
	for i := range n {
		if t.right[i] {
			alignDecimals(t.rows, i)
		}
	}
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

// alignDecimals gives every number of column col as many decimals as the
// column's most precise one, so that a column of prices reads 2.6900 beside
// 1.3867 rather than 2.69 (one money format in every table). A cell is a
// number followed by any suffix ("41.76 CNY", "-10.0%"); other cells ("-",
// "yes") are left as they are. Padding with zeros adds no precision a
// source did not have: the cell producers cap what is shown.
func alignDecimals(rows [][]string, col int) {
	most := 0
	for _, r := range rows {
		if col < len(r) {
			if _, frac, _, ok := splitNumber(r[col]); ok {
				most = max(most, len(frac))
			}
		}
	}
	if most == 0 {
		return
	}
	for _, r := range rows {
		if col >= len(r) {
			continue
		}
		whole, frac, rest, ok := splitNumber(r[col])
		if !ok || len(frac) == most {
			continue
		}
		r[col] = whole + "." + frac + strings.Repeat("0", most-len(frac)) + rest
	}
}

// splitNumber splits "−1,234.5 CNY" into "-1,234", "5" and " CNY". ok is
// false when s does not start with a number, or when the number runs into
// a letter or digit-like text that makes it something else (a date
// "2026-11-01", a time "09:00", a version "1.2.3").
func splitNumber(s string) (whole, frac, rest string, ok bool) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	start := i
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == ',' && i > start) {
		i++
	}
	if i == start {
		return "", "", "", false
	}
	whole = s[:i]
	if i < len(s) && s[i] == '.' {
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i+1 {
			return "", "", "", false
		}
		frac, i = s[i+1:j], j
	}
	rest = s[i:]
	if rest != "" && (rest[0] == '.' || rest[0] == '-' || rest[0] == ':' || rest[0] == '/') {
		return "", "", "", false
	}
	return whole, frac, rest, true
}
