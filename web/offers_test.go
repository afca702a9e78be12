package web_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/storage/dbtest"
	"github.com/pricewatch/pricewatch/web"
)

// tableServer stores two runs of three providers 40 days apart: AWS
// (vCPUs and memory known) in two regions, Alibaba in CNY (one type whose
// hardware the cloud did not report), Vast.ai marketplace hosts; the AWS
// H100 on-demand price falls 10% between the runs, and Vast.ai's RTX 4090
// is sold out.
func tableServer(t *testing.T) (http.Handler, time.Time) {
	t.Helper()
	return tableServerFX(t, report.FX{Currency: "USD", FixedRates: map[string]string{"USD": "1.05", "CNY": "7.7"}})
}

// tableServerFX is tableServer converting with fx and the reference days
// stored.
func tableServerFX(t *testing.T, fx report.FX, days ...storage.FXDay) (http.Handler, time.Time) {
	t.Helper()
	ctx := context.Background()
	db := dbtest.Open(t)
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	h100 := pricewatch.Hardware{GPUModel: "H100", GPUCount: 8, GPUMemoryGB: 80, VCPUs: 192, MemoryGB: 2048}
	a100 := pricewatch.Hardware{GPUModel: "A100-80GB", GPUCount: 8, GPUMemoryGB: 80, VCPUs: 96, MemoryGB: 1152}
	a10040 := pricewatch.Hardware{GPUModel: "A100-40GB", GPUCount: 1}
	rtx := pricewatch.Hardware{GPUModel: "RTX4090", GPUCount: 2, GPUMemoryGB: 24}
	offer := func(provider, region, it string, pt pricewatch.PriceType, cur, hourly string, hw pricewatch.Hardware) pricewatch.Offer {
		o := pricewatch.Offer{Provider: provider, Region: region, InstanceType: it, PriceType: pt, OS: pricewatch.Linux, Currency: cur,
			Hourly: decimal.RequireFromString(hourly), Hardware: hw}
		if pt == pricewatch.Reserved {
			o.Term, o.Payment, o.OfferingClass = "1y", pricewatch.NoUpfront, pricewatch.Standard
		}
		return o
	}
	for i, at := range []time.Time{now.Add(-40 * 24 * time.Hour), now.Add(-24 * time.Hour)} {
		db.Now = func() time.Time { return at }
		p5 := "98.32"
		if i == 1 {
			p5 = "88.488"
		}
		snaps := []*pricewatch.Snapshot{
			{Provider: pricewatch.AWS, Offers: []pricewatch.Offer{
				offer("aws", "us-east-1", "p5.48xlarge", pricewatch.OnDemand, "USD", p5, h100),
				offer("aws", "us-east-1", "p5.48xlarge", pricewatch.Spot, "USD", "40.10", h100),
				offer("aws", "us-east-1", "p5.48xlarge", pricewatch.Reserved, "USD", "60.00", h100),
				offer("aws", "eu-west-1", "p4de.24xlarge", pricewatch.OnDemand, "USD", "40.96", a100),
			}, Availability: []pricewatch.Availability{{Provider: "aws", Region: "us-east-1", InstanceType: "p5.48xlarge", State: pricewatch.Offered, Hardware: h100}}},
			{Provider: pricewatch.Alibaba, Offers: []pricewatch.Offer{
				offer("alibaba", "cn-hangzhou", "ecs.gn7e-c16g1.4xlarge", pricewatch.OnDemand, "CNY", "34.74", a10040),
			}},
			{Provider: pricewatch.VastAI, Offers: []pricewatch.Offer{
				offer("vastai", "US", "2x RTX4090", pricewatch.OnDemand, "USD", "0.80", rtx),
			}, Availability: []pricewatch.Availability{{Provider: "vastai", Region: "US", InstanceType: "2x RTX4090", State: pricewatch.SoldOut, Hardware: rtx}}},
		}
		for _, snap := range snaps {
			for _, o := range snap.Offers {
				snap.Coverage = appendScope(snap.Coverage, o.Region)
			}
			dbtest.Save(t, db, snap)
		}
	}
	for _, d := range days {
		if err := db.SaveFXDay(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	srv := &web.Server{Store: db, FX: func() report.FX { return fx }, Now: func() time.Time { return now }}
	mux := http.NewServeMux()
	srv.Mount(mux)
	return mux, now
}

func appendScope(s []pricewatch.Scope, region string) []pricewatch.Scope {
	for _, c := range s {
		if c.Region == region {
			return s
		}
	}
	return append(s, pricewatch.Scope{Region: region, Availability: true})
}

func tableRows(t *testing.T, h http.Handler, query string) []report.OfferTableRow {
	t.Helper()
	rec := get(h, "/api/v1/offer-table?"+query)
	if rec.Code != 200 {
		t.Fatalf("%s: %d %s", query, rec.Code, rec.Body.String())
	}
	var rows []report.OfferTableRow
	if err := json.Unmarshal(rec.Body.Bytes(), &rows); err != nil {
		t.Fatal(err)
	}
	return rows
}

func keysOf(rows []report.OfferTableRow) string {
	var out []string
	for _, r := range rows {
		out = append(out, r.Provider+" "+r.InstanceType+" "+string(r.PriceType))
	}
	return strings.Join(out, ", ")
}

// The offers table's filters and sorts, through the API; the page shows
// the same rows in the same order for the same query.
func TestOfferTableFiltersAndSorts(t *testing.T) {
	h, _ := tableServer(t)
	const (
		p5od   = "aws p5.48xlarge on_demand"
		p5spot = "aws p5.48xlarge spot"
		p5ri   = "aws p5.48xlarge reserved"
		p4de   = "aws p4de.24xlarge on_demand"
		gn7e   = "alibaba ecs.gn7e-c16g1.4xlarge on_demand"
		vast   = "vastai 2x RTX4090 on_demand"
	)
	join := func(k ...string) string { return strings.Join(k, ", ") }
	for _, c := range []struct{ query, want string }{
		// The default order: per GPU-hour, cheapest first (CNY 34.74 at
		// 7.7/1.05 is 4.737 USD for one GPU).
		{"", join(vast, gn7e, p5spot, p4de, p5ri, p5od)},
		{"provider=aws&price_type=on_demand", join(p4de, p5od)},
		{"region=us-*", join(p5spot, p5ri, p5od)},
		{"region=*WEST*,cn-*", join(gn7e, p4de)},
		{"gpu=A100", join(gn7e, p4de)},
		{"gpu=A100-80GB", p4de},
		{"gpus_min=2&gpus_max=4", vast},
		{"gpus_min=8", join(p5spot, p4de, p5ri, p5od)},
		{"native_currency=cny", gn7e},
		{"available_only=true", join(p5spot, p5ri, p5od)},
		{"marketplace=only", vast},
		{"marketplace=exclude&price_type=on_demand", join(gn7e, p4de, p5od)},
		{"q=P5+east", join(p5spot, p5ri, p5od)},
		{"q=rtx", vast},
		{"sort=-price", join(p5od, p5ri, p4de, p5spot, gn7e, vast)},
		// Unknown values last either way; ties in the default order.
		{"sort=vcpus", join(p4de, p5spot, p5ri, p5od, vast, gn7e)},
		{"sort=-vcpus", join(p5spot, p5ri, p5od, p4de, vast, gn7e)},
		{"sort=move&provider=aws", join(p5od, p5spot, p4de, p5ri)},
		{"sort=provider&price_type=on_demand", join(gn7e, p4de, p5od, vast)},
	} {
		t.Run(c.query, func(t *testing.T) {
			rows := tableRows(t, h, c.query)
			if got := keysOf(rows); got != c.want {
				t.Errorf("rows:\n %s\nwant\n %s", got, c.want)
			}
			page := get(h, "/offers?"+c.query)
			if page.Code != 200 {
				t.Fatalf("page: %d %s", page.Code, page.Body.String())
			}
			var want []string
			for _, r := range rows {
				want = append(want, r.Key().String())
			}
			if got := pageKeys(page.Body.String()); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("page rows:\n%s\nwant the API's:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

var dataKey = regexp.MustCompile(`<tr data-key="([^"]+)"`)

func pageKeys(body string) []string {
	var out []string
	for _, m := range dataKey.FindAllStringSubmatch(body, -1) {
		out = append(out, strings.ReplaceAll(m[1], "&#43;", "+"))
	}
	return out
}

// Hardware the cloud reported is in the row; what it did not is null in
// JSON and "unknown" on the page, never a guess; the 30-day move is the
// offer's own price against the one in force 30 days before.
func TestOfferTableHardwareAndMove(t *testing.T) {
	h, _ := tableServer(t)
	rows := tableRows(t, h, "")
	byKey := map[string]report.OfferTableRow{}
	for _, r := range rows {
		byKey[r.InstanceType+" "+string(r.PriceType)] = r
	}
	p5 := byKey["p5.48xlarge on_demand"]
	if p5.VCPUs == nil || *p5.VCPUs != 192 || p5.MemoryGB == nil || *p5.MemoryGB != 2048 || p5.GPUMemoryGB == nil || *p5.GPUMemoryGB != 80 {
		t.Errorf("p5 hardware: %+v", p5)
	}
	if !p5.Move30d.Valid || p5.Move30d.D.String() != "-10" || p5.PricePerGPUHour.D.String() != "11.061" {
		t.Errorf("p5 move %v per GPU-hour %v", p5.Move30d, p5.PricePerGPUHour)
	}
	gn := byKey["ecs.gn7e-c16g1.4xlarge on_demand"]
	if gn.VCPUs != nil || gn.MemoryGB != nil || gn.GPUMemoryGB != nil || gn.Interconnect != nil || gn.LocalStorage != nil {
		t.Errorf("unreported hardware is not null: %+v", gn)
	}
	if gn.NativeCurrency != "CNY" || gn.Currency != "USD" || gn.FXSource != "fixed" {
		t.Errorf("conversion: %+v", gn)
	}
	page := get(h, "/offers?q=gn7e&col=instance&col=vcpus&col=memory&col=interconnect").Body.String()
	if n := strings.Count(page, `class="num unknown"`); n != 2 || !strings.Contains(page, `class="unknown" title="no stored record says"`) {
		t.Errorf("page shows %d unknown numeric cells:\n%s", n, page)
	}
	// The CSV carries every row and field of the view.
	rec := get(h, "/offers.csv?provider=aws")
	recs, err := csv.NewReader(rec.Body).ReadAll()
	if err != nil || rec.Code != 200 {
		t.Fatalf("csv: %d %v", rec.Code, err)
	}
	if len(recs) != 5 || recs[0][0] != "provider" || recs[0][len(recs[0])-1] != "move_30d_pct" || !strings.Contains(rec.Header().Get("Content-Disposition"), "attachment") {
		t.Errorf("csv: %v %v", recs, rec.Header())
	}
}

// Bad values are a 400 naming the parameter, on the page and the API.
func TestOfferTableBadParams(t *testing.T) {
	h, _ := tableServer(t)
	for _, c := range []struct{ query, says string }{
		{"sort=nope", "want one of the columns"},
		{"marketplace=maybe", "want only or exclude"},
		{"gpus_min=8&gpus_max=2", "gpus_min 8 is more than gpus_max 2"},
		{"native_currency=dollars", "want an ISO 4217 code"},
		{"price_type=free", "price_type"},
	} {
		for _, path := range []string{"/api/v1/offer-table?", "/offers?"} {
			rec := get(h, path+c.query)
			if rec.Code != 400 || !strings.Contains(rec.Body.String(), c.says) {
				t.Errorf("%s%s: %d %s", path, c.query, rec.Code, rec.Body.String())
			}
		}
	}
	if rec := get(h, "/offers?col=nope"); rec.Code != 400 {
		t.Errorf("unknown column: %d", rec.Code)
	}
	if rec := get(h, "/offers?limit=0"); rec.Code != 400 {
		t.Errorf("limit 0: %d", rec.Code)
	}
}

// The pages issue 25 fixes: unknown paths are a 404 page naming the
// pages there are; /gpu/ is the GPU index; the GPU page shows on-demand
// unless asked, as compare and the API do; the offers page loads its
// script from its own origin under a CSP without inline script.
func TestDashboardPagesOfIssue25(t *testing.T) {
	h, _ := tableServer(t)
	rec := get(h, "/no/such/page")
	if rec.Code != 404 || !strings.Contains(rec.Body.String(), "/offers") || !strings.Contains(rec.Body.String(), `id="error"`) {
		t.Errorf("unknown path: %d %s", rec.Code, rec.Body.String())
	}
	if rec := get(h, "/api/v1/nope"); rec.Code != 404 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		t.Errorf("unknown API path: %d %v", rec.Code, rec.Header())
	}
	idx := get(h, "/gpu/")
	body := idx.Body.String()
	for _, want := range []string{`data-gpu="H100"`, `data-gpu="A100-40GB"`, `data-gpu="RTX4090"`, "-10.0%", "11.061", "5.01"} {
		if !strings.Contains(body, want) {
			t.Errorf("GPU index lacks %q:\n%s", want, body)
		}
	}
	gpu := get(h, "/gpu/H100").Body.String()
	if strings.Contains(gpu, "spot") && strings.Contains(gpu, `data-key="aws/us-east-1//p5.48xlarge/spot`) {
		t.Errorf("the GPU page shows spot without being asked")
	}
	if !strings.Contains(gpu, `data-key="aws/us-east-1//p5.48xlarge/on_demand`) {
		t.Errorf("the GPU page lacks the on-demand offer")
	}
	// The GPU page's availability timeline: a row per place and type.
	if !strings.Contains(gpu, `id="timeline-availability"`) || !strings.Contains(gpu, "aws us-east-1 p5.48xlarge") {
		t.Errorf("the GPU page lacks its availability timeline:\n%s", gpu)
	}
	if all := get(h, "/gpu/H100?price_type=any").Body.String(); !strings.Contains(all, `p5.48xlarge/spot`) {
		t.Errorf("price_type=any lacks spot")
	}
	page := get(h, "/offers")
	csp := page.Header().Get("Content-Security-Policy")
	if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") || !strings.Contains(page.Body.String(), `<script src="/static/offers.js" defer></script>`) {
		t.Errorf("CSP %q", csp)
	}
	if js := get(h, "/static/offers.js"); js.Code != 200 || !strings.Contains(js.Body.String(), "narrower") {
		t.Errorf("script: %d", js.Code)
	}
}

// A page cut to its first rows says how many match in all, and shows
// the first rows of the whole table's order (the API's).
func TestOfferPageLimitCountsEveryMatch(t *testing.T) {
	h, _ := tableServer(t)
	all := tableRows(t, h, "sort=-hourly")
	if len(all) < 3 {
		t.Fatalf("the fixture's table has %d rows", len(all))
	}
	page := get(h, "/offers?sort=-hourly&limit=2").Body.String()
	if want := fmt.Sprintf(`<span id="offer-shown">2</span> of <span id="offer-matching">%d</span> matching offers shown`, len(all)); !strings.Contains(page, want) {
		t.Errorf("page does not say %q:\n%s", want, page)
	}
	if !strings.Contains(page, "narrow the filters or show more rows") {
		t.Error("a cut page does not say so")
	}
	keys := pageKeys(page)
	if len(keys) != 2 {
		t.Fatalf("page rows %q, want 2", keys)
	}
	for i, r := range all[:2] {
		if keys[i] != r.Key().String() {
			t.Errorf("page row %d is %q, want the table's %s", i, keys[i], r.Key())
		}
	}
}
