package digest

import (
	"sort"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
)

// BlockInterval is a stored capacity block offering (a signal of kind
// capacity_block): offered from Since until Until, nil while it still is.
type BlockInterval struct {
	pricewatch.Signal
	Since time.Time
	Until *time.Time
}

// MaxBlocks is how many of the week's capacity blocks the digest lists,
// cheapest per GPU-hour first; BlocksSeen counts them all.
const MaxBlocks = 10

// CapacityBlock is a capacity block of a watched GPU offered at some time
// during the week (issue 23 item 7): capacity that exists for its window,
// at an upfront fee.
type CapacityBlock struct {
	Provider, Region, Zone, InstanceType, GPUModel string
	// GPUs in the whole block (instances × GPUs per instance).
	GPUs       float64
	Start, End time.Time
	// Hours is what the fee buys (pricewatch.Signal.BlockHours): the
	// block's duration, which the window can fall short of.
	Hours float64
	// PerGPUHour is the fee over the GPU-hours it sells in the digest's
	// currency; not valid without an exchange rate.
	PerGPUHour       decimal.NullDecimal
	NativeCurrency   string
	NativeFee        decimal.Decimal
	NativePerGPUHour decimal.Decimal
	// FirstSeen is when it was first offered; Still whether it is offered
	// now (a block bought by someone else or past its start is gone).
	FirstSeen time.Time
	Still     bool
}

// Days is the block's duration in days.
func (c CapacityBlock) Days() string {
	return strconv.FormatFloat(c.Hours/24, 'f', -1, 64)
}

// weekBlocks are the capacity blocks of watched models offered at some
// time in the week [from, now], cheapest per GPU-hour first (those without
// a rate last), at most MaxBlocks, and how many there were.
func weekBlocks(ivs []BlockInterval, watched func(string) bool, in *Input, conv analysis.Converter, cur string, from, now time.Time) ([]CapacityBlock, int) {
	var out []CapacityBlock
	for _, iv := range ivs {
		if iv.Kind != pricewatch.CapacityBlock || !watched(iv.GPUModel) || !in.inScope(iv.Provider, iv.Region, "") {
			continue
		}
		if iv.Since.After(now) || (iv.Until != nil && iv.Until.Before(from)) {
			continue
		}
		per, ok := iv.BlockPerGPUHour()
		if !ok {
			continue
		}
		fee, err := decimal.NewFromString(iv.Value)
		if err != nil {
			continue
		}
		n, err := strconv.Atoi(pricewatch.ShapeValue(iv.Shape, "instance_count"))
		if err != nil || n <= 0 {
			n = 1
		}
		b := CapacityBlock{Provider: iv.Provider, Region: iv.Region, Zone: iv.Zone, InstanceType: iv.InstanceType, GPUModel: iv.GPUModel,
			GPUs: float64(n) * iv.GPUCount, Start: iv.Start, End: iv.End, Hours: iv.BlockHours(), NativeCurrency: iv.Unit, NativeFee: fee, NativePerGPUHour: per,
			FirstSeen: iv.Since, Still: iv.Until == nil}
		if conv != nil {
			if q, err := conv.Quote(iv.Unit, cur, now); err == nil {
				b.PerGPUHour = decimal.NewNullDecimal(q.Convert(per).Round(analysis.RateDecimals))
			}
		} else if iv.Unit == cur {
			b.PerGPUHour = decimal.NewNullDecimal(per)
		}
		out = append(out, b)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.PerGPUHour.Valid != b.PerGPUHour.Valid {
			return a.PerGPUHour.Valid
		}
		if c := a.PerGPUHour.Decimal.Cmp(b.PerGPUHour.Decimal); c != 0 {
			return c < 0
		}
		if !a.Start.Equal(b.Start) {
			return a.Start.Before(b.Start)
		}
		return a.Zone+a.InstanceType < b.Zone+b.InstanceType
	})
	seen := len(out)
	if len(out) > MaxBlocks {
		out = out[:MaxBlocks]
	}
	return out, seen
}
