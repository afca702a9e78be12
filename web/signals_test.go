package web_test

import (
	"encoding/csv"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage/dbtest"
	"github.com/pricewatch/pricewatch/web"
)

// bandServer stores one run of AWS and Azure H100 prices with their
// capacity signals: Spot Advisor bands for two of the three AWS spot
// places (us-east-1 "5-10%", eu-west-1 ">20%"; us-west-2 has none), a
// capacity block for p5.48xlarge in us-east-2b, and an Azure eviction band
// for the Azure spot price. The signal values are constructed in the
// shapes the fetchers store (fetchers/aws spotadvisor.go and
// capacityblocks.go); the Azure band is the cloud's word kept as text.
func bandServer(t *testing.T) (http.Handler, time.Time) {
	t.Helper()
	db := dbtest.Open(t)
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { return now.Add(-time.Hour) }
	h100 := pricewatch.Hardware{GPUModel: "H100", GPUCount: 8}
	offer := func(provider, region, it string, pt pricewatch.PriceType, hourly string) pricewatch.Offer {
		return pricewatch.Offer{Provider: provider, Region: region, InstanceType: it, PriceType: pt, OS: pricewatch.Linux, Currency: "USD",
			Hourly: decimal.RequireFromString(hourly), Hardware: h100}
	}
	band := func(provider string, kind pricewatch.SignalKind, region, it, value string) pricewatch.Signal {
		sg := pricewatch.Signal{Provider: provider, Kind: kind, Region: region, InstanceType: it, Value: value, Unit: "band", Source: "test", Hardware: h100}
		if kind == pricewatch.InterruptionBand {
			sg.Shape = pricewatch.ShapeOf("os", pricewatch.Linux)
		}
		return sg
	}
	start := time.Date(2026, 12, 14, 11, 30, 0, 0, time.UTC)
	snaps := []*pricewatch.Snapshot{
		{Provider: pricewatch.AWS, Offers: []pricewatch.Offer{
			offer("aws", "us-east-1", "p5.48xlarge", pricewatch.OnDemand, "55.04"),
			offer("aws", "us-east-1", "p5.48xlarge", pricewatch.Spot, "30.00"),
			offer("aws", "eu-west-1", "p5.48xlarge", pricewatch.Spot, "20.00"),
			offer("aws", "us-west-2", "p5.48xlarge", pricewatch.Spot, "25.00"),
		}, Signals: []pricewatch.Signal{
			band("aws", pricewatch.InterruptionBand, "us-east-1", "p5.48xlarge", "5-10%"),
			band("aws", pricewatch.InterruptionBand, "eu-west-1", "p5.48xlarge", ">20%"),
			{Provider: "aws", Kind: pricewatch.CapacityBlock, Region: "us-east-2", Zone: "us-east-2b", InstanceType: "p5.48xlarge",
				Shape: pricewatch.ShapeOf("instance_count", "1", "duration_hours", "168"), Start: start, End: start.Add(168 * time.Hour),
				Value: "41664.00", Unit: "USD", Detail: "cb-0123456789abcdef0", Source: "test", Hardware: h100},
		}, SignalCoverage: []pricewatch.SignalScope{{Kind: pricewatch.InterruptionBand, Region: pricewatch.AllRegions}, {Kind: pricewatch.CapacityBlock, Region: "us-east-2"}}},
		{Provider: pricewatch.Azure, Offers: []pricewatch.Offer{
			offer("azure", "eastus", "Standard_ND96isr_H100_v5", pricewatch.Spot, "35.00"),
		}, Signals: []pricewatch.Signal{band("azure", pricewatch.EvictionBand, "eastus", "Standard_ND96isr_H100_v5", "0-5")},
			SignalCoverage: []pricewatch.SignalScope{{Kind: pricewatch.EvictionBand, Region: pricewatch.AllRegions}}},
	}
	for _, snap := range snaps {
		for _, o := range snap.Offers {
			snap.Coverage = appendScope(snap.Coverage, o.Region)
		}
		dbtest.Save(t, db, snap)
	}
	srv := &web.Server{Store: db, FX: func() report.FX { return report.FX{Currency: "USD"} }, Now: func() time.Time { return now }}
	mux := http.NewServeMux()
	srv.Mount(mux)
	return mux, now
}

