package report

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	digestrender "github.com/pricewatch/pricewatch/alerting/digest"
	"github.com/pricewatch/pricewatch/analysis/digest"
	"github.com/pricewatch/pricewatch/fx"
)

// TestWeeklyDigestInputMatchesFullRead: the weekly digest's read (the
// prices in force at the chart's weekly points, each offer's identity held
// once and the raw prices kept only where in force at now) builds the same
// digest, byte for byte but for the count of the week's changes, as every
// interval of the chart's twelve weeks, at the end of the history and at a
// moment with later history stored.
func TestWeeklyDigestInputMatchesFullRead(t *testing.T) {
	ctx := context.Background()
	db, start, end := irregularHistory(t, 300, 7*time.Hour) // about 87 days
	book, err := fx.NewBook(nil, map[string]decimal.Decimal{"USD": decimal.RequireFromString("1.1")}, 0)
	if err != nil {
		t.Fatal(err)
	}
	models := []string{"H100", "A100"}
	build := func(in digest.Input) (digest.Digest, string) {
		t.Helper()
		in.Currency, in.Models, in.FX = "USD", models, book
		d, err := digest.Build(in)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := digestrender.WriteJSON(&b, d); err != nil {
			t.Fatal(err)
		}
		return d, b.String()
	}
	for _, now := range []time.Time{end, start.Add(60*24*time.Hour + 5*time.Hour)} {
		t.Run(now.Format(time.RFC3339), func(t *testing.T) {
			full, err := DigestInput(ctx, db, now, digest.ChartWeeks*digest.Week)
			if err != nil {
				t.Fatal(err)
			}
			weekly, err := WeeklyDigestInput(ctx, db, now, append(append([]string(nil), models...), digest.ChartModels...))
			if err != nil {
				t.Fatal(err)
			}
			if len(weekly.Prices) >= len(full.Prices) {
				t.Errorf("the weekly read kept %d intervals of %d", len(weekly.Prices), len(full.Prices))
			}
			d, want := build(full)
			if len(d.Moves) == 0 || d.Models[0].OnDemand == nil || d.Models[1].Spot == nil || d.Chart.Empty() {
				t.Fatalf("history too quiet to compare: %d moves, chart empty %v", len(d.Moves), d.Chart.Empty())
			}
			if _, got := build(weekly); got != want {
				t.Errorf("the weekly read's digest differs from the full read's:\nweekly %s\nfull   %s", got, want)
			}
		})
	}
}
