package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/alerting/digest"
	"github.com/pricewatch/pricewatch/config"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/storage/dbtest"
	"github.com/pricewatch/pricewatch/web"
)

// weekServer serves a week of hourly runs of one provider: two GPU models
// in two regions, on-demand and spot, spot moving every run.
func weekServer(t *testing.T, limits web.Limits) (http.Handler, *storage.DB) {
	t.Helper()
	db := dbtest.Open(t)
	start := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	for run := 0; run < 7*24; run += 6 {
		at := start.Add(time.Duration(run) * time.Hour)
		db.Now = func() time.Time { return at }
		snap := &pricewatch.Snapshot{Provider: pricewatch.Azure, SourceVersion: fmt.Sprint(run)}
		for _, region := range []string{"eastus", "westus2"} {
			snap.Coverage = append(snap.Coverage, pricewatch.Scope{Region: region})
			for i, m := range []string{"H100", "A100-80GB"} {
				hw := pricewatch.Hardware{GPUModel: m, GPUCount: 8, GPUMemoryGB: 80}
				typ := fmt.Sprintf("Standard_ND96_%s_v%d", strings.ReplaceAll(m, "-", ""), i+4)
				for _, pt := range []pricewatch.PriceType{pricewatch.OnDemand, pricewatch.Spot} {
					hourly := decimal.NewFromInt(int64(90 - 30*i))
					if pt == pricewatch.Spot {
						hourly = hourly.Mul(decimal.NewFromFloat(0.3 + 0.01*float64(run%7))).Round(4)
					}
					snap.Offers = append(snap.Offers, pricewatch.Offer{Provider: pricewatch.Azure, Region: region, InstanceType: typ, PriceType: pt,
						OS: pricewatch.Linux, Currency: "USD", Hourly: hourly, Hardware: hw})
				}
			}
		}
		dbtest.Save(t, db, snap)
	}
	fx := config.Default().FX
	srv := &web.Server{Store: db, FX: func() report.FX {
		return report.FX{Currency: fx.Currency, FixedRates: fx.FixedRates, MaxAge: fx.MaxAge}
	}, Limits: limits, AlertSummary: digest.AlertSummary,
		Now: func() time.Time { return start.Add(7 * 24 * time.Hour) }}
	mux := http.NewServeMux()
	srv.Mount(mux)
	return mux, db
}

func get(h http.Handler, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec
}

// Issue 20 item 23: a dashboard page of a GPU or instance type nothing
// stored carries is a 404, not an empty page with 200; a case difference
// is the same type. The page names the nearest stored names as the CLI's
// "did you mean" does (what `history` and `compare` print as they exit 4),
// but as links, and links the GPU index and the other pages rather than
// naming CLI commands (issue 30 item 6).
func TestDashboardUnknownNames(t *testing.T) {
	h, db := weekServer(t, web.Limits{})
	ctx := context.Background()
	_, typo := report.ResolveInstanceType(ctx, db, "Standard_ND96_H100_v3")
	gpuTypo := report.CheckGPUModel(ctx, db, "H10")
	if typo == nil || !strings.Contains(typo.Error(), "did you mean Standard_ND96_H100_v4") || gpuTypo == nil || !strings.Contains(gpuTypo.Error(), "did you mean H100") {
		t.Errorf("the CLI's suggestions are not the nearest names: %v, %v", typo, gpuTypo)
	}
	const pages = `<a href="/gpu/">every GPU model</a>`
	for _, c := range []struct {
		path string
		want int
		says []string
	}{
		{"/instance/Standard_ND96_H100_v3", 404, []string{`No instance type &#34;Standard_ND96_H100_v3&#34; is stored.`,
			`Did you mean <a href="/instance/Standard_ND96_H100_v4">Standard_ND96_H100_v4</a>`, pages}},
		{"/instance/nope.large", 404, []string{`No instance type &#34;nope.large&#34; is stored.`, pages}},
		{"/gpu/H10", 404, []string{`No GPU model matching &#34;H10&#34; is stored.`, `Did you mean <a href="/gpu/H100">H100</a>?`, pages}},
		{"/commitments?instance_type=Standard_ND96_H100_v3&utilization=0.7", 404, []string{
			`Did you mean <a href="/commitments?instance_type=Standard_ND96_H100_v4&amp;utilization=0.7">Standard_ND96_H100_v4</a>`}},
		{"/no/such/page", 404, []string{"No page at /no/such/page.", pages, `<a href="/offers">`}},
		{"/instance/Standard_ND96_H100_v4", 200, []string{`Standard_ND96_H100_v4`}},
		{"/instance/STANDARD_ND96_H100_V4", 200, []string{`<h1>Standard_ND96_H100_v4`}},
		{"/gpu/H100", 200, []string{`H100`}},
		{"/commitments", 200, []string{`Commitments`}},
	} {
		rec := get(h, c.path)
		body := rec.Body.String()
		if rec.Code != c.want {
			t.Errorf("%s: %d, want %d:\n%s", c.path, rec.Code, c.want, body)
		}
		for _, s := range c.says {
			if !strings.Contains(body, s) {
				t.Errorf("%s lacks %q:\n%s", c.path, s, body)
			}
		}
		if c.want == 404 && (rec.Header().Get("Content-Type") != "text/html; charset=utf-8" || !strings.Contains(body, `id="error"`)) {
			t.Errorf("%s: not the error page: %v", c.path, rec.Header())
		}
		// The CLI's hints name commands in backticks: not a page's words.
		if strings.Contains(body, "`") || strings.Contains(body, "pricewatch hardware") {
			t.Errorf("%s speaks CLI:\n%s", c.path, body)
		}
	}
}

// Issue 20 item 19: four (and more) parallel trends requests froze the API
// for 30 s, each holding one pooled read connection while it waited for a
// second. Now every one is answered at once: 200, or 503 with Retry-After
// when shed, never a wait for the 30 s timeout or a 500.
func TestParallelTrendsDoNotFreeze(t *testing.T) {
	h, _ := weekServer(t, web.Limits{Concurrent: 8, QueueWait: 5 * time.Second})
	paths := []string{"/api/v1/trends?window=7d", "/api/v1/trends?window=7d&gpu=H100", "/api/v1/trends?window=2d&top=0", "/"}
	var wg sync.WaitGroup
	codes := make(chan string, 16)
	began := time.Now()
	for i := range 16 {
		wg.Go(func() {
			rec := get(h, paths[i%len(paths)])
			if rec.Code != 200 && (rec.Code != 503 || rec.Header().Get("Retry-After") == "") {
				codes <- fmt.Sprintf("%s: %d %s", paths[i%len(paths)], rec.Code, rec.Body.String())
			}
		})
	}
	wg.Wait()
	close(codes)
	for c := range codes {
		t.Error(c)
	}
	if took := time.Since(began); took > 20*time.Second {
		t.Errorf("16 parallel requests took %s", took)
	}
}
