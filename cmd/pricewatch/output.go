package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch/cmd/internal/clitext"
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
	return usagef("--format %q: want %s", f, strings.Join(allowed, ", "))
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
	return report.WriteCSV(w, header, rows)
}

// dash stands in for an empty cell so columns stay readable.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// parseSince accepts a duration back from now ("30d", "12h", "2w") or a
// date ("2026-01-01") or an RFC 3339 time.
func parseSince(s string, now time.Time) (time.Time, error) {
	return report.ParseSince("--since", s, now)
}

// writeRows prints rows (JSON row structs) as JSON, or as CSV of their
// JSON keys.
func writeRows[R any](w io.Writer, format string, rows []R) error {
	if format == formatJSON {
		return writeJSON(w, rows)
	}
	return writeRowsCSV(w, rows)
}

// writeUnlessTable writes rows in a machine format (JSON or CSV), or, for
// a table of no rows, the line none; it reports whether it wrote, so that
// the caller writes the table of the rows it has.
func writeUnlessTable[R any](w io.Writer, format string, rows []R, none string) (bool, error) {
	if format != formatTable {
		return true, writeRows(w, format, rows)
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, none)
		return true, err
	}
	return false, nil
}

// writeRowsCSV writes rows as CSV of their JSON keys (report.WriteRowsCSV).
func writeRowsCSV(w io.Writer, rows any) error { return report.WriteRowsCSV(w, rows) }

// tableTimeLayout is how every table prints a time: RFC 3339 in UTC,
// shortened to the minute (JSON and CSV keep the seconds). One layout, so
// that `runs`, `history`, `availability`, `held` and `alerts list` read
// alike (issue 20 item 16).
const tableTimeLayout = "2006-01-02T15:04Z"

// tableTimeOf prints t for a table.
func tableTimeOf(t time.Time) string { return t.UTC().Format(tableTimeLayout) }

// tableTime prints an RFC 3339 time of a JSON row for a table; "" for a
// null, and an unparsable string as it is.
func tableTime(v any) string {
	s := clitext.Str(v)
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return s
	}
	return tableTimeOf(t)
}
