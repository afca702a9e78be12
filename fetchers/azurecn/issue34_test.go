package azurecn

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/azurecn/azurecntest"
)

// moreRows are data lines 12 to 22 of a 22-line sheet: the sample's 11
// and these, in the sample's column order (constructed values, see
// testdata/README.md): the A100's savings-plan rows (1 and 3 years), the
// two-GPU NC48ads A100 v4 in chinanorth3 (Linux, spot, savings plans,
// Windows, a CPU size, 1- and 3-year reservations) and a storage row.
var moreRows = []string{
	`CNY,0,19.98017,19.98017,chinanorth3,CN North 3,2024-03-01T00:00:00Z,0c1a3e6a-0000-4000-8000-000000000010,NC24ads A100 v4,DZH318Z0C1AB,DZH318Z0C1AB/0006,Virtual Machines NCadsA100v4 Series,NC24ads A100 v4,Virtual Machines,Compute,1 Hour,SavingsPlanConsumption,Standard_NC24ads_A100_v4,1 Year,True`,
	`CNY,0,14.27155,14.27155,chinanorth3,CN North 3,2024-03-01T00:00:00Z,0c1a3e6a-0000-4000-8000-000000000010,NC24ads A100 v4,DZH318Z0C1AB,DZH318Z0C1AB/0007,Virtual Machines NCadsA100v4 Series,NC24ads A100 v4,Virtual Machines,Compute,1 Hour,SavingsPlanConsumption,Standard_NC24ads_A100_v4,3 Years,True`,
	`CNY,0,57.0862,57.0862,chinanorth3,CN North 3,2024-03-01T00:00:00Z,0c1a3e6a-0000-4000-8000-000000000030,NC48ads A100 v4,DZH318Z0C1AD,DZH318Z0C1AD/0001,Virtual Machines NCadsA100v4 Series,NC48ads A100 v4,Virtual Machines,Compute,1 Hour,Consumption,Standard_NC48ads_A100_v4,,True`,
	`CNY,0,11.41724,11.41724,chinanorth3,CN North 3,2024-03-01T00:00:00Z,0c1a3e6a-0000-4000-8000-000000000031,NC48ads A100 v4 Spot,DZH318Z0C1AD,DZH318Z0C1AD/0002,Virtual Machines NCadsA100v4 Series,NC48ads A100 v4 Spot,Virtual Machines,Compute,1 Hour,Consumption,Standard_NC48ads_A100_v4,,True`,
	`CNY,0,39.96034,39.96034,chinanorth3,CN North 3,2024-03-01T00:00:00Z,0c1a3e6a-0000-4000-8000-000000000030,NC48ads A100 v4,DZH318Z0C1AD,DZH318Z0C1AD/0006,Virtual Machines NCadsA100v4 Series,NC48ads A100 v4,Virtual Machines,Compute,1 Hour,SavingsPlanConsumption,Standard_NC48ads_A100_v4,1 Year,True`,
	`CNY,0,28.5431,28.5431,chinanorth3,CN North 3,2024-03-01T00:00:00Z,0c1a3e6a-0000-4000-8000-000000000030,NC48ads A100 v4,DZH318Z0C1AD,DZH318Z0C1AD/0007,Virtual Machines NCadsA100v4 Series,NC48ads A100 v4,Virtual Machines,Compute,1 Hour,SavingsPlanConsumption,Standard_NC48ads_A100_v4,3 Years,True`,
	`CNY,0,69.7834,69.7834,chinanorth3,CN North 3,2024-03-01T00:00:00Z,0c1a3e6a-0000-4000-8000-000000000030,NC48ads A100 v4,DZH318Z0C1AE,DZH318Z0C1AE/0001,Virtual Machines NCadsA100v4 Series Windows,NC48ads A100 v4,Virtual Machines,Compute,1 Hour,Consumption,Standard_NC48ads_A100_v4,,True`,
	`CNY,0,1.356604,1.356604,chinanorth3,CN North 3,2023-06-01T00:00:00Z,0c1a3e6a-0000-4000-8000-000000000003,D4 v3/D4s v3,DZH318Z0BQ4M,DZH318Z0BQ4M/00TG,Virtual Machines Dv3 Series,D4 v3,Virtual Machines,Compute,1 Hour,Consumption,Standard_D4_v3,,True`,
	`CNY,0,313660,313660,chinanorth3,CN North 3,2024-03-01T00:00:00Z,0c1a3e6a-0000-4000-8000-000000000030,NC48ads A100 v4,DZH318Z0C1AD,DZH318Z0C1AD/0003,Virtual Machines NCadsA100v4 Series,NC48ads A100 v4,Virtual Machines,Compute,1 Hour,Reservation,Standard_NC48ads_A100_v4,1 Year,True`,
	`CNY,0,674000,674000,chinanorth3,CN North 3,2024-03-01T00:00:00Z,0c1a3e6a-0000-4000-8000-000000000030,NC48ads A100 v4,DZH318Z0C1AD,DZH318Z0C1AD/0004,Virtual Machines NCadsA100v4 Series,NC48ads A100 v4,Virtual Machines,Compute,1 Hour,Reservation,Standard_NC48ads_A100_v4,3 Years,True`,
	`CNY,0,0.140564,0.140564,chinanorth3,CN North 3,2023-06-01T00:00:00Z,0c1a3e6a-0000-4000-8000-000000000004,Hot LRS Data Stored,DZH318Z0BPVL,DZH318Z0BPVL/003E,General Block Blob v2,Hot LRS,Storage,Storage,1 GB/Month,Consumption,,,True`,
}

