package storage

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func TestFXDaysRoundTrip(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, _ := openTestDB(t)
		d1 := FXDay{Date: time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC), Source: "ECB", PerEUR: map[string]decimal.Decimal{
			"USD": decimal.RequireFromString("1.0412"), "CNY": decimal.RequireFromString("7.5461")}}
		d0 := FXDay{Date: time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC), Source: "ECB", PerEUR: map[string]decimal.Decimal{
			"USD": decimal.RequireFromString("1.0399")}}
		for _, d := range []FXDay{d1, d0, d1} {
			if err := db.SaveFXDay(ctx, d); err != nil {
				t.Fatal(err)
			}
		}
		got, err := db.FXDays(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || !got[0].Date.Equal(d0.Date) || got[1].PerEUR["CNY"].String() != "7.5461" || got[1].PerEUR["USD"].String() != "1.0412" {
			t.Fatalf("got %+v", got)
		}
	})
}
