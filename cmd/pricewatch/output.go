package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch/report"
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

// The JSON value types are the report package's, so that the CLI and the
// API print the same bytes.
type (
	jsonDecimal     = report.Decimal
	jsonNullDecimal = report.NullDecimal
)

func nullDecimal(d decimal.Decimal, ok bool) jsonNullDecimal { return report.NewNullDecimal(d, ok) }

// jsonTime prints RFC 3339 in UTC; a nil time is null.
func jsonTime(t *time.Time) any { return report.Time(t) }

func writeJSON(w io.Writer, v any) error { return report.WriteJSON(w, v) }

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
	return report.ParseSince("--since", s, now)
}
