package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/daemon/metrics"
	providerrun "github.com/pricewatch/pricewatch/run"

	"github.com/shopspring/decimal"
	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/web"
)

func TestHTTPEndpoints(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, filepath.Join(t.TempDir(), "pw.db"))
	defer db.Close()
	if err := db.SaveFXDay(ctx, storage.FXDay{Date: time.Now().UTC().Add(-48 * time.Hour), Source: "ECB",
		PerEUR: map[string]decimal.Decimal{"USD": decimal.RequireFromString("1.04")}}); err != nil {
		t.Fatal(err)
	}
	m := metrics.New(db, buildVersion())
	m.Observe(providerrun.Summary{Provider: "azure", Status: providerrun.StatusOK, Duration: 3 * time.Second,
		Result: &storage.Result{At: time.Unix(1796030220, 0), Changes: []pricewatch.Change{{Kind: pricewatch.PriceChanged}}}})
	m.Observe(providerrun.Summary{Provider: "aws", Status: providerrun.StatusFailed, Duration: time.Second})
	ready := false
	srv := httptest.NewServer(metrics.Handler(m, func(context.Context) (web.Readiness, error) {
		if !ready {
			return web.Readiness{}, web.NotReady
		}
		return web.Readiness{}, nil
	}, zap.NewNop()))
	defer srv.Close()
	get := func(path string) (int, string) {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := get("/metrics")
	if code != 200 {
		t.Fatalf("/metrics: %d", code)
	}
	checkContains(t, "/metrics", body,
		`pricewatch_fetch_runs_total{provider="azure",result="success"} 1`,
		`pricewatch_fetch_runs_total{provider="aws",result="error"} 1`,
		`pricewatch_changes_detected_total{kind="price_changed",provider="azure"} 1`,
		`pricewatch_fetch_duration_seconds_count{provider="azure"} 1`,
		"pricewatch_outbox_pending 0",
		"pricewatch_outbox_failed 0",
		`pricewatch_build_info{goversion="go`,
	)
	// The rate dated two days ago (midnight) is between one and three days old.
	var age float64
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, "pricewatch_fx_rate_age_seconds "); ok {
			age, _ = strconv.ParseFloat(v, 64)
		}
	}
	if age < 86400 || age > 3*86400 {
		t.Errorf("fx rate age %v s, want one to three days", age)
	}
	if code, body := get("/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("/healthz: %d %q", code, body)
	}
	if code, body := get("/readyz"); code != 503 || !strings.Contains(body, "not ready") {
		t.Errorf("/readyz before ready: %d %q", code, body)
	}
	ready = true
	if code, _ := get("/readyz"); code != 200 {
		t.Errorf("/readyz when ready: %d", code)
	}
}
