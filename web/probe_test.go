package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Issue 20 item 18: /healthz and /readyz answer probes that carry no
// token, and say nothing an error holds: no database path, no token file,
// no provider's error text.
func TestProbesOpenAndSayNoSecret(t *testing.T) {
	const token = "pw-probe-token-5e1c9a7b3d"
	const secretPath = "/etc/pricewatch/http-token"
	started := time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)
	cases := []struct {
		name      string
		check     func(context.Context) (Readiness, error)
		path      string
		wantCode  int
		wantBody  string
		forbidden []string
	}{
		{"healthz", nil, "/healthz", 200, "ok\n", nil},
		{"ready", func(context.Context) (Readiness, error) {
			return Readiness{Providers: map[string]ProviderRun{"azure": {Status: "failed", StartedAt: started}}}, nil
		}, "/readyz", 200, `{"ready":true,"providers":{"azure":{"status":"failed","started_at":"2026-12-01T09:30:00Z"}}}` + "\n", nil},
		{"database down", func(context.Context) (Readiness, error) {
			return Readiness{}, fmt.Errorf("%w: database /var/lib/pricewatch/pw.db: open %s: %s", DatabaseUnavailable, secretPath, token)
		}, "/readyz", 503, `{"ready":false,"error":"database unavailable"}` + "\n", []string{secretPath, "pw.db", token}},
		{"scheduler", func(context.Context) (Readiness, error) {
			return Readiness{}, fmt.Errorf("%w: scheduler has not ticked for 5m0s", SchedulerStalled)
		}, "/readyz", 503, `{"ready":false,"error":"scheduler stalled"}` + "\n", []string{"5m0s"}},
		{"an unworded error", func(context.Context) (Readiness, error) {
			return Readiness{}, errors.New("reading " + secretPath + ": " + token)
		}, "/readyz", 503, `{"ready":false,"error":"not ready"}` + "\n", []string{secretPath, token}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mux := http.NewServeMux()
			mux.Handle("/healthz", HealthHandler())
			if c.check != nil {
				mux.Handle("/readyz", ReadyHandler(c.check, nil))
			}
			h := RequireToken(token, mux)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, c.path, nil)) // no Authorization
			if rec.Code != c.wantCode || rec.Body.String() != c.wantBody {
				t.Errorf("%s without a token: %d %q, want %d %q", c.path, rec.Code, rec.Body.String(), c.wantCode, c.wantBody)
			}
			for _, f := range c.forbidden {
				if strings.Contains(rec.Body.String(), f) {
					t.Errorf("%s says %q", c.path, f)
				}
			}
			if c.wantCode == 200 && c.path == "/readyz" && !json.Valid(rec.Body.Bytes()) {
				t.Errorf("not JSON: %s", rec.Body.String())
			}
		})
	}
	// Everything else still needs the token.
	rec := httptest.NewRecorder()
	RequireToken(token, http.NewServeMux()).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz/x", nil))
	if rec.Code != http.StatusUnauthorized {
		t.Errorf("/readyz/x without a token: %d, want 401", rec.Code)
	}
}
