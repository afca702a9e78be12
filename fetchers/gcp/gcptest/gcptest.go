// Package gcptest is a fake of the Cloud Billing Catalog API's
// services.skus.list for Compute Engine: it serves the SKUs of testdata/
// (real captures and the constructed parts its README names) in pages
// linked by nextPageToken, answers a wrong or missing X-goog-api-key as
// Google does (HTTP 400, API_KEY_INVALID, the captured body), and lets a
// test change a SKU's price, add a SKU or make the next responses fail.
package gcptest

import (
	"embed"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
)

// Path is services.skus.list of Compute Engine under the API's base URL.
const Path = "/v1/services/6F81-5844-456A/skus"

// Key is the API key the fake accepts.
const Key = "AIzaSyFAKE-gcptest-key-0123456789abcdef"

//go:embed testdata/*.json
var samples embed.FS

// Pages are the sample files served, one page each, in order; the last
// page also carries the single SKUs (a Commit1Yr A2 core, a tiered
// egress SKU, T2D in IDR) that no GPU machine is priced from.
var Pages = [][]string{
	{"cloudbilling-v1-skus-page-A100-A2-us-20230324.json"},
	{"cloudbilling-v1-skus-GPU-Americas-H100-H200-commit-spot-20260518.json"},
	{"cloudbilling-v1-skus-A3-G2-parts-constructed.json",
		"cloudbilling-v1-sku-Commit1Yr-A2-cpu-apac-20231220.json",
		"cloudbilling-v1-sku-tiered-network-egress-20211126.json",
		"cloudbilling-v1-skus-T2D-singapore-IDR-20230810-normalised.json"},
}

// Sample returns one file of testdata/.
func Sample(t testing.TB, name string) []byte {
	t.Helper()
	return fetcherstest.Sample(t, samples, "testdata/"+name)
}

// Server is the fake API.
type Server struct {
	*httptest.Server
	fetcherstest.Faults
	// Key is the API key accepted; another gets Google's 400.
	Key string

	mu       sync.Mutex
	pages    [][]map[string]any
	keyError []byte
	// loop makes every page point back to the first (LoopPages).
	loop bool
	// keys and queries log every request's X-goog-api-key and query.
	keys, queries []string
}

// New starts a fake serving Pages.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{Key: Key, keyError: Sample(t, "cloudbilling-v1-error-API_KEY_INVALID.json")}
	for _, files := range Pages {
		var page []map[string]any
		for _, f := range files {
			var doc struct {
				SKUs []map[string]any `json:"skus"`
			}
			if err := json.Unmarshal(Sample(t, f), &doc); err != nil {
				t.Fatalf("gcptest: %s: %v", f, err)
			}
			page = append(page, doc.SKUs...)
		}
		s.pages = append(s.pages, page)
	}
	s.Server = s.Serve(t, &s.mu, http.MethodGet, Path, s.serve)
	return s
}

// token names page i (from 0) in nextPageToken.
func token(i int) string { return fmt.Sprintf("gcptest-page-%d", i+1) }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.keys = append(s.keys, r.Header.Get("X-goog-api-key"))
	s.queries = append(s.queries, r.URL.RawQuery)
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	if r.Header.Get("X-goog-api-key") != s.Key || r.URL.Query().Has("key") {
		w.WriteHeader(http.StatusBadRequest)
		w.Write(s.keyError)
		return
	}
	if size, err := strconv.Atoi(r.URL.Query().Get("pageSize")); err != nil || size < 1 || size > 5000 {
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error":{"code":400,"message":"Invalid page size","status":"INVALID_ARGUMENT"}}`))
		return
	}
	i := 0
	if tok := r.URL.Query().Get("pageToken"); tok != "" {
		i = -1
		for j := range s.pages {
			if token(j) == tok {
				i = j
			}
		}
		if i < 0 {
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":{"code":400,"message":"Invalid page token","status":"INVALID_ARGUMENT"}}`))
			return
		}
	}
	body := map[string]any{"skus": s.pages[i]}
	switch {
	case s.loop:
		body["nextPageToken"] = token(0)
	case i+1 < len(s.pages):
		body["nextPageToken"] = token(i + 1)
	}
	b, _ := json.MarshalIndent(body, "", "  ")
	if !fetcherstest.Write(w, s.Next(), b, `{"error":{"code":429,"message":"Quota exceeded","status":"RESOURCE_EXHAUSTED"}}`) {
		w.Write(b)
	}
}

// APIKeys lists the X-goog-api-key header of every request.
func (s *Server) APIKeys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.keys...)
}

// Queries lists the query string of every request.
func (s *Server) Queries() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.queries...)
}

// LoopPages makes every page point back to the first: a token that
// never ends.
func (s *Server) LoopPages() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loop = true
}

// SetPrice sets the list price (the tier at 0) of every SKU skuID on
// every page.
func (s *Server) SetPrice(t testing.TB, skuID string, units int64, nanos int32) {
	t.Helper()
	s.setTier(t, skuID, func(price map[string]any) {
		price["units"], price["nanos"] = strconv.FormatInt(units, 10), nanos
	})
}

// SetUnits sets the units of the list price (the tier at 0) of every SKU
// skuID to v as it is, readable or not.
func (s *Server) SetUnits(t testing.TB, skuID, v string) {
	t.Helper()
	s.setTier(t, skuID, func(price map[string]any) { price["units"] = v })
}

// setTier hands set the unit price of the tier at 0 of every SKU skuID.
func (s *Server) setTier(t testing.TB, skuID string, set func(price map[string]any)) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	found := false
	for _, page := range s.pages {
		for _, sku := range page {
			if sku["skuId"] != skuID {
				continue
			}
			found = true
			for _, pi := range sku["pricingInfo"].([]any) {
				pe := pi.(map[string]any)["pricingExpression"].(map[string]any)
				set(pe["tieredRates"].([]any)[0].(map[string]any)["unitPrice"].(map[string]any))
			}
		}
	}
	if !found {
		t.Fatalf("gcptest: no SKU %s", skuID)
	}
}

// SetPage replaces the SKUs of page (from 0); nil serves none.
func (s *Server) SetPage(t testing.TB, page int, skus []map[string]any) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if page >= len(s.pages) {
		t.Fatalf("gcptest: no page %d", page)
	}
	s.pages[page] = skus
}

// AddSKU appends one SKU, given as its JSON, to page (from 0).
func (s *Server) AddSKU(t testing.TB, page int, skuJSON string) {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(skuJSON), &v); err != nil {
		t.Fatalf("gcptest: SKU: %v", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pages[page] = append(s.pages[page], v)
}
