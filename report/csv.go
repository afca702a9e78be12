package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// WriteCSV writes a header and rows as CSV: the one CSV writer of the
// commands' and the API's tables.
func WriteCSV(w io.Writer, header []string, rows [][]string) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	if err := cw.WriteAll(rows); err != nil { // WriteAll flushes
		return err
	}
	return cw.Error()
}

// WriteRowsCSV writes rows (a slice of JSON row structs) as CSV whose header
// is the rows' JSON keys in order and whose cells are their JSON values:
// strings unquoted, null empty, nested lists and objects as compact JSON.
// Deriving the CSV from the JSON keeps the two formats' names one.
func WriteRowsCSV(w io.Writer, rows any) error {
	raw, err := json.Marshal(rows)
	if err != nil {
		return fmt.Errorf("encoding rows: %w", err)
	}
	var objs []json.RawMessage
	if err := json.Unmarshal(raw, &objs); err != nil {
		return fmt.Errorf("encoding rows: %w", err)
	}
	// rows is a slice, or a pointer to one (as decoded into).
	t := reflect.TypeOf(rows)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	header := jsonKeys(t.Elem())
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
	return WriteCSV(w, header, out)
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
