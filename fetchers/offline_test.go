package fetchers

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Issue 20 item 10: on an offline machine every request failed its DNS
// lookup and was retried with back-off for ~30 s. A lookup that fails for
// good (no such host, no resolver reachable) now fails at once, says so,
// and is ErrUnreachable; a DNS timeout and a refused connection are still
// retried.
func TestClientFailsFastOnDNS(t *testing.T) {
	for _, c := range []struct {
		name      string
		dialErr   error
		wantCalls int32
		wantText  string
	}{
		{"no such host", &net.DNSError{Err: "no such host", Name: "pricing.us-east-1.amazonaws.com", IsNotFound: true},
			1, "DNS lookup of pricing.us-east-1.amazonaws.com failed"},
		{"resolver unreachable (offline)", &net.DNSError{Err: "dial udp 10.0.0.2:53: connect: network is unreachable", Name: "prices.azure.com", IsTemporary: true},
			1, "is this machine offline"},
		{"DNS timeout is retried", &net.DNSError{Err: "i/o timeout", Name: "prices.azure.com", IsTimeout: true},
			3, "i/o timeout"},
		{"refused connection is retried", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")},
			3, "connection refused"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var dials atomic.Int32
			cl := NewClient(RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, RequestTimeout: 5 * time.Second})
			cl.SetSleep(func(ctx context.Context, _ time.Duration) error { return ctx.Err() })
			cl.HTTP.Transport = &http.Transport{DialContext: func(context.Context, string, string) (net.Conn, error) {
				dials.Add(1)
				return nil, c.dialErr
			}}
			_, err := cl.Do(context.Background(), func(ctx context.Context) (*http.Request, error) {
				return http.NewRequestWithContext(ctx, http.MethodGet, "https://example.invalid/api", nil)
			})
			if err == nil {
				t.Fatal("want an error")
			}
			if !errors.Is(err, ErrUnreachable) {
				t.Errorf("error %v does not wrap ErrUnreachable", err)
			}
			if errors.Is(err, ErrIncomplete) || strings.Contains(err.Error(), "malformed") {
				t.Errorf("error %v reads as a bad answer", err)
			}
			if !strings.Contains(err.Error(), c.wantText) {
				t.Errorf("error %q does not say %q", err, c.wantText)
			}
			if got := dials.Load(); got != c.wantCalls {
				t.Errorf("%d attempts, want %d", got, c.wantCalls)
			}
		})
	}
}
