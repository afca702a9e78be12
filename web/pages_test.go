package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
)

// The dashboard defects of issue 30 item 6, each reproduced on fefd512.

// An exchange rate that is stale or missing is a note on the overview,
// never a 500 (the template asked a digest.Rate for a Currency it lacks).
func TestOverviewRateNotes(t *testing.T) {
	// The ECB's last day is 20 days before the tables' clock (2026-11-30):
	// past a week's max_age.
	ecb := storage.FXDay{Date: time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC), Source: "ECB",
		PerEUR: map[string]decimal.Decimal{"USD": decimal.RequireFromString("1.05"), "CNY": decimal.RequireFromString("7.7")}}
	for _, c := range []struct {
		name string
		fx   report.FX
		days []storage.FXDay
		says []string
	}{
		{"stale", report.FX{Currency: "USD", MaxAge: 7 * 24 * time.Hour}, []storage.FXDay{ecb},
			[]string{"The CNY rate is stale (ECB rate of 2026-11-10: 1 CNY = ", " USD); 1 offers priced in CNY are converted at it."}},
		{"missing", report.FX{Currency: "USD", FixedRates: map[string]string{"USD": "1.05"}}, nil,
			[]string{"No CNY→USD rate: 1 offers priced in CNY are left out"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h, _ := tableServerFX(t, c.fx, c.days...)
			rec := get(h, "/")
			body := rec.Body.String()
			if rec.Code != 200 {
				t.Fatalf("/: %d %s", rec.Code, body)
			}
			for _, want := range c.says {
				if !strings.Contains(body, want) {
					t.Errorf("/ lacks %q:\n%s", want, body)
				}
			}
			// The rest of the page is there: the USD offers are ranked.
			if !strings.Contains(body, `data-gpu="H100"`) {
				t.Errorf("/ lacks the H100 row:\n%s", body)
			}
		})
	}
}