// sheet22 is the sample with moreRows: a header and 22 data lines.
func sheet22(t *testing.T) []byte {
	t.Helper()
	b := append(bytes.TrimRight(azurecntest.Sample(), "\n"), '\n')
	b = append(b, strings.Join(moreRows, "\n")+"\n"...)
	if n := bytes.Count(b, []byte("\n")); n != 23 {
		t.Fatalf("sheet of %d lines, want a header and 22 data lines", n)
	}
	return b
}

// Issue 34 item 6: the sheet's SavingsPlanConsumption rows (terms 1 and 3
// years) are stored as savings_plan prices: the row's rate per hour, paid
// as used (no_upfront), for its term; the rest of the sheet as before.
func TestSavingsPlanRowsStored(t *testing.T) {
	srv := azurecntest.New(t)
	srv.SetSheet(sheet22(t))
	snap, err := fetch(t, srv, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]pricewatch.Offer{}
	for _, o := range snap.Offers {
		got[offerKey(o)] = o
	}
	for key, want := range map[string]struct{ hourly, perGPU string }{
		"Standard_NC24ads_A100_v4|chinanorth3|savings_plan|linux|1y": {"19.98017", "19.98017"},
		"Standard_NC24ads_A100_v4|chinanorth3|savings_plan|linux|3y": {"14.27155", "14.27155"},
		"Standard_NC48ads_A100_v4|chinanorth3|savings_plan|linux|1y": {"39.96034", "19.98017"},
		"Standard_NC48ads_A100_v4|chinanorth3|savings_plan|linux|3y": {"28.5431", "14.27155"},
	} {
		o, ok := got[key]
		if !ok {
			t.Errorf("%s not stored", key)
			continue
		}
		per, _ := pricewatch.PerGPUHour(o.Hourly, o.GPUCount)
		if !o.Hourly.Equal(decimal.RequireFromString(want.hourly)) || !per.Equal(decimal.RequireFromString(want.perGPU)) ||
			o.Payment != pricewatch.NoUpfront || !o.Upfront.IsZero() || o.Currency != "CNY" {
			t.Errorf("%s: %s/h (%s per GPU-hour) %s upfront %s %s, want %s/h (%s), no_upfront, CNY",
				key, o.Hourly, per, o.Payment, o.Upfront, o.Currency, want.hourly, want.perGPU)
		}
	}
	// The sample's 6, the A100's 2 plans, the NC48's on-demand, spot, 2
	// plans, Windows and 2 reservations.
	if len(snap.Offers) != 15 {
		t.Errorf("%d offers, want 15", len(snap.Offers))
	}
	for _, sc := range snap.Coverage {
		if sc.Region == "chinanorth3" && !sc.CoversOffer("chinanorth3", pricewatch.SavingsPlan) {
			t.Errorf("coverage %+v leaves chinanorth3's savings plans out", sc)
		}
	}
}

// Issue 34 item 2: a sheet cut at the source after 19 of its 22 data
// lines, its last line a partial row without a final newline, served with
// its own Content-Length (so the transport sees a whole body), is a cut
// answer: the run fails and nothing is stored, so nothing is closed. It
// was read as complete, and the NC48's two reservations closed as
// withdrawn (5 of 7 offers stayed: fetch.min_offer_ratio did not catch it).
func TestSheetCutAtTheSourceFails(t *testing.T) {
	full := sheet22(t)
	lines := bytes.SplitAfter(full, []byte("\n"))
	cut := bytes.Join(lines[:20], nil)                 // the header and 19 data lines
	cut = append(cut, lines[20][:len(lines[20])/3]...) // a third of line 20, no newline
	srv := azurecntest.New(t)
	srv.SetSheet(full)
	if _, err := fetch(t, srv, nil, nil); err != nil {
		t.Fatalf("the whole sheet: %v", err)
	}
	srv.SetSheet(cut)
	snap, err := fetch(t, srv, nil, nil)
	if !errors.Is(err, fetchers.ErrIncomplete) || !strings.Contains(fmt.Sprint(err), "cut off") {
		n := 0
		if snap != nil {
			n = len(snap.Offers)
		}
		t.Fatalf("cut sheet: %d offers, error %v; want the run failed as a cut answer", n, err)
	}
	if got := srv.BlobFaults.Requests(); got != 2 {
		t.Errorf("%d sheet requests, want 2", got)
	}
	// The same sheet whole but for its final newline is cut too: the last
	// line cannot be told complete.
	srv.SetSheet(bytes.TrimRight(full, "\n"))
	if _, err := fetch(t, srv, nil, nil); !errors.Is(err, fetchers.ErrIncomplete) {
		t.Errorf("a sheet without its final newline: %v, want a cut answer", err)
	}
}
