package table

import "strings"

// Column is one column of a table that must fit a width: columns with a
// drop rank are left out, lowest rank first, until it does.
type Column struct {
	Head   string // a leading ">" right-aligns, as in New
	Cells  []string
	Drop   int  // 0: never dropped
	Hidden bool // not shown at all
}

// AddRow appends one cell to each column.
func AddRow(cols []Column, cells ...string) {
	for i := range cols {
		cols[i].Cells = append(cols[i].Cells, cells[i])
	}
}

// Fit writes the table, leaving out droppable columns until every line
// fits l.Width (0 keeps every column), and returns the names of the
// columns that were left out (a "#" column is not named). It marks the
// dropped columns hidden in cols.
func Fit(b *strings.Builder, cols []Column, l Layout) ([]string, error) {
	var dropped []string
	for {
		var shown []Column
		for _, c := range cols {
			if !c.Hidden {
				shown = append(shown, c)
			}
		}
		heads := make([]string, len(shown))
		for i, c := range shown {
			heads[i] = c.Head
		}
		t := New(heads...)
		for r := range shown[0].Cells {
			cells := make([]string, len(shown))
			for i, c := range shown {
				cells[i] = c.Cells[r]
			}
			t.Add(cells...)
		}
		var out strings.Builder
		if err := t.Write(&out, l); err != nil {
			return nil, err
		}
		next := -1
		if l.Width > 0 && WidestLine(out.String()) > l.Width {
			for i, c := range cols {
				if !c.Hidden && c.Drop > 0 && (next < 0 || c.Drop < cols[next].Drop) {
					next = i
				}
			}
		}
		if next < 0 {
			b.WriteString(out.String())
			return dropped, nil
		}
		cols[next].Hidden = true
		if name := strings.TrimPrefix(cols[next].Head, ">"); name != "#" {
			dropped = append(dropped, name)
		}
	}
}
