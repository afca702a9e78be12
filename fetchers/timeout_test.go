package fetchers

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
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
