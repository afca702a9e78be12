package fetchers

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// A server that sends no headers within RequestTimeout fails the request
// with ErrTimeout, named as such, not as "context canceled".
func TestHeaderTimeoutIsNamed(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	c := NewClient(RetryPolicy{MaxAttempts: 1, RequestTimeout: 20 * time.Millisecond})
	_, err := c.Do(context.Background(), func(ctx context.Context) (*http.Request, error) {
		return http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	})
	if !errors.Is(err, ErrTimeout) || strings.Contains(err.Error(), "context canceled") || !strings.Contains(err.Error(), "no response headers within 20ms") {
		t.Fatalf("error %v, want a named header timeout", err)
	}
}

// A hostile Retry-After is cut to MaxRetryAfter, and the cut is logged.
func TestRetryAfterIsCappedAndLogged(t *testing.T) {
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		if n == 1 {
			w.Header().Set("Retry-After", "100000000")
			w.WriteHeader(http.StatusTooManyRequests)
		}
	}))
	defer srv.Close()
	c := NewClient(RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: time.Second, MaxRetryAfter: 10 * time.Minute})
	core, logs := observer.New(zapcore.WarnLevel)
	c.Log = zap.New(core)
	var waits []time.Duration
	c.SetSleep(func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil })
	resp, err := c.Do(context.Background(), func(ctx context.Context) (*http.Request, error) {
		return http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(waits) != 1 || waits[0] != 10*time.Minute {
		t.Errorf("waited %v, want the 10m cap once", waits)
	}
	if logs.FilterMessageSnippet("fetch.max_retry_after").Len() != 1 {
		t.Errorf("capped wait not logged: %v", logs.All())
	}
}
