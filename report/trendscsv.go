package report

import (
	"fmt"
	"io"
)

// WriteTrendsCSV writes movers and cheapest points as one table told apart
// by the kind column, so that one file holds the whole report.
func WriteTrendsCSV(w io.Writer, r Trends) error {
	// The columns are the movers' JSON keys, then the cheapest points' keys
	// the movers lack, after the kind column.
	header := []string{"kind", "provider", "region", "zone", "instance_type", "price_type", "term", "payment",
		"offering_class", "os", "gpu_model", "gpu_count", "currency", "then_effective_hourly", "effective_hourly", "change",
		"change_pct", "last_change", "gpu", "at", "price_per_gpu_hour", "native_currency", "native_price_per_gpu_hour", "fx_rate", "fx_date", "fx_source", "fx_stale"}
	var rows [][]string
	for _, m := range r.MoverRows() {
		rows = append(rows, []string{"mover", m.Provider, m.Region, m.Zone, m.InstanceType, string(m.PriceType), m.Term, m.Payment,
			m.OfferingClass, m.OS, m.GPUModel, formatFloat(m.GPUCount), m.Currency, decText(m.ThenEffectiveHourly), decText(m.EffectiveHourly),
			decText(m.Change), decText(m.ChangePct), timeText(m.LastChange), "", "", "", "", "", "", "", "", ""})
	}
	cheapest, _ := r.CheapestRows()
	for _, c := range cheapest {
		date := ""
		if c.FXDate != nil {
			date = *c.FXDate
		}
		rows = append(rows, []string{"cheapest", c.Provider, c.Region, c.Zone, c.InstanceType, string(c.PriceType), c.Term, c.Payment,
			c.OfferingClass, c.OS, c.GPUModel, formatFloat(c.GPUCount), c.Currency, "", "", "", "", "", c.GPU, c.At, decText(c.PricePerGPUHour),
			c.NativeCurrency, decText(c.NativePricePerGPUHour), c.FXRate.Text(), date, c.FXSource, fmt.Sprint(c.FXStale)})
	}
	return WriteCSV(w, header, rows)
}

// timeText is a JSON time value (an RFC 3339 string or null) as a CSV cell.
func timeText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

// decText prints an exact decimal for CSV.
func decText(d Decimal) string { return d.String() }
