package azure

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/pricewatch/pricewatch"
)

// seriesItems reads one snapshot of the real Azure series
// (testdata/series, see its README).
func seriesItems(t *testing.T, date string) []item {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", "series", "gpu-items-"+date+".json"))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.UseNumber()
	var items []item
	if err := dec.Decode(&items); err != nil {
		t.Fatal(err)
	}
	return items
}

// accumulate runs rows through the fetcher's row handling at now, in the
// given order, and returns the kept offers by key.
func accumulate(t *testing.T, rows []item, now time.Time, log *zap.Logger) map[string]pricewatch.Offer {
	t.Helper()
	if log == nil {
		log = zap.NewNop()
	}
	acc := newAccumulator(pricewatch.Azure, log, true, now)
	stats := map[string]int{}
	for _, it := range rows {
		if err := acc.add(it, "", stats); err != nil {
			t.Fatal(err)
		}
	}
	out := map[string]pricewatch.Offer{}
	for _, o := range acc.offers() {
		out[o.Region+" "+o.InstanceType+" "+string(o.PriceType)+" "+o.Term+" "+o.OS] = o
	}
	return out
}

func price(o pricewatch.Offer) string {
	if o.PriceType == pricewatch.Reserved {
		return o.Upfront.String()
	}
	return o.Hourly.String()
}

