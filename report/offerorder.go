package report

import (
	"container/heap"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
)

// The first rows of the offers table's order, kept as the rows come: the
// offers page shows the first 1,000 of 45,050 (the scale history's),
// and ordering every row, each 536 bytes held until the page is written,
// and reading the 30-day move of each was most of what a new data
// version cost the page and the high-water mark of the daemon's memory
// (issue 30). OfferTableQuery.Limit asks for them.

// rowOrder is the table's order as one comparison: SortByPrice's, then,
// with a column, SortOfferRows' (stable, so ties keep the price order).
type rowOrder struct {
	column  string
	numeric bool
	desc    bool
}

func newRowOrder(column string, desc bool) rowOrder {
	c, _ := OfferColumnByID(column)
	return rowOrder{column: column, numeric: c.Numeric, desc: desc}
}

// rankedRow is a row with what ordering it and completing it needs.
type rankedRow struct {
	row OfferTableRow
	// v and f are the row's value in the order's column (f its float).
	v SortValue
	f float64
	// offerID and moved (its price began in the move window: its move is
	// read from the history) complete the row once it is kept.
	offerID int64
	moved   bool
}

// value sets r's sort value in o's column.
func (o rowOrder) value(r *rankedRow) {
	if o.column != "" {
		r.v = OfferSortValue(&r.row, o.column)
		r.f = r.v.Num.InexactFloat64()
	}
}

func priceCompare(a, b *OfferTableRow) int {
	return analysis.PriceCompare(a.PricePerGPUHour.Valid, a.PricePerGPUHour.D, &a.OfferKeyJSON, b.PricePerGPUHour.Valid, b.PricePerGPUHour.D, &b.OfferKeyJSON)
}

func (o rowOrder) compare(a, b *rankedRow) int {
	if o.column == "" {
		c := priceCompare(&a.row, &b.row)
		if o.desc {
			return -c
		}
		return c
	}
	if c := o.columnCompare(a, b); c != 0 {
		return c
	}
	return priceCompare(&a.row, &b.row)
}

// columnCompare is SortOfferRows' comparison of the rows' cells.
func (o rowOrder) columnCompare(a, b *rankedRow) int {
	return compareCells(o.numeric, o.desc, &a.v, a.f, &b.v, b.f)
}

// compareCells orders two cells of a column, each its value and (in a
// numeric column) that as a float, compared first: unknown values last
// either way, the others reversed by desc.
func compareCells(numeric, desc bool, a *SortValue, af float64, b *SortValue, bf float64) int {
	if a.Null || b.Null {
		switch {
		case a.Null == b.Null:
			return 0
		case a.Null:
			return 1
		}
		return -1
	}
	var c int
	switch {
	case !numeric:
		c = strings.Compare(a.Text, b.Text)
	case af < bf:
		c = -1
	case af > bf:
		c = 1
	default:
		c = a.Num.Cmp(b.Num)
	}
	if desc {
		return -c
	}
	return c
}

// firstRows keeps the first n rows of the order among those offered: a
// heap with the last of them on top.
type firstRows struct {
	o    rowOrder
	n    int
	rows []*rankedRow
	// seen counts the rows offered.
	seen int
}

func (f *firstRows) Len() int           { return len(f.rows) }
func (f *firstRows) Less(i, j int) bool { return f.o.compare(f.rows[i], f.rows[j]) > 0 }
func (f *firstRows) Swap(i, j int)      { f.rows[i], f.rows[j] = f.rows[j], f.rows[i] }
func (f *firstRows) Push(x any)         { f.rows = append(f.rows, x.(*rankedRow)) }
func (f *firstRows) Pop() any {
	r := f.rows[len(f.rows)-1]
	f.rows = f.rows[:len(f.rows)-1]
	return r
}

// leavesOut reports, before the row is made, that a row of this price per
// GPU-hour and key would be left out: all n are kept and the last of them
// comes before it in the default order (a column's order needs the row).
// Of the 45,050 offers of the scale history read for the offers page's
// first 1,000, most are left out so; making each row first (its strings
// and decimals) was 23 % of the table's CPU in a refresh round on share 1
// (BenchmarkScaleRefreshRound's profile). It counts the row as offered.
func (f *firstRows) leavesOut(perGPU bool, price decimal.Decimal, key *pricewatch.OfferKeyJSON) bool {
	if f.o.column != "" || len(f.rows) < f.n {
		return false
	}
	last := &f.rows[0].row
	c := analysis.PriceCompare(perGPU, price, key, last.PricePerGPUHour.Valid, last.PricePerGPUHour.D, &last.OfferKeyJSON)
	if f.o.desc {
		c = -c
	}
	if c < 0 {
		return false
	}
	f.seen++
	return true
}

// offer takes r, filled by the caller, and gives back a row for the
// caller to fill next: r itself when it is not among the first n, the
// one it displaced when it is.
func (f *firstRows) offer(r *rankedRow) *rankedRow {
	f.seen++
	if len(f.rows) < f.n {
		heap.Push(f, r)
		return new(rankedRow)
	}
	if f.o.compare(r, f.rows[0]) >= 0 {
		return r
	}
	last := f.rows[0]
	f.rows[0] = r
	heap.Fix(f, 0)
	return last
}

// movedRow is a row (an index into the table's rows) whose 30-day move
// is read from the history, and its offer.
type movedRow struct {
	row int
	id  int64
}

// table is the kept rows in order, each with its place in the default
// order among them (the browser sorts ties by it), and those whose
// 30-day move is to be read.
func (f *firstRows) table() (rows []OfferTableRow, moved []movedRow) {
	byPrice := slices.Clone(f.rows)
	slices.SortFunc(byPrice, func(a, b *rankedRow) int { return priceCompare(&a.row, &b.row) })
	for i, r := range byPrice {
		r.row.order = i
	}
	slices.SortFunc(f.rows, f.o.compare)
	rows = make([]OfferTableRow, len(f.rows))
	for i, r := range f.rows {
		rows[i] = r.row
		if r.moved {
			moved = append(moved, movedRow{i, r.offerID})
		}
	}
	return rows, moved
}
