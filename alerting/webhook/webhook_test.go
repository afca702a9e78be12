package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/alerting/alertingtest"
)

const key = "k3y-for-signing"

func drop(t *testing.T) []byte {
	t.Helper()
	c := alertingtest.PriceChange(pricewatch.PriceChanged, alertingtest.AzureH100(pricewatch.OnDemand, ""), "98.32", "88.488",
		time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	b, err := alerting.AlertDocument(alerting.Group{Key: "run/4/webhook/drops/price_drop", Channel: alerting.WebhookChannel, Rule: "drops",
		Event: alerting.PriceDrop, RunID: 4, Provider: pricewatch.Azure, At: c.At,
		Items: []alerting.Item{{Event: alerting.PriceDrop, Change: c, DeltaPct: decimal.NewNullDecimal(decimal.RequireFromString("-10"))}}}).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSignedBody(t *testing.T) {
	var got *http.Request
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		body, _ = io.ReadAll(r.Body)
	}))
	defer srv.Close()
	n, err := New(Config{URL: srv.URL + "/hook", Secret: []byte(key), Now: func() time.Time { return time.Unix(1796030220, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Post(t.Context(), alerting.WebhookChannel, drop(t)); err != nil {
		t.Fatal(err)
	}
	if ts := got.Header.Get(TimestampHeader); ts != "1796030220" {
		t.Errorf("timestamp %q", ts)
	}
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte("1796030220." + string(body)))
	if want := "sha256=" + hex.EncodeToString(m.Sum(nil)); got.Header.Get(SignatureHeader) != want {
		t.Errorf("signature %q, want %q", got.Header.Get(SignatureHeader), want)
	}
	if got.Header.Get(DeliveryHeader) != "run/4/webhook/drops/price_drop" || got.Header.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v", got.Header)
	}
	var b Body
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatal(err)
	}
	if b.Version != alerting.DocumentVersion || b.Type != alerting.TypeAlert || !strings.Contains(b.Summary, "98.32 → 88.488 USD/h (-10%)") || len(b.Alert) == 0 {
		t.Errorf("body %s", body)
	}
	// Unsigned without a key.
	n, _ = New(Config{URL: srv.URL + "/hook"})
	if err := n.Post(t.Context(), alerting.WebhookChannel, drop(t)); err != nil {
		t.Fatal(err)
	}
	if got.Header.Get(SignatureHeader) != "" || got.Header.Get(TimestampHeader) != "" {
		t.Errorf("unsigned request carries %v", got.Header)
	}
}

func TestAnswersClassified(t *testing.T) {
	tests := []struct {
		status     int
		retryAfter string
		permanent  bool
		scope      alerting.Scope
		wait       time.Duration
	}{
		{status: 200}, {status: 204},
		{status: 500}, {status: 502}, {status: 503}, {status: 408},
		{status: 429, retryAfter: "7", wait: 7 * time.Second},
		{status: 429, wait: 30 * time.Second},                     // no Retry-After: alerting's default
		{status: 429, retryAfter: "soon", wait: 30 * time.Second}, // not seconds: the same
		// Issue 20 item 22: negative, or seconds that overflow a
		// duration (2⁶³−1 s became −1s, which waited max_retry_after):
		// as if absent.
		{status: 429, retryAfter: "-1", wait: 30 * time.Second},
		{status: 429, retryAfter: "9223372036854775807", wait: 30 * time.Second},
		{status: 429, retryAfter: "18446744073709551616", wait: 30 * time.Second},
		{status: 429, retryAfter: "1.5", wait: 30 * time.Second},
		{status: 400, permanent: true, scope: alerting.ScopeMessage},
		{status: 422, permanent: true, scope: alerting.ScopeMessage},
		{status: 401, permanent: true, scope: alerting.ScopeAll},
		{status: 404, permanent: true, scope: alerting.ScopeAll},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.retryAfter != "" {
					w.Header().Set("Retry-After", tt.retryAfter)
				}
				w.WriteHeader(tt.status)
			}))
			defer srv.Close()
			n, _ := New(Config{URL: srv.URL + "/hook?token=SeCrEt"})
			err := n.Post(t.Context(), alerting.WebhookChannel, drop(t))
			if tt.status < 300 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			p, permanent := alerting.IsPermanent(err)
			if permanent != tt.permanent || (permanent && p.Scope != tt.scope) {
				t.Errorf("%v: permanent %v, want %v (scope %v)", err, permanent, tt.permanent, tt.scope)
			}
			var ra *alerting.RetryAfterError
			if tt.wait > 0 && (!errors.As(err, &ra) || ra.After != tt.wait) {
				t.Errorf("%v: want a retry after %s", err, tt.wait)
			}
			if strings.Contains(err.Error(), "SeCrEt") {
				t.Errorf("error leaks the URL: %v", err)
			}
		})
	}
}

