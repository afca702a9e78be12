package digest

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
)

// TestMoveShown: a move reads per GPU-hour when both ends have a GPU
// count, else as the whole instance's price, never mixing the two.
func TestMoveShown(t *testing.T) {
	d := decimal.RequireFromString
	perGPU := Move{From: d("98.32"), To: d("88.488"),
		FromPerGPU: decimal.NewNullDecimal(d("12.29")), ToPerGPU: decimal.NewNullDecimal(d("11.061"))}
	if from, to := perGPU.Shown(); !from.Equal(d("12.29")) || !to.Equal(d("11.061")) {
		t.Errorf("per GPU: %s → %s", from, to)
	}
	oneEnd := perGPU
	oneEnd.FromPerGPU = decimal.NullDecimal{}
	if from, to := oneEnd.Shown(); !from.Equal(d("98.32")) || !to.Equal(d("88.488")) {
		t.Errorf("one end without a GPU count: %s → %s, want the instance's prices", from, to)
	}
}

// TestTopMoversInBatches: the week's top moves computed a few series at a
// time are those of every series at once, ties (equal moves) ordered by
// key as Movers orders them, and only the series kept are considered.
func TestTopMoversInBatches(t *testing.T) {
	now := time.Date(2026, 12, 31, 18, 0, 0, 0, time.UTC)
	var series []analysis.Series
	for i := 0; i < 40; i++ {
		o := pricewatch.Offer{Provider: "azure", Region: fmt.Sprintf("r%02d", i), InstanceType: "T", PriceType: pricewatch.Spot,
			OS: pricewatch.Linux, Currency: "USD", Hardware: pricewatch.Hardware{GPUModel: []string{"H100", "L4"}[i%2], GPUCount: 1}}
		then := decimal.NewFromInt(100)
		// Moves of 0 to ±12 %, many equal: the order among equals is the key's.
		to := then.Add(decimal.NewFromInt(int64((i*7)%13 - 6)).Mul(decimal.NewFromInt(2)))
		changed := now.Add(-time.Duration(i%5+1) * 24 * time.Hour)
		s := analysis.Series{Key: o.Key(), Intervals: []analysis.Interval{
			analysis.NewInterval(o, then, now.Add(-30*24*time.Hour), changed),
			analysis.NewInterval(o, to, changed, time.Time{}),
		}}
		series = append(series, s)
	}
	keep := func(s analysis.Series) bool { return s.Latest().GPUModel == "H100" }
	var kept []analysis.Series
	for _, s := range series {
		if keep(s) {
			kept = append(kept, s)
		}
	}
	label := analysis.WindowLabel(Week)
	want := analysis.Movers(analysis.OfferTrends(kept, analysis.TrendOptions{Now: now, Window: Week, Changes: []time.Duration{Week}}), label, MaxMoves)
	if len(want) != MaxMoves {
		t.Fatalf("%d movers, want %d to compare", len(want), MaxMoves)
	}
	for _, size := range []int{1, 3, 7, 64} {
		got, _ := topMovers(series, keep, now, MaxMoves, size)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("batches of %d: %v, want %v", size, keys(got), keys(want))
		}
	}
}

func keys(ts []analysis.OfferTrend) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Key.Region)
	}
	return out
}
