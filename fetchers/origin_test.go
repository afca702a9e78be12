package fetchers

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

func TestCheckOrigin(t *testing.T) {
	tests := []struct {
		base, link string
		same       bool
	}{
		{"https://prices.azure.com/api/retail/prices", "https://prices.azure.com:443/api/retail/prices?$skip=1000", true},
		{"https://PRICES.azure.com/api", "https://prices.azure.com/other", true},
		{"http://127.0.0.1:8080/x", "http://127.0.0.1:8080/y?z", true},
		{"https://prices.azure.com/api", "http://prices.azure.com/api", false},
		{"https://prices.azure.com/api", "https://prices.azure.com:8443/api", false},
		{"https://prices.azure.com/api", "https://prices.azure.com.evil.example/api", false},
		{"https://pricing.us-east-1.amazonaws.com", "https://example.com/offers/index.json", false},
	}
	for _, tt := range tests {
		b, _ := url.Parse(tt.base)
		l, _ := url.Parse(tt.link)
		err := CheckOrigin(b, l, "link")
		if (err == nil) != tt.same || (err != nil && !errors.Is(err, ErrForeignOrigin)) {
			t.Errorf("CheckOrigin(%s, %s) = %v, want same origin %v", tt.base, tt.link, err, tt.same)
		}
	}
}

// A download URL an API hands out may be on another host (Azure China's
// price sheet is a signed blob URL), but never over http when the API is
// https, never with user info, never relative or of another scheme.
func TestCheckHandedOut(t *testing.T) {
	tests := []struct {
		base, link string
		ok         bool
	}{
		{"https://prices.azure.cn", "https://upapisachinanorth3.blob.core.chinacloudapi.cn/retailpricesasync/2023060101/AzureRetailPrices.csv?sig=x", true},
		{"http://127.0.0.1:8080", "http://127.0.0.1:9090/sheet.csv", true},
		{"http://127.0.0.1:8080", "https://127.0.0.1:9090/sheet.csv", true},
		{"https://prices.azure.cn", "http://upapisachinanorth3.blob.core.chinacloudapi.cn/x.csv", false},
		{"https://prices.azure.cn", "https://user:pw@blob.example/x.csv", false},
		{"https://prices.azure.cn", "/relative/x.csv", false},
		{"https://prices.azure.cn", "ftp://blob.example/x.csv", false},
	}
	for _, tt := range tests {
		b, _ := url.Parse(tt.base)
		l, _ := url.Parse(tt.link)
		err := CheckHandedOut(b, l, "DownloadUrl")
		if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrForeignOrigin)) {
			t.Errorf("CheckHandedOut(%s, %s) = %v, want allowed %v", tt.base, tt.link, err, tt.ok)
		}
		if err != nil && strings.Contains(err.Error(), "sig=") {
			t.Errorf("error shows the signature: %v", err)
		}
	}
}

// Redirects within the origin are followed; one to another origin fails
// at once (no retry) without contacting it.
func TestClientRedirectsStayOnOrigin(t *testing.T) {
	var foreignHits atomic.Int32
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { foreignHits.Add(1) }))
	defer foreign.Close()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		switch r.URL.Path {
		case "/moved":
			http.Redirect(w, r, "/here", http.StatusMovedPermanently)
		case "/away":
			http.Redirect(w, r, foreign.URL+"/x", http.StatusFound)
		case "/here":
			w.Write([]byte("ok"))
		}
	}))
	defer srv.Close()
	c := NewClient(RetryPolicy{MaxAttempts: 3, BaseDelay: 1, MaxDelay: 1})
	get := func(path string) error {
		resp, err := c.Do(t.Context(), func(ctx context.Context) (*http.Request, error) {
			return http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+path, nil)
		})
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	if err := get("/moved"); err != nil {
		t.Errorf("same-origin redirect: %v", err)
	}
	calls.Store(0)
	if err := get("/away"); !errors.Is(err, ErrForeignOrigin) {
		t.Errorf("foreign redirect: %v, want ErrForeignOrigin", err)
	}
	if calls.Load() != 1 || foreignHits.Load() != 0 {
		t.Errorf("%d calls to the origin (want 1: not retried), %d to the foreign host (want 0)", calls.Load(), foreignHits.Load())
	}
}
