package azure

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers"
)

// A NextPageLink, or a redirect, to another origin is never followed: the
// run fails with ErrForeignOrigin, and the foreign host is not contacted,
// so nothing it serves can be stored (or quoted in the run's error).
func TestForeignNextPageLinkAndRedirectAreRefused(t *testing.T) {
	page1, err := os.ReadFile(filepath.Join("testdata", "pages", "eastus-1.json"))
	if err != nil {
		t.Fatal(err)
	}
	var foreignHits atomic.Int32
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		foreignHits.Add(1)
		w.Write([]byte(`{"Items":[],"NextPageLink":null,"Count":0} FOREIGN-BODY`))
	}))
	defer foreign.Close()

	tests := []struct {
		name  string
		serve func(f *fakeAzure) func(w http.ResponseWriter, r *http.Request, n int) bool
	}{
		{"next page on another host", func(f *fakeAzure) func(http.ResponseWriter, *http.Request, int) bool {
			return func(w http.ResponseWriter, r *http.Request, n int) bool {
				w.Write([]byte(strings.ReplaceAll(string(page1), "https://prices.azure.com:443", foreign.URL)))
				return true
			}
		}},
		{"next page on the same host, another port", func(f *fakeAzure) func(http.ResponseWriter, *http.Request, int) bool {
			return func(w http.ResponseWriter, r *http.Request, n int) bool {
				other := strings.Replace(f.srv.URL, "127.0.0.1:", "127.0.0.1:1", 1)
				w.Write([]byte(strings.ReplaceAll(string(page1), "https://prices.azure.com:443", other)))
				return true
			}
		}},
		{"next page with another scheme", func(f *fakeAzure) func(http.ResponseWriter, *http.Request, int) bool {
			return func(w http.ResponseWriter, r *http.Request, n int) bool {
				w.Write([]byte(strings.ReplaceAll(string(page1), "https://prices.azure.com:443", strings.Replace(f.srv.URL, "http://", "https://", 1))))
				return true
			}
		}},
		{"redirect to another host", func(f *fakeAzure) func(http.ResponseWriter, *http.Request, int) bool {
			return func(w http.ResponseWriter, r *http.Request, n int) bool {
				http.Redirect(w, r, foreign.URL+"/api/retail/prices?"+r.URL.RawQuery, http.StatusFound)
				return true
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			foreignHits.Store(0)
			fake := newFake(t)
			fake.intercept = tt.serve(fake)
			f, _ := newTestFetcher(t, Config{Endpoint: fake.srv.URL + "/api/retail/prices", Regions: []string{"eastus"}}, nil)
			snap, err := f.Fetch(t.Context(), fetchers.Previous{})
			if !errors.Is(err, fetchers.ErrForeignOrigin) {
				t.Fatalf("Fetch: %v (snapshot %v), want ErrForeignOrigin", err, snap != nil)
			}
			if snap != nil {
				t.Error("a snapshot came back with the error")
			}
			if n := foreignHits.Load(); n != 0 {
				t.Errorf("the foreign host was asked %d times", n)
			}
			if strings.Contains(err.Error(), "FOREIGN-BODY") {
				t.Errorf("the error quotes the foreign body: %v", err)
			}
			if fake.count() != 1 {
				t.Errorf("%d requests to the endpoint, want 1 (no retry of a refused link)", fake.count())
			}
		})
	}
}
