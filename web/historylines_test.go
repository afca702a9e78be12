package web

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/storage"
)

// The instance chart draws a commitment per term: its "reserved" line was
// the lowest of every term per region, so "eastus reserved" (3 years) and
// "swedencentral reserved" (1 year) read as comparable (issue 30 item 6).
func TestHistoryLinesPerTerm(t *testing.T) {
	from := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	to := from.Add(30 * 24 * time.Hour)
	iv := func(region string, pt pricewatch.PriceType, term, payment, hourly string) storage.PriceInterval {
		return storage.PriceInterval{Offer: pricewatch.Offer{Provider: "azure", Region: region, InstanceType: "Standard_NC40ads_H100_v5",
			PriceType: pt, Term: term, Payment: payment, OS: pricewatch.Linux, Currency: "USD"},
			EffectiveHourly: decimal.RequireFromString(hourly), ValidFrom: from}
	}
	rows := []storage.PriceInterval{
		iv("eastus", pricewatch.OnDemand, "", "", "6.98"),
		iv("eastus", pricewatch.Reserved, "1y", pricewatch.AllUpfront, "4.40"),
		iv("eastus", pricewatch.Reserved, "3y", pricewatch.AllUpfront, "2.90"),
		iv("eastus", pricewatch.Reserved, "3y", pricewatch.NoUpfront, "3.10"),
		iv("swedencentral", pricewatch.Reserved, "1y", pricewatch.AllUpfront, "4.60"),
		iv("swedencentral", pricewatch.Spot, "", "", "1.40"),
	}
	var chart historyChart
	for i := range rows {
		chart.add(&rows[i])
	}
	var got []string
	for _, l := range chart.lines(from, to) {
		got = append(got, fmt.Sprintf("%s %v", l.Name, l.Steps[0].Value))
	}
	want := []string{"eastus on-demand 6.98", "eastus reserved 1y 4.4", "eastus reserved 3y 2.9", "swedencentral reserved 1y 4.6", "swedencentral spot 1.4"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
