package web_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/web"
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

// The "Download this view" links of a filtered page loaded from the server
// (a shared link, a reload, Apply) answer the view's rows, not a 400: the
// query was escaped twice (/offers.csv?provider%3Daws).
func TestOffersDownloadLinks(t *testing.T) {
	h, _ := tableServer(t)
	page := get(h, "/offers?provider=aws&price_type=on_demand&price_type=spot&region=us-*&sort=-price")
	if page.Code != 200 {
		t.Fatalf("page: %d %s", page.Code, page.Body.String())
	}
	want := keysOf(tableRows(t, h, "provider=aws&price_type=on_demand,spot&region=us-*&sort=-price"))
	for _, id := range []string{"dl-csv", "dl-json"} {
		m := regexp.MustCompile(`id="` + id + `" href="([^"]+)"`).FindStringSubmatch(page.Body.String())
		if m == nil {
			t.Fatalf("no #%s link", id)
		}
		href := html.UnescapeString(m[1])
		rec := get(h, href)
		if rec.Code != 200 {
			t.Errorf("#%s %s: %d %s", id, href, rec.Code, rec.Body.String())
			continue
		}
		var got []string
		if id == "dl-json" {
			var rows []report.OfferTableRow
			if err := json.Unmarshal(rec.Body.Bytes(), &rows); err != nil {
				t.Fatal(err)
			}
			got = strings.Split(keysOf(rows), ", ")
		} else {
			recs, err := csv.NewReader(rec.Body).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range recs[1:] {
				got = append(got, r[0]+" "+r[3]+" "+r[4])
			}
		}
		if strings.Join(got, ", ") != want {
			t.Errorf("#%s %s rows:\n %s\nwant the view's:\n %s", id, href, strings.Join(got, ", "), want)
		}
	}
}

