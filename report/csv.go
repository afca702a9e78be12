package report

import (
	"encoding/csv"
	"io"
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
