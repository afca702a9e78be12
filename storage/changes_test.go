package storage

import (
	"testing"
	"time"

	"github.com/pricewatch/pricewatch"
)

// TestChanges: the changes each run wrote are listed newest first, with
// their prices exact, selected by time, kind, GPU model and provider, and
// bounded by the limit.
func TestChanges(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		start := clk.t
		a100 := offer("Standard_NC24ads_A100_v4", "eastus", pricewatch.OnDemand, "3.673")
		a100.GPUModel, a100.GPUCount = "A100-80GB", 1
		for i, price := range []string{"98.32", "90.00", "90.00", "88.125"} {
			offers := []pricewatch.Offer{offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.OnDemand, price)}
			if i < 2 {
				offers = append(offers, a100)
			}
			if _, err := save(t, db, snapshot(offers...), SaveOptions{}); err != nil {
				t.Fatalf("run %d: %v", i, err)
			}
			clk.tick()
		}
		type row struct {
			kind     pricewatch.ChangeKind
			it       string
			old, new string
			hour     int
		}
		rows := func(f ChangeFilter) []row {
			t.Helper()
			got, err := db.Changes(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			var out []row
			for _, c := range got {
				r := row{kind: c.Kind, it: c.Place.InstanceType, hour: int(c.At.Sub(start) / time.Hour)}
				if c.Old.Valid {
					r.old = c.Old.Decimal.String()
				}
				if c.New.Valid {
					r.new = c.New.Decimal.String()
				}
				if c.Offer.InstanceType != c.Place.InstanceType || c.Place.Provider != "azure" || c.Currency != "USD" {
					t.Errorf("change %+v: offer key or currency not read back", c)
				}
				out = append(out, r)
			}
			return out
		}
		h100 := "Standard_ND96isr_H100_v5"
		changed := rows(ChangeFilter{Kinds: []pricewatch.ChangeKind{pricewatch.PriceChanged}})
		want := []row{{pricewatch.PriceChanged, h100, "90", "88.125", 3}, {pricewatch.PriceChanged, h100, "98.32", "90", 1}}
		if len(changed) != len(want) || changed[0] != want[0] || changed[1] != want[1] {
			t.Errorf("price changes: got %+v, want %+v", changed, want)
		}
		if got := rows(ChangeFilter{Since: start.Add(90 * time.Minute), Kinds: []pricewatch.ChangeKind{pricewatch.PriceChanged}}); len(got) != 1 || got[0] != want[0] {
			t.Errorf("since +90m: got %+v, want the last change only", got)
		}
		if got := rows(ChangeFilter{GPUModels: []string{"A100-80GB"}, Since: start}); len(got) != 1 || got[0].kind != pricewatch.PriceGone {
			t.Errorf("A100 after the first run: got %+v, want its price_gone", got)
		}
		if got := rows(ChangeFilter{Providers: []string{"aws"}}); len(got) != 0 {
			t.Errorf("another provider: got %+v", got)
		}
		if got := rows(ChangeFilter{Limit: 1}); len(got) != 1 || got[0] != want[0] {
			t.Errorf("limit 1: got %+v, want the newest change", got)
		}
	})
}