func TestURLNeverInErrors(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close() // nothing listens: a transport error, which embeds the URL
	u := srv.URL + "/services/XXXXwebhookSECRETXXXX?token=SeCrEt"
	n, err := New(Config{URL: u, Secret: []byte(key)})
	if err != nil {
		t.Fatal(err)
	}
	err = n.Post(t.Context(), alerting.WebhookChannel, drop(t))
	if err == nil {
		t.Fatal("no error")
	}
	if _, permanent := alerting.IsPermanent(err); permanent {
		t.Errorf("a network error must be retried: %v", err)
	}
	for _, leak := range []string{"XXXXwebhookSECRETXXXX", "SeCrEt", key} {
		if strings.Contains(err.Error(), leak) {
			t.Errorf("error leaks %q: %v", leak, err)
		}
	}
	for _, s := range []string{n.String(), Config{URL: u, Secret: []byte(key)}.String()} {
		if strings.Contains(s, "SECRET") || strings.Contains(s, key) {
			t.Errorf("%q leaks", s)
		}
	}
}

// TestLegacyPayloadRefused: bytes rendered for Slack by an older build
// are not a webhook body; they fail as a message-level error.
func TestLegacyPayloadRefused(t *testing.T) {
	n, _ := New(Config{URL: "http://127.0.0.1:1/hook"})
	err := n.Post(t.Context(), alerting.WebhookChannel, []byte(`{"text":"pricewatch: old","blocks":[]}`))
	p, ok := alerting.IsPermanent(err)
	if !ok || p.Scope != alerting.ScopeMessage || !errors.Is(err, alerting.ErrNotDocument) {
		t.Fatalf("err = %v", err)
	}
}

// TestRedirectToAnotherHostRefused: Issue 20 item 20: a webhook URL that
// 307s to another host had the signed alert re-sent there and counted as
// delivered. It must be a permanent failure that says redirect, and the
// other host must get nothing.
func TestRedirectToAnotherHostRefused(t *testing.T) {
	var mu sync.Mutex
	var reached []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		reached = append(reached, r.Header.Get(SignatureHeader))
	}))
	defer other.Close()
	hop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer hop.Close()
	n, err := New(Config{URL: hop.URL + "/hook?token=SeCrEt", Secret: []byte(key)})
	if err != nil {
		t.Fatal(err)
	}
	err = n.Post(t.Context(), alerting.WebhookChannel, drop(t))
	if err == nil {
		t.Fatal("a post redirected to another host reported success")
	}
	if p, ok := alerting.IsPermanent(err); !ok || p.Scope != alerting.ScopeAll || !strings.Contains(err.Error(), "redirect") {
		t.Errorf("err = %v: want a permanent failure that says redirect", err)
	}
	if strings.Contains(err.Error(), "SeCrEt") {
		t.Errorf("error leaks the URL: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reached) != 0 {
		t.Errorf("the other host got %d signed requests", len(reached))
	}
}
