package analysis

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/gpu"
)

// Spot options are weighed by their interruption band (issue 23 item 7):
// an interruption loses the work since the last checkpoint and the time
// to get capacity back, so a spot option is costed at its price plus an
// expected-interruption overhead, the upper bound of its band (AWS Spot
// Advisor's share of capacity reclaimed over the trailing month): the
// work of one interrupted hour in twenty is paid again in the <5% band,
// one in five in 15-20%. The >20% band and spot without a stored band
// (no Spot Advisor data for the place, or another cloud) are costed at
// 25%: no band is no information, never low risk. Over a month or more a
// >20% band is left out: a job that runs for months cannot plan around
// more than one interruption in five.
var bandOverhead = map[string]decimal.Decimal{
	"<5%":    decimal.RequireFromString("0.05"),
	"5-10%":  decimal.RequireFromString("0.10"),
	"10-15%": decimal.RequireFromString("0.15"),
	"15-20%": decimal.RequireFromString("0.20"),
	">20%":   decimal.RequireFromString("0.25"),
}

// UnknownBandOverhead is the overhead of a spot option without a band.
var UnknownBandOverhead = decimal.RequireFromString("0.25")

// highBand is left out over LongHorizonHours or more.
const highBand = ">20%"

// LongHorizonHours is the horizon from which a >20% band is left out.
const LongHorizonHours = pricewatch.HoursPerMonth

// InterruptionOverhead is the share added to a spot option's cost for its
// band ("" when none is stored).
func InterruptionOverhead(band string) decimal.Decimal {
	if o, ok := bandOverhead[band]; ok {
		return o
	}
	return UnknownBandOverhead
}

// BlockOption is a capacity block that fits the question: it covers the
// whole horizon with at least the GPUs asked, for its window (which starts
// when the cloud says, not now) at an upfront fee paid whatever the use.
type BlockOption struct {
	pricewatch.Signal
	// GPUs in the block (instances × GPUs per instance) and its hours.
	GPUs  float64
	Hours int64
	// Fee is the upfront fee in Currency; PerGPUHour spreads it over
	// every GPU-hour of the window.
	Currency   string
	Fee        decimal.Decimal
	PerGPUHour decimal.Decimal
	FXUsed
	FXError string
}

// Label names the block in one line: "8 × H100 (1 × p5.48xlarge) for 7
// days from Dec 14 11:30 UTC in us-east-2b".
func (b BlockOption) Label() string {
	place := b.Region
	if b.Zone != "" {
		place = b.Zone
	}
	days := b.BlockHours() / 24
	n := pricewatch.ShapeValue(b.Shape, "instance_count")
	if n == "" {
		n = "1"
	}
	unit := "days"
	if days == 1 {
		unit = "day"
	}
	return fmt.Sprintf("%s × %s (%s × %s %s) for %s %s from %s in %s", trim(b.GPUs), b.GPUModel, n, b.Provider, b.InstanceType,
		trim(days), unit, b.Start.UTC().Format("Jan 2 15:04 UTC"), place)
}

func trim(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// blockOptions are the capacity blocks of the GPU that fit: at least
// count GPUs, a window at least the horizon long, in scope; cheapest per
// GPU-hour first, the unconverted after in key order.
func blockOptions(blocks []pricewatch.Signal, opts RecommendOptions, horizon int64) (ranked, unconverted []BlockOption) {
	for _, s := range blocks {
		if s.Kind != pricewatch.CapacityBlock || !gpu.Matches(opts.GPU, s.GPUModel) || !inSet(opts.Providers, s.Provider) || !inSet(opts.Regions, s.Region) {
			continue
		}
		per, ok := s.BlockPerGPUHour()
		if !ok {
			continue
		}
		n, err := strconv.Atoi(pricewatch.ShapeValue(s.Shape, "instance_count"))
		if err != nil || n <= 0 {
			n = 1
		}
		b := BlockOption{Signal: s, GPUs: float64(n) * s.GPUCount, Hours: int64(s.BlockHours())}
		if b.GPUs < float64(opts.Count) || b.Hours < horizon {
			continue
		}
		fee, err := decimal.NewFromString(s.Value)
		if err != nil {
			continue
		}
		q, err := quote(opts.FX, s.Unit, opts.Currency, opts.At)
		if err != nil {
			b.Currency, b.Fee, b.PerGPUHour, b.FXError = s.Unit, fee, per, err.Error()
			unconverted = append(unconverted, b)
			continue
		}
		b.Currency, b.FXUsed = q.To, fxUsed(q)
		b.Fee, b.PerGPUHour = q.Convert(fee).Round(RateDecimals), q.Convert(per).Round(RateDecimals)
		ranked = append(ranked, b)
	}
	sort.SliceStable(ranked, func(i, j int) bool {
		if c := ranked[i].PerGPUHour.Cmp(ranked[j].PerGPUHour); c != 0 {
			return c < 0
		}
		return ranked[i].Start.Before(ranked[j].Start)
	})
	return ranked, unconverted
}
