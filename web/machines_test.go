package web_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch/report"
)

// Issue 31 item 3: the offers page's machine view, its unit and the tick
// boxes whose machines /offers/compare shows side by side.
func TestOffersMachineViewAndCompare(t *testing.T) {
	h, _ := tableServer(t)
	p5, p4de := "aws/us-east-1/p5.48xlarge/linux", "aws/eu-west-1/p4de.24xlarge/linux"

	rec := get(h, "/api/v1/offer-table?by=machine&per=month&provider=aws")
	if rec.Code != 200 {
		t.Fatalf("offer-table by machine: %d %s", rec.Code, rec.Body.String())
	}
	var rows []report.MachineRow
	if err := json.Unmarshal(rec.Body.Bytes(), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].ID != p4de || rows[1].ID != p5 {
		t.Fatalf("machine rows %+v: want p4de (cheaper per GPU) then p5", rows)
	}
	// 88.488 × 730, 40.10 × 730, 60 × 730: exact.
	if r := rows[1]; r.OnDemand.Text() != "64596.24" || r.Spot.Text() != "29273" || r.Best1y.Text() != "43800" || r.Best3y.Valid ||
		*r.Best1yOption != "reserved 1y no upfront standard" || r.Hours != 730 {
		t.Errorf("p5 per month: %+v", r)
	}

	rec = get(h, "/offers?by=machine&per=month&provider=aws")
	page := rec.Body.String()
	if rec.Code != 200 {
		t.Fatalf("/offers by machine: %d %s", rec.Code, page)
	}
	for _, want := range []string{`<tr data-machine="` + p4de + `">`, `<tr data-machine="` + p5 + `">`, "64,596.24", "29,273.00", "43,800.00",
		"reserved 1y no upfront standard", `value="` + p5 + `"`, `form="offer-compare"`, `<option value="month" selected>`,
		`<input type="hidden" name="per" value="month">`} {
		if !strings.Contains(page, want) {
			t.Errorf("machine view lacks %q", want)
		}
	}
	// The one-row-per-price view ticks machines too, and its unit waits
	// for the machine view.
	rec = get(h, "/offers?provider=aws")
	if page := rec.Body.String(); rec.Code != 200 || strings.Count(page, `name="id" form="offer-compare" value="`+p5+`"`) != 3 ||
		!strings.Contains(page, `id="offer-per" disabled`) {
		t.Errorf("price view: %d, tick boxes of p5's three prices or the disabled unit missing", rec.Code)
	}

	q := url.Values{"id": {p5, p4de, "aws/nowhere-1/p9/linux"}, "per": {"month"}}
	rec = get(h, "/offers/compare?"+q.Encode())
	page = rec.Body.String()
	if rec.Code != 200 {
		t.Fatalf("/offers/compare: %d %s", rec.Code, page)
	}
	for _, want := range []string{`data-machine="` + p5 + `"`, `data-machine="` + p4de + `"`,
		// p4de's on-demand month (40.96 × 730) is the cheaper one.
		`<td class="num best">29,900.80`, `<td class="num">64,596.24`, "No current price for: aws/nowhere-1/p9/linux.",
		"per month (730 h)", "192", "2048"} {
		if !strings.Contains(page, want) {
			t.Errorf("compare page lacks %q", want)
		}
	}
	if strings.Index(page, `data-machine="`+p5) > strings.Index(page, `data-machine="`+p4de) {
		t.Error("the machines are not in the order ticked")
	}

	for _, bad := range []string{
		"/offers/compare",                // nothing ticked
		"/offers/compare?id=p5.48xlarge", // not an id
		"/offers/compare?id=" + p5 + "&per=week",
		"/offers/compare?" + strings.Repeat("id="+p5+"&", 13),
		"/api/v1/offer-table?per=month", // a unit without the machine rows
		"/api/v1/offers?gpu=H100&by=server",
	} {
		if rec := get(h, bad); rec.Code != 400 {
			t.Errorf("%s: %d, want 400", bad, rec.Code)
		}
	}
}
