package report

import (
	"context"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/storage"
)

// SpotBands are the current spot risk bands by place: AWS Spot Advisor's
// interruption bands (Linux, regional) and Azure's eviction-rate bands
// (regional), keyed by provider, region and instance type. A spot offer
// without a stored band has none: no band is no information, never "low
// risk".
type SpotBands struct {
	interruption, eviction map[bandPlace]string
}

type bandPlace struct{ provider, region, instanceType string }

// CurrentSpotBands reads the current interruption and eviction bands.
func CurrentSpotBands(ctx context.Context, st Store) (SpotBands, error) {
	rows, err := st.Signals(ctx, storage.SignalFilter{Kinds: []pricewatch.SignalKind{pricewatch.InterruptionBand, pricewatch.EvictionBand}, CurrentOnly: true})
	if err != nil {
		return SpotBands{}, err
	}
	b := SpotBands{interruption: map[bandPlace]string{}, eviction: map[bandPlace]string{}}
	for _, r := range rows {
		if r.Zone != "" {
			continue
		}
		p := bandPlace{r.Provider, r.Region, r.InstanceType}
		switch r.Kind {
		case pricewatch.InterruptionBand:
			// The Spot Advisor bands each operating system; spot prices
			// compared are Linux ones unless asked otherwise.
			if pricewatch.ShapeValue(r.Shape, "os") == pricewatch.Linux {
				b.interruption[p] = r.Value
			}
		case pricewatch.EvictionBand:
			b.eviction[p] = r.Value
		}
	}
	return b, nil
}

// Of returns a spot offer's interruption band and eviction band ("" where
// none is stored, and for every offer that is not spot). The interruption
// band is Linux's, so a Windows offer has none.
func (b SpotBands) Of(o pricewatch.Offer) (interruption, eviction string) {
	if o.PriceType != pricewatch.Spot {
		return "", ""
	}
	p := bandPlace{o.Provider, o.Region, o.InstanceType}
	if o.OS == pricewatch.Linux {
		interruption = b.interruption[p]
	}
	return interruption, b.eviction[p]
}
