package alerting_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/alerting"
)

func TestRetryAfterHeader(t *testing.T) {
	tests := []struct {
		value string
		want  time.Duration
	}{
		{"7", 7 * time.Second},
		{" 0 ", 0},
		{"", 30 * time.Second},
		{"-3", 30 * time.Second},
		{"soon", 30 * time.Second},
		{"Wed, 21 Oct 2026 07:28:00 GMT", 30 * time.Second}, // a date is not what Slack sends
	}
	for _, tt := range tests {
		h := http.Header{}
		if tt.value != "" {
			h.Set("Retry-After", tt.value)
		}
		if got := alerting.RetryAfterHeader(h); got != tt.want {
			t.Errorf("Retry-After %q: %s, want %s", tt.value, got, tt.want)
		}
	}
}