// TestRowInEffectFromRealSeries replays real snapshots whose rows carry
// placeholders and superseded prices beside the real ones, in source order
// and reversed: the price in effect at the snapshot's time is kept, never
// the lower one.
func TestRowInEffectFromRealSeries(t *testing.T) {
	tests := []struct {
		date string
		at   string // when the snapshot was taken (COMMITS.tsv)
		want map[string]string
		gone []string // offers no row in effect sells
	}{
		{
			// 0.01 beside 106.0: same meter, same start, end before start.
			date: "2025-05-01", at: "2025-05-01T01:46:23Z",
			want: map[string]string{
				"usgovvirginia Standard_ND96isr_H200_v5 on_demand  linux":  "106",
				"usgovvirginia Standard_ND96isr_H200_v5 reserved 1y linux": "495201",
				"usgovvirginia Standard_ND96isr_H200_v5 reserved 3y linux": "1225699",
				"switzerlandwest Standard_ND96ams_A100_v4 spot  linux":     "15.10182", // 13.731143 ended 2025-04-30
				"eastus2 Standard_NC48ads_A100_v4 on_demand  linux":        "7.346",
				"usgovarizona Standard_NV4as_v4 spot  linux":               "0.04074",
				"eastus2 Standard_NC48ads_A100_v4 reserved 3y linux":       "71642",
				"eastus2 Standard_NC48ads_A100_v4 reserved 1y linux":       "42066",
			},
		},
		{
			// 0.0052 beside 3.5204 (spot) and 2.95 beside 7.0276 (Windows
			// spot), each ending the day before it starts.
			date: "2026-04-01", at: "2026-04-01T01:00:00Z",
			want: map[string]string{
				"eastus2 Standard_NC320lds_xl_RTXPRO6000BSE_v6 spot  linux": "3.5204",
				"eastus Standard_NC320ds_xl_RTXPRO6000BSE_v6 spot  windows": "7.0276",
			},
		},
		{
			// Superseded reservations listed beside their successors.
			date: "2026-08-01", at: "2026-08-01T01:00:00Z",
			want: map[string]string{
				"usgovvirginia Standard_ND96isr_H200_v5 reserved 1y linux":  "509408",
				"usgovvirginia Standard_ND96isr_H200_v5 reserved 3y linux":  "1386990",
				"eastus2 Standard_NC320lds_xl_RTXPRO6000BSE_v6 spot  linux": "2.64264",
				"eastus Standard_NC320ds_xl_RTXPRO6000BSE_v6 spot  windows": "5.785718",
			},
		},
		{
			// The same rows read a day before the new prices start: the old
			// ones are still in effect and the new ones are not yet.
			date: "2026-08-01", at: "2026-07-31T12:00:00Z",
			want: map[string]string{
				"usgovvirginia Standard_ND96isr_H200_v5 reserved 1y linux":  "495201",
				"usgovvirginia Standard_ND96isr_H200_v5 reserved 3y linux":  "1225699",
				"eastus2 Standard_NC320lds_xl_RTXPRO6000BSE_v6 spot  linux": "2.86",
			},
		},
		{
			// The only spot row of the size ended the day before: nothing
			// sells at its price now.
			date: "2025-07-01", at: "2025-07-01T01:00:00Z",
			want: map[string]string{"usgovarizona Standard_NV4as_v4 spot  linux": "0.044814"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.date+"@"+tt.at, func(t *testing.T) {
			at, err := time.Parse(time.RFC3339, tt.at)
			if err != nil {
				t.Fatal(err)
			}
			rows := seriesItems(t, tt.date)
			reversed := slices.Clone(rows)
			slices.Reverse(reversed)
			for _, order := range [][]item{rows, reversed} {
				got := accumulate(t, order, at, nil)
				for k, v := range tt.want {
					if o, ok := got[k]; !ok || price(o) != v {
						t.Errorf("%s: got %s (present %v), want %s", k, price(o), ok, v)
					}
				}
				for k, o := range got {
					for _, placeholder := range []string{"0.01", "0.0052", "0.00604", "2.95"} {
						if price(o) == placeholder {
							t.Errorf("%s: placeholder %s kept", k, placeholder)
						}
					}
				}
			}
		})
	}
}

// TestConflictingRowsKeepNeither: two rows in effect for one offer, of the
// same rank (primary, same start) but with different prices, are a
// conflict the API gives nothing to settle. Neither is kept (and a
// warning says why), whichever comes first; a row that starts later
// supersedes both.
func TestConflictingRowsKeepNeither(t *testing.T) {
	rows := seriesItems(t, "2025-05-03")
	var od item
	for _, it := range rows {
		if it.ArmSkuName == "Standard_ND96isr_H200_v5" && it.Type == "Consumption" {
			od = it
		}
	}
	if od.RetailPrice.String() != "106.0" {
		t.Fatalf("test data: H200 on-demand row %+v", od)
	}
	// Constructed: the same row with another price and no end date.
	other := od
	other.RetailPrice, other.UnitPrice, other.SkuID = "98.0", "98.0", od.SkuID+"-b"
	now := time.Date(2025, 5, 3, 2, 0, 0, 0, time.UTC)
	key := "usgovvirginia Standard_ND96isr_H200_v5 on_demand  linux"
	for _, order := range [][]item{{od, other}, {other, od}} {
		core, logs := observer.New(zap.WarnLevel)
		got := accumulate(t, order, now, zap.New(core))
		if o, ok := got[key]; ok {
			t.Errorf("kept %s, want neither of two conflicting rows", price(o))
		}
		if logs.FilterMessageSnippet("keeping neither").Len() != 1 {
			t.Errorf("want one warning, got %v", logs.All())
		}
	}
	newer := other
	newer.EffectiveStartDate, newer.RetailPrice, newer.SkuID = "2025-05-02T00:00:00Z", "101.0", od.SkuID+"-c"
	for _, order := range [][]item{{od, other, newer}, {newer, other, od}, {other, newer, od}} {
		if got := accumulate(t, order, now, nil); price(got[key]) != "101" {
			t.Errorf("order %v: got %q, want the later-starting 101", order, price(got[key]))
		}
	}
	// The same price twice is no conflict.
	twin := od
	twin.SkuID = od.SkuID + "-twin"
	if got := accumulate(t, []item{twin, od}, now, nil); price(got[key]) != "106" {
		t.Errorf("same price twice: got %q, want 106", price(got[key]))
	}
}

func TestInEffectRejectsBadDates(t *testing.T) {
	it := item{EffectiveStartDate: "yesterday"}
	if _, err := inEffect(it, time.Now()); err == nil {
		t.Error("an unreadable effectiveStartDate was accepted")
	}
	if skip, err := inEffect(item{}, time.Now()); err != nil || skip != "" {
		t.Errorf("a row without dates: %q %v, want in effect", skip, err)
	}
}
