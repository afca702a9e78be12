package aws

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers"
)

// A region index whose currentVersionUrl names another origin (another
// host, or http where the endpoint is https) is not followed: the run
// fails with ErrForeignOrigin and the foreign host is never asked.
func TestForeignPriceFileURLIsRefused(t *testing.T) {
	var foreignHits atomic.Int32
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		foreignHits.Add(1)
		w.Write([]byte(`{"products":{},"terms":{}} FOREIGN-BODY`))
	}))
	defer foreign.Close()
	var endpoint string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != ec2RegionIndexPath {
			http.NotFound(w, r)
			return
		}
		// The real index gives a path; this one gives an absolute URL.
		fmt.Fprintf(w, `{"formatVersion":"v1.0","disclaimer":"","publicationDate":"2026-11-30T00:00:00Z","regions":{"us-east-1":{"regionCode":"us-east-1","currentVersionUrl":"%s/offers/v1.0/aws/AmazonEC2/20261130000000/us-east-1/index.json"}}}`, endpoint)
	}))
	defer srv.Close()
	for _, tt := range []struct{ name, base string }{
		{"another host", foreign.URL},
		{"another scheme", strings.Replace(srv.URL, "http://", "https://", 1)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			endpoint = tt.base
			foreignHits.Store(0)
			f, err := New(Config{Endpoint: srv.URL, Regions: []string{"us-east-1"}}, fetchers.NewClient(fetchers.DefaultRetryPolicy()), nil)
			if err != nil {
				t.Fatal(err)
			}
			snap, err := f.Fetch(t.Context(), fetchers.Previous{})
			if !errors.Is(err, fetchers.ErrForeignOrigin) || snap != nil {
				t.Fatalf("Fetch: %v, want ErrForeignOrigin and no snapshot", err)
			}
			if foreignHits.Load() != 0 {
				t.Error("the foreign host was asked")
			}
			if strings.Contains(err.Error(), "FOREIGN-BODY") {
				t.Errorf("error quotes the foreign body: %v", err)
			}
		})
	}
}
