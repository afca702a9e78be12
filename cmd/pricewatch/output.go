package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

// Output formats every listing command accepts.
const (
	formatTable = "table"
	formatJSON  = "json"
	formatCSV   = "csv"
)

func checkFormat(f string, allowed ...string) error {
	if len(allowed) == 0 {
		allowed = []string{formatTable, formatJSON, formatCSV}
	}
	for _, a := range allowed {
		if f == a {
			return nil
		}
	}
	return fmt.Errorf("--format %q: want %s", f, strings.Join(allowed, ", "))
}

// jsonDecimal marshals an exact decimal as a JSON number, never through
// float64.
type jsonDecimal decimal.Decimal

func (d jsonDecimal) MarshalJSON() ([]byte, error) { return []byte(decimal.Decimal(d).String()), nil }

// jsonNullDecimal is a JSON number or null.
type jsonNullDecimal struct {
	d     decimal.Decimal
	valid bool
}

func (d jsonNullDecimal) MarshalJSON() ([]byte, error) {
	if !d.valid {
		return []byte("null"), nil
	}
	return []byte(d.d.String()), nil
}

func nullDecimal(d decimal.Decimal, ok bool) jsonNullDecimal { return jsonNullDecimal{d: d, valid: ok} }

// jsonTime prints RFC 3339 in UTC; a nil time is null.
func jsonTime(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UTC().Format(time.RFC3339)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func writeCSV(w io.Writer, header []string, rows [][]string) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	if err := cw.WriteAll(rows); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// table lays out columns padded to their widest cell. Right-aligned columns
// (numbers) are marked with a leading ">" in the header.
type table struct {
	header []string
	right  []bool
	rows   [][]string
}

func newTable(cols ...string) *table {
	t := &table{}
	for _, c := range cols {
		right := strings.HasPrefix(c, ">")
		t.header = append(t.header, strings.TrimPrefix(c, ">"))
		t.right = append(t.right, right)
	}
	return t
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) write(w io.Writer) error {
	widths := make([]int, len(t.header))
	for i, h := range t.header {
		widths[i] = utf8.RuneCountInString(h)
	}
	for _, r := range t.rows {
		for i, c := range r {
			if n := utf8.RuneCountInString(c); i < len(widths) && n > widths[i] {
				widths[i] = n
			}
		}
	}
	line := func(cells []string) string {
		var b strings.Builder
		for i, c := range cells {
			if i >= len(widths) {
				break
			}
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if i > 0 {
				b.WriteString("  ")
			}
			if t.right[i] {
				b.WriteString(pad + c)
			} else if i == len(cells)-1 {
				b.WriteString(c)
			} else {
				b.WriteString(c + pad)
			}
		}
		return strings.TrimRight(b.String(), " ") + "\n"
	}
	if _, err := io.WriteString(w, line(t.header)); err != nil {
		return err
	}
	for _, r := range t.rows {
		if _, err := io.WriteString(w, line(r)); err != nil {
			return err
		}
	}
	return nil
}

// dash stands in for an empty cell so columns stay readable.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// parseSince accepts a duration back from now ("30d", "12h", "2w") or a
// date ("2026-01-01") or an RFC 3339 time.
func parseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	d, err := parseWindow(s)
	if err != nil {
		return time.Time{}, fmt.Errorf("--since %q: want a duration like 30d, 12h, 2w or a date like 2026-01-01", s)
	}
	return now.Add(-d), nil
}

// parseWindow reads durations with day and week units as well as Go's own.
func parseWindow(s string) (time.Duration, error) {
	if n := len(s); n > 1 && (s[n-1] == 'd' || s[n-1] == 'w') {
		v, err := strconv.Atoi(s[:n-1])
		if err != nil || v < 0 {
			return 0, fmt.Errorf("bad duration %q", s)
		}
		day := 24 * time.Hour
		if s[n-1] == 'w' {
			day *= 7
		}
		return time.Duration(v) * day, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("bad duration %q", s)
	}
	return d, nil
}
