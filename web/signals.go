package web

import (
	"context"
	"strings"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/report"
)

// signalView is one current capacity signal as the GPU and instance-type
// pages show it (issue 23 item 7): what it is, where, for which request,
// its window (capacity blocks), its value and since when.
type signalView struct {
	Kind, Provider, Place, InstanceType string
	Request, Window, Value, PerGPUHour  string
	Detail, Since                       string
}

// signalKindText is a kind's heading on the pages.
var signalKindText = map[pricewatch.SignalKind]string{
	pricewatch.InterruptionBand: "spot interruption band",
	pricewatch.CapacityBlock:    "capacity block",
	pricewatch.PlacementScore:   "spot placement score",
	pricewatch.EvictionBand:     "spot eviction band",
}

// currentSignals are the current signals of a GPU model or an instance
// type, in the store's order (kind, place, request), ready to show.
func (s *Server) currentSignals(ctx context.Context, q report.SignalQuery) ([]signalView, error) {
	rows, err := report.Signals(ctx, s.Store, q)
	if err != nil {
		return nil, err
	}
	out := make([]signalView, 0, len(rows))
	for _, r := range rows {
		v := signalView{Kind: signalKindText[r.Kind], Provider: r.Provider, Place: pricewatch.Place(r.Region, r.Zone), InstanceType: r.InstanceType,
			Request: strings.ReplaceAll(r.Shape, ",", " "), Value: r.Value, Detail: r.Detail, Since: whenText(r.Since), Window: "–", PerGPUHour: "–"}
		if v.Kind == "" {
			v.Kind = string(r.Kind)
		}
		if v.Request == "" {
			v.Request = "–"
		}
		if r.Unit != "band" && r.Unit != "" {
			v.Value += " " + r.Unit
		}
		if !r.Start.IsZero() {
			v.Window = r.Start.UTC().Format("Jan 2 15:04") + " → " + r.End.UTC().Format("Jan 2 15:04") + " UTC"
		}
		if per, ok := r.BlockPerGPUHour(); ok {
			v.PerGPUHour = rateText(per) + " " + r.Unit
		}
		out = append(out, v)
	}
	return out, nil
}

// spotBand is what a spot price's band cell says: the interruption band
// (AWS) or the eviction band (Azure), "" where none is stored or the price
// is not spot.
func spotBand(b report.SpotBands, o pricewatch.Offer) string {
	interruption, eviction := b.Of(o)
	if interruption != "" {
		return interruption
	}
	return eviction
}