// Under "Latest alerts" an alert sent to two channels is one row naming
// both channels and how each delivery went, not two rows with neither.
func TestOverviewAlertsOnePerAlert(t *testing.T) {
	h, db := weekServer(t, web.Limits{})
	ctx := context.Background()
	// Payloads as an older pricewatch queued them (the Slack text), which
	// the summaries still read; two alerts, each for Slack and the webhook.
	for i, a := range []struct{ at, text string }{
		{"2026-11-26T06:00:00Z", "🔻 Price drop: 1 price on Azure — Standard_ND96_H100_v4 eastus on-demand 90 → 80 USD/h"},
		{"2026-11-26T12:00:00Z", "🔺 Price rise: 1 price on Azure — Standard_ND96_H100_v4 eastus on-demand 80 → 90 USD/h"},
	} {
		at, _ := time.Parse(time.RFC3339, a.at)
		db.Now = func() time.Time { return at }
		for _, ch := range []string{"C0GPUALERTS", alerting.WebhookChannel} {
			payload, _ := json.Marshal(map[string]string{"text": "pricewatch: " + a.text})
			m := storage.OutboxMessage{DeliveryKey: fmt.Sprintf("run/%d/%s/drops/price_drop", i+1, ch), Channel: ch, Kind: "price_drop", Payload: payload}
			if _, err := db.Enqueue(ctx, m, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	body := get(h, "/").Body.String()
	m := regexp.MustCompile(`(?s)<table id="alerts".*?<tbody>(.*?)</tbody>`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no alerts table:\n%s", body)
	}
	table := m[1]
	rows := regexp.MustCompile(`(?s)<tr>.*?</tr>`).FindAllString(table, -1)
	if len(rows) != 2 {
		t.Fatalf("%d rows, want one per alert (2):\n%s", len(rows), table)
	}
	for i, want := range []string{"Price rise", "Price drop"} {
		for _, s := range []string{want, "C0GPUALERTS: <span class=\"status pending\">pending</span>", alerting.WebhookChannel + ": <span class=\"status pending\">pending</span>"} {
			if !strings.Contains(rows[i], s) {
				t.Errorf("row %d lacks %q:\n%s", i, s, rows[i])
			}
		}
	}
}

// /api/v1/ is an index of every endpoint (it was a 404 whose list lacked
// signals), which the dashboard's "API" link opens (it opened the runs).
func TestAPIIndex(t *testing.T) {
	h, _ := weekServer(t, web.Limits{})
	rec := get(h, "/api/v1/")
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		t.Fatalf("/api/v1/: %d %v %s", rec.Code, rec.Header(), rec.Body.String())
	}
	var index struct {
		Endpoints []struct {
			Path       string   `json:"path"`
			About      string   `json:"about"`
			Parameters []string `json:"parameters"`
		} `json:"endpoints"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &index); err != nil {
		t.Fatal(err)
	}
	docs, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range index.Endpoints {
		paths = append(paths, e.Path)
		if e.About == "" || e.Parameters == nil {
			t.Errorf("%s: no description or parameters: %+v", e.Path, e)
		}
		if !strings.Contains(string(docs), "`GET "+e.Path+"`") {
			t.Errorf("docs/api.md lacks %s", e.Path)
		}
		// Each one listed answers (the placeholders filled with stored
		// names, the required gpu given).
		path := strings.NewReplacer("{instance_type}", "Standard_ND96_H100_v4").Replace(e.Path)
		if strings.HasSuffix(path, "/offers") || strings.HasSuffix(path, "/recommend") {
			path += "?gpu=H100"
		}
		if rec := get(h, path); rec.Code != 200 {
			t.Errorf("%s: %d %s", path, rec.Code, rec.Body.String())
		}
	}
	for _, want := range []string{"/api/v1/offers", "/api/v1/offer-table", "/api/v1/history/{instance_type}", "/api/v1/availability",
		"/api/v1/signals", "/api/v1/savings/{instance_type}", "/api/v1/trends", "/api/v1/recommend", "/api/v1/changes", "/api/v1/runs", "/api/v1/alerts"} {
		if !slices.Contains(paths, want) {
			t.Errorf("the index lacks %s: %v", want, paths)
		}
	}
	if rec := get(h, "/api/v1/nope"); rec.Code != 404 || !strings.Contains(rec.Body.String(), "signals") {
		t.Errorf("unknown endpoint: %d %s", rec.Code, rec.Body.String())
	}
	if body := get(h, "/").Body.String(); !strings.Contains(body, `<a href="/api/v1/">API</a>`) {
		t.Errorf("the nav's API link is not the index")
	}
}

// The overview names no mixed winner (issue 31 item 1): a marketplace
// host's price is in the Marketplace column, beside the clouds' own
// on-demand, never in it.
func TestOverviewMarketplaceBesideClouds(t *testing.T) {
	h, _ := tableServer(t)
	rec := get(h, "/")
	if rec.Code != 200 {
		t.Fatalf("/: %d %s", rec.Code, rec.Body.String())
	}
	row := regexp.MustCompile(`(?s)<tr data-gpu="RTX4090">(.*?)</tr>`).FindStringSubmatch(rec.Body.String())
	if row == nil {
		t.Fatalf("/ has no RTX4090 row:\n%s", rec.Body.String())
	}
	cells := regexp.MustCompile(`(?s)<t[dh][^>]*>(.*?)</t[dh]>`).FindAllStringSubmatch(row[1], -1)
	if len(cells) != 12 {
		t.Fatalf("RTX4090 row has %d cells, want 12: %s", len(cells), row[1])
	}
	// GPU, on-demand, 7d, where, marketplace, where, …
	if cells[1][1] != "–" || strings.Contains(cells[3][1], "vastai") {
		t.Errorf("Vast.ai's host is in the on-demand cells: %q %q", cells[1][1], cells[3][1])
	}
	if !strings.Contains(cells[4][1], "0.4") || !strings.Contains(cells[5][1], "vastai") {
		t.Errorf("marketplace cells %q %q; want Vast.ai's 0.40 per GPU-hour", cells[4][1], cells[5][1])
	}
}
