package metrics

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	providerrun "github.com/pricewatch/pricewatch/run"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/storage/dbtest"
	"github.com/pricewatch/pricewatch/web"
)

// /metrics counts each run by its result, /healthz answers while the
// process lives and /readyz follows the readiness it is handed.
func TestHTTPEndpoints(t *testing.T) {
	ctx := context.Background()
	db := dbtest.Open(t)
	if err := db.SaveFXDay(ctx, storage.FXDay{Date: time.Now().UTC().Add(-48 * time.Hour), Source: "ECB",
		PerEUR: map[string]decimal.Decimal{"USD": decimal.RequireFromString("1.04")}}); err != nil {
		t.Fatal(err)
	}
	m := New(db, "test")
	m.Observe(providerrun.Summary{Provider: "azure", Status: providerrun.StatusOK, Duration: 3 * time.Second,
		Result: &storage.Result{At: time.Unix(1796030220, 0), Changes: []pricewatch.Change{{Kind: pricewatch.PriceChanged}}}})
	m.Observe(providerrun.Summary{Provider: "aws", Status: providerrun.StatusFailed, Duration: time.Second})
	ready := false
	srv := httptest.NewServer(Handler(m, func(context.Context) (web.Readiness, error) {
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
	for _, want := range []string{
		`pricewatch_fetch_runs_total{provider="azure",result="success"} 1`,
		`pricewatch_fetch_runs_total{provider="aws",result="error"} 1`,
		`pricewatch_changes_detected_total{kind="price_changed",provider="azure"} 1`,
		`pricewatch_fetch_duration_seconds_count{provider="azure"} 1`,
		"pricewatch_outbox_pending 0",
		"pricewatch_outbox_failed 0",
		`pricewatch_build_info{goversion="go`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
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

// A run that could not start is counted as not started
// (run.StatusNotStarted; run's tests show when a run is one).
func TestNotStartedCounted(t *testing.T) {
	db := dbtest.Open(t)
	m := New(db, "test")
	m.Observe(providerrun.Summary{Provider: "azure", Status: providerrun.StatusNotStarted})
	if got := counterValue(t, m, "pricewatch_fetch_runs_total", "not_started"); got != 1 {
		t.Errorf("pricewatch_fetch_runs_total{result=not_started} = %v, want 1", got)
	}
}

func counterValue(t *testing.T, m *Metrics, name, result string) float64 {
	t.Helper()
	families, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, s := range f.GetMetric() {
			for _, l := range s.GetLabel() {
				if l.GetName() == "result" && l.GetValue() == result {
					return s.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}
