package report

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"sort"
	"strconv"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/storage"
)

// The history's CSV form and the selection of its newest intervals, which
// the CLI applies to the rows of --server as to its own.

// HistoryCSVHeader is HistoryRow's JSON keys, in order; the
// vocabulary test holds them equal.
var HistoryCSVHeader = []string{"provider", "region", "zone", "instance_type", "price_type", "term", "payment", "offering_class", "os", "currency",
	"hourly_price", "upfront", "effective_hourly", "price_per_gpu_hour", "gpu_model", "gpu_count", "gpu_memory_gb", "valid_from", "valid_to", "last_seen"}

// HistoryCSVRow is one interval of `history --format csv`.
func HistoryCSVRow(r *storage.PriceInterval) []string {
	pgText := "" // unknown GPU count: empty, as null in JSON
	if pg, ok := pricewatch.PerGPUHour(r.EffectiveHourly, r.GPUCount); ok {
		pgText = pg.String()
	}
	to := ""
	if r.ValidTo != nil {
		to = r.ValidTo.UTC().Format(time.RFC3339)
	}
	return []string{r.Provider, r.Region, r.Zone, r.InstanceType, string(r.PriceType), r.Term, r.Payment, r.OfferingClass, r.OS, r.Currency,
		r.Hourly.String(), r.Upfront.String(), r.EffectiveHourly.String(), pgText, r.GPUModel, formatFloat(r.GPUCount), formatFloat(r.GPUMemoryGB),
		r.ValidFrom.UTC().Format(time.RFC3339), to, r.LastSeen.UTC().Format(time.RFC3339)}
}

// DropOldest removes the interval that starts first (the one beyond the
// limit), keeping the rest in order.
func DropOldest(rows []storage.PriceInterval) []storage.PriceInterval {
	oldest := 0
	for i, r := range rows {
		o := rows[oldest]
		if r.ValidFrom.Before(o.ValidFrom) || r.ValidFrom.Equal(o.ValidFrom) && r.ID < o.ID {
			oldest = i
		}
	}
	return append(rows[:oldest:oldest], rows[oldest+1:]...)
}

// KeepNewest keeps the n intervals that start last, in their order.
func KeepNewest(rows []storage.PriceInterval, n int) []storage.PriceInterval {
	if len(rows) <= n {
		return rows
	}
	idx := make([]int, len(rows))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool {
		ra, rb := rows[idx[a]], rows[idx[b]]
		if !ra.ValidFrom.Equal(rb.ValidFrom) {
			return ra.ValidFrom.After(rb.ValidFrom)
		}
		return ra.ID > rb.ID
	})
	keep := make([]bool, len(rows))
	for _, i := range idx[:n] {
		keep[i] = true
	}
	out := make([]storage.PriceInterval, 0, n)
	for i, r := range rows {
		if keep[i] {
			out = append(out, r)
		}
	}
	return out
}

// formatFloat writes a GPU count or memory size as the table does (no
// trailing zeros).
func formatFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// StreamHistory writes the history q selects as JSON (an array of
// HistoryRow) or CSV, row by row as the database returns them: a year of
// intervals is never held.
func StreamHistory(ctx context.Context, w io.Writer, db Store, asCSV bool, q HistoryQuery) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	n := 0
	var cw *csv.Writer
	if asCSV {
		cw = csv.NewWriter(bw)
		if err := cw.Write(HistoryCSVHeader); err != nil {
			return err
		}
	}
	err := EachHistory(ctx, db, q, func(r *storage.PriceInterval) error {
		if cw != nil {
			return cw.Write(HistoryCSVRow(r))
		}
		b, err := json.MarshalIndent(NewHistoryRow(r), "  ", "  ")
		if err != nil {
			return err
		}
		sep := ",\n  "
		if n == 0 {
			sep = "[\n  "
		}
		n++
		bw.WriteString(sep)
		_, err = bw.Write(b)
		return err
	})
	if err != nil {
		return err
	}
	if cw != nil {
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
	} else if n == 0 {
		bw.WriteString("[]\n")
	} else {
		bw.WriteString("\n]\n")
	}
	return bw.Flush()
}
