package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync/atomic"

	"golang.org/x/term"

	"github.com/pricewatch/pricewatch/internal/table"
)

// Widths the tables and charts fit. On a terminal (or with $COLUMNS set)
// they fit its width, but never narrower than minWidth; off a terminal
// with no $COLUMNS, tables keep every column (0: no limit) and charts are
// drawn defaultChartWidth wide.
const (
	minWidth          = 60
	defaultChartWidth = 100
)

// width is the current command's width, set once per command line by run
// (atomic: the daemon and a CLI command may run in one test process).
var width atomic.Int64

// tableWidth is the width tables and wrapped text fit; 0 means no limit.
func tableWidth() int { return int(width.Load()) }

// chartWidth is the width of a terminal chart.
func chartWidth() int {
	if w := tableWidth(); w > 0 {
		return w
	}
	return defaultChartWidth
}

// setWidth works out the width for output written to stdout: $COLUMNS
// when set to a number, else the terminal's width, else no limit.
func setWidth(stdout io.Writer) {
	width.Store(int64(outputWidth(stdout)))
}

func outputWidth(stdout io.Writer) int {
	if v := strings.TrimSpace(os.Getenv("COLUMNS")); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			return max(n, minWidth)
		}
	}
	if f, ok := stdout.(fder); ok && term.IsTerminal(int(f.Fd())) {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return max(w, minWidth)
		}
	}
	return 0
}

// fder is what *os.File offers and a bytes.Buffer does not.
type fder interface{ Fd() uintptr }

// cutMinLast is the narrowest a table's last, free-text column is cut to
// on a narrow terminal (the JSON and CSV keep it whole).
const cutMinLast = 12

// layout is how the CLI's tables meet tableWidth(): a table wider than
// the terminal cuts its last column (a summary, an error, a place) to what
// is left, ending it in "…".
func layout() table.Layout { return table.Layout{Width: tableWidth(), MinLast: cutMinLast} }

func writeTable(w io.Writer, t *table.Table) error { return t.Write(w, layout()) }

// fitTable writes the table, leaving out droppable columns until every
// line fits tableWidth(), and returns the names of the columns left out.
func fitTable(b *strings.Builder, cols []table.Column) ([]string, error) {
	return table.Fit(b, cols, layout())
}

// writeFitted writes cols fitted to tableWidth() and says which columns
// were left out, as compare does.
func writeFitted(w io.Writer, cols []table.Column) error {
	var b strings.Builder
	if err := fitNoting(&b, cols, "use --wide, or --format json or csv"); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// fitNoting writes cols into b fitted to tableWidth() and, when columns
// were left out, a line naming them and where else to see them (hint).
func fitNoting(b *strings.Builder, cols []table.Column, hint string) error {
	dropped, err := fitTable(b, cols)
	if err != nil {
		return err
	}
	if len(dropped) > 0 {
		b.WriteString(table.Wrap(fmt.Sprintf("Left out to fit %d columns: %s (%s).", tableWidth(), strings.Join(dropped, ", "), hint), tableWidth(), "  "))
	}
	return nil
}