// The offers table's interruption band (issue 25): in the API rows and
// the CSV, null where none is stored (non-spot rows, a spot place the
// Spot Advisor does not list, Azure, whose band is an eviction band);
// max_band keeps spot rows with a known band no higher than it; sort=band
// orders by the band's rank, unknown last; the page shows the same rows.
func TestOfferTableInterruptionBand(t *testing.T) {
	h, _ := bandServer(t)
	bands := map[string]string{}
	for _, r := range tableRows(t, h, "") {
		bands[r.Region+" "+string(r.PriceType)] = deref(r.InterruptionBand)
	}
	want := map[string]string{"us-east-1 on_demand": "", "us-east-1 spot": "5-10%", "eu-west-1 spot": ">20%", "us-west-2 spot": "", "eastus spot": ""}
	for k, v := range want {
		if got, ok := bands[k]; !ok || got != v {
			t.Errorf("%s: band %q (present %v), want %q", k, got, ok, v)
		}
	}
	regions := func(rows []report.OfferTableRow) string {
		var out []string
		for _, r := range rows {
			out = append(out, r.Region)
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct{ query, want string }{
		{"max_band=%3C5%25", ""},
		{"max_band=5-10%25", "us-east-1"},
		{"max_band=%3E20%25", "eu-west-1 us-east-1"},
		{"sort=band&price_type=spot", "us-east-1 eu-west-1 us-west-2 eastus"},
		{"sort=-band&price_type=spot", "eu-west-1 us-east-1 us-west-2 eastus"},
	} {
		rows := tableRows(t, h, c.query)
		if got := regions(rows); got != c.want {
			t.Errorf("%s: %q, want %q", c.query, got, c.want)
		}
		var keys []string
		for _, r := range rows {
			keys = append(keys, r.Key().String())
		}
		page := get(h, "/offers?"+c.query)
		if got := pageKeys(page.Body.String()); page.Code != 200 || strings.Join(got, "\n") != strings.Join(keys, "\n") {
			t.Errorf("%s page: %d rows %v, want the API's %v", c.query, page.Code, got, keys)
		}
	}
	if rec := get(h, "/api/v1/offer-table?max_band=low"); rec.Code != 400 || !strings.Contains(rec.Body.String(), "max_band") {
		t.Errorf("bad max_band: %d %s", rec.Code, rec.Body.String())
	}
	rec := get(h, "/offers.csv?price_type=spot&sort=band")
	recs, err := csv.NewReader(rec.Body).ReadAll()
	if err != nil || len(recs) != 5 {
		t.Fatalf("csv: %v %v", recs, err)
	}
	col := -1
	for i, name := range recs[0] {
		if name == "interruption_band" {
			col = i
		}
	}
	if col < 0 || recs[1][col] != "5-10%" || recs[2][col] != ">20%" || recs[3][col] != "" {
		t.Errorf("csv band column %d: %v", col, recs)
	}
	page := get(h, "/offers?price_type=spot").Body.String()
	if !strings.Contains(page, `data-b="1"`) || !strings.Contains(page, `data-label="interruption band" data-v="4">&gt;20%`) || !strings.Contains(page, `name="max_band"`) {
		t.Errorf("page lacks the band's data, cell or filter:\n%s", page)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// compare (GET /api/v1/offers) carries the AWS interruption band and the
// Azure eviction band of spot rows; the GPU and instance-type pages show
// them beside the spot prices and list the current capacity signals,
// a capacity block with its window and cost per GPU-hour.
func TestPagesShowCapacitySignals(t *testing.T) {
	h, _ := bandServer(t)
	var rows []report.CompareRow
	rec := get(h, "/api/v1/offers?gpu=H100&price_type=spot")
	if err := json.Unmarshal(rec.Body.Bytes(), &rows); err != nil || rec.Code != 200 {
		t.Fatalf("/api/v1/offers: %d %v %s", rec.Code, err, rec.Body.String())
	}
	got := map[string][2]string{}
	for _, r := range rows {
		got[r.Region] = [2]string{deref(r.InterruptionBand), deref(r.EvictionBand)}
	}
	want := map[string][2]string{"us-east-1": {"5-10%", ""}, "eu-west-1": {">20%", ""}, "us-west-2": {"", ""}, "eastus": {"", "0-5"}}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: bands %v, want %v", k, got[k], v)
		}
	}
	gpuPage := get(h, "/gpu/H100?price_type=spot").Body.String()
	for _, s := range []string{"<th>band</th>", `title="AWS Spot Advisor interruption band">5-10%`, `title="Azure spot eviction band">0-5`,
		`id="signals"`, "capacity block", "Dec 14 11:30 → Dec 21 11:30 UTC", "instance_count=1", "31.00 USD", "spot eviction band"} {
		if !strings.Contains(gpuPage, s) {
			t.Errorf("GPU page lacks %q", s)
		}
	}
	// On-demand (the default) has no band column; the signals stay.
	if od := get(h, "/gpu/H100").Body.String(); strings.Contains(od, "<th>band</th>") || !strings.Contains(od, `id="signals"`) {
		t.Errorf("on-demand GPU page: band column or signals wrong")
	}
	inst := get(h, "/instance/p5.48xlarge").Body.String()
	for _, s := range []string{"<th>band</th>", "<td>5-10%</td>", "<td>&gt;20%</td>", "spot interruption band", "31.00 USD", "us-east-2b"} {
		if !strings.Contains(inst, s) {
			t.Errorf("instance page lacks %q", s)
		}
	}
	if strings.Contains(inst, "Standard_ND96isr_H100_v5") {
		t.Errorf("instance page lists another type's signal")
	}
}
