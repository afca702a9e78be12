package report

import (
	"context"
	"strings"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/internal/table"
	"github.com/pricewatch/pricewatch/storage"
)

// SignalQuery selects capacity signals (issue 23) for availability,
// history and /api/v1/signals.
type SignalQuery struct {
	InstanceType string
	GPU          string // a model or family, matched as compare does
	Kinds        []pricewatch.SignalKind
	Providers    []string
	Regions      []string
	// All includes ended intervals; otherwise only current ones.
	All bool
	// Since (with All) keeps intervals still valid at or after it.
	Since time.Time
}

// Signals returns the stored signal intervals of q.
func Signals(ctx context.Context, st Store, q SignalQuery) ([]storage.SignalInterval, error) {
	rows, err := st.Signals(ctx, storage.SignalFilter{Providers: q.Providers, Kinds: q.Kinds, InstanceType: q.InstanceType,
		Regions: q.Regions, CurrentOnly: !q.All, Since: q.Since})
	if err != nil {
		return nil, err
	}
	return matchingGPU(rows, q.GPU, func(r storage.SignalInterval) string { return r.GPUModel }), nil
}

// SignalRow is the JSON shape of a signal interval (/api/v1/signals).
// Times are RFC 3339 UTC or null; per_gpu_hour is a capacity block's fee
// per GPU-hour, as an exact decimal string, or null.
type SignalRow struct {
	Provider     string  `json:"provider"`
	Kind         string  `json:"kind"`
	Region       string  `json:"region"`
	Zone         string  `json:"zone"`
	InstanceType string  `json:"instance_type"`
	GPUModel     string  `json:"gpu_model"`
	GPUCount     float64 `json:"gpu_count"`
	Shape        string  `json:"shape"`
	WindowStart  any     `json:"window_start"`
	WindowEnd    any     `json:"window_end"`
	Value        string  `json:"value"`
	Unit         string  `json:"unit"`
	PerGPUHour   *string `json:"per_gpu_hour"`
	Detail       string  `json:"detail"`
	Source       string  `json:"source"`
	Since        any     `json:"since"`
	Until        any     `json:"until"`
	// EndedMissing: the interval ended because a complete answer no
	// longer listed the signal.
	EndedMissing bool `json:"ended_missing"`
}

func optTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return Time(&t)
}

// SignalRows turns intervals into rows; none is an empty list.
func SignalRows(rows []storage.SignalInterval) []SignalRow {
	out := make([]SignalRow, 0, len(rows))
	for _, r := range rows {
		since := r.Since
		row := SignalRow{Provider: r.Provider, Kind: string(r.Kind), Region: r.Region, Zone: r.Zone, InstanceType: r.InstanceType,
			GPUModel: r.GPUModel, GPUCount: r.GPUCount, Shape: r.Shape, WindowStart: optTime(r.Start), WindowEnd: optTime(r.End),
			Value: r.Value, Unit: r.Unit, Detail: r.Detail, Source: r.Source, Since: Time(&since), Until: Time(r.Until), EndedMissing: r.EndedMissing}
		if per, ok := r.BlockPerGPUHour(); ok {
			s := per.StringFixed(4)
			row.PerGPUHour = &s
		}
		out = append(out, row)
	}
	return out
}

// SignalsTable is the table the CLI prints under availability and history;
// timeOf formats a time as the command's other tables do.
func SignalsTable(rows []storage.SignalInterval, timeOf func(time.Time) string) *table.Table {
	t := table.New("SIGNAL", "PROVIDER", "REGION", "ZONE", "INSTANCE TYPE", "REQUEST", "WINDOW", "VALUE", "PER GPU-HOUR", "SINCE", "UNTIL")
	p := pricewatch.Printable
	for _, r := range rows {
		window, until, per := "-", "-", "-"
		if !r.Start.IsZero() {
			window = timeOf(r.Start) + " → " + timeOf(r.End)
		}
		if r.Until != nil {
			until = timeOf(*r.Until)
		}
		if v, ok := r.BlockPerGPUHour(); ok {
			per = v.StringFixed(4) + " " + p(r.Unit)
		}
		value := p(r.Value)
		if r.Unit != "band" {
			value += " " + p(r.Unit)
		}
		t.Add(string(r.Kind), p(r.Provider), p(r.Region), p(dashIfEmpty(r.Zone)), p(r.InstanceType), p(dashIfEmpty(strings.ReplaceAll(r.Shape, ",", " "))),
			window, value, per, timeOf(r.Since), until)
	}
	return t
}

func dashIfEmpty(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
