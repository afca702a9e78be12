package fetchers

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestClientRetries(t *testing.T) {
	tests := []struct {
		name      string
		statuses  []int // answers in order; the last repeats
		retryHdr  string
		wantErr   error
		wantCalls int32
		wantWaits []time.Duration
	}{
		{"ok at once", []int{200}, "", nil, 1, nil},
		{"429 honours Retry-After", []int{429, 200}, "7", nil, 2, []time.Duration{7 * time.Second}},
		{"5xx then ok", []int{503, 502, 200}, "", nil, 3, nil},
		{"5xx forever", []int{500}, "", nil, 4, nil},
		{"429 forever is throttled", []int{429}, "1", ErrThrottled, 4, nil},
		{"404 is not retried", []int{404}, "", nil, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := int(calls.Add(1)) - 1
				status := tt.statuses[min(n, len(tt.statuses)-1)]
				if tt.retryHdr != "" {
					w.Header().Set("Retry-After", tt.retryHdr)
				}
				w.WriteHeader(status)
			}))
			defer srv.Close()
			c := NewClient(RetryPolicy{MaxAttempts: 4, BaseDelay: time.Millisecond, MaxDelay: time.Minute, RequestTimeout: 5 * time.Second})
			var waits []time.Duration
			c.SetSleep(func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil })
			resp, err := c.Do(context.Background(), func(ctx context.Context) (*http.Request, error) {
				return http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/x?sig=SECRET", nil)
			})
			if err == nil {
				resp.Body.Close()
			}
			last := tt.statuses[len(tt.statuses)-1]
			if last >= 300 && err == nil {
				t.Fatalf("want an error after status %d", last)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("error %v, want %v", err, tt.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), "SECRET") {
				t.Errorf("error shows the query string: %v", err)
			}
			if got := calls.Load(); got != tt.wantCalls {
				t.Errorf("%d calls, want %d", got, tt.wantCalls)
			}
			if tt.wantWaits != nil && (len(waits) != len(tt.wantWaits) || waits[0] != tt.wantWaits[0]) {
				t.Errorf("waits %v, want %v", waits, tt.wantWaits)
			}
		})
	}
}

func TestClientStopsOnCancel(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }))
	defer srv.Close()
	c := NewClient(RetryPolicy{MaxAttempts: 100, BaseDelay: time.Hour, MaxDelay: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Do(ctx, func(ctx context.Context) (*http.Request, error) {
		return http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("got %v after %s, want a prompt deadline error", err, time.Since(start))
	}
}

// Wait sleeps the policy's back-off of the attempt (doubling from
// BaseDelay, capped at MaxDelay, half of it jitter) through the
// replaceable sleep.
func TestClientWaitBacksOff(t *testing.T) {
	c := NewClient(RetryPolicy{MaxAttempts: 5, BaseDelay: time.Second, MaxDelay: 3 * time.Second})
	var waits []time.Duration
	c.SetSleep(func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil })
	for attempt := 1; attempt <= 3; attempt++ {
		if err := c.Wait(context.Background(), attempt); err != nil {
			t.Fatal(err)
		}
	}
	bounds := [][2]time.Duration{{500 * time.Millisecond, time.Second}, {time.Second, 2 * time.Second}, {1500 * time.Millisecond, 3 * time.Second}}
	if len(waits) != len(bounds) {
		t.Fatalf("waits %v", waits)
	}
	for i, b := range bounds {
		if waits[i] < b[0] || waits[i] > b[1] {
			t.Errorf("wait %d = %s, want %s to %s", i+1, waits[i], b[0], b[1])
		}
	}
}
