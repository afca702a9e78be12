package main

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"

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

// writeRowsCSV writes rows (a slice of JSON row structs) as CSV whose header
// is the rows' JSON keys in order and whose cells are their JSON values:
// strings unquoted, null empty, nested lists and objects as compact JSON.
// Deriving the CSV from the JSON keeps the two formats' names one.
func writeRowsCSV(w io.Writer, rows any) error {
	raw, err := json.Marshal(rows)
	if err != nil {
		return fmt.Errorf("encoding rows: %w", err)
	}
	var objs []json.RawMessage
	if err := json.Unmarshal(raw, &objs); err != nil {
		return fmt.Errorf("encoding rows: %w", err)
	}
	header := jsonKeys(reflect.TypeOf(rows).Elem())
	out := make([][]string, 0, len(objs))
	for _, o := range objs {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(o, &fields); err != nil {
			return fmt.Errorf("encoding rows: %w", err)
		}
		cells := make([]string, len(header))
		for i, k := range header {
			cells[i] = csvCell(fields[k])
		}
		out = append(out, cells)
	}
	return writeCSV(w, header, out)
}

// jsonKeys lists the JSON keys of a struct type in field order (embedded
// structs inlined, "-" skipped).
func jsonKeys(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var keys []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if f.Anonymous && name == "" {
			keys = append(keys, jsonKeys(f.Type)...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		keys = append(keys, name)
	}
	return keys
}

func csvCell(v json.RawMessage) string {
	if len(v) == 0 || string(v) == "null" {
		return ""
	}
	if v[0] == '"' {
		var s string
		if err := json.Unmarshal(v, &s); err == nil {
			return s
		}
	}
	return string(v)
}

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
	s := str(v)
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return s
	}
	return tableTimeOf(t)
}
